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

function sdk(path: string): Any {
  try {
    return require(`@modelcontextprotocol/sdk/${path}`);
  } catch {
    throw new CordonError("INVALID_OPTIONS", 'cordon/mcp needs "@modelcontextprotocol/sdk": npm install @modelcontextprotocol/sdk');
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
    name?: string;
    version?: string;
    /** Bytes of each of stdout, stderr, the value and the error message a run's result holds (head and tail). Default 16 KiB. */
    modelOutputBytes?: number;
  } = {},
): Server {
  const max = checkModelOutputBytes(info.modelOutputBytes);
  const { Server } = sdk("server/index.js");
  const { ListToolsRequestSchema, CallToolRequestSchema } = sdk("types.js");
  const server = new Server(
    { name: info.name ?? "cordon", version: info.version ?? "0.1.0" },
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

/**
 * The tools of a connected MCP client as sandbox tools (their JSON Schemas
 * included). With `prefix`, `search` becomes `prefix.search`. A result's
 * `structuredContent` reaches the guest as data; otherwise its text (parsed
 * when it is JSON). A tool error becomes a failed call in the guest.
 */
export async function mcpTools(client: McpClient, options: { prefix?: string } = {}): Promise<ToolDefinition<McpToolArguments>[]> {
  const listed = await client.listTools();
  return listed.tools.map((t) => ({
    name: toolName(String(t.name), options.prefix ?? ""),
    description: typeof t.description === "string" ? t.description : undefined,
    inputSchema: t.inputSchema,
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
