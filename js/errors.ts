// The errors cordon throws, and how a native failure becomes one.

import type { Errno, ErrorCode, PartialResult } from "./types";

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
 * Maps an error the addon threw to a CordonError. Sandbox failures come back
 * as values with their code (`made` in `js/binding.ts`); what is thrown is
 * napi's own: `InvalidArg` for options the addon refused, else a fault of
 * cordon.
 */
export function toCordonError(err: unknown): CordonError {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  const message = String(e?.message ?? err);
  return new CordonError(e?.code === "InvalidArg" ? "INVALID_OPTIONS" : "INTERNAL", message);
}

export async function nativeCall<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw toCordonError(err);
  }
}

export function nativeSync<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw toCordonError(err);
  }
}
