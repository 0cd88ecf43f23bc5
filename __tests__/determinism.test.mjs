// Deterministic mode, and the default: secure randomness distinct per
// sandbox and a real clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, CordonError } from "cordon";

const probe = `
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  console.log(Date.now(), new Date().toISOString(), Math.random(), Math.random(), crypto.randomUUID(), bytes.join(","));
`;

async function once(options) {
  const sb = await Sandbox.create(options);
  const first = (await sb.run(probe)).stdout;
  const second = (await sb.run(probe)).stdout;
  await sb.close();
  return first + second;
}

test("deterministic sandboxes produce byte-identical output", async () => {
  const a = await once({ deterministic: true });
  const b = await once({ deterministic: true });
  assert.equal(a, b);
  const [line] = a.split("\n");
  const [now, iso] = line.split(" ");
  assert.equal(Number(now), Date.UTC(2000, 0, 1) + Number(now) % 1000);
  assert.match(iso, /^2000-01-01T00:00:00\.\d{3}Z$/);
  const seeded = await once({ deterministic: { seed: 42, startTime: Date.UTC(2030, 5, 1) } });
  assert.notEqual(seeded, a);
  assert.equal(seeded, await once({ deterministic: { seed: 42, startTime: Date.UTC(2030, 5, 1) } }));
  assert.match(seeded, /^\d+ 2030-06-01T00:00:00\.\d{3}Z /);
});

test("by default randomness differs between sandboxes and the clock is real", async () => {
  const a = await once({});
  const b = await once({});
  assert.notEqual(a, b);
  const now = Number(a.split(" ")[0]);
  assert.ok(Math.abs(now - Date.now()) < 60_000);
});

test("the clock never goes backwards and Math.random stays in [0, 1)", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run(`
    let back = 0, prev = Date.now(), bad = 0;
    for (let i = 0; i < 10000; i++) {
      const t = Date.now(); if (t < prev) back++; prev = t;
      const x = Math.random(); if (!(x >= 0 && x < 1)) bad++;
    }
    return back + " " + bad;
  `);
  assert.equal(r.value, "0 0");
  const e = await sb.run("try { crypto.getRandomValues(new Float64Array(2)) } catch (e) { return e.name }");
  assert.equal(e.value, "TypeError");
  await sb.close();
});

test("malformed deterministic options are refused", async () => {
  for (const deterministic of ["yes", { seed: -1 }, { seed: 1.5 }, { startTime: NaN }, { other: 1 }]) {
    await assert.rejects(Sandbox.create({ deterministic }), (err) => err instanceof CordonError && err.code === "INVALID_OPTIONS");
  }
});

test("deterministic runs are metered in fuel: the CPU limit stops them at the same point every time", async () => {
  // Prints a counter every 20,000 iterations until the fuel runs out: the
  // partial output is identical on every run and in every sandbox, which a
  // CPU-time limit cannot give.
  const loop = "let i = 0; for (;;) { if (++i % 20000 === 0) console.log(i); }";
  const outputs = [];
  for (let k = 0; k < 3; k++) {
    const sb = await Sandbox.create({ deterministic: true, limits: { cpuMs: 20 } });
    const err = await sb.run(loop).then(() => null, (e) => e);
    assert.ok(err instanceof CordonError);
    assert.equal(err.code, "CPU_LIMIT");
    assert.equal(
      err.message,
      "the run exceeded its CPU limit of 20 ms (limits.cpuMs), metered as 180000000 units of fuel in deterministic mode",
    );
    assert.ok(err.result.stdout.length > 0);
    outputs.push(err.result.stdout);
    // The sandbox is usable afterwards, with a fresh budget.
    assert.equal((await sb.run("return 6 * 7")).value, "42");
    await sb.close();
  }
  assert.equal(outputs[1], outputs[0]);
  assert.equal(outputs[2], outputs[0]);
  // The shell is metered the same way.
  const sb = await Sandbox.create({ deterministic: true, limits: { cpuMs: 20 } });
  const err = await sb.run("while true; do :; done", { language: "shell" }).then(() => null, (e) => e);
  assert.equal(err?.code, "CPU_LIMIT");
  await sb.close();
});

test("a deterministic run still ends at its wall-clock limit after plain sandboxes ran in the process", async () => {
  // Both engines (plain and fuel-metered) must see the epoch ticker, whichever
  // started it: here a plain run goes first.
  const plain = await Sandbox.create();
  assert.equal((await plain.run("return 1")).value, "1");
  await plain.close();
  const sb = await Sandbox.create({ deterministic: true, limits: { cpuMs: 60_000, timeoutMs: 150 } });
  const started = performance.now();
  const err = await sb.run("for (;;) {}").then(() => null, (e) => e);
  const elapsed = performance.now() - started;
  assert.ok(err instanceof CordonError);
  assert.equal(err.code, "TIMEOUT");
  assert.equal(err.message, "the run exceeded its time limit of 150 ms (limits.timeoutMs)");
  assert.ok(elapsed < 1000, `took ${elapsed} ms`);
  await sb.close();
});
