// The public API against the built package: results, errors, bad input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, CordonError } from "cordon";

async function rejectsWith(promise, code) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof CordonError, `expected a CordonError, got ${err}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

test("a run returns stdout, value and stats", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run("console.log('hi'); return 6 * 7");
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, "hi\n42\n");
  assert.equal(r.stderr, "");
  assert.equal(r.value, "42");
  assert.equal(r.error, undefined);
  assert.equal(r.stats.stdoutTruncated, false);
  assert.equal(r.stats.instanceRestarted, false);
  assert.ok(r.stats.wallMs >= 0 && r.stats.cpuMs >= 0 && r.stats.memoryBytes > 0);
  assert.deepEqual(Object.keys(r), ["exitCode", "stdout", "stderr", "value", "error", "toolCalls", "stats"]);
  assert.deepEqual(Object.keys(r.stats), [
    "wallMs",
    "cpuMs",
    "memoryBytes",
    "stdoutTruncated",
    "stderrTruncated",
    "instanceRestarted",
  ]);
  // The result's fields cross from the addon as positional arguments: a run
  // that waits on a timer tells wall time from CPU time.
  const waited = await sb.run("await new Promise((r) => setTimeout(r, 60)); return 1");
  assert.ok(waited.stats.wallMs >= 55 && waited.stats.wallMs < 30000, `wallMs ${waited.stats.wallMs}`);
  assert.ok(waited.stats.memoryBytes >= 1024 * 1024, `memoryBytes ${waited.stats.memoryBytes}`);
  assert.ok(waited.stats.cpuMs < waited.stats.wallMs / 2, `cpuMs ${waited.stats.cpuMs}, wallMs ${waited.stats.wallMs}`);
  await sb.close();
});

test("top-level await works and the returned value is rendered", async () => {
  const sb = await Sandbox.create();
  const cases = [
    ["return await Promise.resolve('text')", "text", "text\n"],
    ["return { a: [1, 2], b: null }", '{"a":[1,2],"b":null}', '{"a":[1,2],"b":null}\n'],
    ["return 10n", "10n", "10n\n"],
    ["await null", undefined, ""],
    ["return undefined", undefined, ""],
  ];
  for (const [code, value, stdout] of cases) {
    const r = await sb.run(code);
    assert.deepEqual([r.exitCode, r.value, r.stdout, r.stderr], [0, value, stdout, ""], code);
  }
  await sb.close();
});

test("an uncaught exception is a result with guest line numbers", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run("const x = 1;\nfunction boom() {\n  throw new TypeError('bad ' + x);\n}\nboom();");
  assert.equal(r.exitCode, 1);
  assert.equal(r.stdout, "");
  assert.deepEqual(r.error, {
    name: "TypeError",
    message: "bad 1",
    stack: "    at boom (main.js:3:32)\n    at <anonymous> (main.js:5:1)\n",
  });
  assert.equal(r.stderr, "Uncaught TypeError: bad 1\n    at boom (main.js:3:32)\n    at <anonymous> (main.js:5:1)\n");
  const thrown = await sb.run("await null; throw 'plain'");
  assert.equal(thrown.exitCode, 1);
  assert.deepEqual(thrown.error, { name: "Error", message: "Uncaught 'plain'", stack: "" });
  assert.equal(thrown.stderr, "Uncaught 'plain'\n");
  await sb.close();
});

test("a syntax error names its line", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run("let a = 1;\nlet b = ;\n");
  assert.equal(r.exitCode, 1);
  assert.equal(r.error.name, "SyntaxError");
  assert.equal(r.error.message, "unexpected token in expression: ';'");
  assert.equal(r.error.stack, "    at main.js:2:9\n");
  assert.equal(r.stderr, "Uncaught SyntaxError: unexpected token in expression: ';'\n    at main.js:2:9\n");
  // Code that ends too early is said to, at its own end (not at the
  // wrapper's closing brace, a line it does not have).
  for (const [code, at] of [["return 1 +", "1:11"], ["let a = [1,\n  2,", "2:5"], ["if (x) {\n", "2:1"]]) {
    const early = await sb.run(code);
    assert.deepEqual(
      [early.exitCode, early.error.name, early.error.message, early.error.stack, early.stderr],
      [1, "SyntaxError", "unexpected end of input", `    at main.js:${at}\n`, `Uncaught SyntaxError: unexpected end of input\n    at main.js:${at}\n`],
      JSON.stringify(code),
    );
  }
  await sb.close();
});

test("stacks never show host paths", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run("function a(){ return b() }\nfunction b(){ return JSON.parse('{') }\na()");
  assert.equal(r.exitCode, 1);
  assert.equal(r.error.name, "SyntaxError");
  for (const line of r.error.stack.trimEnd().split("\n")) {
    // Guest frames, native builtins, and JSON.parse's pseudo-file of its input.
    assert.match(line, /^ {4}at ([\w<>. ]+ \((main\.js:\d+:\d+|native)\)|<input>:\d+:\d+)$/);
  }
  assert.doesNotMatch(r.stderr + r.error.stack, /\/work|\.rs\b|cordon_|wasm/);
  await sb.close();
});

test("globals persist across runs on one sandbox, not across sandboxes", async () => {
  const a = await Sandbox.create();
  const b = await Sandbox.create();
  await a.run("globalThis.x = 41");
  assert.equal((await a.run("return x + 1")).value, "42");
  const other = await b.run("return typeof x");
  assert.equal(other.value, "undefined");
  await a.close();
  await b.close();
});

test("concurrent runs on one sandbox run one after the other", async () => {
  const sb = await Sandbox.create();
  await sb.run("globalThis.n = 0");
  const code = "const mine = ++n; for (let i = 0; i < 1e5; i++); return mine + ':' + n";
  const results = await Promise.all([sb.run(code), sb.run(code), sb.run(code)]);
  assert.deepEqual(results.map((r) => r.value), ["1:1", "2:2", "3:3"]);
  await sb.close();
});

test("bad code is refused with INVALID_CODE", async () => {
  const sb = await Sandbox.create();
  await rejectsWith(sb.run(null), "INVALID_CODE");
  await rejectsWith(sb.run(42), "INVALID_CODE");
  await rejectsWith(sb.run(undefined), "INVALID_CODE");
  await rejectsWith(sb.run({ toString: () => "1" }), "INVALID_CODE");
  await rejectsWith(sb.run("return '\ud800'"), "INVALID_CODE");
  await rejectsWith(sb.run("return 1 //\udc00"), "INVALID_CODE");
  const started = performance.now();
  await rejectsWith(sb.run("x".repeat(100 * 1024 * 1024)), "INVALID_CODE");
  assert.ok(performance.now() - started < 1000);
  // The limit counts UTF-8 bytes: 400,000 three-byte characters exceed 1 MiB.
  await assert.rejects(sb.run("'" + "€".repeat(400_000) + "'"), {
    code: "INVALID_CODE",
    message: "the code is 1200002 bytes, over the limit of 1048576 (limits.codeBytes)",
  });
  const small = await Sandbox.create({ limits: { codeBytes: 10 } });
  await assert.rejects(small.run("return 1234"), {
    code: "INVALID_CODE",
    message: "the code is at least 11 bytes, over the limit of 10 (limits.codeBytes)",
  });
  assert.equal((await small.run("return 123")).value, "123");
  assert.equal((await sb.run("return 'still fine'")).value, "still fine");
  await sb.close();
  await small.close();
});

test("an unknown language or option is refused, never run as JavaScript", async () => {
  const sb = await Sandbox.create();
  await rejectsWith(sb.run("print(1)", { language: "python" }), "INVALID_OPTIONS");
  await rejectsWith(sb.run("1", { language: "JavaScript" }), "INVALID_OPTIONS");
  await rejectsWith(sb.run("1", { language: 1 }), "INVALID_OPTIONS");
  await rejectsWith(sb.run("1", { timeout: 5 }), "INVALID_OPTIONS");
  await rejectsWith(sb.run("1", { signal: {} }), "INVALID_OPTIONS");
  await rejectsWith(sb.run("1", null), "INVALID_OPTIONS");
  assert.equal((await sb.run("return 1", { language: "javascript" })).value, "1");
  await sb.close();
});

test("malformed limits are refused at create()", async () => {
  const bad = [
    { timeoutMs: NaN },
    { timeoutMs: -1 },
    { timeoutMs: 1.5 },
    { timeoutMs: Infinity },
    { timeoutMs: "100" },
    { timeoutMs: 0 },
    { cpuMs: null },
    { memoryBytes: 1024 },
    { memoryBytes: 2 ** 53 },
    { outputBytes: 0 },
    { codeBytes: 1e9 },
    { toolCalls: -1 },
    { toolTimeoutMs: 0 },
    { toolResultBytes: NaN },
    { fsFiles: 2 },
    { fsBytes: -5 },
    { unknown: 1 },
  ];
  for (const limits of bad) {
    await rejectsWith(Sandbox.create({ limits }), "INVALID_OPTIONS");
  }
  await rejectsWith(Sandbox.create({ limit: {} }), "INVALID_OPTIONS");
  await rejectsWith(Sandbox.create(null), "INVALID_OPTIONS");
  await rejectsWith(Sandbox.create({ limits: [] }), "INVALID_OPTIONS");
  const sb = await Sandbox.create({ limits: { timeoutMs: 500 } });
  assert.deepEqual(sb.limits, {
    timeoutMs: 500,
    cpuMs: 10000,
    memoryBytes: 64 * 1024 * 1024,
    outputBytes: 1024 * 1024,
    codeBytes: 1024 * 1024,
    toolCalls: 1000,
    toolTimeoutMs: 30000,
    toolResultBytes: 1024 * 1024,
    fsBytes: 64 * 1024 * 1024,
    fsFiles: 10000,
    traceBytes: 16 * 1024 * 1024,
  });
  await sb.close();
  // Every limit distinct: the native side writes them into a Float64Array in
  // LIMIT_KEYS' order, and a swap of two would show here.
  const distinct = {
    timeoutMs: 1500,
    cpuMs: 1400,
    memoryBytes: 48 * 1024 * 1024,
    outputBytes: 70000,
    codeBytes: 60000,
    toolCalls: 77,
    toolTimeoutMs: 2500,
    toolResultBytes: 5000,
    fsBytes: 3 * 1024 * 1024,
    fsFiles: 99,
    traceBytes: 123456,
  };
  const sb2 = await Sandbox.create({ limits: distinct });
  assert.deepEqual(sb2.limits, distinct);
  assert.deepEqual(Object.keys(sb2.limits), Object.keys(distinct));
  await sb2.close();
});

test("run after close rejects with CLOSED; close is idempotent", async () => {
  const sb = await Sandbox.create();
  await sb.close();
  await sb.close();
  assert.equal(sb.closed, true);
  await rejectsWith(sb.run("1"), "CLOSED");
});

test("close during a run ends it with CLOSED and queued runs too", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 5000 } });
  const settled = Promise.allSettled([sb.run("console.log('started'); while (true) {}"), sb.run("return 1")]);
  await new Promise((r) => setTimeout(r, 50));
  const started = performance.now();
  await sb.close();
  assert.ok(performance.now() - started < 500);
  const [running, queued] = await settled;
  assert.equal(running.status, "rejected");
  assert.equal(running.reason.code, "CLOSED");
  assert.equal(running.reason.message, "the sandbox was closed during the run");
  assert.equal(running.reason.result.stdout, "started\n");
  assert.equal(queued.status, "rejected");
  assert.equal(queued.reason.code, "CLOSED");
  assert.equal(queued.reason.message, "the sandbox is closed");
});

test("an AbortSignal cancels a run, or prevents it from starting", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 5000 } });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const started = performance.now();
  await rejectsWith(sb.run("while (true) {}", { signal: controller.signal }), "CANCELLED");
  assert.ok(performance.now() - started < 1000);
  await rejectsWith(sb.run("return 1", { signal: AbortSignal.abort() }), "CANCELLED");
  const r = await sb.run("console.log('ok')", { signal: new AbortController().signal });
  assert.equal(r.stdout, "ok\n");
  await sb.close();
});

test("a package without its native addon fails to load with a typed error naming what it tried", async () => {
  const { mkdtempSync, copyFileSync, mkdirSync, rmSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { createRequire } = await import("node:module");
  const dir = mkdtempSync(join(tmpdir(), "cordon-loader-"));
  const load = () => {
    const require = createRequire(join(dir, "x.js"));
    delete require.cache[join(dir, "native.js")];
    return require("./native.js");
  };
  const saved = { override: process.env.CORDON_NATIVE_PATH, platform: process.platform };
  delete process.env.CORDON_NATIVE_PATH;
  try {
    copyFileSync(new URL("../native.js", import.meta.url), join(dir, "native.js"));
    copyFileSync(new URL("../package.json", import.meta.url), join(dir, "package.json"));
    const host = process.platform === "linux" && process.arch === "x64";
    assert.throws(load, (err) => {
      assert.equal(err.code, "NATIVE_ADDON_MISSING");
      const lines = err.message.split("\n");
      assert.equal(
        lines[0],
        `cordon: no native addon is installed for ${process.platform}-${process.arch}; ` +
          (host
            ? "its package should have been installed as an optional dependency: reinstall without " +
              "--no-optional or --omit=optional"
            : lines[0].split("; ")[1].split(" (")[0]) +
          " (CORDON_NATIVE_PATH can name a .node file); tried:",
      );
      const tried = lines.slice(1).map((line) => line.trim().split(": ")[0]);
      assert.deepEqual(tried, host ? ["cordon-linux-x64-gnu", "cordon-linux-x64-musl"] : tried);
      for (const line of lines.slice(1)) assert.match(line, /: Cannot find module /);
      return true;
    });
    // On a platform without a package, the message lists those there are.
    Object.defineProperty(process, "platform", { value: "aix" });
    try {
      assert.throws(load, (err) => {
        assert.equal(err.code, "NATIVE_ADDON_MISSING");
        assert.match(
          err.message,
          /^cordon: no native addon is installed for aix-\w+; cordon supports linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-msvc \(CORDON_NATIVE_PATH can name a \.node file\); tried:\n {2}cordon-aix-\w+: Cannot find module /,
        );
        return true;
      });
    } finally {
      Object.defineProperty(process, "platform", { value: saved.platform });
    }
    if (host) {
      // A file that is there but does not load is told apart from a missing one.
      mkdirSync(join(dir, "npm", "linux-x64-gnu"), { recursive: true });
      const local = join(dir, "npm", "linux-x64-gnu", "cordon.linux-x64-gnu.node");
      writeFileSync(local, "not a shared object");
      assert.throws(load, (err) => {
        assert.equal(err.code, "NATIVE_ADDON_FAILED");
        const lines = err.message.split("\n");
        assert.equal(lines[0], "cordon: the native addon for linux-x64 does not load; tried:");
        assert.equal(lines.length, 3);
        assert.match(lines[1], /^ {2}\/.*\/npm\/linux-x64-gnu\/cordon\.linux-x64-gnu\.node: .*(invalid ELF header|file too short)/);
        assert.match(lines[2], /^ {2}cordon-linux-x64-musl: Cannot find module /);
        return true;
      });
      // CORDON_NATIVE_PATH is the only place tried when it is set.
      process.env.CORDON_NATIVE_PATH = local;
      assert.throws(load, (err) => {
        assert.equal(err.code, "NATIVE_ADDON_FAILED");
        assert.match(err.message, /^cordon: CORDON_NATIVE_PATH=.*cordon\.linux-x64-gnu\.node does not load: .*(invalid ELF header|file too short)/);
        assert.equal(err.message.split("\n").length, 1);
        return true;
      });
    }
  } finally {
    if (saved.override === undefined) delete process.env.CORDON_NATIVE_PATH;
    else process.env.CORDON_NATIVE_PATH = saved.override;
    rmSync(dir, { recursive: true, force: true });
  }
});
