// `cordon/ai`: a Vercel AI SDK (v5 and later) tool that runs the model's
// code in a cordon sandbox — "code mode": one script makes many tool calls.
//
//   import { createCodeTool } from "cordon/ai";
//   const runCode = await createCodeTool({ tools: { get_weather }, capabilities: [{ method: "get_weather" }] });
//   await generateText({ model, tools: { run_code: runCode }, prompt, stopWhen: stepCountIs(5) });
//   await runCode.sandbox.close();

import type { Tool, ToolSet } from "ai";
import { Sandbox, CordonError, FsError, type Language, type SandboxOptions, type ToolEntry } from "./index";
import { IGNORE_UNMATCHED, describeOptions } from "./sandbox";
import { checkLanguages, checkModelOutputBytes, codeInputSchema, modelOutput, runForModel, type CodeToolInput, type CodeToolOutput } from "./codetool";

export type { CodeToolInput, CodeToolOutput };

/** The AI SDK tool {@link createCodeTool} returns, with its sandbox. */
export type CodeTool = Tool<CodeToolInput, CodeToolOutput> & {
  /** The conversation's sandbox: close it when the conversation ends. */
  readonly sandbox: Sandbox;
};

/** Options of {@link createCodeTool}: the sandbox's, plus the tool's own. */
export interface CodeToolOptions extends SandboxOptions {
  /** Languages the model may use. Default both. */
  languages?: Language[];
  /** Text put before the generated description of the sandbox. */
  description?: string;
  /** Bytes of each of stdout, stderr, the value and the error message that go back to the model
   * from one run (head and tail, with how much was cut). Default 16 KiB; the AI SDK's steps keep it whole. */
  modelOutputBytes?: number;
}

/** The parts of `ai` this module calls, as loaded at run time (any major from 5). */
type AiModule = {
  tool: (definition: Record<string, unknown>) => Record<string, unknown>;
  jsonSchema: (schema: Record<string, unknown>) => unknown;
  /** AI SDK 7 and later. */
  experimental_toolCaller?: (tool: Record<string, unknown>, definition: Record<string, unknown>) => Record<string, unknown>;
};

function loadAi(): AiModule {
  try {
    return require("ai") as AiModule;
  } catch {
    throw new CordonError("MISSING_PEER", 'cordon/ai needs the "ai" package (the Vercel AI SDK, v5 or later): npm install ai');
  }
}

/**
 * Creates the sandbox (one for the conversation: files and globals persist
 * between the model's runs) and returns an AI SDK tool whose input is
 * `{ code, language }`. The tool's description is {@link Sandbox.describe}.
 * The AI SDK's `abortSignal` cancels a run. Tools may be AI SDK tools (Zod
 * or JSON schemas) or cordon tools. The returned tool carries the sandbox as
 * `.sandbox` (close it when the conversation ends).
 */
export async function createCodeTool(options: CodeToolOptions = {}): Promise<CodeTool> {
  const ai = loadAi();
  const { languages: requested = ["javascript", "shell"], description, modelOutputBytes, ...sandboxOptions } = options;
  const languages = checkLanguages(requested);
  const toModelOutput = modelOutput(checkModelOutputBytes(modelOutputBytes));
  const sandbox = await Sandbox.create({ ...sandboxOptions, languages });
  const text = (description ? `${description.trim()}\n\n` : "") + sandbox.describe();
  const tool = ai.tool({
    description: text,
    inputSchema: ai.jsonSchema(codeInputSchema(languages)),
    execute: (input: CodeToolInput, context?: { abortSignal?: AbortSignal }) =>
      runForModel(sandbox, input, languages, context?.abortSignal),
    toModelOutput,
  });
  Object.defineProperty(tool, "sandbox", { value: sandbox, enumerable: false });
  return tool as unknown as CodeTool;
}

/** An AI SDK tool as the AI SDK hands it to a tool caller. */
type AiTool = {
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  needsApproval?: unknown;
  execute?: (input: unknown, options: Record<string, unknown>) => unknown;
};

/** Options of {@link createCodeCaller}: a sandbox's, without `tools`. */
export interface CodeCallerOptions extends Omit<CodeToolOptions, "tools"> {}

/**
 * The caller tool: an AI SDK tool marked as a tool caller (AI SDK 7's
 * `Experimental_ToolCallerTool`, which older majors do not export, so its
 * shape is spelled out here with their `Tool` and `ToolSet`), with
 * `close()` for its sandboxes.
 */
export type CodeCaller = Tool<CodeToolInput, CodeToolOutput> & {
  readonly experimental_toolCaller: {
    type: "local";
    bind: (tools: ToolSet) => Tool;
    prepareModelMessage?: (tools: ToolSet) => string | undefined;
  };
  /** Closes the sandboxes of every conversation. */
  close(): Promise<void>;
};

/**
 * Code mode for AI SDK 7's tool callers: returns a tool marked with
 * `experimental_toolCaller`. Route tools to it with `experimental_toolCallers`
 * (`{ get_weather: ["run_code"] }`) and the AI SDK binds it to them: the
 * model's code calls them in a cordon sandbox, under `capabilities` (default:
 * each routed tool, unconstrained, except tools that need approval, which
 * stay denied: the routing is the grant). The model sees
 * one stable tool; the routed tools are announced as TypeScript declarations
 * in a message. Nested calls get the outer call's abort signal and context. One sandbox serves the conversation while the routed
 * tools stay the same; `close()` ends it.
 */
export async function createCodeCaller(options: CodeCallerOptions = {}): Promise<CodeCaller> {
  const ai = loadAi();
  if (typeof ai.experimental_toolCaller !== "function") {
    throw new CordonError("INVALID_OPTIONS", 'createCodeCaller needs AI SDK 7 or later ("ai" exports no experimental_toolCaller)');
  }
  const { languages: requested = ["javascript", "shell"], description, modelOutputBytes, ...sandboxOptions } = options;
  const toModelOutput = modelOutput(checkModelOutputBytes(modelOutputBytes));
  if ("tools" in sandboxOptions) {
    throw new CordonError("INVALID_OPTIONS", "createCodeCaller takes no tools: the AI SDK binds the routed ones");
  }
  const languages = checkLanguages(requested);
  // A sandbox with the same limits tells the effective limits for the
  // descriptions.
  const probe = await Sandbox.create(sandboxOptions.limits ? { limits: sandboxOptions.limits } : {});
  const limits = probe.limits;
  await probe.close();

  const optionsFor = (tools: Record<string, AiTool>, call: (name: string, args: unknown) => unknown): SandboxOptions => {
    const entries: Record<string, ToolEntry> = {};
    for (const [name, t] of Object.entries(tools)) {
      entries[name] = {
        ...(t.description ? { description: t.description } : {}),
        ...(t.inputSchema ? { inputSchema: t.inputSchema } : {}),
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        execute: (args: unknown) => call(name, args),
      };
    }
    const options: SandboxOptions & { [IGNORE_UNMATCHED]: boolean } = {
      ...sandboxOptions,
      // The user's capabilities may name tools another call routes.
      [IGNORE_UNMATCHED]: true,
      languages,
      tools: entries,
      // The routing grants each tool, except those that need approval: a
      // script has no one to ask, so they stay denied.
      capabilities:
        sandboxOptions.capabilities ??
        Object.entries(tools)
          .filter(([, t]) => !t.needsApproval)
          .map(([method]) => ({ method })),
    };
    return options;
  };
  const announce = (tools: Record<string, AiTool>) =>
    (description ? `${description.trim()}\n\n` : "") + describeOptions(optionsFor(tools, () => undefined), limits);
  // Malformed options fail here, not when the AI SDK first binds the caller.
  announce({});

  // One session per conversation: its sandbox (for the current tool set),
  // the tools routed to it, and the outer call's options for the nested calls
  // of its run in progress (runs of one sandbox never overlap). Nothing is
  // shared between conversations: not files, globals, tools nor context.
  type Session = { key: string; sandbox: Promise<Sandbox>; routed: Record<string, AiTool>; outer: Record<string, unknown>; seq: number };
  // A conversation is known by its first message object, which the AI SDK
  // hands every step of a generateText/streamText call (and each call made
  // with the same message history). Calls without messages share one session.
  const sessions = new WeakMap<object, Session>();
  const open = new Set<Promise<Sandbox>>();
  const closeLater = (sandbox: Promise<Sandbox>) => {
    open.delete(sandbox);
    void sandbox.then((sb) => sb.close(), () => undefined);
  };
  // A conversation that is gone (its messages collected) closes its sandbox.
  const finalizer = new FinalizationRegistry<{ sandbox: Promise<Sandbox> }>((held) => closeLater(held.sandbox));
  const noMessages = {};
  const nested = (session: Session) => async (name: string, args: unknown) => {
    const t = session.routed[name];
    const outer = session.outer;
    if (!t || typeof t.execute !== "function") throw new Error(`tool ${name} cannot be executed here`);
    if (t.needsApproval) throw new Error(`tool ${name} needs approval, which a script cannot give`);
    return t.execute(args, {
      toolCallId: `${String(outer.toolCallId ?? "code")}.${++session.seq}`,
      messages: outer.messages ?? [],
      abortSignal: outer.abortSignal,
      ...(outer.context !== undefined ? { context: outer.context } : {}),
      ...(outer.experimental_context !== undefined ? { experimental_context: outer.experimental_context } : {}),
      ...(outer.experimental_sandbox !== undefined ? { experimental_sandbox: outer.experimental_sandbox } : {}),
    });
  };
  const sessionFor = (tools: Record<string, AiTool>, options: Record<string, unknown>): Session => {
    const messages = options.messages;
    const first = Array.isArray(messages) && messages[0] !== null && typeof messages[0] === "object" ? (messages[0] as object) : noMessages;
    const key = JSON.stringify(Object.keys(tools).sort());
    let session = sessions.get(first);
    if (session?.key !== key) {
      if (session) closeLater(session.sandbox);
      const fresh: Session = { key, sandbox: Promise.resolve(null as unknown as Sandbox), routed: tools, outer: {}, seq: 0 };
      fresh.sandbox = Sandbox.create(optionsFor(tools, nested(fresh)));
      open.add(fresh.sandbox);
      if (session) finalizer.unregister(session);
      finalizer.register(first, { sandbox: fresh.sandbox }, fresh);
      sessions.set(first, fresh);
      session = fresh;
    }
    session.routed = tools;
    return session;
  };

  const inputSchema = ai.jsonSchema(codeInputSchema(languages));
  const bound = (tools: Record<string, AiTool>) =>
    ai.tool({
      description: announce(tools),
      inputSchema,
      execute: async (input: CodeToolInput, options: Record<string, unknown> = {}) => {
        const session = sessionFor(tools, options);
        const sandbox = await session.sandbox;
        // Kept only while the run lasts: between runs the sandbox holds
        // nothing of the conversation (whose collection closes it).
        session.outer = options;
        try {
          return await runForModel(sandbox, input, languages, options.abortSignal as AbortSignal | undefined);
        } finally {
          if (session.outer === options) session.outer = {};
        }
      },
      toModelOutput,
    });
  const unbound = ai.tool({
    description:
      "Run JavaScript or shell code in a cordon sandbox (no network, no host files). The functions it can call " +
      "and the sandbox's limits are announced in the conversation.",
    inputSchema,
    execute: async () => {
      throw new CordonError("INVALID_OPTIONS", "this code tool was not bound to any tools (experimental_toolCallers)");
    },
  });
  const caller = ai.experimental_toolCaller(unbound, {
    type: "local",
    bind: (tools: Record<string, AiTool>) => bound(tools),
    prepareModelMessage: (tools: Record<string, AiTool>) => announce(tools),
  });
  Object.defineProperty(caller, "close", {
    value: async () => {
      const all = [...open];
      open.clear();
      await Promise.all(all.map((sandbox) => sandbox.then((sb) => sb.close(), () => undefined)));
    },
    enumerable: false,
  });
  return caller as unknown as CodeCaller;
}

/** What a command of a {@link SandboxSession} takes. */
export interface SandboxCommandOptions {
  command: string;
  /** Default: the session's `root`. */
  workingDirectory?: string;
  env?: Record<string, string>;
  abortSignal?: AbortSignal;
}

/** A command started by {@link SandboxSession.spawn}: its output streams when it ends. */
export interface SandboxProcess {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  wait(): Promise<{ exitCode: number }>;
  kill(): Promise<void>;
}

/** Spawned with `stdin: true`: the command runs once `stdin` is closed (or at once when killed), with what was written to it. */
export interface WritableSandboxProcess extends SandboxProcess {
  readonly stdin: WritableStream<Uint8Array>;
}

type PathOptions = { path: string; abortSignal?: AbortSignal };
type WriteOptions<Content> = PathOptions & { content: Content };

/**
 * AI SDK 7's `Experimental_SandboxSession`, as {@link createSandboxSession}
 * implements it. Spelled out rather than imported, since AI SDK 5 and 6
 * have no such type; `__tests__/types/` checks that it is assignable to AI
 * SDK 7's.
 */
export interface SandboxSession {
  readonly description: string;
  readonly readFile: (options: PathOptions) => Promise<ReadableStream<Uint8Array> | null>;
  readonly readBinaryFile: (options: PathOptions) => Promise<Uint8Array | null>;
  readonly readTextFile: (options: PathOptions & { encoding?: string; startLine?: number; endLine?: number }) => Promise<string | null>;
  readonly writeFile: (options: WriteOptions<ReadableStream<Uint8Array>>) => Promise<void>;
  readonly writeBinaryFile: (options: WriteOptions<Uint8Array>) => Promise<void>;
  /** UTF-8 only: another `encoding` is refused. */
  readonly writeTextFile: (options: WriteOptions<string> & { encoding?: string }) => Promise<void>;
  readonly stat: (options: PathOptions) => Promise<{ type: "file" | "directory"; size: number } | null>;
  readonly listDirectory: (options: PathOptions) => Promise<{ name: string; type: "file" | "directory" }[] | null>;
  readonly deleteFile: (options: PathOptions) => Promise<boolean>;
  readonly spawn: {
    (options: SandboxCommandOptions & { stdin: true }): Promise<WritableSandboxProcess>;
    (options: SandboxCommandOptions & { stdin?: false }): Promise<SandboxProcess>;
    (options: SandboxCommandOptions & { stdin?: boolean }): Promise<SandboxProcess | WritableSandboxProcess>;
  };
  readonly run: (options: SandboxCommandOptions) => Promise<{ exitCode: number; stdout: string; stderr: string }>;
}

/** What {@link createSandboxSession} accepts beside the sandbox. */
export interface SandboxSessionOptions {
  /** The base directory relative paths and commands start from. Default /workspace. */
  root?: string;
}

const isMissing = (e: unknown) => e instanceof FsError && (e.code === "ENOENT" || e.code === "ENOTDIR");
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const streamOf = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length) controller.enqueue(bytes);
      controller.close();
    },
  });

/**
 * An AI SDK 7 `Experimental_SandboxSession` backed by a cordon sandbox, for
 * `experimental_sandbox`: files are the sandbox's file system, commands run
 * in its shell (each in a subshell starting at `root`, so a `cd` or variable
 * of one command does not leak into the next). A process with `stdin` runs
 * once its stdin is closed; output streams when it ends; the session never
 * reaches the host.
 */
export function createSandboxSession(sandbox: Sandbox, options: SandboxSessionOptions = {}): SandboxSession {
  const root = options.root ?? "/workspace";
  if (typeof root !== "string" || !root.startsWith("/")) {
    throw new CordonError("INVALID_OPTIONS", `root must be an absolute path, got ${JSON.stringify(root)}`);
  }
  const resolve = (p: unknown) => {
    if (typeof p !== "string" || p === "") throw new CordonError("INVALID_OPTIONS", `path must be a non-empty string, got ${JSON.stringify(p)}`);
    return p.startsWith("/") ? p : `${root.replace(/\/+$/, "")}/${p}`;
  };
  const readBytes = async ({ path }: { path: string }) => {
    try {
      return await sandbox.fs.readFile(resolve(path));
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  };
  const writeBytes = async (path: string, bytes: Uint8Array) => {
    const full = resolve(path);
    const parent = full.slice(0, full.lastIndexOf("/")) || "/";
    if (parent !== "/") await sandbox.fs.mkdir(parent, { recursive: true });
    await sandbox.fs.writeFile(full, bytes);
  };
  const script = (o: { command: string; workingDirectory?: string; env?: Record<string, string> }) => {
    if (typeof o?.command !== "string") throw new CordonError("INVALID_OPTIONS", "command must be a string");
    const lines = [`cd ${quote(o.workingDirectory === undefined ? root : resolve(o.workingDirectory))} || exit 1`];
    for (const [name, value] of Object.entries(o.env ?? {})) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || typeof value !== "string") {
        throw new CordonError("INVALID_OPTIONS", `invalid environment variable ${JSON.stringify(name)}`);
      }
      lines.push(`export ${name}=${quote(value)}`);
    }
    return `(\n${lines.join("\n")}\n${o.command}\n)`;
  };
  const run = async (o: SandboxCommandOptions & { input?: Uint8Array }) => {
    const code = script(o);
    try {
      const r = await sandbox.run(code, {
        language: "shell",
        ...(o.abortSignal ? { signal: o.abortSignal } : {}),
        ...(o.input ? { stdin: o.input } : {}),
      });
      return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      if (err instanceof CordonError && err.code === "CANCELLED") throw o.abortSignal?.reason ?? err;
      if (err instanceof CordonError && err.code !== "CLOSED" && err.result) {
        // A limit ends the command like a signal would: 124 for time, as `timeout` does.
        const exitCode = err.code === "TIMEOUT" || err.code === "CPU_LIMIT" ? 124 : 1;
        return { exitCode, stdout: err.result.stdout, stderr: `${err.result.stderr}cordon: ${err.code}: ${err.message}\n` };
      }
      throw err;
    }
  };
  const spawn = (async (o: SandboxCommandOptions & { stdin?: boolean }): Promise<SandboxProcess | WritableSandboxProcess> => {
    const controller = new AbortController();
    const chunks: Uint8Array[] = [];
    let end: (value?: unknown) => void = () => {};
    const ended = new Promise((resolve) => controller.signal.addEventListener("abort", (end = resolve), { once: true }));
    const abort = () => controller.abort(o.abortSignal?.reason);
    if (o.abortSignal?.aborted) abort();
    o.abortSignal?.addEventListener("abort", abort, { once: true });
    let killed = false;
    const input = o.stdin ? ended.then(() => Buffer.concat(chunks)) : undefined;
    const done = Promise.resolve(input).then((i) => run({ ...o, abortSignal: controller.signal, input: i }));
    const settled = done.catch(() => ({ exitCode: 1, stdout: "", stderr: "" }));
    const later = (pick: (r: { stdout: string; stderr: string }) => string) =>
      new ReadableStream<Uint8Array>({
        async start(c) {
          const text = pick(await settled);
          if (text) c.enqueue(new TextEncoder().encode(text));
          c.close();
        },
      });
    const stdin = new WritableStream<Uint8Array>({ write: (c) => void chunks.push(c), close: () => end(), abort: () => end() });
    return {
      ...(o.stdin ? { stdin } : {}),
      stdout: later((r) => r.stdout),
      stderr: later((r) => r.stderr),
      // Killed: 137, as a process ended by SIGKILL; aborted: the abort reason.
      wait: () =>
        done.then(
          (r) => ({ exitCode: r.exitCode }),
          (e) => {
            if (killed) return { exitCode: 137 };
            throw e;
          },
        ),
      kill: async () => {
        killed = true;
        controller.abort(new Error("killed"));
        await settled;
      },
    };
  }) as SandboxSession["spawn"];
  return {
    description:
      `A cordon sandbox: a bash-compatible shell with Rust builtins (grep, sed, awk, jq, …) and JavaScript ` +
      `(\`js -e\`), over an in-memory file system where ${root}, /workspace and /tmp are the places to write. ` +
      `No network, no host files, no processes. Commands start in ${root}.`,
    readFile: async (o: { path: string }) => {
      const bytes = await readBytes(o);
      return bytes === null ? null : streamOf(bytes);
    },
    readBinaryFile: readBytes,
    readTextFile: async (o: { path: string; encoding?: string; startLine?: number; endLine?: number }) => {
      const bytes = await readBytes(o);
      if (bytes === null) return null;
      const text = new TextDecoder(o.encoding ?? "utf-8").decode(bytes);
      if (o.startLine === undefined && o.endLine === undefined) return text;
      const lines = text.split("\n");
      const start = Math.max(1, o.startLine ?? 1);
      const end = Math.min(lines.length, o.endLine ?? lines.length);
      return lines.slice(start - 1, end).join("\n");
    },
    writeFile: async (o: { path: string; content: ReadableStream<Uint8Array> }) => {
      const chunks: Uint8Array[] = [];
      const reader = o.content.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
      }
      await writeBytes(o.path, Buffer.concat(chunks));
    },
    writeBinaryFile: async (o: { path: string; content: Uint8Array }) => writeBytes(o.path, o.content),
    writeTextFile: async (o: { path: string; content: string; encoding?: string }) => {
      if (o.encoding !== undefined && !/^utf-?8$/i.test(o.encoding)) {
        throw new CordonError("INVALID_OPTIONS", `only UTF-8 text can be written, not ${o.encoding}`);
      }
      await writeBytes(o.path, new TextEncoder().encode(o.content));
    },
    stat: async (o: { path: string }) => {
      try {
        const st = await sandbox.fs.stat(resolve(o.path));
        return { type: st.kind === "dir" ? "directory" : "file", size: st.size };
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
    },
    listDirectory: async (o: { path: string }) => {
      const dir = resolve(o.path);
      let names: string[];
      try {
        names = await sandbox.fs.readdir(dir);
      } catch (e) {
        if (e instanceof FsError && e.code === "ENOENT") return null;
        throw e;
      }
      const base = dir.replace(/\/+$/, "");
      return Promise.all(
        names.map(async (name) => ({ name, type: (await sandbox.fs.stat(`${base}/${name}`)).kind === "dir" ? "directory" : "file" })),
      );
    },
    deleteFile: async (o: { path: string }) => {
      const full = resolve(o.path);
      try {
        if ((await sandbox.fs.stat(full)).kind === "dir") throw new FsError("EISDIR", `EISDIR: ${full} is a directory`, full);
        await sandbox.fs.rm(full);
        return true;
      } catch (e) {
        if (isMissing(e)) return false;
        throw e;
      }
    },
    spawn,
    run,
  };
}
