// Runs the public red-team cases of corpus/ (a copy of the shared corpus,
// kept in step by scripts/sync-shared.mjs) against the built
// package and judges each by its `expect` block and the invariants of
// corpus/README.md. Used by redteam.security.test.mjs.
import { readFileSync, writeFileSync, mkdtempSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Sandbox, CordonError } from "cordon";

const here = path.dirname(fileURLToPath(import.meta.url));
export const redteamDir = path.join(here, "corpus");
export const configs = JSON.parse(readFileSync(path.join(redteamDir, "configs.json"), "utf8"));

export function loadCategory(category) {
  return JSON.parse(readFileSync(path.join(redteamDir, "cases", `${category}.json`), "utf8")).cases;
}

// A host file holding a secret that must never reach any output.
const canaryDir = mkdtempSync(path.join(os.tmpdir(), "cordon-canary-"));
export const CANARY = `CANARY-${randomBytes(12).toString("hex")}`;
export const CANARY_PATH = path.join(canaryDir, "secret.txt");
writeFileSync(CANARY_PATH, CANARY);
process.env.REDTEAM_CANARY = CANARY;

function substitute(text) {
  return text
    .replaceAll("__CANARY_PATH__", CANARY_PATH)
    .replaceAll("__CANARY__", CANARY)
    .replaceAll("__RUNNER_PATH__", fileURLToPath(import.meta.url))
    .replaceAll("__RUNNER_CWD__", process.cwd())
    .replaceAll("__HOST_TZ__", Intl.DateTimeFormat().resolvedOptions().timeZone);
}

/** Python-style inline flags (`(?i)`) to a JS RegExp. */
export function regex(source) {
  let flags = "";
  const m = /^\(\?([a-z]+)\)/.exec(source);
  if (m) {
    flags = m[1].replace(/[^ims]/g, "");
    source = source.slice(m[0].length);
  }
  return new RegExp(source, flags.includes("m") ? flags : `${flags}m`);
}

// Segment patterns as in capabilities: `*` one segment, `**` any number.
export function matchesPattern(pattern, name) {
  if (pattern === "*") return true;
  const p = pattern.split(/[./]/);
  const n = name.split(/[./]/);
  const go = (i, j) => {
    if (i === p.length) return j === n.length;
    if (p[i] === "**") {
      for (let k = j; k <= n.length; k++) if (go(i + 1, k)) return true;
      return false;
    }
    if (j === n.length) return false;
    return (p[i] === "*" || p[i] === n[j]) && go(i + 1, j + 1);
  };
  return go(0, 0);
}

function makeHandler(kind, method, records, state) {
  const [name, arg] = kind.split(":");
  const n = Number(arg);
  return async (params) => {
    records.push({ method, params: structuredClone(params) });
    switch (name) {
      case "echo":
        return { ok: true, method, params };
      case "count":
        return ++state.count;
      case "weather":
        return { city: params?.city ?? null, tempC: 21, conditions: "clear" };
      case "throw":
        throw new Error(`boom from ${method} at ${fileURLToPath(import.meta.url)}`);
      case "throw_nonerror":
        throw { secret: CANARY, path: fileURLToPath(import.meta.url) };
      case "never_resolves":
        return new Promise(() => {});
      case "slow":
      case "late_resolve":
        await new Promise((r) => setTimeout(r, n));
        return { ok: true, late: name === "late_resolve" };
      case "huge":
        return "x".repeat(n);
      case "bigint":
        return { n: 10n };
      case "cyclic": {
        const o = { a: 1 };
        o.self = o;
        return o;
      }
      case "undefined":
        return undefined;
      case "function":
        return () => CANARY;
      case "nan":
        return NaN;
      case "host_object":
        return process;
      case "deep": {
        let o = {};
        for (let i = 0; i < n; i++) o = { o };
        return o;
      }
      default:
        throw new Error(`runner: unknown handler kind ${kind}`);
    }
  };
}

const LIMIT_MAP = {
  cpu_ms: "cpuMs",
  wall_ms: "timeoutMs",
  memory_bytes: "memoryBytes",
  output_bytes: "outputBytes",
  tool_result_bytes: "toolResultBytes",
  tool_timeout_ms: "toolTimeoutMs",
  max_tool_calls_total: "toolCalls",
};

/** The cordon options for a case's profile and limits. */
export function options(profileName, caseLimits, records, state) {
  const profile = configs.profiles[profileName];
  if (!profile) throw new Error(`runner: unknown profile ${profileName}`);
  const limits = {};
  for (const [k, v] of Object.entries({ ...configs.limits_default, ...caseLimits })) {
    if (LIMIT_MAP[k] && v !== null) limits[LIMIT_MAP[k]] = v;
  }
  const tools = {};
  for (const t of profile.tools) tools[t.name] = makeHandler(t.handler, t.name, records, state);
  const capabilities = profile.capabilities.map((c) => {
    const cap = { method: c.method };
    if (c.constraints) cap.constraints = c.constraints;
    if (c.max_calls !== undefined) cap.maxCalls = c.max_calls;
    if (c.params_allowed) cap.params = c.params_allowed;
    return cap;
  });
  return { limits, tools, capabilities };
}

// Strict parameters (corpus/README.md) for one recorded call.
export function strictViolation(profileName, record) {
  const profile = configs.profiles[profileName];
  const cap = profile.capabilities.find((c) => matchesPattern(c.method, record.method));
  if (!cap) return `${record.method} ran without a capability`;
  const p = record.params;
  if (p === null || typeof p !== "object" || Array.isArray(p)) return "params are not an object";
  if (cap.params_allowed) {
    const extra = Object.keys(p).filter((k) => !cap.params_allowed.includes(k));
    if (extra.length) return `params outside params_allowed: ${extra}`;
  }
  for (const c of cap.constraints ?? []) {
    const v = p[c.param];
    switch (c.op) {
      case "<=": case "<": case ">=": case ">": case "==":
        if (typeof v !== "number" || !Number.isFinite(v)) return `${c.param} is not a finite number`;
        if (!{ "<=": v <= c.value, "<": v < c.value, ">=": v >= c.value, ">": v > c.value, "==": v === c.value }[c.op]) {
          return `${c.param}=${v} breaks ${c.op} ${c.value}`;
        }
        break;
      case "in":
        if (!c.value.some((x) => typeof x === typeof v && x === v)) return `${c.param}=${JSON.stringify(v)} not in list`;
        break;
      case "starts_with":
        if (typeof v !== "string" || !v.startsWith(c.value)) return `${c.param} does not start with ${c.value}`;
        if (c.value.startsWith("/") && (/(^|\/)\.\.(\/|$)/.test(v) || /%2e/i.test(v) || v.includes("\\") || v.includes("\0"))) {
          return `${c.param} is not a normalised path: ${JSON.stringify(v)}`;
        }
        break;
      default:
        return `runner: unknown op ${c.op}`;
    }
  }
  return null;
}

/** The profile's options with a case's `create_with` overrides (in the corpus's snake_case). */
function createWith(c, records, state) {
  const base = options(c.config, c.limits ?? {}, records, state);
  const over = c.api?.create_with ?? {};
  if (over.limits) {
    for (const [k, v] of Object.entries(over.limits)) base.limits[LIMIT_MAP[k] ?? k] = v;
  }
  if (over.capabilities) {
    base.capabilities = over.capabilities.map((cap) => {
      const out = { method: cap.method };
      if (cap.constraints) out.constraints = cap.constraints;
      if ("max_calls" in cap) out.maxCalls = cap.max_calls;
      if (cap.params_allowed) out.params = cap.params_allowed;
      return out;
    });
  }
  if (over.tools) {
    base.tools = {};
    for (const t of over.tools) base.tools[t.name] = makeHandler(t.handler, t.name, records, state);
  }
  return base;
}

/** API-misuse cases: bad arguments to create/run, concurrency, closing. */
async function apiCase(c) {
  const api = c.api ?? {};
  const e = c.expect;
  const records = [];
  const started = performance.now();
  const outcome = async () => {
    let sb;
    try {
      sb = await Sandbox.create(createWith(c, records, { count: 0 }));
    } catch (err) {
      if (!(err instanceof CordonError)) return `create threw a non-CordonError: ${err}`;
      return null; // a typed refusal is the safe answer
    }
    try {
      const code = [c.code].flat().join("\n");
      const attempts = [];
      if ("code_value" in api) {
        const value = api.code_value === "__object_with_toString__" ? { toString: () => "console.log('coerced')" } : api.code_value;
        attempts.push(sb.run(value));
      } else if (api.code_kind === "nul_then_loop") {
        attempts.push(sb.run("console.log('before')\0while (true) {}"));
      } else if (api.concurrent_runs) {
        for (let i = 0; i < api.concurrent_runs; i++) attempts.push(sb.run(api.code ?? code));
      } else if ("language_value" in api) {
        attempts.push(sb.run(code, { language: api.language_value }));
      } else if (api.dispose_then_run) {
        await sb.close();
        attempts.push(sb.run(code));
      } else {
        attempts.push(sb.run(code));
      }
      for (const settled of await Promise.allSettled(attempts)) {
        if (settled.status === "rejected" && !(settled.reason instanceof CordonError)) {
          return `run threw a non-CordonError: ${settled.reason}`;
        }
        if (settled.status === "rejected" && settled.reason.code === "INTERNAL") return `internal error: ${settled.reason.message}`;
        if (settled.status === "fulfilled" && /coerced/.test(settled.value.stdout)) return "a non-string was coerced into code";
      }
      return null;
    } finally {
      await sb.close();
    }
  };
  const why = await outcome();
  const elapsed = performance.now() - started;
  if (why) return { contained: false, why, elapsed, stdout: "" };
  if (e.within_ms && elapsed > e.within_ms) return { contained: false, why: `took ${elapsed.toFixed(0)} ms`, elapsed, stdout: "" };
  const fresh = await Sandbox.create();
  const ok = (await fresh.run('console.log("ok")')).stdout === "ok\n";
  await fresh.close();
  if (!ok) return { contained: false, why: "a fresh sandbox does not work afterwards", elapsed, stdout: "" };
  return { contained: true, elapsed, stdout: "" };
}

/** Runs the code in two fresh sandboxes and compares their output. */
async function compareFresh(c) {
  const deterministic = (c.requires ?? []).includes("api.deterministic_mode");
  const outputs = [];
  const started = performance.now();
  for (let i = 0; i < 2; i++) {
    const sb = await Sandbox.create({ ...options(c.config, c.limits ?? {}, [], { count: 0 }), deterministic });
    const r = await sb.run([...HELPERS, ...[c.code].flat()].join("\n"));
    outputs.push(r.stdout);
    await sb.close();
  }
  const elapsed = performance.now() - started;
  const e = c.expect;
  const fail = (why) => ({ contained: false, why, elapsed, stdout: outputs.join("") });
  if (e.fresh_sandboxes_differ && outputs[0] === outputs[1]) return fail(`two fresh sandboxes printed the same ${JSON.stringify(outputs[0])}`);
  if (e.fresh_sandboxes_identical && outputs[0] !== outputs[1]) return fail("two deterministic sandboxes differ");
  if (e.stdout_matches && !outputs.every((o) => regex(e.stdout_matches).test(o))) return fail("stdout does not match");
  return { contained: true, elapsed, stdout: outputs.join("") };
}

const protoKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join(",");

// What cordon offers of the `requires` vocabulary so far.
const SUPPORTED = new Set(["js.fs", "api.deterministic_mode", "js.shell", "shell.control_flow", "shell.functions"]);

// Cases whose expectation contradicts a deliberate design decision, judged
// instead by what that design must guarantee. Each is printed with its reason
// and still has to be contained.
export const RETARGETED = {
  "host-022": {
    why:
      "a sandbox is one realm across runs by design (a REPL session); what must hold instead is that the " +
      "pollution cannot hijack the bridge: the followup prints the polluted values through console.log after " +
      "Array.prototype.push was replaced, exactly",
    followup: [
      {
        code: "console.log(String(({}).polluted), [].push(1), typeof globalThis.__persist);",
        expect: { stdout_matches: "^yes hijacked string\\n$" },
      },
    ],
  },
  "stack-js-007": {
    why:
      "QuickJS refuses the pattern while parsing it (at most 255 capture groups), before any recursion: the " +
      "SyntaxError the case names as its safe outcome, though its message names neither stack nor limit",
    expect: { error_matches: "^\\s*SyntaxError: too many captures$" },
  },
};

/** The case as cordon is judged on it. */
function retarget(c) {
  const r = RETARGETED[c.id];
  if (!r) return c;
  return {
    ...c,
    followup: r.followup ?? c.followup,
    expect: { ...c.expect, ...(r.expect ?? {}) },
  };
}
const LANGUAGES = new Set(["javascript", "tool-args", "shell"]);
const LIMIT_CODES = new Set(["TIMEOUT", "CPU_LIMIT", "MEMORY_LIMIT", "STACK_OVERFLOW", "OUTPUT_LIMIT"]);
const HELPERS = [
  "const __call = (name, params) => tools.call(name, params);",
  "const __fs = { readFile: async (p) => fs.readFileSync(p, 'utf8'), writeFile: async (p, d) => fs.writeFileSync(p, d),",
  "  mkdir: async (p) => fs.mkdirSync(p, { recursive: true }), readdir: async (p) => fs.readdirSync(p), unlink: async (p) => fs.unlinkSync(p) };",
  "const __sh = (cmd) => shell(cmd);",
];

/** Runs one case; returns { contained, why, elapsed, stdout } or { skipped }. */
export async function runCase(original) {
  const c = retarget(original);
  const missing = (c.requires ?? []).filter((r) => !SUPPORTED.has(r));
  if (missing.length) return { skipped: `requires ${missing.join(", ")}` };
  if (!LANGUAGES.has(c.language)) return { skipped: `language ${c.language} is not implemented yet` };
  if (c.runner === "api" || c.api) return apiCase(c);
  if (c.runner === "compare_two_fresh_sandboxes") return compareFresh(c);
  const canaryBefore = readFileSync(CANARY_PATH, "utf8");
  const rssBefore = process.memoryUsage().rss;
  const records = [];
  const state = { count: 0 };
  const protoBefore = protoKeys();
  const sb = await Sandbox.create(options(c.config, c.limits ?? {}, records, state));
  const code =
    c.language === "tool-args"
      ? `try { const r = await tools.callRaw(${JSON.stringify(c.method)}, ${JSON.stringify(
          c.args_json.replace(/\{\{repeat:(.+?):(\d+)\}\}/g, (_, s, n) => s.repeat(Number(n))),
        )}); console.log('ALLOWED ' + JSON.stringify(r).slice(0, 200)); } catch (e) { console.log('DENIED ' + String(e && e.message || e).slice(0, 300)); }`
      : c.language === "shell"
        ? [c.code].flat().map(substitute).join("\n")
        : [...HELPERS, ...[c.code].flat()].map(substitute).join("\n");
  const language = c.language === "tool-args" ? "javascript" : c.language;
  const runs = [];
  const attempt = async (text, lang) => {
    const started = performance.now();
    try {
      const result = await sb.run(text, { language: lang });
      return { result, elapsed: performance.now() - started };
    } catch (error) {
      return { error, elapsed: performance.now() - started };
    }
  };
  const concurrent = /^concurrent_runs:(\d+)$/.exec(c.runner ?? "");
  if (concurrent) {
    runs.push(...(await Promise.all(Array.from({ length: Number(concurrent[1]) }, () => attempt(code, language)))));
  } else {
    runs.push(await attempt(code, language));
  }
  const waitAfter = /^wait_after_ms:(\d+)$/.exec(c.runner ?? "");
  if (waitAfter) await new Promise((r) => setTimeout(r, Number(waitAfter[1])));
  const followups = [];
  for (const f of c.followup ?? []) {
    const text = Array.isArray(f.code) ? f.code.map(substitute).join("\n") : substitute(f.code);
    followups.push({ spec: f, out: await attempt(text, f.language ?? language) });
  }
  const reusable = await attempt('console.log("ok")', "javascript");
  await sb.close();

  const out = (r) => r.result?.stdout ?? r.error?.result?.stdout ?? "";
  const err = (r) => r.result?.stderr ?? r.error?.result?.stderr ?? "";
  const stdout = runs.map(out).join("");
  const fail = (why) => ({ contained: false, why, elapsed: Math.max(...runs.map((r) => r.elapsed)), stdout });
  const e = c.expect;

  if (readFileSync(CANARY_PATH, "utf8") !== canaryBefore) return fail("a host file changed");
  for (const p of e.host_paths_must_not_exist ?? []) if (existsSync(substitute(p))) return fail(`${p} exists on the host`);
  if (e.host_rss_growth_mb_max !== undefined) {
    const growth = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    if (growth > e.host_rss_growth_mb_max) return fail(`host RSS grew by ${growth.toFixed(0)} MiB`);
  }
  if (e.stdout_valid_utf8 && !stdout.isWellFormed()) return fail("stdout is not valid UTF-8");
  if (e.max_stdout_bytes !== undefined) {
    // The cut output may carry cordon's one-line truncation marker.
    const marker = /\n?\[cordon: output truncated at \d+ bytes\]\n$/;
    for (const r of runs) {
      const bytes = Buffer.byteLength(out(r).replace(marker, ""));
      if (bytes > e.max_stdout_bytes) return fail(`stdout holds ${bytes} bytes, over ${e.max_stdout_bytes}`);
    }
  }
  if (e.max_stderr_bytes !== undefined) {
    for (const r of runs) {
      const bytes = Buffer.byteLength(err(r).replace(/\n?\[cordon: output truncated at \d+ bytes\]\n$/, ""));
      if (bytes > e.max_stderr_bytes) return fail(`stderr holds ${bytes} bytes, over ${e.max_stderr_bytes}`);
    }
  }
  const everything = [...runs, ...followups.map((f) => f.out)]
    .map((r) => out(r) + err(r) + String(r.error?.message ?? "") + JSON.stringify(r.result?.error ?? ""))
    .join("\n");
  if (everything.includes(CANARY)) return fail("the canary reached the guest's output");
  if (e.within_ms && runs.some((r) => r.elapsed > e.within_ms)) return fail(`took over ${e.within_ms} ms`);
  for (const r of runs) {
    if (r.error && !(r.error instanceof CordonError)) return fail(`host error: ${r.error}`);
    if (r.error?.code === "INTERNAL") return fail(`internal error: ${r.error.message}`);
  }
  const count = (pattern) => records.filter((r) => matchesPattern(pattern, r.method)).length;
  for (const [pattern, max] of Object.entries(e.handler_calls_max ?? {})) {
    if (count(pattern) > max) return fail(`${count(pattern)} calls reached ${pattern}, at most ${max} allowed`);
  }
  for (const [pattern, exact] of Object.entries(e.handler_calls_exact ?? {})) {
    if (count(pattern) !== exact) return fail(`${count(pattern)} calls reached ${pattern}, expected ${exact}`);
  }
  if (e.stdout_matches && !regex(e.stdout_matches).test(stdout)) return fail(`stdout ${JSON.stringify(stdout.slice(0, 200))} does not match`);
  if (e.stdout_not_matches && regex(e.stdout_not_matches).test(stdout)) return fail("stdout matches what it must not");
  if (e.handler_params_strict || ["denied_or_strict", "ok_or_denied"].includes(e.outcome)) {
    for (const record of records) {
      const why = strictViolation(c.config, record);
      if (why) return fail(`non-strict call reached the handler: ${why}`);
    }
  }
  if (e.host_prototype_clean && (protoKeys() !== protoBefore || {}.isAdmin !== undefined || {}.polluted !== undefined)) {
    return fail("the host's Object.prototype changed");
  }
  switch (e.outcome) {
    case "denied": {
      const denials = [
        ...stdout.split("\n").filter((l) => l.startsWith("DENIED ")),
        ...runs.map((r) => r.error?.message ?? r.result?.error?.message ?? "").filter(Boolean),
      ];
      const pattern = e.error_matches ? regex(e.error_matches) : /./;
      if (!denials.some((d) => pattern.test(d))) return fail(`no denial seen (stdout ${JSON.stringify(stdout.slice(0, 200))})`);
      break;
    }
    case "ok":
      if (runs.some((r) => r.error)) return fail(`run failed: ${runs.find((r) => r.error).error.message}`);
      break;
    case "terminated":
    case "terminated_or_error":
    case "error": {
      const pattern = e.error_matches ? regex(e.error_matches) : /./;
      for (const r of runs) {
        const limit = r.error && LIMIT_CODES.has(r.error.code);
        // A shell reports its errors on stderr, with the exit status.
        const shellError =
          c.language === "shell" && r.result?.stderr ? { name: "shell", message: r.result.stderr.trim() } : undefined;
        const scriptError = r.result?.exitCode !== 0 && (r.result?.error ?? shellError);
        const seen = `${r.error?.code ?? ""} ${r.error?.message ?? ""} ${scriptError ? `${scriptError.name}: ${scriptError.message}` : ""}`;
        const ended = e.outcome === "terminated" ? limit || (e.error_matches && scriptError) : limit || r.error || scriptError;
        if (!ended) return fail(`the run was not stopped (stdout ${JSON.stringify(out(r).slice(0, 120))})`);
        if (!pattern.test(seen)) return fail(`the error ${JSON.stringify(seen.trim())} does not name the limit`);
      }
      break;
    }
    default:
      break;
  }
  for (const f of followups) {
    const fe = f.spec.expect ?? {};
    const text = out(f.out);
    if (fe.stdout_matches && !regex(fe.stdout_matches).test(text)) return fail(`followup stdout ${JSON.stringify(text.slice(0, 200))} does not match`);
  }
  if (e.stdout_not_matches && regex(e.stdout_not_matches).test(out(reusable))) return fail("a later run printed what must not appear");
  if (e.sandbox_reusable !== false && out(reusable) !== "ok\n") return fail("the sandbox is not reusable afterwards");
  return { contained: true, elapsed: Math.max(...runs.map((r) => r.elapsed)), stdout };
}
