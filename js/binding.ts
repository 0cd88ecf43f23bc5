// The native module: its shape as this package uses it, the queue that
// continues runs after tool replies, and a run's result as the addon makes it.

import type { BindingFailure, BindingLimits, BindingRunResult, ErrorCode as NativeErrorCode } from "../native";
import { Next } from "../native";
import { CordonError } from "./errors";
import type { ErrorCode, RunResult, ToolCallRecord, Trace } from "./types";

/** The addon; `native.d.ts`, which napi-rs writes from the Rust, is its only description. */
export const native: typeof import("../native") = require("../native.js");

export type { BindingDeterminism as NativeDeterminism, BindingMount as NativeMount, NativeSandbox } from "../native";
export type NativeLimits = BindingLimits;
/** A run's result as the addon makes it, its failure code in the public type. */
export type NativeRunResult = Omit<BindingRunResult, "failureCode"> & { failureCode?: ErrorCode | null };

/** The limits' names, in the order `NativeSandbox.limits()` gives their values. */
export const LIMIT_KEYS: readonly (keyof BindingLimits)[] = native.limitKeys();

/** The JavaScript side of tool calls (`js/dispatch.ts`). */
export type Dispatch = NonNullable<Parameters<typeof native.NativeSandbox.create>[2]>;

/** What `NativeSandbox.create` and `restore` both take, in order. */
export type SandboxArgs = Parameters<typeof native.NativeSandbox.create>;

// The public `ErrorCode` lists exactly the codes the addon has, and those
// only `js/` gives (`MISSING_PEER`): `tsc` fails here when they differ.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameCodes: Same<`${NativeErrorCode}` | "MISSING_PEER", ErrorCode> = true;
void sameCodes;

/** What the addon made (a sandbox, a snapshot), or its failure thrown as a CordonError. */
export function made<T extends object>(value: T | BindingFailure): T {
  if (isFailure(value)) throw failed(value);
  return value;
}

function isFailure(value: object): value is BindingFailure {
  // A sandbox or a snapshot's bytes has no `code`.
  return "code" in value;
}

/** A failure the addon returned, as the error `js/` throws. */
export function failed(failure: BindingFailure): CordonError {
  // `sameCodes` above: the addon's codes are the public ones.
  return new CordonError(failure.code as unknown as ErrorCode, failure.message);
}

/**
 * Queues what `settleToolCall` asks for: the runs answers made ready go on
 * in one microtask; past the JavaScript thread's budget for this turn of the
 * event loop, after it turned (`setImmediate`).
 */
export function afterSettle(next: Next): void {
  if (next === Next.Drain) queueMicrotask(drainReady);
  else if (next === Next.Later) setImmediate(drainLater);
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

/**
 * Records as `crates/runtime/src/records.rs` writes them: a JSON array whose
 * records at `texts` hold the arguments' text, parsed here (and kept as
 * text when it is not JSON).
 */
export function parseRecords(json: string, texts: readonly number[]): ToolCallRecord[] {
  const records = JSON.parse(json) as ToolCallRecord[];
  for (const i of texts) records[i].args = parseArgs(records[i].args as string);
  return records;
}

/** A run's tool-call log. */
export function toRecords(raw: NativeRunResult): ToolCallRecord[] {
  return parseRecords(raw.toolCalls, raw.toolCallTexts);
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
  failureCode: ErrorCode | null,
  failureMessage: string | null,
): NativeRunResult {
  // Absent fields come as null, which `toResult` reads as absent.
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
  } as NativeRunResult;
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
