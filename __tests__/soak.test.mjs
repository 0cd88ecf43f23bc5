// Soak and stress: 10,000 runs on one sandbox and 10,000 create/run/close
// cycles leave host memory and open handles flat; 200 sandboxes running at
// once, with tool calls, guest timers, files and limits firing, each get
// exactly their own output, files and tool results. The figures are printed
// as test diagnostics.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";
import { Sandbox, CordonError } from "cordon";

const MiB = 2 ** 20;
const fds = () => readdirSync("/proc/self/fd").length;
const handles = () => process.getActiveResourcesInfo().length;
// A real GC before each reading, so RSS shows what is retained rather than
// what V8 has not collected yet.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");
const settle = async () => {
  // Let the finalisers of dropped handles run before measuring.
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
};

async function measure(label, t, warmup, n, body) {
  for (let i = 0; i < warmup; i++) await body(i);
  await settle();
  const before = { rss: process.memoryUsage().rss, fds: fds(), handles: handles() };
  const started = performance.now();
  for (let i = 0; i < n; i++) await body(i);
  const ms = performance.now() - started;
  await settle();
  const after = { rss: process.memoryUsage().rss, fds: fds(), handles: handles() };
  const growth = (after.rss - before.rss) / MiB;
  t.diagnostic(
    `${label}: ${n} in ${ms.toFixed(0)} ms; RSS ${(before.rss / MiB).toFixed(1)} -> ${(after.rss / MiB).toFixed(1)} MiB ` +
      `(${growth >= 0 ? "+" : ""}${growth.toFixed(1)}); fds ${before.fds} -> ${after.fds}; handles ${before.handles} -> ${after.handles}`,
  );
  return { before, after, growth };
}

test("10,000 runs on one sandbox: memory and handles stay flat", async (t) => {
  const sb = await Sandbox.create({ tools: { echo: async (x) => x }, capabilities: [{ method: "echo" }] });
  const { before, after, growth } = await measure("runs", t, 2_000, 10_000, async (i) => {
    const r = await sb.run(`const v = await echo({ i: ${i} }); console.log(v.i)`);
    assert.equal(r.stdout, `${i}\n`);
  });
  assert.ok(growth < 32, `RSS grew by ${growth.toFixed(1)} MiB`);
  assert.equal(after.fds, before.fds);
  assert.equal(after.handles, before.handles);
  await sb.close();
});

test("10,000 create/run/close cycles: memory and handles stay flat", async (t) => {
  const { before, after, growth } = await measure("create/close", t, 2_000, 10_000, async (i) => {
    const sb = await Sandbox.create();
    const r = await sb.run(`console.log(${i})`);
    assert.equal(r.stdout, `${i}\n`);
    await sb.close();
  });
  assert.ok(growth < 32, `RSS grew by ${growth.toFixed(1)} MiB`);
  assert.equal(after.fds, before.fds);
  assert.equal(after.handles, before.handles);
});

test("200 sandboxes at once, with tools, timers, files and limits: no cross-talk, no lost result", async (t) => {
  const N = 200;
  const calls = new Map();
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: N }, async (_, id) => {
      const sb = await Sandbox.create({
        tools: {
          whoami: async ({ n }) => {
            calls.set(id, (calls.get(id) ?? 0) + 1);
            await new Promise((r) => setTimeout(r, n % 3));
            return { id, n };
          },
        },
        capabilities: [{ method: "whoami" }],
        // CPU, not wall time, stops the endless loops: 200 sandboxes share
        // two cores here, and a wall-clock limit would fire on whoever waits.
        limits: { timeoutMs: 60_000, cpuMs: 300, memoryBytes: 32 * MiB },
      });
      // Every fifth sandbox also hits a limit first: CPU, or memory.
      let limit = null;
      if (id % 5 === 0) {
        const code = id % 10 === 0 ? "for (;;) {}" : "const a = []; for (;;) a.push(new ArrayBuffer(4 << 20));";
        limit = await sb.run(code).then(() => null, (e) => e);
      }
      const r = await sb.run(`
        fs.writeFileSync("/workspace/me.txt", "${id}");
        await new Promise((r) => setTimeout(r, ${id % 7}));
        const got = await Promise.all([0, 1, 2, 3, 4].map((n) => whoami({ n })));
        console.log(got.map((g) => g.id + ":" + g.n).join(","));
        console.log(fs.readdirSync("/workspace").join(","), fs.readFileSync("/workspace/me.txt", "utf8"));
      `);
      const sh = await sb.run("cat /workspace/me.txt; tool whoami --n 9 | jq -c .", { language: "shell" });
      await sb.close();
      return { id, limit, r, sh };
    }),
  );
  t.diagnostic(`${N} concurrent sandboxes in ${(performance.now() - started).toFixed(0)} ms`);
  for (const { id, limit, r, sh } of outcomes) {
    if (id % 10 === 0) assert.equal(limit?.code, "CPU_LIMIT", `sandbox ${id}`);
    else if (id % 5 === 0) assert.equal(limit?.code, "MEMORY_LIMIT", `sandbox ${id}`);
    if (limit) assert.ok(limit instanceof CordonError);
    assert.equal(r.stdout, `${id}:0,${id}:1,${id}:2,${id}:3,${id}:4\nme.txt ${id}\n`, `sandbox ${id}`);
    assert.equal(r.stderr, "");
    assert.equal(sh.stdout, `${id}{"id":${id},"n":9}\n`, `sandbox ${id}`);
    assert.equal(sh.exitCode, 0);
    assert.equal(calls.get(id), 6, `sandbox ${id}: tool calls`);
  }
});
