// `cordon/mcp`: the Model Context Protocol in both directions.
// - `createMcpServer(sandbox)` serves a sandbox to MCP clients: the tools
//   `run_javascript`, `run_shell`, `read_file` and `write_file`
//   (`cordon mcp` runs it over stdio).
// - `mcpTools(client)` turns the tools of a connected MCP server into
//   sandbox tools, so guest code calls them under capabilities.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import { Sandbox, CordonError, type RunResult, type SandboxOptions, type ToolDefinition } from "./index";
import { checkModelOutputBytes, clip, forModel, type CodeToolOutput } from "./codetool";

// The SDK's modules as loaded at run time; the public signatures use its types.
type Any = any;

/** What {@link mcpTools} uses of an MCP client: the SDK's `Client`, connected. */
export type McpClient = Pick<Client, "listTools" | "callTool">;

/** The arguments of an MCP tool call, as the SDK types them. */
export type McpToolArguments = NonNullable<CallToolRequest["params"]["arguments"]>;

/** cordon's own version, from its package.json (`dist/` sits beside it). */
function packageVersion(): string {
  return (require("../package.json") as { version: string }).version;
}

function sdk(path: string): Any {
  try {
    return require(`@modelcontextprotocol/sdk/${path}`);
  } catch {
    throw new CordonError("MISSING_PEER", 'cordon/mcp needs "@modelcontextprotocol/sdk": npm install @modelcontextprotocol/sdk');
  }
}

const CODE_SCHEMA = {
  type: "object",
  properties: { code: { type: "string", description: "The program to run." } },
  required: ["code"],
  additionalProperties: false,
};

/** A run as the client's model reads it: capped (see `forModel`). */
function runText(r: RunResult, max: number): string {
  const out: CodeToolOutput = { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  if (r.value !== undefined) out.value = r.value;
  if (r.error) out.error = { name: r.error.name, message: r.error.message };
  return JSON.stringify(forModel(out, max));
}

/**
 * An MCP server (the SDK's `Server`, not yet connected) exposing `sandbox`:
 * `run_javascript` and `run_shell` (`{ code }`), `read_file` (`{ path }`) and
 * `write_file` (`{ path, content }`). Results are JSON text; a limit or a
 * file error is an MCP tool error (`isError: true`) with the code.
 */
export function createMcpServer(
  sandbox: Sandbox,
  info: {
    /** The server's name in the MCP handshake. Default `"cordon"`. */
    name?: string;
    /** The server's version in the MCP handshake. Default cordon's own, from its package.json. */
    version?: string;
    /** Bytes of each of stdout, stderr, the value and the error message a run's result holds (head and tail). Default 16 KiB. */
    modelOutputBytes?: number;
  } = {},
): Server {
  const max = checkModelOutputBytes(info.modelOutputBytes);
  const { Server } = sdk("server/index.js");
  const { ListToolsRequestSchema, CallToolRequestSchema } = sdk("types.js");
  const server = new Server(
    { name: info.name ?? "cordon", version: info.version ?? packageVersion() },
    { capabilities: { tools: {} } },
  );
  const description = sandbox.describe();
  const tools = [
    { name: "run_javascript", description: `Run JavaScript in the sandbox.\n\n${description}`, inputSchema: CODE_SCHEMA },
    { name: "run_shell", description: `Run a bash-compatible shell script in the sandbox.\n\n${description}`, inputSchema: CODE_SCHEMA },
    {
      name: "read_file",
      description: "Read a text file of the sandbox (paths relative to /workspace).",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
    },
    {
      name: "write_file",
      description: "Write a text file in the sandbox (/workspace and /tmp are writable).",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
        additionalProperties: false,
      },
    },
  ];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request: Any, extra: Any) => {
    const { name, arguments: args = {} } = request.params;
    const text = (t: string, isError = false) => ({ content: [{ type: "text", text: t }], ...(isError ? { isError } : {}) });
    const str = (v: unknown, key: string): string => {
      if (typeof v !== "string") throw new CordonError("INVALID_OPTIONS", `${name}: ${key} must be a string`);
      return v;
    };
    try {
      switch (name) {
        case "run_javascript":
        case "run_shell": {
          const language = name === "run_shell" ? "shell" : "javascript";
          const signal: AbortSignal | undefined = extra?.signal;
          const r = await sandbox.run(str(args.code, "code"), signal ? { language, signal } : { language });
          return text(runText(r, max), r.exitCode !== 0);
        }
        case "read_file":
          return text(clip(await sandbox.fs.readFile(str(args.path, "path"), "utf8"), max));
        case "write_file":
          await sandbox.fs.writeFile(str(args.path, "path"), str(args.content, "content"));
          return text("ok");
        default:
          return text(`unknown tool ${JSON.stringify(name)}`, true);
      }
    } catch (err) {
      const e = err as { code?: string; message?: string };
      return text(JSON.stringify({ error: { code: e.code ?? "ERROR", message: String(e.message ?? err) } }), true);
    }
  });
  return server;
}

/** Serves a new sandbox with `options` over stdio until stdin closes (`cordon mcp`). */
export async function serveStdio(options: SandboxOptions = {}): Promise<void> {
  const { StdioServerTransport } = sdk("server/stdio.js");
  const sandbox = await Sandbox.create(options);
  const server = createMcpServer(sandbox);
  await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await sandbox.close();
}

/** A tool name cordon accepts: segments of `[A-Za-z0-9_-]` joined by `.`. */
function toolName(name: string, prefix: string): string {
  const clean = name.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/\.{2,}/g, ".").replace(/^\.|\.$/g, "") || "tool";
  return prefix ? `${prefix}.${clean}` : clean;
}

/** Pages of `tools/list` {@link mcpTools} reads by default. */
const MAX_PAGES = 100;

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** Put before each name: with `"shop"`, `search` becomes `shop.search`. */
  prefix?: string;
  /** Pages of the server's tool list to read at most (`INVALID_OPTIONS` past it). Default 100. */
  maxPages?: number;
}

/**
 * The server's description with what its annotations say, as the model
 * reads it in `describe()`: `(read-only, idempotent) Search: Finds products.`
 * The hints are the server's claims, not checked.
 */
function annotatedDescription(t: Any): string | undefined {
  const a = t.annotations !== null && typeof t.annotations === "object" ? t.annotations : {};
  const hints: string[] = [];
  if (a.readOnlyHint === true) hints.push("read-only");
  // The spec's defaults: a tool that is not read-only may be destructive.
  else if (a.destructiveHint === true) hints.push("destructive");
  else if (a.destructiveHint === false) hints.push("not destructive");
  if (a.idempotentHint === true) hints.push("idempotent");
  if (a.openWorldHint === true) hints.push("open world");
  else if (a.openWorldHint === false) hints.push("closed world");
  const title = typeof t.title === "string" && t.title.trim() ? t.title.trim() : typeof a.title === "string" && a.title.trim() ? a.title.trim() : "";
  const description = typeof t.description === "string" && t.description.trim() ? t.description.trim() : "";
  const parts = [hints.length > 0 ? `(${hints.join(", ")})` : "", title && description ? `${title}:` : title, description];
  return parts.filter(Boolean).join(" ") || undefined;
}

/**
 * The tools of a connected MCP client as sandbox tools, read from every page
 * of its list (at most `maxPages`), with their input and output JSON Schemas
 * (`describe()` shows the output schema as the result type) and their
 * annotations in the description. With `prefix`, `search` becomes
 * `prefix.search`; two tools whose names become the same are
 * `INVALID_OPTIONS`. A result's `structuredContent` reaches the guest as
 * data; otherwise its text (parsed when it is JSON). A tool error becomes a
 * failed call in the guest.
 */
export async function mcpTools(client: McpClient, options: McpToolsOptions = {}): Promise<ToolDefinition<McpToolArguments>[]> {
  const maxPages = options.maxPages ?? MAX_PAGES;
  if (!Number.isInteger(maxPages) || maxPages < 1) {
    throw new CordonError("INVALID_OPTIONS", `maxPages must be an integer of at least 1, got ${String(maxPages)}`);
  }
  const listed: Awaited<ReturnType<McpClient["listTools"]>>["tools"] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page === maxPages) {
      throw new CordonError("INVALID_OPTIONS", `the MCP server's tool list has more than ${maxPages} pages (maxPages)`);
    }
    const r = await client.listTools(cursor === undefined ? undefined : { cursor });
    listed.push(...r.tools);
    if (typeof r.nextCursor !== "string") break;
    // A cursor seen before would list the same pages forever.
    if (cursors.has(r.nextCursor)) {
      throw new CordonError("INVALID_OPTIONS", `the MCP server's tool list repeats its cursor ${JSON.stringify(r.nextCursor.slice(0, 100))}`);
    }
    cursors.add(r.nextCursor);
    cursor = r.nextCursor;
  }
  const named = new Map<string, string>();
  for (const t of listed) {
    const name = toolName(String(t.name), options.prefix ?? "");
    const other = named.get(name);
    if (other !== undefined) {
      throw new CordonError(
        "INVALID_OPTIONS",
        `the MCP tools ${JSON.stringify(other)} and ${JSON.stringify(String(t.name))} would both be named ${JSON.stringify(name)}`,
      );
    }
    named.set(name, String(t.name));
  }
  return listed.map((t) => ({
    name: toolName(String(t.name), options.prefix ?? ""),
    description: annotatedDescription(t),
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
    execute: async (args: McpToolArguments) => {
      const r = await client.callTool({ name: t.name, arguments: args });
      const texts = (Array.isArray(r.content) ? r.content : [])
        .filter((c: Any) => c && c.type === "text")
        .map((c: Any) => String(c.text));
      if (r.isError) throw new Error(texts.join("\n") || `${t.name} failed`);
      if (r.structuredContent !== undefined) return r.structuredContent;
      const joined = texts.join("\n");
      try {
        return JSON.parse(joined);
      } catch {
        return joined;
      }
    },
  }));
}
