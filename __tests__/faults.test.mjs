// Faults at every phase of a run: an AbortSignal, close() and guest traps
// while the guest computes, waits for a tool, waits for a timer, or is in the
// shell; tools that throw, never resolve, resolve late or return garbage.
// After each, the sandbox (unless closed) and a bystander sandbox keep working.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, CordonError } from "cordon";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Each phase is a script that is in that phase about 30 ms after it starts.
const PHASES = {
  computing: { language: "javascript", code: "for (;;) {}" },
  "waiting for a tool": { language: "javascript", code: "await hang({}); console.log('never')" },
  "waiting for a timer": { language: "javascript", code: "await new Promise((r) => setTimeout(r, 60_000)); console.log('never')" },
  "in the shell": { language: "shell", code: "while true; do :; done" },
  "in a tool inside the shell": { language: "shell", code: "tool hang" },
};

const options = () => ({
  tools: { hang: () => new Promise(() => {}), ok: async () => "fine" },
  capabilities: [{ method: "hang" }, { method: "ok" }],
  limits: { timeoutMs: 30_000, cpuMs: 30_000, toolTimeoutMs: 30_000 },
});

async function bystanderWorks(bystander, n) {
  const r = await bystander.run(`return (await ok({})) + ${n}`);
  assert.equal(r.value, `fine${n}`);
}

test("an AbortSignal fired in every phase cancels the run; the sandbox and a bystander keep working", async () => {
  const bystander = await Sandbox.create(options());
  const sb = await Sandbox.create(options());
  let n = 0;
  for (const [phase, { language, code }] of Object.entries(PHASES)) {
    const controller = new AbortController();
    const run = sb.run(code, { language, signal: controller.signal }).then(() => null, (e) => e);
    await sleep(30);
    controller.abort();
    const err = await run;
    assert.ok(err instanceof CordonError, phase);
    assert.equal(err.code, "CANCELLED", phase);
    assert.equal(err.message, "the run was cancelled", phase);
    assert.equal((await sb.run("return 'after ' + " + JSON.stringify(phase))).value, `after ${phase}`);
    await bystanderWorks(bystander, n++);
  }
  await sb.close();
  await bystander.close();
});

test("close() in every phase ends the run with CLOSED; a bystander keeps working", async () => {
  const bystander = await Sandbox.create(options());
  let n = 0;
  for (const [phase, { language, code }] of Object.entries(PHASES)) {
    const sb = await Sandbox.create(options());
    const run = sb.run(code, { language }).then(() => null, (e) => e);
    await sleep(30);
    await sb.close();
    const err = await run;
    assert.ok(err instanceof CordonError, phase);
    assert.equal(err.code, "CLOSED", phase);
    assert.equal(err.message, "the sandbox was closed during the run", phase);
    const after = await sb.run("return 1").then(() => null, (e) => e);
    assert.equal(after?.code, "CLOSED", phase);
    await bystanderWorks(bystander, n++);
  }
  await bystander.close();
});

test("a limit in every phase ends the run with its code; the sandbox restarts and a bystander keeps working", async () => {
  const bystander = await Sandbox.create(options());
  let n = 0;
  for (const [phase, { language, code }] of Object.entries(PHASES)) {
    const sb = await Sandbox.create({ ...options(), limits: { timeoutMs: 100, cpuMs: 30_000, toolTimeoutMs: 30_000 } });
    const err = await sb.run(code, { language }).then(() => null, (e) => e);
    assert.ok(err instanceof CordonError, phase);
    assert.equal(err.code, "TIMEOUT", phase);
    const r = await sb.run("return 2");
    assert.equal(r.value, "2", phase);
    await sb.close();
    await bystanderWorks(bystander, n++);
  }
  // A trap (memory) mid-run, between two tool calls.
  const sb = await Sandbox.create({ ...options(), limits: { memoryBytes: 32 * 2 ** 20 } });
  const err = await sb
    .run("await ok({}); const a = []; for (;;) a.push(new ArrayBuffer(4 << 20));")
    .then(() => null, (e) => e);
  assert.equal(err?.code, "MEMORY_LIMIT");
  assert.deepEqual(err.result.toolCalls.map((c) => [c.tool, c.decision]), [["ok", "allowed"]]);
  const r = await sb.run("return (await ok({}))");
  assert.equal(r.value, "fine");
  assert.equal(r.stats.instanceRestarted, true);
  await sb.close();
  await bystander.close();
});

test("tools that throw, return garbage or answer after the run ended are data errors in the guest, never host faults", async () => {
  let late;
  const sb = await Sandbox.create({
    tools: {
      boom: () => {
        throw new TypeError("secret path /home/user/.ssh");
      },
      weird: async () => () => 1,
      cyclic: async () => {
        const o = {};
        o.self = o;
        return o;
      },
      later: () => new Promise((r) => (late = r)),
    },
    capabilities: [{ method: "boom" }, { method: "weird" }, { method: "cyclic" }, { method: "later" }],
    limits: { timeoutMs: 2_000 },
  });
  const r = await sb.run(`
    const out = [];
    for (const name of ["boom", "weird", "cyclic"]) {
      try { await tools.call(name, {}); out.push(name + " ok"); }
      catch (e) { out.push(name + " " + e.name + " " + e.code); }
    }
    later({});
    return out.join("; ");
  `, { waitForTimers: false });
  assert.equal(
    r.value,
    "boom ToolError TOOL_ERROR; weird ToolError TOOL_RESULT_INVALID; cyclic ToolError TOOL_RESULT_INVALID",
  );
  assert.ok(!r.stdout.includes("/home/user"));
  // The run has ended; its pending call resolves now and must go nowhere.
  late({ stale: true });
  await sleep(10);
  const next = await sb.run("return typeof later");
  assert.equal(next.value, "function");
  assert.equal(next.stdout, "function\n");
  await sb.close();
});
