// Every limit ends the run with its own code, cannot be caught by the script,
// and leaves the same sandbox usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, CordonError } from "cordon";

const MiB = 1024 * 1024;

async function stopped(sb, code, expected) {
  const started = performance.now();
  let error;
  try {
    await sb.run(code);
  } catch (err) {
    error = err;
  }
  const elapsed = performance.now() - started;
  assert.ok(error instanceof CordonError, `expected ${expected} for ${code}, got ${error ?? "a result"}`);
  assert.equal(error.code, expected, error.message);
  const after = await sb.run('console.log("ok")');
  assert.equal(after.stdout, "ok\n");
  assert.equal(after.exitCode, 0);
  return { error, elapsed, after };
}

test("endless loops stop at timeoutMs within 150 ms and cannot be caught", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 100 } });
  for (const code of [
    "while (true) {}",
    "for (;;) { try {} catch {} }",
    "/^(a+)+$/.test('a'.repeat(40) + 'b')",
    "try { while (true) {} } catch (e) {} finally { console.log('finally ran') }",
    "await null; for (;;) { try { while (true) {} } catch {} }",
  ]) {
    const { error, elapsed } = await stopped(sb, code, "TIMEOUT");
    assert.ok(elapsed < 150, `${code} returned after ${elapsed.toFixed(1)} ms`);
    assert.equal(error.message, "the run exceeded its time limit of 100 ms (limits.timeoutMs)");
    assert.equal(error.result.stdout, "");
  }
  await sb.close();
});

test("output produced before a timeout is kept in the error", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 100 } });
  const { error } = await stopped(sb, "console.log('before'); console.error('warn'); while (true) {}", "TIMEOUT");
  assert.equal(error.result.stdout, "before\n");
  assert.equal(error.result.stderr, "warn\n");
  await sb.close();
});

test("the CPU limit counts guest time", async () => {
  const sb = await Sandbox.create({ limits: { cpuMs: 50, timeoutMs: 10_000 } });
  const { error, elapsed, after } = await stopped(sb, "while (true) {}", "CPU_LIMIT");
  assert.ok(elapsed < 1000, `stopped after ${elapsed} ms`);
  assert.ok(error.result.stats.cpuMs >= 50, `cpuMs ${error.result.stats.cpuMs}`);
  assert.equal(after.stats.instanceRestarted, true);
  await sb.close();
});

test("a memory bomb stops at memoryBytes with MEMORY_LIMIT", async () => {
  const sb = await Sandbox.create({ limits: { memoryBytes: 32 * MiB } });
  for (const code of [
    "const a = []; while (true) a.push(new Array(100000).fill(1))",
    "const parts = []; while (true) parts.push('z'.repeat(1048576 + parts.length))",
    "try { const a = []; while (true) a.push('y'.repeat(1e6) + Math.random()) } catch (e) { console.log('caught') }",
  ]) {
    const { error } = await stopped(sb, code, "MEMORY_LIMIT");
    assert.equal(error.message, `the run exceeded its memory limit of ${32 * MiB} bytes (limits.memoryBytes)`);
    assert.equal(error.result.stdout, "");
    assert.ok(error.result.stats.memoryBytes <= 32 * MiB);
  }
  await sb.close();
});

test("deep recursion stops with STACK_OVERFLOW", async () => {
  const sb = await Sandbox.create();
  for (const code of [
    "function f() { return f() + 1 } f()",
    "function g(n) { try { return g(n + 1) } catch { return g(n + 1) } } g(0)",
    "let o = []; for (let i = 0; i < 1e5; i++) { o = [o] } JSON.stringify(o)",
  ]) {
    await stopped(sb, code, "STACK_OVERFLOW");
  }
  await sb.close();
});

test("a 50 MB console.log is truncated at outputBytes with a marker", async () => {
  const sb = await Sandbox.create({ limits: { memoryBytes: 256 * MiB } });
  const r = await sb.run("console.log('x'.repeat(50 * 1024 * 1024)); return 'done'");
  assert.equal(r.exitCode, 0);
  assert.equal(r.value, "done");
  assert.equal(r.stdout, "x".repeat(MiB) + "\n[cordon: output truncated at 1048576 bytes]\n");
  assert.equal(r.stats.stdoutTruncated, true);
  assert.equal(r.stats.stderrTruncated, false);
  const after = await sb.run('console.log("ok")');
  assert.equal(after.stdout, "ok\n");
  await sb.close();
});

test("a print loop is truncated and the run completes", async () => {
  const sb = await Sandbox.create({ limits: { outputBytes: 1000 } });
  const r = await sb.run("for (let i = 0; i < 1e5; i++) { console.log('line ' + i); console.error('e' + i) } return 'end'");
  assert.equal(r.exitCode, 0);
  assert.equal(r.value, "end");
  let expected = "";
  for (let i = 0; expected.length < 1000; i++) expected += `line ${i}\n`;
  assert.equal(r.stdout, expected.slice(0, 1000) + "\n[cordon: output truncated at 1000 bytes]\n");
  assert.equal(r.stats.stdoutTruncated, true);
  assert.equal(r.stats.stderrTruncated, true);
  assert.ok(r.stderr.endsWith("\n[cordon: output truncated at 1000 bytes]\n"));
  await sb.close();
});

test("limits in a loop do not grow the host's memory without bound", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 50, memoryBytes: 32 * MiB, outputBytes: 4096 } });
  const round = async () => {
    for (const code of [
      "while (true) {}",
      "const a = []; while (true) a.push(new Array(100000).fill(1))",
      "function f() { return f() + 1 } f()",
      "console.log('x'.repeat(1e6))",
    ]) {
      await sb.run(code).catch((err) => assert.ok(err instanceof CordonError));
    }
    const fresh = await Sandbox.create();
    await fresh.run("return 1");
    await fresh.close();
  };
  for (let i = 0; i < 3; i++) await round();
  global.gc?.();
  const before = process.memoryUsage().rss;
  for (let i = 0; i < 15; i++) await round();
  global.gc?.();
  const growth = (process.memoryUsage().rss - before) / MiB;
  assert.ok(growth < 64, `RSS grew by ${growth.toFixed(1)} MiB over 15 rounds`);
  assert.equal((await sb.run('console.log("ok")')).stdout, "ok\n");
  await sb.close();
});

/** The gaps between the ticks of a host interval of `ms`, until `stop()`. */
function tickGaps(ms) {
  const gaps = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, ms);
  gaps.stop = () => clearInterval(timer);
  return gaps;
}

test("Node's event loop keeps turning while a CPU-bound guest runs", async () => {
  // A run polls its first slice on the JavaScript thread (at most one epoch
  // tick) and then moves to the runtime's threads: timers set by the host keep
  // firing at their interval throughout.
  const sb = await Sandbox.create({ limits: { timeoutMs: 400, cpuMs: 10_000 } });
  const ticks = tickGaps(5);
  const err = await sb.run("for (;;) {}").then(() => null, (e) => e);
  ticks.stop();
  assert.equal(err?.code, "TIMEOUT");
  // About 80 ticks of 5 ms in 400 ms; the longest gap shows whether the loop
  // was ever blocked for long (generous for a loaded 2-core machine).
  assert.ok(ticks.length >= 40, `only ${ticks.length} ticks in 400 ms`);
  assert.ok(Math.max(...ticks) < 60, `the event loop stalled for ${Math.max(...ticks).toFixed(1)} ms`);
  await sb.close();
});

test("Node's event loop keeps turning while a guest calls an instant tool in a tight loop", async () => {
  // Replies settle in microtasks and the run goes on from a microtask too, so
  // without the driver's turn budget 20,000 calls would hold the loop until
  // the run ends. With it, the run yields every millisecond or so. The tool
  // arms (and clears) a timer: Node then refreshes the loop's clock, which
  // must not pass for a new turn of the loop.
  const sb = await Sandbox.create({
    tools: {
      ping: {
        description: "answers at once",
        execute: async () => {
          clearTimeout(setTimeout(() => {}, 1000));
          return 1;
        },
      },
    },
    capabilities: [{ method: "ping" }],
    limits: { toolCalls: 30_000, timeoutMs: 60_000 },
  });
  const ticks = tickGaps(5);
  const started = performance.now();
  const r = await sb.run("let n = 0; for (let i = 0; i < 20000; i++) n += await ping({}); console.log(n)");
  const ms = performance.now() - started;
  ticks.stop();
  assert.deepEqual([r.stdout, r.stderr, r.exitCode, r.toolCalls.length], ["20000\n", "", 0, 20000]);
  assert.ok(ticks.length >= Math.floor(ms / 5 / 3), `only ${ticks.length} ticks in ${ms.toFixed(0)} ms`);
  assert.ok(Math.max(...ticks) < 60, `the event loop stalled for ${Math.max(...ticks).toFixed(1)} ms`);
  await sb.close();
});
