// The native module: its shape as this package uses it, the queue that
// continues runs after tool replies, and a run's result as the addon makes it.

import type { RunResult, RunStats, ScriptError, ToolCallRecord, Trace } from "./types";

export const native: NativeModule = require("../native.js");

export const LIMIT_KEYS = [
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

export type NativeLimits = { [K in (typeof LIMIT_KEYS)[number]]?: number };

export interface NativeToolCall {
  tool: string;
  args: string;
  decision: string;
  reason?: string | null;
  code?: string | null;
  message?: string | null;
  durationMs: number;
  resultBytes?: number | null;
}

export interface NativeRunResult {
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

export interface NativeCancel {
  cancel(): void;
}

export interface NativeSandbox {
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
  /** The effective limits, in the order of `LIMIT_KEYS`. */
  limits(): Float64Array;
  setSingleLanguage(single: boolean): void;
  close(): void;
}

export interface NativeDeterminism {
  seed: number;
  startMs: number;
}

export type NativeMount = { hostPath: string; guestPath: string; writable: boolean; writeThrough: boolean };

/**
 * Serves the native side: a message is `<kind>\n<payload>`; a non-zero
 * `token` is answered through `settleToolCall`. The messages of one poll of
 * a run come as arrays, in the order they were made.
 */
export type Dispatch = (messages: string | string[], tokens: number | number[]) => void;

/** What `NativeSandbox.create` and `restore` both take, in order. */
export type SandboxArgs = [
  limits: NativeLimits | null,
  policy: string | null,
  dispatch: Dispatch | null,
  recordHook: boolean | null,
  deterministic: NativeDeterminism | null,
  mounts: NativeMount[] | null,
];

interface NativeModule {
  NativeSandbox: {
    create(...args: SandboxArgs): NativeSandbox | Promise<NativeSandbox>;
    restore(snapshot: Uint8Array, ...args: [...SandboxArgs, key: Uint8Array | null]): Promise<NativeSandbox>;
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
export function afterSettle(next: number): void {
  if (next === 1) queueMicrotask(drainReady);
  else if (next === 2) setImmediate(drainLater);
}

function drainReady(): void {
  if (native.drainReady()) setImmediate(drainLater);
}

function drainLater(): void {
  if (native.drainLater()) setImmediate(drainLater);
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function toRecord(raw: NativeToolCall): ToolCallRecord {
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
export function toRecords(raw: NativeRunResult): ToolCallRecord[] {
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

export function toResult(raw: NativeRunResult): RunResult {
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
