// The public types of cordon's API: data only, no behaviour.

/** Limits of a sandbox. Each is enforced by wasmtime or the host. */
export interface Limits {
  /** Wall-clock time of one run, in ms (`TIMEOUT`). Default 30000, 1 to 3600000. */
  timeoutMs?: number;
  /**
   * CPU time the guest may use in one run, in ms (`CPU_LIMIT`); waiting does
   * not count. Default 10000, 1 to 3600000.
   */
  cpuMs?: number;
  /**
   * Memory of the guest, in bytes (`MEMORY_LIMIT`). Default 64 MiB, 16 MiB to
   * 4 GiB.
   */
  memoryBytes?: number;
  /**
   * Bytes kept of each of stdout and stderr per run; the rest is dropped and
   * a `[cordon: output truncated at N bytes]` line appended. Default 1 MiB,
   * 1 to 256 MiB.
   */
  outputBytes?: number;
  /** Largest script accepted, in UTF-8 bytes (`INVALID_CODE`). Default 1 MiB, 1 to 64 MiB. */
  codeBytes?: number;
  /** Tool calls one run may make (`DENIED`, reason `run_budget`). Default 1000, 0 to 1000000. */
  toolCalls?: number;
  /** Time a tool may take to answer, in ms (`TOOL_TIMEOUT` in the guest). Default 30000. */
  toolTimeoutMs?: number;
  /** Largest tool result, in bytes of JSON (`TOOL_RESULT_TOO_LARGE` in the guest). Default 1 MiB. */
  toolResultBytes?: number;
  /** Bytes of file content in the sandbox's file system (`ENOSPC`). Default 64 MiB; one file is at most 16 MiB. */
  fsBytes?: number;
  /** Files and directories in the sandbox's file system (`ENOSPC`). Default 10000. */
  fsFiles?: number;
  /** Bytes a `record: true` run's trace may hold (`TRACE_LIMIT`). Default 16 MiB, 1024 to 1 GiB. */
  traceBytes?: number;
}

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** What a tool's `execute` (and a `needsApproval` function) receives beside its arguments. */
export interface ToolExecuteOptions {
  /** An id of this call, unique within the sandbox. */
  toolCallId: string;
  /** The tool's canonical name (`stripe.charges.create`). */
  toolName: string;
  /** Always empty: present for AI SDK tools, which expect it. */
  messages: never[];
}

/**
 * The options a tool of another framework may declare for its `execute`:
 * what {@link ToolExecuteOptions} provides, as far as an AI SDK tool's own
 * options type (`messages: ModelMessage[]`, AI SDK 7's `context`) can be
 * compared with it.
 */
export interface ToolCallOptions {
  toolCallId: string;
  toolName?: string;
  messages: readonly unknown[];
}

/**
 * The function behind a tool: takes the validated argument object. Declared
 * as a method, so a function whose parameter is narrower (`{ city: string }`)
 * fits, as it does in a method of a class.
 */
export type ToolExecute<Args = Record<string, unknown>> = {
  execute(args: Args, options: ToolExecuteOptions): unknown;
}["execute"];

/** A tool's own approval rule: `false` waives the approval of this call. */
export type NeedsApproval<Args = Record<string, unknown>> = {
  needsApproval(args: Args, options: ToolExecuteOptions): boolean | PromiseLike<boolean>;
}["needsApproval"];

/** A host directory mounted into the sandbox (see {@link SandboxOptions.mounts}). */
export interface Mount {
  hostPath: string;
  guestPath: string;
  /** Default false: every write fails with EROFS. */
  writable?: boolean;
  /** Default false: writes to a writable mount stay in memory. */
  writeThrough?: boolean;
}

/**
 * A tool definition (see {@link tool}), whose `execute` takes `Args`: the
 * output of its schema's parse (Zod, Standard Schema, an AI SDK schema), the
 * value a JSON Schema describes, or any JSON object when it has no schema.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  /** Segments of `[A-Za-z0-9_-]` joined by `.` or `/` (`stripe.charges.create`), at most 128 bytes. */
  name: string;
  description?: string;
  /** JSON Schema of the argument object, a Zod 4 schema, a Standard Schema with JSON Schema, or an AI SDK `jsonSchema()`. */
  inputSchema?: unknown;
  /**
   * What `execute` returns, in the same forms as `inputSchema` (a Zod
   * schema's output type; an MCP tool's `outputSchema`): `describe()` shows
   * it as the function's result type (`Promise<T>`). Documentation only:
   * results are not checked against it.
   */
  outputSchema?: unknown;
  /**
   * Every call asks {@link SandboxOptions.approve} first, whichever
   * capability allows it (denied when there is no `approve`). A function (the
   * AI SDK's form) decides per call: `false` waives the approval.
   */
  needsApproval?: boolean | NeedsApproval<Args>;
  execute(args: Args, options: ToolExecuteOptions): unknown;
}

/**
 * A tool in a record, named by its key: `{ description, inputSchema,
 * execute }`. AI SDK tools (`tool()` of `ai` 5, 6 and 7) fit as they are.
 */
export interface ToolSpec {
  /**
   * Text for the model. AI SDK 7 types it as possibly a function of the
   * call's context; cordon needs the text when the sandbox is created, so a
   * function is refused there (`INVALID_OPTIONS`).
   */
  description?: string | ((options: never) => string);
  /** As {@link ToolDefinition.inputSchema}. */
  inputSchema?: unknown;
  /** As {@link ToolDefinition.outputSchema} (an AI SDK tool's `outputSchema`). */
  outputSchema?: unknown;
  /** As {@link ToolDefinition.needsApproval}. */
  needsApproval?:
    | boolean
    | { needsApproval(args: Record<string, unknown>, options: ToolCallOptions): boolean | PromiseLike<boolean> }["needsApproval"];
  /**
   * Required: a tool without it is refused when the sandbox is created
   * (`INVALID_OPTIONS`). Optional in the type because the AI SDK's `Tool`
   * type has it optional.
   */
  execute?(args: Record<string, unknown>, options: ToolCallOptions): unknown;
}

/** A tool in a record: a function, or a definition without its name (AI SDK tools fit). */
export type ToolEntry = ToolExecute | ToolSpec;

/** One constraint (long form); see the README for the operators. */
export type Constraint =
  | { param: string; op: "<" | "<=" | ">" | ">=" | "==" | "!="; value: number }
  | { param: string; op: "in" | "notIn" | "not_in"; value: (string | number | boolean | null)[] }
  | { param: string; op: "startsWith" | "starts_with" | "endsWith" | "ends_with" | "matches" | "pathWithin" | "path_within" | "urlWithin" | "url_within"; value: string }
  | { param: string; op: "exists" | "absent" }
  | { and: Constraint[] }
  | { or: Constraint[] }
  | { not: Constraint };

/** A grant: which tools, under which constraints, how often. */
export interface Capability {
  /** `stripe.charges.create`, `stripe.charges.*` (exactly one segment), `stripe.**` (zero or more). */
  method: string;
  /** One constraint or an array (all must hold). */
  constraints?: Constraint | Constraint[];
  /** Calls this capability may allow over the sandbox's life. */
  maxCalls?: number;
  /** The only top-level parameters a call may pass. */
  params?: string[];
  /** Ask `approve` before each call this capability allows. */
  requireApproval?: boolean;
}

/** A call as `approve` sees it. */
export interface ToolCallRequest {
  tool: string;
  args: Record<string, unknown>;
}

/** One entry of {@link RunResult.toolCalls}. */
export interface ToolCallRecord {
  /** Canonical name, or the name as the guest wrote it when it is unknown. */
  tool: string;
  /** The validated arguments, or the guest's text when they did not parse. */
  args: unknown;
  /** `omitted`: the last record of a full log, whose `message` says how many calls were not logged. */
  decision: "allowed" | "denied" | "omitted";
  /** Why it was denied: `unknown_tool`, `not_granted`, `invalid_arguments`, `schema`,
   * `parameter_not_allowed`, `constraint`, `budget`, `run_budget`, `approval`. */
  reason?: string;
  /** The error code the guest saw, when the call did not succeed. */
  code?: string;
  message?: string;
  durationMs: number;
  /** Bytes of the JSON result. */
  resultBytes?: number;
}

/** Options of {@link Sandbox.create}. */
export interface SandboxOptions {
  limits?: Limits;
  /** Tools the guest may call: an array of {@link tool} definitions or a record of name → function/definition. */
  tools?: ToolDefinition[] | Record<string, ToolEntry>;
  /** Grants, checked in order; the first that allows a call is charged. Default: nothing is granted. */
  capabilities?: Capability[];
  /** amla-sandbox's short form: `{ transfer_money: { amount: "<=1000", currency: ["USD", "EUR"] } }`; grants each named tool. */
  constraints?: Record<string, Record<string, string | number | (string | number | boolean | null)[]>>;
  /** amla-sandbox's short form: `{ transfer_money: 10 }`; grants each named tool. */
  maxCalls?: Record<string, number>;
  /** Decides calls of capabilities with `requireApproval`; only `true` lets them proceed. */
  approve?: (call: ToolCallRequest) => boolean | Promise<boolean>;
  /**
   * Sees every tool call as it is decided (allowed calls once they
   * completed). What it throws or rejects with is ignored.
   */
  onToolCall?: (record: ToolCallRecord) => void | Promise<void>;
  /** Files to put in the sandbox's file system: path → text or bytes (parent directories are created). */
  files?: Record<string, string | Uint8Array>;
  /**
   * Host directories to mount (none by default). Read-only mounts read
   * through to the host; a `writable` mount is copied into memory when the
   * sandbox is created and writes stay there, unless `writeThrough` sends
   * them to the host. Links that leave a mount are refused. `guestPath` is a
   * directory directly below `/` (read-only mounts) or inside /workspace or
   * /tmp.
   */
  mounts?: Mount[];
  /**
   * Deterministic clock and randomness: the clock starts at `startTime`
   * (default 2000-01-01T00:00:00Z) and advances 1 ms per read; `Math.random`
   * and `crypto` draw from a stream seeded by `seed` (default 0). Without it
   * the clock is real (1 ms resolution) and randomness is secure and distinct
   * per sandbox.
   */
  deterministic?: boolean | { seed?: number; startTime?: number };
  /**
   * Languages the sandbox runs (default all). With one, a run in another is
   * `INVALID_OPTIONS`, and the code cannot start the other from inside:
   * JavaScript has no working `shell()`, the shell no `js`. TypeScript is
   * JavaScript with its types removed: enabling either enables both.
   */
  languages?: Language[];
}

/** Languages a sandbox runs. */
export type Language = "javascript" | "typescript" | "shell";

/** Options of {@link Sandbox.run}. */
export interface RunOptions {
  /**
   * Default `"javascript"`. `"typescript"` removes the types (leaving white
   * space, so lines and columns stay) and runs the rest as JavaScript; TypeScript
   * that needs code generated (`enum`, `namespace`, parameter properties) is a
   * SyntaxError naming the construct.
   */
  language?: Language;
  /** Aborting it ends the run with `CANCELLED` (or prevents it from starting). */
  signal?: AbortSignal;
  /** Adds {@link RunResult.trace}: every nondeterministic input of the run, for {@link Sandbox.replay}. */
  record?: boolean;
  /**
   * Default `true`: the run ends when the script has settled and no timer,
   * immediate or tool call it started is pending, as a Node process exits
   * when its event loop is empty (a `setInterval` never cleared runs until
   * the time limit). `false` ends the run when the script settles and drops
   * what is pending.
   */
  waitForTimers?: boolean;
  /**
   * Standard input of the run: a string (as UTF-8) or bytes, at most
   * `limits.codeBytes`. The shell reads it with `read`, `cat`, pipelines;
   * JavaScript with `fs.readFileSync(0)`, `process.stdin` or `readline`.
   * Without it, standard input is empty.
   */
  stdin?: string | Uint8Array;
}

/**
 * Every nondeterministic input a run consumed — clock reads, random bytes,
 * tool calls and the order their results arrived in — and what it printed.
 * Plain JSON data; keep it to prove or reproduce what the code did.
 */
export interface Trace {
  version: number;
  tool_names: string[];
  clock: number[];
  random: string[];
  calls: { tool: string; args: string }[];
  waits: { event: unknown }[];
  stdout: string;
  stderr: string;
  exit_code: number;
  /** The run's standard input, in hex (absent when empty). */
  stdin?: string;
  /** Present (true) when the run was made with `waitForTimers: false`. */
  leave_pending?: boolean;
}

/** Where a replay first differed from its trace. */
export interface Divergence {
  /** `clock`, `random`, `call`, `wait`, `stdout`, `stderr` or `exit_code`. */
  kind: string;
  /** Index of the input of that kind. */
  index: number;
  expected: string;
  actual: string;
}

/** The outcome of {@link Sandbox.replay}. */
export interface ReplayResult {
  result: RunResult;
  /** `null` when the replay matched the trace exactly, output included. */
  divergence: Divergence | null;
}

/** An exception the script did not catch. */
export interface ScriptError {
  name: string;
  message: string;
  /** Guest stack frames (`    at f (main.js:3:5)`); never a host path. */
  stack: string;
}

/** Measurements of one run. */
export interface RunStats {
  wallMs: number;
  cpuMs: number;
  /** Size of the guest's memory at the end of the run. */
  memoryBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /**
   * The guest was started anew for this run because a limit ended the
   * previous one: JavaScript globals set by earlier runs are gone.
   */
  instanceRestarted: boolean;
}

/** The result of a run that the sandbox did not stop. */
export interface RunResult {
  /** 0 when the script completed, 1 when it threw. */
  exitCode: number;
  stdout: string;
  stderr: string;
  /**
   * The script's top-level `return` value: strings as they are, anything else
   * as JSON (also printed to stdout). `undefined` when nothing was returned.
   */
  value: string | undefined;
  /** The uncaught exception, when `exitCode` is 1. */
  error: ScriptError | undefined;
  /**
   * Every tool call of the run, allowed or denied, in the order made. A
   * long log (over 2048 characters of JSON, some ten calls) is parsed when
   * first read, so until then `util.inspect` shows it as a getter.
   */
  toolCalls: ToolCallRecord[];
  /** With `record: true`: the run's {@link Trace}. */
  trace?: Trace;
  stats: RunStats;
}

/** Stable codes of {@link CordonError}. */
export type ErrorCode =
  | "INVALID_OPTIONS"
  | "INVALID_CODE"
  | "TIMEOUT"
  | "CPU_LIMIT"
  | "MEMORY_LIMIT"
  | "STACK_OVERFLOW"
  | "CANCELLED"
  | "CLOSED"
  | "BUSY"
  | "INVALID_SNAPSHOT"
  | "TOO_MANY_SANDBOXES"
  | "TOOL_CALL_LIMIT"
  | "TRACE_LIMIT"
  | "INTERNAL"
  /** An adapter's optional peer package (`ai`, `@langchain/core`, `@modelcontextprotocol/sdk`) is not installed; the message has the install command. */
  | "MISSING_PEER";

/** What a run had produced when the sandbox stopped it. */
export interface PartialResult {
  stdout: string;
  stderr: string;
  toolCalls: ToolCallRecord[];
  stats: RunStats;
}

/** POSIX-style codes of {@link FsError}. */
export type Errno =
  | "ENOENT"
  | "EACCES"
  | "EROFS"
  | "EEXIST"
  | "ENOTDIR"
  | "EISDIR"
  | "ENOTEMPTY"
  | "ENAMETOOLONG"
  | "ENOSPC"
  | "EINVAL";

/** Metadata of a file or directory in the sandbox. */
export interface FileStat {
  kind: "file" | "dir";
  /** Bytes of a file; entries of a directory. */
  size: number;
  mtimeMs: number;
}

/** Options of {@link Sandbox.snapshot} and {@link Sandbox.restore}. */
export interface SnapshotOptions {
  /**
   * A secret of at least 16 bytes (text is taken as UTF-8): `snapshot` adds
   * an HMAC-SHA256 of the snapshot under it, and `restore` refuses a
   * snapshot whose MAC does not match (`INVALID_SNAPSHOT`), so one edited
   * in storage (its budgets refreshed, its files changed) is refused.
   * Without a key a snapshot is trusted input.
   */
  key?: string | Uint8Array;
}
