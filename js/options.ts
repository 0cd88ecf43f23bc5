// Validation of what users pass in: each setting is checked at create() and
// a bad one is INVALID_OPTIONS naming it.

import { LIMIT_KEYS, type NativeDeterminism, type NativeLimits, type NativeMount } from "./binding";
import { CordonError } from "./errors";
import type { Capability, Language, SnapshotOptions } from "./types";

export const SANDBOX_KEYS = [
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
export const RUN_KEYS = ["language", "signal", "record", "waitForTimers", "stdin"] as const;
export const LANGUAGES: readonly string[] = ["javascript", "typescript", "shell"];

export const show = (v: unknown): string => {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : typeof v;
};

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function checkKeys(where: string, value: Record<string, unknown>, allowed: readonly string[]): void {
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
    throw new CordonError("INVALID_OPTIONS", `${where} must be a non-negative integer, got ${show(v)}`);
  }
  return v;
}

export function validateLimits(limits: unknown): NativeLimits | undefined {
  if (limits === undefined) return undefined;
  if (!isPlainObject(limits)) {
    throw new CordonError("INVALID_OPTIONS", `limits must be an object, got ${show(limits)}`);
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
export function checkJsonData(value: unknown, where: string, depth = 0): void {
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
      if (!isPlainObject(value)) throw new CordonError("INVALID_OPTIONS", `${where} must be plain data, got ${show(value)}`);
      for (const [k, v] of Object.entries(value)) checkJsonData(v, `${where}.${k}`, depth + 1);
      return;
    default:
      throw new CordonError("INVALID_OPTIONS", `${where} must be JSON data, got ${typeof value}`);
  }
}

export function isAbortSignal(v: unknown): v is AbortSignal {
  return (
    v !== null &&
    typeof v === "object" &&
    typeof (v as AbortSignal).aborted === "boolean" &&
    typeof (v as AbortSignal).addEventListener === "function"
  );
}

export function snapshotKey(options: unknown): Uint8Array | null {
  if (!isPlainObject(options)) throw new CordonError("INVALID_OPTIONS", `snapshot options must be an object, got ${show(options)}`);
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
    throw new CordonError("INVALID_OPTIONS", `languages must be a non-empty array of "javascript", "typescript" and "shell", got ${show(value)}`);
  }
  return [...value] as Language[];
}

const DETERMINISTIC_START = Date.UTC(2000, 0, 1);

export function validateDeterminism(value: unknown): NativeDeterminism | null {
  if (value === undefined || value === false) return null;
  if (value === true) return { seed: 0, startMs: DETERMINISTIC_START };
  if (!isPlainObject(value)) {
    throw new CordonError("INVALID_OPTIONS", `deterministic must be a boolean or { seed, startTime }, got ${show(value)}`);
  }
  checkKeys("deterministic", value, ["seed", "startTime"]);
  const out = { seed: 0, startMs: DETERMINISTIC_START };
  for (const [key, field] of [["seed", "seed"], ["startTime", "startMs"]] as const) {
    const v = value[key];
    if (v !== undefined) out[field] = nonNegativeInteger(`deterministic.${key}`, v);
  }
  return out;
}

/** Checks the shape of `mounts`; the native side checks the paths. */
export function validateMounts(mounts: unknown): NativeMount[] | null {
  if (mounts === undefined) return null;
  if (!Array.isArray(mounts)) throw new CordonError("INVALID_OPTIONS", `mounts must be an array, got ${show(mounts)}`);
  return mounts.map((m, i) => {
    if (!isPlainObject(m)) throw new CordonError("INVALID_OPTIONS", `mounts[${i}] must be an object, got ${show(m)}`);
    checkKeys(`mounts[${i}]`, m, ["hostPath", "guestPath", "writable", "writeThrough"] as const);
    const { hostPath, guestPath, writable = false, writeThrough = false } = m as Record<string, unknown>;
    for (const [key, value] of [["hostPath", hostPath], ["guestPath", guestPath]] as const) {
      if (typeof value !== "string" || value === "") {
        throw new CordonError("INVALID_OPTIONS", `mounts[${i}].${key} must be a non-empty string, got ${show(value)}`);
      }
    }
    for (const [key, value] of [["writable", writable], ["writeThrough", writeThrough]] as const) {
      if (typeof value !== "boolean") throw new CordonError("INVALID_OPTIONS", `mounts[${i}].${key} must be a boolean, got ${show(value)}`);
    }
    return { hostPath: hostPath as string, guestPath: guestPath as string, writable: writable as boolean, writeThrough: writeThrough as boolean };
  });
}

const CAPABILITY_KEYS = ["method", "constraints", "maxCalls", "params", "requireApproval"];

/**
 * Checks the shape of `capabilities`, naming the first offending entry and
 * key (`capabilities[1].maxCalls`); `where` is what the list is called.
 * Constraints are the policy's to check: its messages name their keys.
 */
export function validateCapabilities(caps: unknown, where = "capabilities"): asserts caps is Capability[] {
  const bad = (at: string, what: string) => new CordonError("INVALID_OPTIONS", `${at || "the top level"}: ${what}`);
  if (!Array.isArray(caps)) throw bad(where, `expected an array of capabilities, got ${show(caps)}`);
  caps.forEach((cap: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isPlainObject(cap)) throw bad(at, `expected an object like {"method": "name"}, got ${show(cap)}`);
    for (const key of Object.keys(cap)) {
      if (!CAPABILITY_KEYS.includes(key)) throw bad(`${at}.${key}`, `unknown key; expected one of ${CAPABILITY_KEYS.join(", ")}`);
    }
    if (typeof cap.method !== "string") throw bad(`${at}.method`, `expected a tool name or pattern (a string), got ${show(cap.method)}`);
    if (cap.constraints !== undefined && (cap.constraints === null || typeof cap.constraints !== "object")) {
      throw bad(`${at}.constraints`, `expected a constraint object or an array of them, got ${show(cap.constraints)}`);
    }
    if (cap.maxCalls !== undefined && !(Number.isSafeInteger(cap.maxCalls) && (cap.maxCalls as number) >= 0)) {
      throw bad(`${at}.maxCalls`, `expected a non-negative integer, got ${show(cap.maxCalls)}`);
    }
    if (cap.params !== undefined && !(Array.isArray(cap.params) && cap.params.every((p) => typeof p === "string"))) {
      throw bad(`${at}.params`, `expected an array of parameter names, got ${show(cap.params)}`);
    }
    if (cap.requireApproval !== undefined && typeof cap.requireApproval !== "boolean") {
      throw bad(`${at}.requireApproval`, `expected true or false, got ${show(cap.requireApproval)}`);
    }
  });
}

/**
 * `run`'s `stdin`: a string (sent as UTF-8) or bytes, at most `max` bytes
 * (limits.codeBytes); null when not given.
 */
export function validateStdin(value: unknown, max: number): Uint8Array | null {
  if (value === undefined || value === null) return null;
  let bytes: Uint8Array;
  if (typeof value === "string") {
    if (!value.isWellFormed()) {
      throw new CordonError("INVALID_OPTIONS", "stdin contains a lone UTF-16 surrogate; it is not valid Unicode text");
    }
    if (value.length > max) {
      throw new CordonError("INVALID_OPTIONS", `stdin is at least ${value.length} bytes, over the limit of ${max} (limits.codeBytes)`);
    }
    bytes = Buffer.from(value, "utf8");
  } else if (value instanceof Uint8Array) {
    bytes = value;
  } else {
    throw new CordonError("INVALID_OPTIONS", `stdin must be a string or a Uint8Array, got ${show(value)}`);
  }
  if (bytes.length > max) {
    throw new CordonError("INVALID_OPTIONS", `stdin is ${bytes.length} bytes, over the limit of ${max} (limits.codeBytes)`);
  }
  return bytes;
}
