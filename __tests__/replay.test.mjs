// Record and replay: a trace reproduces a run without calling any tool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, CordonError } from "cordon";

const code = `
  const [a, b] = await Promise.all([slow({}), price({ sku: "x" })]);
  await new Promise((r) => setTimeout(r, 5));
  const c = await price({ sku: "y" });
  try { await price({ sku: 42 }) } catch (e) { console.log(e.code) }
  console.log(new Date().toISOString(), Math.random(), a, b.cents, c.cents, crypto.randomUUID());
  return c.cents;
`;

function options(counter) {
  return {
    tools: {
      price: { inputSchema: { type: "object", properties: { sku: { type: "string" } } }, execute: async ({ sku }) => ({ sku, cents: 100 + counter.n++ }) },
      slow: async () => { counter.n++; await new Promise((r) => setTimeout(r, 20)); return "s"; },
    },
    capabilities: [{ method: "**" }],
  };
}

test("a recorded run replays exactly, without calling tools", async () => {
  const counter = { n: 0 };
  const sb = await Sandbox.create(options(counter));
  const r = await sb.run(code, { record: true });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(counter.n, 3);
  const trace = JSON.parse(JSON.stringify(r.trace));
  assert.equal(trace.version, 1);
  assert.deepEqual(trace.calls, [
    { tool: "slow", args: "{}" },
    { tool: "price", args: '{"sku":"x"}' },
    { tool: "price", args: '{"sku":"y"}' },
    { tool: "price", args: '{"sku":42}' },
  ]);
  assert.equal(trace.stdout, r.stdout);
  const replayed = await Sandbox.replay(trace, code);
  assert.equal(replayed.divergence, null);
  assert.equal(replayed.result.stdout, r.stdout);
  assert.equal(replayed.result.value, r.value);
  assert.equal(counter.n, 3);
  await sb.close();
});

test("the first divergence is reported", async () => {
  const sb = await Sandbox.create(options({ n: 0 }));
  const { trace } = await sb.run(code, { record: true });
  const other = await Sandbox.replay(trace, code.replace('sku: "y"', 'sku: "z"'));
  assert.deepEqual(other.divergence, { kind: "call", index: 2, expected: 'price({"sku":"y"})', actual: 'price({"sku":"z"})' });
  const printed = await Sandbox.replay(trace, code.replace("return c.cents;", "console.log('extra'); return c.cents;"));
  assert.equal(printed.divergence.kind, "stdout");
  const tampered = { ...trace, stdout: "something else" };
  assert.equal((await Sandbox.replay(tampered, code)).divergence.kind, "stdout");
  await sb.close();
});

test("malformed traces are refused", async () => {
  await assert.rejects(Sandbox.replay("trace", "1"), (e) => e instanceof CordonError && e.code === "INVALID_OPTIONS");
  await assert.rejects(Sandbox.replay({ version: 99 }, "1"), (e) => e instanceof CordonError && e.code === "INVALID_OPTIONS");
  await assert.rejects(Sandbox.replay({ version: 1, clock: "x" }, "1"), (e) => e instanceof CordonError && e.code === "INVALID_OPTIONS");
  const sb = await Sandbox.create();
  await assert.rejects(sb.run("1", { record: "yes" }), (e) => e.code === "INVALID_OPTIONS");
  await sb.close();
});
