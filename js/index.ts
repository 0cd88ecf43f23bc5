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

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native: NativeModule = require("../native.js");

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
}

/** Options of {@link Sandbox.create}. */
export interface SandboxOptions {
  limits?: Limits;
}

/** Languages a sandbox runs. */
export type Language = "javascript";

/** Options of {@link Sandbox.run}. */
export interface RunOptions {
  /** Default `"javascript"`. */
  language?: Language;
  /** Aborting it ends the run with `CANCELLED` (or prevents it from starting). */
  signal?: AbortSignal;
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
  | "INTERNAL";

/** What a run had produced when the sandbox stopped it. */
export interface PartialResult {
  stdout: string;
  stderr: string;
  stats: RunStats;
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

interface NativeLimits {
  timeoutMs?: number;
  cpuMs?: number;
  memoryBytes?: number;
  outputBytes?: number;
  codeBytes?: number;
}

interface NativeRunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  value?: string | null;
  error?: ScriptError | null;
  stats: RunStats;
  failureCode?: string | null;
  failureMessage?: string | null;
}

interface NativeCancel {
  cancel(): void;
}

interface NativeSandbox {
  run(code: string, language: string, cancel: NativeCancel): Promise<NativeRunResult>;
  limits(): Required<NativeLimits>;
  close(): void;
}

interface NativeModule {
  NativeSandbox: { create(limits?: NativeLimits | null): Promise<NativeSandbox> };
  NativeCancel: new () => NativeCancel;
}

const LIMIT_KEYS = ["timeoutMs", "cpuMs", "memoryBytes", "outputBytes", "codeBytes"] as const;
const SANDBOX_KEYS = ["limits"] as const;
const RUN_KEYS = ["language", "signal"] as const;
const LANGUAGES: readonly string[] = ["javascript"];

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

function validateLimits(limits: unknown): NativeLimits | undefined {
  if (limits === undefined) return undefined;
  if (!isPlainObject(limits)) {
    throw new CordonError("INVALID_OPTIONS", `limits must be an object, got ${describe(limits)}`);
  }
  checkKeys("limits", limits, LIMIT_KEYS);
  const out: NativeLimits = {};
  for (const key of LIMIT_KEYS) {
    const v = limits[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
      throw new CordonError("INVALID_OPTIONS", `limits.${key} must be a non-negative integer, got ${describe(v)}`);
    }
    out[key] = v;
  }
  return out;
}

function isAbortSignal(v: unknown): v is AbortSignal {
  return (
    v !== null &&
    typeof v === "object" &&
    typeof (v as AbortSignal).aborted === "boolean" &&
    typeof (v as AbortSignal).addEventListener === "function"
  );
}

function toResult(raw: NativeRunResult): RunResult {
  return {
    exitCode: raw.exitCode,
    stdout: raw.stdout,
    stderr: raw.stderr,
    value: raw.value ?? undefined,
    error: raw.error ?? undefined,
    stats: raw.stats,
  };
}

/**
 * An isolated JavaScript environment. Runs on one sandbox are sequential (a
 * second `run` waits for the first) and share their globals, like a REPL.
 */
export class Sandbox {
  #native: NativeSandbox;
  #limits: Required<NativeLimits>;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(nativeSandbox: NativeSandbox) {
    this.#native = nativeSandbox;
    this.#limits = nativeSandbox.limits();
  }

  /** Creates a sandbox. Rejects with `INVALID_OPTIONS` for malformed options. */
  static async create(options: SandboxOptions = {}): Promise<Sandbox> {
    if (!isPlainObject(options)) {
      throw new CordonError("INVALID_OPTIONS", `options must be an object, got ${describe(options)}`);
    }
    checkKeys("options", options, SANDBOX_KEYS);
    const limits = validateLimits(options.limits);
    let nativeSandbox: NativeSandbox;
    try {
      nativeSandbox = await native.NativeSandbox.create(limits ?? null);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      throw new CordonError(e.code === "InvalidArg" ? "INVALID_OPTIONS" : "INTERNAL", String(e.message ?? err));
    }
    return new Sandbox(nativeSandbox);
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
    const language = options.language ?? "javascript";
    if (typeof language !== "string" || !LANGUAGES.includes(language)) {
      throw new CordonError(
        "INVALID_OPTIONS",
        `unknown language ${describe(language)}; cordon runs ${LANGUAGES.map((l) => JSON.stringify(l)).join(", ")}`,
      );
    }
    const { signal } = options;
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw new CordonError("INVALID_OPTIONS", `signal must be an AbortSignal, got ${describe(signal)}`);
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
    if (this.#closed) throw new CordonError("CLOSED", "the sandbox is closed");
    if (signal?.aborted) throw new CordonError("CANCELLED", "the run was cancelled before it started");

    const cancel = new native.NativeCancel();
    const onAbort = () => cancel.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    const run = this.#queue.then(() => this.#native.run(code, language, cancel));
    this.#queue = run.catch(() => undefined);
    try {
      const raw = await run;
      if (raw.failureCode) {
        throw new CordonError(raw.failureCode as ErrorCode, raw.failureMessage ?? raw.failureCode, {
          stdout: raw.stdout,
          stderr: raw.stderr,
          stats: raw.stats,
        });
      }
      return toResult(raw);
    } finally {
      signal?.removeEventListener("abort", onAbort);
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
