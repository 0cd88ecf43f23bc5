// The Sandbox class, and the options it is made from.

import type { DescribeInput } from "./describe";
import { LIMIT_KEYS, failed, made, native, toRecords, toResult, type NativeDeterminism, type NativeLimits, type NativeMount, type NativeRunResult, type NativeSandbox, type Dispatch, type SandboxArgs } from "./binding";
import { makeDispatch } from "./dispatch";
import { CordonError, nativeCall, nativeSync, toCordonError } from "./errors";
import { SandboxFs, seed } from "./files";
import {
  LANGUAGES,
  RUN_KEYS,
  SANDBOX_KEYS,
  checkJsonData,
  checkKeys,
  isAbortSignal,
  isPlainObject,
  show,
  snapshotKey,
  validateDeterminism,
  validateLanguages,
  validateLimits,
  validateCapabilities,
  validateMounts,
  validateStdin,
} from "./options";
import { normalTools } from "./tools";
import { prepareScript } from "./scriptsource";
import type { Capability, Divergence, Language, Limits, ReplayResult, RunOptions, RunResult, SandboxOptions, SnapshotOptions, Trace } from "./types";

/** `describe()`'s text, loaded on first use: most processes never ask. */
function describeSandbox(input: DescribeInput): string {
  return (require("./describe") as typeof import("./describe")).describeSandbox(input);
}

/**
 * The text {@link Sandbox.describe} gives for a sandbox created with
 * `options`, whose effective limits are `limits` (the `limits` of a sandbox
 * created with the same `limits` option). Validates the options as
 * `create()` does; creates nothing.
 */
export function describeOptions(options: SandboxOptions, limits: Readonly<Required<Limits>>): string {
  return describeSandbox({ ...prepare(options).description, limits });
}

/**
 * An option of `create()` for adapters, not users: capabilities that match
 * no registered tool are accepted (they grant nothing) instead of being
 * refused as a likely misspelling. The AI SDK's code caller binds only the
 * tools one call routes to it, a subset of what the capabilities name.
 * @internal
 */
export const IGNORE_UNMATCHED: unique symbol = Symbol("cordon.ignoreUnmatched");

function prepare(options: SandboxOptions): {
  limits: NativeLimits | null;
  policy: string | null;
  dispatch: Dispatch | null;
  recordHook: boolean;
  deterministic: NativeDeterminism | null;
  mounts: NativeMount[] | null;
  description: Omit<DescribeInput, "limits">;
  languages: Language[] | null;
} {
  if (!isPlainObject(options)) {
    throw new CordonError("INVALID_OPTIONS", `options must be an object, got ${show(options)}`);
  }
  checkKeys("options", options, SANDBOX_KEYS);
  const limits = validateLimits(options.limits);
  const tools = normalTools(options.tools);
  const { capabilities, constraints, maxCalls, approve, onToolCall } = options;
  if (capabilities !== undefined) validateCapabilities(capabilities);
  for (const [key, value] of [["constraints", constraints], ["maxCalls", maxCalls]] as const) {
    if (value !== undefined && !isPlainObject(value)) {
      throw new CordonError("INVALID_OPTIONS", `${key} must be a record of tool names, got ${show(value)}`);
    }
  }
  if (approve !== undefined && typeof approve !== "function") {
    throw new CordonError("INVALID_OPTIONS", `approve must be a function, got ${show(approve)}`);
  }
  if (onToolCall !== undefined && typeof onToolCall !== "function") {
    throw new CordonError("INVALID_OPTIONS", `onToolCall must be a function, got ${show(onToolCall)}`);
  }
  if (approve === undefined && capabilities?.some((c) => c && (c as Capability).requireApproval === true)) {
    throw new CordonError("INVALID_OPTIONS", "a capability has requireApproval, but no approve function was given");
  }
  let policy: string | null = null;
  let dispatch: Dispatch | null = null;
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
      ...((options as { [IGNORE_UNMATCHED]?: unknown })[IGNORE_UNMATCHED] === true ? { ignoreUnmatched: true } : {}),
    });
    dispatch = makeDispatch(tools, options as SandboxOptions);
  }
  const deterministic = validateDeterminism(options.deterministic);
  const mounts = validateMounts(options.mounts);
  const languages = validateLanguages(options.languages);
  const description = {
    ...(languages ? { languages } : {}),
    tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema })),
    policy,
  };
  return {
    limits: limits ?? null,
    policy,
    dispatch,
    recordHook: onToolCall !== undefined,
    deterministic,
    mounts,
    description,
    languages,
  };
}

/** The arguments `NativeSandbox.create` and `restore` share. */
function nativeArgs(p: ReturnType<typeof prepare>): SandboxArgs {
  return [p.limits, p.policy, p.dispatch, p.recordHook, p.deterministic, p.mounts];
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
    const nativeSandbox = made(await nativeCall(() => native.NativeSandbox.create(...nativeArgs(prepared))));
    const sandbox = new Sandbox(nativeSandbox, prepared.description);
    sandbox.#restrict(prepared.languages);
    if (options.files !== undefined) seed(sandbox.fs, nativeSandbox, options.files);
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
      throw new CordonError("INVALID_SNAPSHOT", `a snapshot is a Uint8Array, got ${show(snapshot)}`);
    }
    if (!isPlainObject(options)) {
      throw new CordonError("INVALID_OPTIONS", `options must be an object, got ${show(options)}`);
    }
    if (options.files !== undefined) {
      throw new CordonError("INVALID_OPTIONS", "files cannot be seeded into a restored sandbox; write them with sb.fs");
    }
    const { key: given, ...sandboxOptions } = options;
    const key = snapshotKey(given === undefined ? {} : { key: given });
    const prepared = prepare(sandboxOptions);
    const nativeSandbox = made(await nativeCall(() => native.NativeSandbox.restore(snapshot, ...nativeArgs(prepared), key)));
    const sandbox = new Sandbox(nativeSandbox, prepared.description);
    sandbox.#restrict(prepared.languages);
    return sandbox;
  }

  /**
   * Captures the session — file system, capability budgets and the
   * JavaScript heap — once the runs queued before it have ended.
   */
  async snapshot(options: SnapshotOptions = {}): Promise<Uint8Array> {
    const key = snapshotKey(options);
    return this.#after(() => new Uint8Array(made(nativeSync(() => this.#native.snapshot(key)))));
  }

  /** Starts the session over: no globals, an empty file system, unused budgets. */
  async reset(): Promise<void> {
    return this.#after(() => {
      const failure = nativeSync(() => this.#native.reset());
      if (failure) throw failed(failure);
    });
  }

  #restrict(languages: Language[] | null): void {
    if (languages === null) return;
    this.#languages = languages;
    if (!languages.includes("shell") || languages.every((l) => l === "shell")) this.#native.setSingleLanguage(true);
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
      throw new CordonError("INVALID_CODE", `code must be a string, got ${show(code)}`);
    }
    if (!isPlainObject(options)) {
      throw new CordonError("INVALID_OPTIONS", `run options must be an object, got ${show(options)}`);
    }
    checkKeys("run options", options, RUN_KEYS);
    const language = options.language ?? this.#languages[0];
    if (typeof language !== "string" || !LANGUAGES.includes(language)) {
      throw new CordonError(
        "INVALID_OPTIONS",
        `unknown language ${show(language)}; cordon runs ${LANGUAGES.map((l) => JSON.stringify(l)).join(", ")}`,
      );
    }
    const script = language === "shell" ? ["shell"] : ["javascript", "typescript"];
    if (!this.#languages.some((l) => script.includes(l))) {
      throw new CordonError("INVALID_OPTIONS", `language ${JSON.stringify(language)} is not enabled in this sandbox (options.languages)`);
    }
    const { signal, record, waitForTimers } = options;
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw new CordonError("INVALID_OPTIONS", `signal must be an AbortSignal, got ${show(signal)}`);
    }
    if (record !== undefined && typeof record !== "boolean") {
      throw new CordonError("INVALID_OPTIONS", `record must be a boolean, got ${show(record)}`);
    }
    if (waitForTimers !== undefined && typeof waitForTimers !== "boolean") {
      throw new CordonError("INVALID_OPTIONS", `waitForTimers must be a boolean, got ${show(waitForTimers)}`);
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
    const stdin = validateStdin(options.stdin, max);
    if (language !== "shell") {
      const prepared = prepareScript(code, language === "typescript");
      if ("error" in prepared) return syntaxError(prepared.error);
      code = prepared.code;
    }
    const raw = await this.#execute(code, language === "shell" ? "shell" : "javascript", signal, record === true, null, stdin, waitForTimers === false);
    return toResult(raw);
  }

  /** Queues one native run; a sandbox failure rejects with a CordonError. */
  async #execute(
    code: string,
    language: string,
    signal: AbortSignal | undefined,
    record: boolean,
    replay: string | null,
    stdin: Uint8Array | null = null,
    leavePending = false,
  ): Promise<NativeRunResult> {
    if (this.#closed) throw new CordonError("CLOSED", "the sandbox is closed");
    if (signal?.aborted) throw new CordonError("CANCELLED", "the run was cancelled before it started");
    // Only a run with a signal needs a handle to cancel it by.
    const cancel = signal ? new native.NativeCancel() : null;
    const onAbort = () => cancel?.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    const run = this.#enqueue(() => this.#native.run(code, language, cancel, record, replay, stdin, leavePending));
    try {
      const raw = await run.catch((err: unknown) => {
        throw toCordonError(err);
      });
      if (raw.failureCode) {
        throw new CordonError(raw.failureCode, raw.failureMessage ?? raw.failureCode, {
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
      throw new CordonError("INVALID_OPTIONS", `trace must be a trace object from run(code, { record: true }), got ${show(trace)}`);
    }
    if (typeof code !== "string") {
      throw new CordonError("INVALID_CODE", `code must be a string, got ${show(code)}`);
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

/** The result of a run whose TypeScript could not be stripped: a SyntaxError, as the guest reports one. */
function syntaxError(e: { message: string; line: number; column: number }): RunResult {
  const stack = `    at main.js:${e.line}:${e.column}\n`;
  return {
    exitCode: 1,
    stdout: "",
    stderr: `Uncaught SyntaxError: ${e.message}\n${stack}`,
    value: undefined,
    error: { name: "SyntaxError", message: e.message, stack },
    toolCalls: [],
    stats: { wallMs: 0, cpuMs: 0, memoryBytes: 0, stdoutTruncated: false, stderrTruncated: false, instanceRestarted: false },
  };
}
