/**
 * cordon: run the code an AI agent writes inside a WebAssembly sandbox, under
 * real limits, with nothing to reach but what you grant.
 *
 * ```ts
 * import { Sandbox } from "cordon";
 * const sb = await Sandbox.create({ limits: { timeoutMs: 1000 } });
 * const r = await sb.run("console.log('hi'); return 6 * 7");
 * // r.stdout === "hi\n42\n", r.value === "42", r.exitCode === 0
 * await sb.close();
 * ```
 *
 * Errors of the script (an exception, a syntax error) are part of the
 * result (`exitCode`, `error`). Errors of the sandbox (a limit, bad input, a
 * cancelled or closed run) reject with a {@link CordonError} whose `code` is
 * stable.
 */

import type { DescribeInput } from "./describe";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native: NativeModule = require("../native.js");

/** `describe()`'s text, loaded on first use: most processes never ask. */
function describeSandbox(input: DescribeInput): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("./describe") as typeof import("./describe")).describeSandbox(input);
}

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

/** The function behind a tool: takes the validated argument object. */
export type ToolExecute = (args: any, options: ToolExecuteOptions) => unknown;

/** What a tool's `execute` receives beside its arguments. */
export interface ToolExecuteOptions {
  /** An id of this call, unique within the sandbox. */
  toolCallId: string;
  /** The tool's canonical name (`stripe.charges.create`). */
  toolName: string;
  /** Always empty: present for AI SDK tools, which expect it. */
  messages: never[];
}

/** A host directory mounted into the sandbox (see {@link SandboxOptions.mounts}). */
export interface Mount {
  hostPath: string;
  guestPath: string;
  /** Default false: every write fails with EROFS. */
  writable?: boolean;
  /** Default false: writes to a writable mount stay in memory. */
  writeThrough?: boolean;
}

/** A tool definition (see {@link tool}). */
export interface ToolDefinition {
  /** Segments of `[A-Za-z0-9_-]` joined by `.` or `/` (`stripe.charges.create`), at most 128 bytes. */
  name: string;
  description?: string;
  /** JSON Schema of the argument object, a Zod 4 schema, or an AI SDK `jsonSchema()`. */
  inputSchema?: unknown;
  /**
   * Every call asks {@link SandboxOptions.approve} first, whichever
   * capability allows it (denied when there is no `approve`). A function (the
   * AI SDK's form) decides per call: `false` waives the approval.
   */
  needsApproval?: boolean | ((args: any, options: ToolExecuteOptions) => boolean | PromiseLike<boolean>);
  execute: ToolExecute;
}

/** A tool in a record: a function, or a definition without its name (AI SDK tools fit). */
export type ToolEntry = ToolExecute | Omit<ToolDefinition, "name">;

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
   * Languages the sandbox runs (default both). With one, a run in another is
   * `INVALID_OPTIONS`, and the code cannot start the other from inside:
   * JavaScript has no working `shell()`, the shell no `js`.
   */
  languages?: Language[];
}

/** Defines a tool. */
export function tool(definition: ToolDefinition): ToolDefinition {
  return definition;
}

/** Languages a sandbox runs. */
export type Language = "javascript" | "shell";

/** Options of {@link Sandbox.run}. */
export interface RunOptions {
  /** Default `"javascript"`. */
  language?: Language;
  /** Aborting it ends the run with `CANCELLED` (or prevents it from starting). */
  signal?: AbortSignal;
  /** Adds {@link RunResult.trace}: every nondeterministic input of the run, for {@link Sandbox.replay}. */
  record?: boolean;
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
  | "INTERNAL";

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

/** A file-system operation that failed; `code` is POSIX-style, as in Node's fs. */
export class FsError extends Error {
  override name = "FsError";
  readonly code: Errno;
  readonly path: string;

  constructor(code: Errno, message: string, path: string) {
    super(message);
    this.code = code;
    this.path = path;
  }
}

/** Metadata of a file or directory in the sandbox. */
export interface FileStat {
  kind: "file" | "dir";
  /** Bytes of a file; entries of a directory. */
  size: number;
  mtimeMs: number;
}

interface FsReplyJson {
  errno?: Errno | null;
  message?: string | null;
  stat?: { kind: "file" | "dir"; size: number; mtime_ms: number } | null;
  entries?: { name: string; kind: string }[] | null;
  cwd?: string | null;
}

/**
 * The sandbox's file system from the host, without running guest code. The
 * same tree guest code sees as `fs`; paths are guest paths (relative ones
 * resolve against /workspace).
 */
export class SandboxFs {
  #request: (request: object, data?: Uint8Array) => [FsReplyJson, Buffer];

  /** @internal */
  constructor(nativeSandbox: NativeSandbox) {
    this.#request = (request, data) => {
      const path = (request as { path?: unknown }).path;
      if (typeof path !== "string") {
        throw new CordonError("INVALID_OPTIONS", `path must be a string, got ${describe(path)}`);
      }
      const reply = nativeSandbox.fsRequest(JSON.stringify(request), data ?? null);
      const len = reply.readUInt32LE(0);
      const json = JSON.parse(reply.subarray(4, 4 + len).toString("utf8")) as FsReplyJson;
      if (json.errno) throw new FsError(json.errno, json.message ?? json.errno, path);
      return [json, reply.subarray(4 + len)];
    };
  }

  /** Writes a file (creating or replacing it); text is stored as UTF-8. */
  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    this.writeFileSync(path, data);
  }

  /** @internal */
  writeFileSync(path: string, data: string | Uint8Array): void {
    let bytes: Uint8Array;
    if (typeof data === "string") {
      if (!data.isWellFormed()) throw new CordonError("INVALID_OPTIONS", "file text contains a lone UTF-16 surrogate");
      bytes = Buffer.from(data, "utf8");
    } else if (data instanceof Uint8Array) {
      bytes = data;
    } else {
      throw new CordonError("INVALID_OPTIONS", `file data must be a string or a Uint8Array, got ${describe(data)}`);
    }
    this.#request({ op: "write", path, mode: "truncate" }, bytes);
  }

  /** Reads a file: bytes, or text with `"utf8"`. */
  async readFile(path: string): Promise<Uint8Array>;
  async readFile(path: string, encoding: "utf8"): Promise<string>;
  async readFile(path: string, encoding?: "utf8"): Promise<Uint8Array | string> {
    if (encoding !== undefined && encoding !== "utf8") {
      throw new CordonError("INVALID_OPTIONS", `unsupported encoding ${describe(encoding)}; use "utf8" or none`);
    }
    const [, bytes] = this.#request({ op: "read", path });
    return encoding === "utf8" ? bytes.toString("utf8") : new Uint8Array(bytes);
  }

  /** Names in a directory, sorted. */
  async readdir(path: string): Promise<string[]> {
    const [reply] = this.#request({ op: "readdir", path });
    return (reply.entries ?? []).map((e) => e.name);
  }

  async stat(path: string): Promise<FileStat> {
    const [reply] = this.#request({ op: "stat", path });
    const st = reply.stat!;
    return { kind: st.kind, size: st.size, mtimeMs: st.mtime_ms };
  }

  /** Removes a file, or a directory (with `recursive` when it is not empty). */
  async rm(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    this.#request({ op: "remove", path, recursive: options.recursive === true });
  }

  /** Creates a directory (and its parents with `recursive`). */
  async mkdir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    this.#request({ op: "mkdir", path, recursive: options.recursive === true });
  }

  /** @internal */
  mkdirSync(path: string): void {
    this.#request({ op: "mkdir", path, recursive: true });
  }
}

/** An error of the sandbox itself: a limit, bad input, cancellation, closing. */
export class CordonError extends Error {
  override name = "CordonError";
  /** Stable code; match on it, not on the message. */
  readonly code: ErrorCode;
  /** Output of the run until it was stopped, for errors that end a run. */
  readonly result: PartialResult | undefined;

  constructor(code: ErrorCode, message: string, result?: PartialResult) {
    super(message);
    this.code = code;
    this.result = result;
  }
}

type NativeLimits = { [K in (typeof LIMIT_KEYS)[number]]?: number };

interface NativeToolCall {
  tool: string;
  args: string;
  decision: string;
  reason?: string | null;
  code?: string | null;
  message?: string | null;
  durationMs: number;
  resultBytes?: number | null;
}

interface NativeRunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  value?: string | null;
  error?: ScriptError | null;
  /** The run's tool calls as a JSON array of records (`crates/node/src/records.rs`). */
  toolCalls: string;
  /** Indices of the records whose `args` is the arguments' text. */
  toolCallTexts: number[];
  trace?: string | null;
  divergence?: string | null;
  stats: RunStats;
  failureCode?: string | null;
  failureMessage?: string | null;
}

interface NativeCancel {
  cancel(): void;
}

interface NativeSandbox {
  run(
    code: string,
    language: string,
    cancel: NativeCancel | null,
    record: boolean | null,
    replay: string | null,
  ): NativeRunResult | Promise<NativeRunResult>;
  snapshot(key: Uint8Array | null): Buffer;
  reset(): void;
  fsRequest(request: string, data: Uint8Array | null): Buffer;
  /** Writes the effective limits into `into`, in the order of `LIMIT_KEYS`. */
  limits(): Float64Array;
  setSingleLanguage(single: boolean): void;
  close(): void;
}

interface NativeDeterminism {
  seed: number;
  startMs: number;
}

/**
 * Serves the native side: a message is `<kind>\n<payload>`; a non-zero
 * `token` is answered through `settleToolCall`. The messages of one poll of
 * a run come as arrays, in the order they were made.
 */
type Dispatch = (messages: string | string[], tokens: number | number[]) => void;

interface NativeModule {
  NativeSandbox: {
    create(
      limits: NativeLimits | null,
      policy: string | null,
      dispatch: Dispatch | null,
      recordHook: boolean | null,
      deterministic: NativeDeterminism | null,
      mounts: NativeMount[] | null,
    ): NativeSandbox | Promise<NativeSandbox>;
    restore(
      snapshot: Uint8Array,
      limits: NativeLimits | null,
      policy: string | null,
      dispatch: Dispatch | null,
      recordHook: boolean | null,
      deterministic: NativeDeterminism | null,
      mounts: NativeMount[] | null,
      key: Uint8Array | null,
    ): Promise<NativeSandbox>;
  };
  NativeCancel: new () => NativeCancel;
  /** Answers a tool message; `last` when no other call of the sandbox is in flight. */
  settleToolCall(token: number, reply: string, last: boolean): number;
  /** Answers several tool messages of one sandbox, in the order they settled. */
  settleToolCalls(tokens: number[], replies: string[], last: boolean): number;
  /** Continues the runs a reply made ready, on this thread; `true` asks for `drainLater` after the loop turns. */
  drainReady(): boolean;
  /** Continues the runs deferred past a turn's budget; `true` asks to be queued again. */
  drainLater(): boolean;
  /** Registers the maker of a run's result (once, below). */
  setRunResultMaker(make: typeof makeRunResult): void;
}

/**
 * Queues what `settleToolCall` asks for: the runs answers made ready go on
 * in one microtask; past the JavaScript thread's budget for this turn of the
 * event loop, after it turned (`setImmediate`).
 */
function afterSettle(next: number): void {
  if (next === 1) queueMicrotask(drainReady);
  else if (next === 2) setImmediate(drainLater);
}

function drainReady(): void {
  if (native.drainReady()) setImmediate(drainLater);
}

function drainLater(): void {
  if (native.drainLater()) setImmediate(drainLater);
}

const LIMIT_KEYS = [
  "timeoutMs",
  "cpuMs",
  "memoryBytes",
  "outputBytes",
  "codeBytes",
  "toolCalls",
  "toolTimeoutMs",
  "toolResultBytes",
  "fsBytes",
  "fsFiles",
  "traceBytes",
] as const;
const SANDBOX_KEYS = [
  "limits",
  "tools",
  "capabilities",
  "constraints",
  "maxCalls",
  "approve",
  "onToolCall",
  "files",
  "deterministic",
  "mounts",
  "languages",
] as const;
const RUN_KEYS = ["language", "signal", "record"] as const;
const LANGUAGES: readonly string[] = ["javascript", "shell"];

const describe = (v: unknown): string => {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : typeof v;
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function checkKeys(where: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new CordonError(
        "INVALID_OPTIONS",
        `unknown option ${JSON.stringify(key)} in ${where}; expected one of ${allowed.join(", ")}`,
      );
    }
  }
}

/** `v` as a non-negative safe integer, or `INVALID_OPTIONS` naming `where`. */
function nonNegativeInteger(where: string, v: unknown): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw new CordonError("INVALID_OPTIONS", `${where} must be a non-negative integer, got ${describe(v)}`);
  }
  return v;
}

function validateLimits(limits: unknown): NativeLimits | undefined {
  if (limits === undefined) return undefined;
  if (!isPlainObject(limits)) {
    throw new CordonError("INVALID_OPTIONS", `limits must be an object, got ${describe(limits)}`);
  }
  checkKeys("limits", limits, LIMIT_KEYS);
  const out: NativeLimits = {};
  for (const key of LIMIT_KEYS) {
    const v = limits[key];
    if (v !== undefined) out[key] = nonNegativeInteger(`limits.${key}`, v);
  }
  return out;
}

/**
 * Checks that `value` is JSON data as written: JSON.stringify would turn NaN
 * into null and drop undefined and functions, and a dropped budget or
 * constraint must be an error, never "unlimited".
 */
function checkJsonData(value: unknown, where: string, depth = 0): void {
  if (depth > 64) throw new CordonError("INVALID_OPTIONS", `${where} is nested too deeply`);
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw new CordonError("INVALID_OPTIONS", `${where} must be a finite number, got ${value}`);
      return;
    case "object":
      if (value === null) return;
      if (Array.isArray(value)) {
        value.forEach((v, i) => checkJsonData(v, `${where}[${i}]`, depth + 1));
        return;
      }
      if (!isPlainObject(value)) throw new CordonError("INVALID_OPTIONS", `${where} must be plain data, got ${describe(value)}`);
      for (const [k, v] of Object.entries(value)) checkJsonData(v, `${where}.${k}`, depth + 1);
      return;
    default:
      throw new CordonError("INVALID_OPTIONS", `${where} must be JSON data, got ${typeof value}`);
  }
}

function isAbortSignal(v: unknown): v is AbortSignal {
  return (
    v !== null &&
    typeof v === "object" &&
    typeof (v as AbortSignal).aborted === "boolean" &&
    typeof (v as AbortSignal).addEventListener === "function"
  );
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toRecord(raw: NativeToolCall): ToolCallRecord {
  const record: ToolCallRecord = {
    tool: raw.tool,
    args: parseArgs(raw.args),
    decision: raw.decision === "allowed" ? "allowed" : "denied",
    durationMs: raw.durationMs,
  };
  if (raw.reason != null) record.reason = raw.reason;
  if (raw.code != null) record.code = raw.code;
  if (raw.message != null) record.message = raw.message;
  if (raw.resultBytes != null) record.resultBytes = raw.resultBytes;
  return record;
}

/** A run's tool-call log: the records come as one JSON text. */
function toRecords(raw: NativeRunResult): ToolCallRecord[] {
  const records = JSON.parse(raw.toolCalls) as ToolCallRecord[];
  for (const i of raw.toolCallTexts) records[i].args = parseArgs(records[i].args as string);
  return records;
}

/** Log texts longer than this (some ten records) are parsed when first read. */
const LAZY_LOG_CHARS = 2048;

/**
 * Makes a run's result from its fields, for the addon: one call instead of
 * eighteen properties set one by one through napi (about 2 µs of a run).
 * The order is `MakeRunResultArgs` in `crates/node/src/lib.rs`.
 */
function makeRunResult(
  exitCode: number,
  stdout: string,
  stderr: string,
  value: string | null,
  errorName: string | null,
  errorMessage: string | null,
  errorStack: string | null,
  toolCalls: string,
  toolCallTexts: number[],
  trace: string | null,
  divergence: string | null,
  wallMs: number,
  cpuMs: number,
  memoryBytes: number,
  stdoutTruncated: boolean,
  stderrTruncated: boolean,
  instanceRestarted: boolean,
  failureCode: string | null,
  failureMessage: string | null,
): NativeRunResult {
  return {
    exitCode,
    stdout,
    stderr,
    value,
    error: errorName === null ? null : { name: errorName, message: errorMessage ?? "", stack: errorStack ?? "" },
    toolCalls,
    toolCallTexts,
    trace,
    divergence,
    stats: { wallMs, cpuMs, memoryBytes, stdoutTruncated, stderrTruncated, instanceRestarted },
    failureCode,
    failureMessage,
  };
}
native.setRunResultMaker(makeRunResult);

function toResult(raw: NativeRunResult): RunResult {
  const result: RunResult =
    raw.toolCalls.length > LAZY_LOG_CHARS
      ? lazyLog(raw)
      : {
          exitCode: raw.exitCode,
          stdout: raw.stdout,
          stderr: raw.stderr,
          value: raw.value ?? undefined,
          error: raw.error ?? undefined,
          toolCalls: raw.toolCalls === "[]" ? [] : toRecords(raw),
          stats: raw.stats,
        };
  if (raw.trace) result.trace = JSON.parse(raw.trace) as Trace;
  return result;
}

/**
 * A result whose long log is parsed when first read: a run of a thousand
 * calls whose caller never looks at them does not pay for a thousand
 * records. The log stays an own, enumerable, assignable property (spread,
 * JSON.stringify and structuredClone see it as before). Only for long logs:
 * an object with an accessor costs V8 more to make than a short parse.
 */
function lazyLog(raw: NativeRunResult): RunResult {
  // Only the log's source is kept until then, and dropped once read or
  // replaced.
  let source: NativeRunResult | null = raw;
  let toolCalls: ToolCallRecord[] = [];
  return {
    exitCode: raw.exitCode,
    stdout: raw.stdout,
    stderr: raw.stderr,
    value: raw.value ?? undefined,
    error: raw.error ?? undefined,
    get toolCalls(): ToolCallRecord[] {
      if (source) {
        toolCalls = toRecords(source);
        source = null;
      }
      return toolCalls;
    },
    set toolCalls(records: ToolCallRecord[]) {
      toolCalls = records;
      source = null;
    },
    stats: raw.stats,
  };
}

// ---- tools ---------------------------------------------------------------

interface NormalTool {
  name: string;
  description: string | undefined;
  inputSchema: JsonSchema | undefined;
  /** The schema's own parse (Zod, Standard Schema, an AI SDK schema), run on the host after the policy allowed a call. */
  parse: SchemaParse | undefined;
  needsApproval: ToolDefinition["needsApproval"];
  execute: ToolExecute;
}

/** A parse's outcome: the value the tool gets, or why the arguments were refused. */
type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };
type SchemaParse = (args: unknown) => Parsed | PromiseLike<Parsed>;

/**
 * An error a tool adapter throws for arguments it must not pass on: the call
 * fails in the guest with `INVALID_ARGUMENTS` (reason `schema`), and the
 * tool's code never runs.
 * @internal
 */
export class InvalidArgumentsError extends Error {
  override name = "InvalidArgumentsError";
}

/**
 * `schema` as JSON Schema only, for a tool whose framework parses its
 * arguments itself (LangChain's `invoke`): the policy checks the JSON
 * Schema, and the host does not parse a second time (a transform would
 * apply twice).
 * @internal
 */
export function jsonSchemaOnly(name: string, schema: unknown): { jsonSchema: JsonSchema } | undefined {
  const json = exportSchema(name, schema);
  return json === undefined ? undefined : { jsonSchema: json };
}

/** {@link toJsonSchema}, with a library's own refusal as `INVALID_OPTIONS` naming the tool. */
function exportSchema(name: string, schema: unknown): JsonSchema | undefined {
  try {
    return toJsonSchema(name, schema);
  } catch (err) {
    if (err instanceof CordonError) throw err;
    // The library's exporter refused (a BigInt, a Date, a transform it cannot express).
    const why = err instanceof Error ? err.message : String(err);
    throw new CordonError("INVALID_OPTIONS", `the inputSchema of tool ${JSON.stringify(name)} cannot become JSON Schema: ${issueText(why)}`);
  }
}

/** At most 300 characters of a schema library's message, one line. */
function issueText(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The first issue of a Zod or Standard Schema failure, as `path: message`. */
function firstIssue(issues: unknown): string {
  const first = Array.isArray(issues) ? (issues[0] as { path?: unknown[]; message?: unknown } | undefined) : undefined;
  if (!first) return "the arguments do not match the tool's schema";
  const path = Array.isArray(first.path)
    ? first.path.map((p) => (typeof p === "object" && p !== null && "key" in p ? String((p as { key: unknown }).key) : String(p))).join(".")
    : "";
  return issueText(`${path ? `${path}: ` : ""}${String(first.message ?? "invalid")}`);
}

/**
 * The parse a tool's schema defines, when it has one beyond JSON Schema:
 * Zod's `safeParse` (refinements, formats, transforms, defaults), a Standard
 * Schema's `validate`, an AI SDK schema's `validate`. Plain JSON Schema has
 * none: the policy checks it fully.
 */
function schemaParse(schema: unknown): SchemaParse | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const s = schema as Record<string, any>;
  if (typeof s.safeParseAsync === "function" && (s._zod || s._def)) {
    return async (args) => {
      const r = await s.safeParseAsync(args);
      return r.success ? { ok: true, value: r.data } : { ok: false, reason: firstIssue(r.error?.issues) };
    };
  }
  const std = s["~standard"];
  if (std && typeof std === "object" && typeof std.validate === "function") {
    return (args) => {
      const settle = (r: { value?: unknown; issues?: unknown }): Parsed =>
        r.issues ? { ok: false, reason: firstIssue(r.issues) } : { ok: true, value: r.value };
      const r = std.validate(args);
      return r && typeof r.then === "function" ? Promise.resolve(r).then(settle) : settle(r);
    };
  }
  if (typeof s.validate === "function") {
    return (args) => {
      const settle = (r: { success?: boolean; value?: unknown; error?: unknown }): Parsed =>
        r?.success === true
          ? { ok: true, value: r.value }
          : { ok: false, reason: issueText(r?.error instanceof Error ? r.error.message : "the arguments do not match the tool's schema") };
      const r = s.validate(args);
      return r && typeof r.then === "function" ? Promise.resolve(r).then(settle) : settle(r);
    };
  }
  return undefined;
}

/** Converts a schema to JSON Schema with its library's own exporter. */
function toJsonSchema(name: string, schema: unknown): JsonSchema | undefined {
  if (schema === undefined || schema === null) return undefined;
  if (typeof schema !== "object") {
    throw new CordonError("INVALID_OPTIONS", `the inputSchema of tool ${JSON.stringify(name)} must be an object`);
  }
  const s = schema as Record<string, any>;
  // AI SDK `jsonSchema()` / `zodSchema()` wrap the JSON Schema.
  if (s.jsonSchema && typeof s.jsonSchema === "object" && typeof s.jsonSchema.then !== "function") {
    return s.jsonSchema as JsonSchema;
  }
  const std = s["~standard"];
  if (std && typeof std === "object") {
    // Standard JSON Schema (the interface newer validators implement).
    if (std.jsonSchema && typeof std.jsonSchema.input === "function") {
      return std.jsonSchema.input({ target: "draft-2020-12" }) as JsonSchema;
    }
    if (std.vendor === "zod" && s._zod) {
      let z: { toJSONSchema?: (s: unknown, o?: unknown) => JsonSchema };
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        z = require("zod");
      } catch {
        throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)} has a Zod schema, but "zod" cannot be loaded`);
      }
      if (typeof z.toJSONSchema !== "function") {
        throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)}: the installed zod has no toJSONSchema (zod 4 needed)`);
      }
      return z.toJSONSchema(schema, { io: "input" });
    }
    throw new CordonError(
      "INVALID_OPTIONS",
      `tool ${JSON.stringify(name)} has a ${String(std.vendor)} schema cordon cannot convert; pass JSON Schema, a Zod 4 schema or an AI SDK jsonSchema()`,
    );
  }
  if (s._def) {
    throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)} has a Zod 3 schema; use zod 4 or pass JSON Schema`);
  }
  return s as JsonSchema;
}

function normalTool(name: unknown, entry: unknown): NormalTool {
  if (typeof name !== "string") {
    throw new CordonError("INVALID_OPTIONS", `a tool name must be a string, got ${describe(name)}`);
  }
  if (typeof entry === "function") {
    return { name, description: undefined, inputSchema: undefined, parse: undefined, needsApproval: undefined, execute: entry as ToolExecute };
  }
  if (entry === null || typeof entry !== "object") {
    throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)} must be a function or { execute }, got ${describe(entry)}`);
  }
  const e = entry as Record<string, unknown>;
  if (typeof e.execute !== "function") {
    throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)} has no execute function`);
  }
  if (e.description !== undefined && typeof e.description !== "string") {
    throw new CordonError("INVALID_OPTIONS", `the description of tool ${JSON.stringify(name)} must be a string`);
  }
  const needsApproval = e.needsApproval;
  if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    throw new CordonError("INVALID_OPTIONS", `the needsApproval of tool ${JSON.stringify(name)} must be a boolean or a function`);
  }
  const schema = e.inputSchema ?? e.parameters;
  const inputSchema = exportSchema(name, schema);
  return {
    name,
    description: e.description as string | undefined,
    inputSchema,
    parse: schemaParse(schema),
    needsApproval: needsApproval as NormalTool["needsApproval"],
    execute: e.execute as ToolExecute,
  };
}

function normalTools(tools: unknown): NormalTool[] {
  if (tools === undefined) return [];
  if (Array.isArray(tools)) {
    return tools.map((t) => {
      if (t === null || typeof t !== "object") {
        throw new CordonError("INVALID_OPTIONS", `tools must hold tool() definitions, got ${describe(t)}`);
      }
      return normalTool((t as ToolDefinition).name, t);
    });
  }
  if (!isPlainObject(tools)) {
    throw new CordonError("INVALID_OPTIONS", `tools must be an array or a record, got ${describe(tools)}`);
  }
  return Object.entries(tools).map(([name, entry]) => normalTool(name, entry));
}

function errorText(e: unknown): string {
  let text: string;
  try {
    if (e instanceof Error) text = String(e.message);
    else if (typeof e === "string") text = e;
    else text = "the tool threw a value that is not an Error";
  } catch {
    // A message getter (or a proxy) that throws: the call still fails
    // with an answer, never with an exception in the dispatcher.
    text = "the tool threw an error whose message cannot be read";
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** A tool's failure as a reply: its arguments refused by an adapter, or an error. */
function failure(e: unknown): string {
  return e instanceof InvalidArgumentsError ? `INVALID_ARGUMENTS\n${errorText(e)}` : `TOOL_ERROR\n${errorText(e)}`;
}

/** Encodes a tool's result for the native side: `o<json>` or `<code>\n<message>`. */
function encodeResult(name: string, result: unknown, maxBytes: number): string {
  const invalid = (what: string) => `TOOL_RESULT_INVALID\n${name} returned ${what}, which is not JSON data`;
  if (result === undefined) return "onull";
  switch (typeof result) {
    case "function":
      return invalid("a function");
    case "symbol":
      return invalid("a symbol");
    case "bigint":
      return invalid("a BigInt");
    case "number":
      if (!Number.isFinite(result)) return invalid(String(result));
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (e) {
    const msg = e instanceof Error ? e.message : "";
    return invalid(/circular/i.test(msg) ? "a value with a cycle" : /bigint/i.test(msg) ? "a value with a BigInt" : "a value");
  }
  if (json === undefined) return invalid("a value");
  // UTF-8 takes at most 3 bytes per UTF-16 unit: count bytes only when that could matter.
  if (json.length > maxBytes || (json.length * 3 > maxBytes && Buffer.byteLength(json, "utf8") > maxBytes)) {
    return `TOOL_RESULT_TOO_LARGE\n${name} returned more than ${maxBytes} bytes (limits.toolResultBytes)`;
  }
  return `o${json}`;
}

/** Validates options and builds what the native side needs. */
/**
 * The text {@link Sandbox.describe} gives for a sandbox created with
 * `options`, whose effective limits are `limits` (the `limits` of a sandbox
 * created with the same `limits` option). Validates the options as
 * `create()` does; creates nothing.
 */
export function describeOptions(options: SandboxOptions, limits: Readonly<Required<Limits>>): string {
  return describeSandbox({ ...prepare(options).description, limits });
}

function prepare(options: SandboxOptions): {
  limits: NativeLimits | null;
  policy: string | null;
  dispatch: Dispatch | null;
  recordHook: boolean;
  deterministic: NativeDeterminism | null;
  mounts: NativeMount[] | null;
  resultLimit: { value: number };
  description: Omit<DescribeInput, "limits">;
  languages: Language[] | null;
} {
  if (!isPlainObject(options)) {
    throw new CordonError("INVALID_OPTIONS", `options must be an object, got ${describe(options)}`);
  }
  checkKeys("options", options, SANDBOX_KEYS);
  const limits = validateLimits(options.limits);
  const tools = normalTools(options.tools);
  const { capabilities, constraints, maxCalls, approve, onToolCall } = options;
  if (capabilities !== undefined && !Array.isArray(capabilities)) {
    throw new CordonError("INVALID_OPTIONS", `capabilities must be an array, got ${describe(capabilities)}`);
  }
  for (const [key, value] of [["constraints", constraints], ["maxCalls", maxCalls]] as const) {
    if (value !== undefined && !isPlainObject(value)) {
      throw new CordonError("INVALID_OPTIONS", `${key} must be a record of tool names, got ${describe(value)}`);
    }
  }
  if (approve !== undefined && typeof approve !== "function") {
    throw new CordonError("INVALID_OPTIONS", `approve must be a function, got ${describe(approve)}`);
  }
  if (onToolCall !== undefined && typeof onToolCall !== "function") {
    throw new CordonError("INVALID_OPTIONS", `onToolCall must be a function, got ${describe(onToolCall)}`);
  }
  if (approve === undefined && capabilities?.some((c) => c && (c as Capability).requireApproval === true)) {
    throw new CordonError("INVALID_OPTIONS", "a capability has requireApproval, but no approve function was given");
  }
  let policy: string | null = null;
  let dispatch: Dispatch | null = null;
  // Set from the effective limits once the sandbox exists (before any call).
  const resultLimit = { value: 0 };
  if (capabilities !== undefined) checkJsonData(capabilities, "capabilities");
  if (constraints !== undefined) checkJsonData(constraints, "constraints");
  if (maxCalls !== undefined) checkJsonData(maxCalls, "maxCalls");
  if (tools.length > 0 || capabilities?.length || constraints || maxCalls) {
    policy = JSON.stringify({
      tools: tools.map((t) => ({
        name: t.name,
        ...(typeof t.description === "string" ? { description: t.description } : {}),
        ...(t.inputSchema ? { inputSchema: t.inputSchema } : {}),
        ...(t.needsApproval ? { requireApproval: true } : {}),
      })),
      capabilities: capabilities ?? [],
      constraints: constraints ?? {},
      maxCalls: maxCalls ?? {},
    });
    const handlers = new Map(tools.map((t) => [t.name.replaceAll("/", "."), t]));
    let seq = 0;
    // Calls sent to this sandbox's tools and not answered yet.
    let inFlight = 0;
    // Replies that settled while other calls of this sandbox were in
    // flight: they cross together, when the last call settles or in a
    // microtask, whichever comes first (a `Promise.all` of a thousand calls
    // is one crossing, not a thousand).
    let doneTokens: number[] = [];
    let doneReplies: string[] = [];
    let flushQueued = false;
    const flush = (): void => {
      flushQueued = false;
      if (doneTokens.length === 0) return;
      const tokens = doneTokens;
      const replies = doneReplies;
      doneTokens = [];
      doneReplies = [];
      afterSettle(native.settleToolCalls(tokens, replies, inFlight === 0));
    };
    const settle = (token: number, reply: string): void => {
      if (token === 0) return;
      inFlight--;
      if (inFlight === 0 && doneTokens.length === 0) {
        // The only call in flight (an awaited call in a loop): at once.
        afterSettle(native.settleToolCall(token, reply, true));
        return;
      }
      doneTokens.push(token);
      doneReplies.push(reply);
      if (inFlight === 0) flush();
      else if (!flushQueued) {
        flushQueued = true;
        queueMicrotask(flush);
      }
    };
    // Answers one message: at once, or when the tool's promise settles.
    // Runs for every call, so it avoids an async wrapper (two promises).
    const serve = (message: string, token: number): void => {
      // `record\n<record>`, or `<kind>\n<tool>\n<args>` (a tool name holds
      // no line break).
      const nl = message.indexOf("\n");
      const kind = message.slice(0, nl);
      if (kind === "record") {
        try {
          const raw = JSON.parse(message.slice(nl + 1)) as NativeToolCall;
          const returned: unknown = onToolCall?.(toRecord({ ...raw, args: raw.args }));
          // An async hook that rejects is the host's own failure: it must
          // not become an unhandled rejection (which ends Node).
          if (returned !== null && typeof returned === "object" && typeof (returned as PromiseLike<unknown>).then === "function") {
            Promise.resolve(returned).catch(() => undefined);
          }
        } catch {
          // A hook that throws does not change the call.
        }
        return;
      }
      const nl2 = message.indexOf("\n", nl + 1);
      let call: ToolCallRequest;
      try {
        if (nl2 < 0) throw new Error("no arguments");
        call = { tool: message.slice(nl + 1, nl2), args: JSON.parse(message.slice(nl2 + 1)) as Record<string, unknown> };
      } catch {
        return settle(token, "TOOL_ERROR\nmalformed call");
      }
      if (kind === "approve" || kind === "approve-tool") {
        // Only the tool asks: its own rule may waive the approval.
        const rule = kind === "approve-tool" ? handlers.get(call.tool)?.needsApproval : true;
        const ask = (needed: unknown): unknown => {
          if (needed === false) return true;
          return approve === undefined ? false : approve({ tool: call.tool, args: call.args });
        };
        let answer: unknown;
        try {
          answer =
            typeof rule === "function"
              ? Promise.resolve(rule(call.args, { toolCallId: `cordon-approval-${++seq}`, toolName: call.tool, messages: [] })).then(
                  (needed) => ask(needed === false ? false : true),
                )
              : ask(rule === undefined ? true : rule);
        } catch {
          return settle(token, "false");
        }
        Promise.resolve(answer).then(
          (ok) => settle(token, ok === true ? "true" : "false"),
          () => settle(token, "false"),
        );
        return;
      }
      const handler = handlers.get(call.tool);
      if (!handler) return settle(token, "TOOL_ERROR\nthe tool has no handler");
      if (handler.parse) {
        // The tool's own schema, on exactly the checked value: its
        // refinements, formats, transforms and defaults apply as in its
        // framework, and the tool gets the parse's output.
        let parsed: Parsed | PromiseLike<Parsed>;
        try {
          parsed = handler.parse(call.args);
        } catch (e) {
          return settle(token, `INVALID_ARGUMENTS\n${errorText(e)}`);
        }
        Promise.resolve(parsed).then(
          (p) => (p.ok ? runTool(handler, call.tool, p.value, token) : settle(token, `INVALID_ARGUMENTS\n${p.reason}`)),
          (e: unknown) => settle(token, `INVALID_ARGUMENTS\n${errorText(e)}`),
        );
        return;
      }
      runTool(handler, call.tool, call.args, token);
    };
    const runTool = (handler: NormalTool, tool: string, args: unknown, token: number): void => {
      let result: unknown;
      try {
        result = handler.execute(args, { toolCallId: `cordon-${++seq}`, toolName: tool, messages: [] });
      } catch (e) {
        return settle(token, failure(e));
      }
      Promise.resolve(result).then(
        (value) => {
          let reply: string;
          try {
            reply = encodeResult(tool, value, resultLimit.value);
          } catch (e) {
            reply = `TOOL_ERROR\n${errorText(e)}`;
          }
          settle(token, reply);
        },
        (e: unknown) => settle(token, failure(e)),
      );
    };
    const serveOne = (message: string, token: number): void => {
      try {
        serve(message, token);
      } catch (e) {
        settle(token, `TOOL_ERROR\n${errorText(e)}`);
      }
    };
    dispatch = (messages, tokens) => {
      if (typeof messages === "string") {
        if (tokens !== 0) inFlight++;
        return serveOne(messages, tokens as number);
      }
      const list = tokens as number[];
      // Every call of the batch is in flight before the first is served: an
      // answer given at once is not taken for the last one.
      for (let i = 0; i < list.length; i++) if (list[i] !== 0) inFlight++;
      for (let i = 0; i < messages.length; i++) {
        try {
          serveOne(messages[i], list[i]);
        } catch {
          // Never reached (serveOne answers every failure); the rest of the
          // batch is served regardless.
        }
      }
    };
  }
  const deterministic = validateDeterminism(options.deterministic);
  const mounts = validateMounts(options.mounts);
  const languages = validateLanguages(options.languages);
  const description = {
    ...(languages ? { languages } : {}),
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.needsApproval ? { needsApproval: true } : {}),
    })),
    capabilities: (capabilities ?? []) as unknown[],
    constraints: (constraints ?? {}) as Record<string, unknown>,
    maxCalls: (maxCalls ?? {}) as Record<string, unknown>,
  };
  return {
    limits: limits ?? null,
    policy,
    dispatch,
    recordHook: onToolCall !== undefined,
    deterministic,
    mounts,
    resultLimit,
    description,
    languages,
  };
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

function snapshotKey(options: unknown): Uint8Array | null {
  if (!isPlainObject(options)) throw new CordonError("INVALID_OPTIONS", `snapshot options must be an object, got ${describe(options)}`);
  checkKeys("snapshot options", options, ["key"]);
  const { key } = options as SnapshotOptions;
  if (key === undefined) return null;
  const bytes = typeof key === "string" ? Buffer.from(key, "utf8") : key instanceof Uint8Array ? key : null;
  if (bytes === null || bytes.length < 16) {
    throw new CordonError("INVALID_OPTIONS", "a snapshot key must be a string or Uint8Array of at least 16 bytes");
  }
  return bytes;
}

/**
 * `options.languages`: a non-empty list of distinct languages, or null for
 * both (when absent).
 * @internal
 */
export function validateLanguages(value: unknown): Language[] | null {
  if (value === undefined) return null;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((l) => typeof l === "string" && LANGUAGES.includes(l)) ||
    new Set(value).size !== value.length
  ) {
    throw new CordonError("INVALID_OPTIONS", `languages must be a non-empty array of "javascript" and "shell", got ${describe(value)}`);
  }
  return [...value] as Language[];
}

const DETERMINISTIC_START = Date.UTC(2000, 0, 1);

function validateDeterminism(value: unknown): NativeDeterminism | null {
  if (value === undefined || value === false) return null;
  if (value === true) return { seed: 0, startMs: DETERMINISTIC_START };
  if (!isPlainObject(value)) {
    throw new CordonError("INVALID_OPTIONS", `deterministic must be a boolean or { seed, startTime }, got ${describe(value)}`);
  }
  checkKeys("deterministic", value, ["seed", "startTime"]);
  const out = { seed: 0, startMs: DETERMINISTIC_START };
  for (const [key, field] of [["seed", "seed"], ["startTime", "startMs"]] as const) {
    const v = value[key];
    if (v !== undefined) out[field] = nonNegativeInteger(`deterministic.${key}`, v);
  }
  return out;
}

/** The arguments `NativeSandbox.create` and `restore` share. */
function nativeArgs(
  p: ReturnType<typeof prepare>,
): [NativeLimits | null, string | null, Dispatch | null, boolean, NativeDeterminism | null, NativeMount[] | null] {
  return [p.limits, p.policy, p.dispatch, p.recordHook, p.deterministic, p.mounts];
}

type NativeMount = { hostPath: string; guestPath: string; writable: boolean; writeThrough: boolean };

/** Checks the shape of `mounts`; the native side checks the paths. */
function validateMounts(mounts: unknown): NativeMount[] | null {
  if (mounts === undefined) return null;
  if (!Array.isArray(mounts)) throw new CordonError("INVALID_OPTIONS", `mounts must be an array, got ${describe(mounts)}`);
  return mounts.map((m, i) => {
    if (!isPlainObject(m)) throw new CordonError("INVALID_OPTIONS", `mounts[${i}] must be an object, got ${describe(m)}`);
    checkKeys(`mounts[${i}]`, m, ["hostPath", "guestPath", "writable", "writeThrough"] as const);
    const { hostPath, guestPath, writable = false, writeThrough = false } = m as Record<string, unknown>;
    for (const [key, value] of [["hostPath", hostPath], ["guestPath", guestPath]] as const) {
      if (typeof value !== "string" || value === "") {
        throw new CordonError("INVALID_OPTIONS", `mounts[${i}].${key} must be a non-empty string, got ${describe(value)}`);
      }
    }
    for (const [key, value] of [["writable", writable], ["writeThrough", writeThrough]] as const) {
      if (typeof value !== "boolean") throw new CordonError("INVALID_OPTIONS", `mounts[${i}].${key} must be a boolean, got ${describe(value)}`);
    }
    return { hostPath: hostPath as string, guestPath: guestPath as string, writable: writable as boolean, writeThrough: writeThrough as boolean };
  });
}

/** Maps a native failure (message `CODE: text`, or status `InvalidArg`) to a CordonError. */
function toCordonError(err: unknown): CordonError {
  const e = err as { code?: string; message?: string };
  const message = String(e?.message ?? err);
  const m = /^([A-Z_]+): ([\s\S]*)$/.exec(message);
  if (m) return new CordonError(m[1] as ErrorCode, m[2]);
  return new CordonError(e?.code === "InvalidArg" ? "INVALID_OPTIONS" : "INTERNAL", message);
}

async function nativeCall<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw toCordonError(err);
  }
}

function nativeSync<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw toCordonError(err);
  }
}

/** Writes `files` into a new sandbox; a bad entry closes it and rejects. */
function seed(sandbox: Sandbox, nativeSandbox: NativeSandbox, files: unknown): void {
  if (!isPlainObject(files)) {
    nativeSandbox.close();
    throw new CordonError("INVALID_OPTIONS", `files must be a record of path → content, got ${describe(files)}`);
  }
  for (const [path, content] of Object.entries(files)) {
    try {
      const slash = path.lastIndexOf("/");
      if (slash > 0) sandbox.fs.mkdirSync(path.slice(0, slash));
      sandbox.fs.writeFileSync(path, content as string | Uint8Array);
    } catch (err) {
      nativeSandbox.close();
      const why = err instanceof Error ? err.message : String(err);
      throw new CordonError("INVALID_OPTIONS", `files[${JSON.stringify(path)}]: ${why}`);
    }
  }
}

/**
 * An isolated JavaScript environment. Runs on one sandbox are sequential (a
 * second `run` waits for the first) and share their globals, like a REPL.
 */
export class Sandbox {
  #native: NativeSandbox;
  #limits: Required<NativeLimits>;
  #queue: Promise<unknown> = Promise.resolve();
  /** Operations queued and not ended (runs, snapshots, resets). */
  #busy = 0;
  #closed = false;
  #description: Omit<DescribeInput, "limits">;
  #languages: readonly Language[] = LANGUAGES as Language[];
  /** The sandbox's file system, from the host. */
  readonly fs: SandboxFs;

  private constructor(nativeSandbox: NativeSandbox, description: Omit<DescribeInput, "limits">) {
    this.#native = nativeSandbox;
    const values = nativeSandbox.limits();
    const limits: NativeLimits = {};
    for (let i = 0; i < LIMIT_KEYS.length; i++) limits[LIMIT_KEYS[i]] = values[i];
    this.#limits = limits as Required<NativeLimits>;
    this.#description = description;
    this.fs = new SandboxFs(nativeSandbox);
  }

  /**
   * What a model needs to write code for this sandbox, as prompt text: the
   * languages, the tools as TypeScript declarations generated from their
   * JSON Schemas, what the capabilities allow, the file system and the
   * limits. The same options always give the same text.
   */
  describe(): string {
    return describeSandbox({ ...this.#description, limits: this.#limits });
  }

  /** Creates a sandbox. Rejects with `INVALID_OPTIONS` for malformed options. */
  static async create(options: SandboxOptions = {}): Promise<Sandbox> {
    const prepared = prepare(options);
    const nativeSandbox = await nativeCall(() => native.NativeSandbox.create(...nativeArgs(prepared)));
    const sandbox = new Sandbox(nativeSandbox, prepared.description);
    sandbox.#restrict(prepared.languages);
    // The limits cross napi once, in the constructor: read here from the copy
    // it keeps.
    prepared.resultLimit.value = sandbox.#limits.toolResultBytes;
    if (options.files !== undefined) seed(sandbox, nativeSandbox, options.files);
    return sandbox;
  }

  /**
   * Resumes a session from {@link snapshot} bytes (also in another process),
   * with the same tools and capabilities it was taken with (checked: a
   * digest of the compiled policy is in the snapshot). With `key`, the
   * snapshot's MAC must match it. Rejects with `INVALID_SNAPSHOT` for
   * corrupt, foreign, edited or mismatched bytes.
   */
  static async restore(snapshot: Uint8Array, options: SandboxOptions & SnapshotOptions = {}): Promise<Sandbox> {
    if (!(snapshot instanceof Uint8Array)) {
      throw new CordonError("INVALID_SNAPSHOT", `a snapshot is a Uint8Array, got ${describe(snapshot)}`);
    }
    if (!isPlainObject(options)) {
      throw new CordonError("INVALID_OPTIONS", `options must be an object, got ${describe(options)}`);
    }
    if (options.files !== undefined) {
      throw new CordonError("INVALID_OPTIONS", "files cannot be seeded into a restored sandbox; write them with sb.fs");
    }
    const { key: given, ...sandboxOptions } = options;
    const key = snapshotKey(given === undefined ? {} : { key: given });
    const prepared = prepare(sandboxOptions);
    const nativeSandbox = await nativeCall(() => native.NativeSandbox.restore(snapshot, ...nativeArgs(prepared), key));
    const sandbox = new Sandbox(nativeSandbox, prepared.description);
    sandbox.#restrict(prepared.languages);
    prepared.resultLimit.value = sandbox.#limits.toolResultBytes;
    return sandbox;
  }

  /**
   * Captures the session — file system, capability budgets and the
   * JavaScript heap — once the runs queued before it have ended.
   */
  async snapshot(options: SnapshotOptions = {}): Promise<Uint8Array> {
    const key = snapshotKey(options);
    return this.#after(() => new Uint8Array(nativeSync(() => this.#native.snapshot(key))));
  }

  /** Starts the session over: no globals, an empty file system, unused budgets. */
  async reset(): Promise<void> {
    return this.#after(() => nativeSync(() => this.#native.reset()));
  }

  #restrict(languages: Language[] | null): void {
    if (languages === null) return;
    this.#languages = languages;
    if (languages.length === 1) this.#native.setSingleLanguage(true);
  }

  /** The languages this sandbox runs. */
  get languages(): readonly Language[] {
    return this.#languages;
  }

  /** Runs `f` once the runs queued before it have ended. */
  async #after<T>(f: () => T): Promise<T> {
    if (this.#closed) throw new CordonError("CLOSED", "the sandbox is closed");
    return this.#enqueue(f);
  }

  /**
   * Runs `f` once the operations queued before it have ended: at once when
   * none is queued (a run's first slice then happens inside `run()`, without
   * a microtask in between), else after them.
   */
  #enqueue<T>(f: () => T | PromiseLike<T>): Promise<T> {
    let step: Promise<T>;
    if (this.#busy === 0) {
      try {
        step = Promise.resolve(f());
      } catch (e) {
        step = Promise.reject(e);
      }
    } else {
      step = this.#queue.then(f);
    }
    this.#busy++;
    const done = () => {
      this.#busy--;
    };
    this.#queue = step.then(done, done);
    return step;
  }

  /** The effective limits (defaults filled in). */
  get limits(): Readonly<Required<Limits>> {
    return { ...this.#limits };
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Runs `code` as the body of an async function: top-level `await` works and
   * a top-level `return` becomes {@link RunResult.value}.
   */
  async run(code: string, options: RunOptions = {}): Promise<RunResult> {
    if (typeof code !== "string") {
      throw new CordonError("INVALID_CODE", `code must be a string, got ${describe(code)}`);
    }
    if (!isPlainObject(options)) {
      throw new CordonError("INVALID_OPTIONS", `run options must be an object, got ${describe(options)}`);
    }
    checkKeys("run options", options, RUN_KEYS);
    const language = options.language ?? this.#languages[0];
    if (typeof language !== "string" || !LANGUAGES.includes(language)) {
      throw new CordonError(
        "INVALID_OPTIONS",
        `unknown language ${describe(language)}; cordon runs ${LANGUAGES.map((l) => JSON.stringify(l)).join(", ")}`,
      );
    }
    if (!this.#languages.includes(language as Language)) {
      throw new CordonError("INVALID_OPTIONS", `language ${JSON.stringify(language)} is not enabled in this sandbox (options.languages)`);
    }
    const { signal, record } = options;
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw new CordonError("INVALID_OPTIONS", `signal must be an AbortSignal, got ${describe(signal)}`);
    }
    if (record !== undefined && typeof record !== "boolean") {
      throw new CordonError("INVALID_OPTIONS", `record must be a boolean, got ${describe(record)}`);
    }
    // A string of L UTF-16 units is at least L bytes of UTF-8: check that first
    // so a huge script is refused without scanning it.
    const max = this.#limits.codeBytes;
    const size = code.length > max ? code.length : Buffer.byteLength(code, "utf8");
    if (size > max) {
      const at = code.length > max ? "at least " : "";
      throw new CordonError(
        "INVALID_CODE",
        `the code is ${at}${size} bytes, over the limit of ${max} (limits.codeBytes)`,
      );
    }
    if (!code.isWellFormed()) {
      throw new CordonError("INVALID_CODE", "code contains a lone UTF-16 surrogate; it is not valid Unicode text");
    }
    const raw = await this.#execute(code, language, signal, record === true, null);
    return toResult(raw);
  }

  /** Queues one native run; a sandbox failure rejects with a CordonError. */
  async #execute(
    code: string,
    language: string,
    signal: AbortSignal | undefined,
    record: boolean,
    replay: string | null,
  ): Promise<NativeRunResult> {
    if (this.#closed) throw new CordonError("CLOSED", "the sandbox is closed");
    if (signal?.aborted) throw new CordonError("CANCELLED", "the run was cancelled before it started");
    // Only a run with a signal needs a handle to cancel it by.
    const cancel = signal ? new native.NativeCancel() : null;
    const onAbort = () => cancel?.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    const run = this.#enqueue(() => this.#native.run(code, language, cancel, record, replay));
    try {
      const raw = await run.catch((err: unknown) => {
        throw toCordonError(err);
      });
      if (raw.failureCode) {
        throw new CordonError(raw.failureCode as ErrorCode, raw.failureMessage ?? raw.failureCode, {
          stdout: raw.stdout,
          stderr: raw.stderr,
          toolCalls: toRecords(raw),
          stats: raw.stats,
        });
      }
      return raw;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Re-runs `code` on a fresh sandbox made from `options`, answering every
   * clock read, random draw and tool call from `trace` — no tool is called —
   * and reports the first place the run differs from the trace (inputs, then
   * output). Record on a fresh sandbox to replay exactly.
   */
  static async replay(trace: Trace, code: string, options: SandboxOptions = {}): Promise<ReplayResult> {
    if (!isPlainObject(trace) || typeof (trace as { version?: unknown }).version !== "number") {
      throw new CordonError("INVALID_OPTIONS", `trace must be a trace object from run(code, { record: true }), got ${describe(trace)}`);
    }
    if (typeof code !== "string") {
      throw new CordonError("INVALID_CODE", `code must be a string, got ${describe(code)}`);
    }
    const sandbox = await Sandbox.create(options);
    try {
      const raw = await sandbox.#execute(code, "javascript", undefined, false, JSON.stringify(trace));
      const divergence = raw.divergence ? (JSON.parse(raw.divergence) as Divergence) : null;
      return { result: toResult(raw), divergence };
    } finally {
      await sandbox.close();
    }
  }

  /**
   * Closes the sandbox: a run in progress ends with `CLOSED`, later runs
   * reject with `CLOSED`, and the guest's memory is freed. Resolves once no
   * run is in progress. Closing twice is harmless.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#native.close();
    await this.#queue;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
