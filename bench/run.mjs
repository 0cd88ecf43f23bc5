// cordon's benchmark: the workloads of bench/workloads/workloads.json that the
// current feature set can run (W1 cold start, W2 warm run, W3 fresh sandbox,
// W4 tool calls, W5 compute, W6 shell over 5 MB of JSON, W7 density, W8 containment). Prints medians
// (and p99 for W2); W6 also times the same commands in real bash/jq on this machine. Every run's
// output is checked before it counts.
//
//   npm run bench            all workloads
//   npm run bench -- W2 W3   only those
//   npm run bench -- --compare   W2-W5 also on quickjs-emscripten and node:vm
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Sandbox, CordonError } from "cordon";
import { w6Data } from "./w6data.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const workloadsPath = path.join(root, "bench/workloads/workloads.json");
let workloads;
try {
  workloads = JSON.parse(readFileSync(workloadsPath, "utf8"));
} catch (err) {
  console.error(`bench: cannot read ${workloadsPath} (${err.message})`);
  process.exit(1);
}
const only = process.argv.slice(2).filter((a) => /^(W\d|FS|FU)$/.test(a));
const compare = process.argv.includes("--compare");
const wanted = (w) => only.length === 0 || only.includes(w);

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
const rows = [];
const row = (id, what, value, extra = "") => {
  rows.push([id, what, value, extra]);
  console.log(`${id.padEnd(4)} ${what.padEnd(46)} ${value.padStart(12)}  ${extra}`);
};
function check(stdout, expect, what) {
  if (!stdout.includes(expect)) throw new Error(`${what}: output ${JSON.stringify(stdout.slice(0, 200))} lacks ${JSON.stringify(expect)}`);
}

console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `${os.platform()} ${os.release()}, node ${process.version}`,
);
const hi = workloads.snippets.hi;

if (wanted("W1")) {
  const w = workloads.W1;
  // The output is written with fs.writeSync: the first use of
  // process.stdout loads Node's stream modules, a cost of this driver (and
  // of any script that prints) that `node -e 0` does not pay.
  const script = `const { Sandbox } = require(${JSON.stringify(root)}); const { writeSync } = require("node:fs");
    (async () => { const sb = await Sandbox.create(); const r = await sb.run(${JSON.stringify(hi.javascript)});
    writeSync(1, r.stdout); await sb.close(); })().catch((e) => { console.error(e); process.exit(1); });`;
  const time = (argv, expect) => {
    const t = performance.now();
    const p = spawnSync(argv[0], argv.slice(1), { encoding: "utf8" });
    const ms = performance.now() - t;
    if (p.status !== 0) throw new Error(`${argv.join(" ")} failed: ${p.stderr}`);
    if (expect) check(p.stdout, expect, "W1");
    return ms;
  };
  const measure = (argv, expect) => {
    for (let i = 0; i < w.warmup; i++) time(argv, expect);
    return median(Array.from({ length: w.runs * 3 }, () => time(argv, expect)));
  };
  const cordon = measure([process.execPath, "-e", script], hi.expect);
  const bare = measure([process.execPath, "-e", "0"]);
  row("W1", "cold start: node → create → hi → exit", fmt(cordon), `node -e 0: ${fmt(bare)}, +${fmt(cordon - bare)}`);
}

// The JavaScript workloads (W2-W5) run through drivers with one interface,
// cordon's and, with --compare, each peer's: same snippets, same output
// checks, same repetitions.
const cordon = {
  name: "cordon",
  async create(options = {}) {
    const sb = await Sandbox.create(options);
    return { run: async (code) => (await sb.run(code)).stdout, close: () => sb.close() };
  },
};
const drivers = [cordon];
if (compare) {
  const { nodeVm, quickjsEmscripten } = await import("./peers.mjs");
  drivers.push(await quickjsEmscripten(), nodeVm);
}
const bigLimits = { timeoutMs: 120_000, cpuMs: 120_000, memoryBytes: 256 * 2 ** 20 };
const toolOptions = (calls) => ({
  tools: { add: async ({ a, b }) => a + b },
  capabilities: [{ method: "add" }],
  limits: { toolCalls: calls * 2, timeoutMs: 120_000 },
});

/**
 * Times one workload on every driver, interleaved: each round runs a block
 * of `block` runs on every driver, a different driver first each round, so
 * a change in the machine's load (other tenants share its caches) falls on
 * all of them alike. Blocks rather than single runs: a run right after
 * another engine's finds the caches cold, which for a microsecond workload
 * is most of what would be measured. `open(d)` gives `{ once, close }`;
 * `once()` times one checked run. Prints each driver's median; a peer's
 * ratio is the median over rounds of cordon's block median ÷ the peer's.
 */
async function compared(id, what, { warmup, rounds, block = 1, open, extra = () => "" }) {
  const opened = [];
  for (const d of drivers) opened.push(await open(d));
  const times = drivers.map(() => []);
  const blocks = drivers.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < drivers.length; j++) {
      const k = (i + j) % drivers.length;
      if (i === 0) for (let w = 0; w < warmup; w++) await opened[k].once();
      const mine = [];
      for (let r = 0; r < block; r++) mine.push(await opened[k].once());
      times[k].push(...mine);
      blocks[k].push(median(mine));
    }
  }
  for (const o of opened) await o.close?.();
  drivers.forEach((d, k) => {
    if (d === cordon) return row(id, what, fmt(median(times[k])), extra(times[k]));
    const ratio = median(blocks[0].map((t, i) => t / blocks[k][i]));
    row("", `  ${d.name}`, fmt(median(times[k])), `cordon ÷ ${d.name} = ${ratio.toFixed(2)}`);
  });
}

/** `{ once, close }` for `compared`: runs `code` on one sandbox of `d`. */
async function onOne(d, options, code, expect, what, per = 1) {
  const sb = await d.create(options);
  return {
    async once() {
      const t = performance.now();
      const stdout = await sb.run(code);
      const ms = performance.now() - t;
      check(stdout, expect, what);
      return ms / per;
    },
    close: () => sb.close(),
  };
}

// First use: a new process on a machine that never ran cordon (an empty
// cache directory, a read-only home) creates a sandbox and runs one line,
// then a deterministic one; timed inside the process from before the
// import, so the figure is what a user's first call waits.
if (wanted("FU")) {
  const home = mkdtempSync(path.join(os.tmpdir(), "cordon-bench-home-"));
  chmodSync(home, 0o555);
  const script = `const t0 = performance.now();
    const { Sandbox } = require(${JSON.stringify(root)}); const { writeSync } = require("node:fs");
    (async () => { const t1 = performance.now(); const sb = await Sandbox.create(); const r = await sb.run("console.log(1)");
    const t2 = performance.now(); const d = await Sandbox.create({ deterministic: true }); const q = await d.run("console.log(2)");
    const t3 = performance.now();
    writeSync(1, JSON.stringify({ out: r.stdout + q.stdout, load: t1 - t0, plain: t2 - t1, det: t3 - t2 })); })()
    .catch((e) => { console.error(e); process.exit(1); });`;
  const samples = [];
  for (let i = 0; i < 23; i++) {
    const cache = mkdtempSync(path.join(os.tmpdir(), "cordon-bench-cache-"));
    const env = { ...process.env, HOME: home, CORDON_CACHE_DIR: cache };
    delete env.XDG_CACHE_HOME;
    const p = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", env });
    if (p.status !== 0) throw new Error(`FU failed: ${p.stderr}`);
    const r = JSON.parse(p.stdout);
    check(r.out, "1\n2\n", "FU");
    if (readdirSync(cache).length !== 0) throw new Error("FU: the first use wrote into the cache directory");
    rmSync(cache, { recursive: true });
    if (i >= 3) samples.push(r);
  }
  rmSync(home, { recursive: true, force: true });
  const med = (key) => median(samples.map((r) => r[key]));
  row("FU", "first use: load + create + run, empty cache", fmt(med("load") + med("plain")), `load ${fmt(med("load"))}, create+run ${fmt(med("plain"))}`);
  row("FUd", "first deterministic sandbox: create + run", fmt(med("det")));
}

if (wanted("W2")) {
  const w = workloads.W2;
  await compared("W2", 'warm run of console.log("hi") on one sandbox', {
    warmup: w.warmup,
    rounds: 10,
    block: (w.runs * 5) / 10,
    open: (d) => onOne(d, {}, hi.javascript, hi.expect, "W2"),
    extra: (times) => `p99 ${fmt(quantile(times, 0.99))}`,
  });
}

if (wanted("W3")) {
  const w = workloads.W3;
  await compared("W3", "fresh sandbox: create + hi + close", {
    warmup: w.warmup,
    rounds: 10,
    block: (w.iterations * 3) / 10,
    open: async (d) => ({
      async once() {
        const t = performance.now();
        const sb = await d.create();
        const stdout = await sb.run(hi.javascript);
        await sb.close();
        const ms = performance.now() - t;
        check(stdout, hi.expect, "W3");
        return ms;
      },
    }),
    extra: (times) => `p99 ${fmt(quantile(times, 0.99))}`,
  });
}

if (wanted("W4")) {
  const w = workloads.W4;
  for (const [name, c] of Object.entries(w.cases)) {
    await compared("W4", `tool call, ${name} (per call, ${w.calls} calls a run)`, {
      warmup: w.warmup,
      rounds: w.reps * 3,
      open: (d) => onOne(d, toolOptions(w.calls), c.javascript, c.expect, `W4 ${name}`, w.calls),
    });
  }
}

if (wanted("W5")) {
  const w = workloads.W5;
  for (const [name, c] of Object.entries(w.cases)) {
    await compared("W5", `compute: ${name}`, {
      warmup: w.warmup,
      rounds: w.reps * 3,
      open: (d) => onOne(d, { limits: bigLimits }, c.javascript, c.expect, `W5 ${name}`),
    });
  }
}

if (wanted("FS")) {
  // Issue 5's figures: a 5 MB file from Node into the sandbox, read from
  // JavaScript; snapshot and restore of a session holding 10 MB of files.
  const five = new Uint8Array(5 * 2 ** 20).map((_, i) => i & 0xff);
  const sb = await Sandbox.create({ limits: { memoryBytes: 128 * 2 ** 20 } });
  const writes = [], reads = [];
  for (let i = 0; i < 11; i++) {
    let t = performance.now();
    await sb.fs.writeFile("/workspace/five.bin", five);
    writes.push(performance.now() - t);
    t = performance.now();
    const r = await sb.run("return fs.readFileSync('five.bin').length");
    reads.push(performance.now() - t);
    if (r.value !== String(five.length)) throw new Error(`FS read returned ${r.value}`);
  }
  row("FS", "write a 5 MB file from Node (sb.fs.writeFile)", fmt(median(writes)));
  row("FS", "read it from JavaScript (run incl.)", fmt(median(reads)));
  for (let i = 0; i < 5; i++) await sb.fs.writeFile(`/workspace/f${i}.bin`, five.subarray(0, 2 * 2 ** 20));
  const snaps = [], restores = [];
  let size = 0;
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    const bytes = await sb.snapshot();
    snaps.push(performance.now() - t);
    size = bytes.length;
    t = performance.now();
    const copy = await Sandbox.restore(bytes, { limits: { memoryBytes: 128 * 2 ** 20 } });
    restores.push(performance.now() - t);
    await copy.close();
  }
  row("FS", "snapshot of a session with 15 MB of files", fmt(median(snaps)), `${(size / 2 ** 20).toFixed(1)} MiB`);
  row("FS", "restore of that snapshot", fmt(median(restores)));
  await sb.close();
}

if (wanted("W6")) {
  const w = workloads.W6;
  const data = w6Data(w);
  const sb = await Sandbox.create({ files: { [`/workspace/${w.data.file}`]: data }, limits: { memoryBytes: 256 * 2 ** 20 } });
  const echo = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    const r = await sb.run("echo hi", { language: "shell" });
    echo.push(performance.now() - t);
    check(r.stdout, "hi", "W6 echo");
  }
  row("W6", "warm shell run of `echo hi`", fmt(median(echo)));
  // The same file for real bash/jq.
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const dir = mkdtempSync(path.join(os.tmpdir(), "cordon-w6-"));
  writeFileSync(path.join(dir, w.data.file), data);
  for (const [name, c] of Object.entries(w.cases)) {
    const ok = (out) => (c.expect ? out.includes(c.expect) : new RegExp(c.expectRe).test(out));
    const times = [];
    for (let i = 0; i < w.warmup + w.reps * 2; i++) {
      const t = performance.now();
      const r = await sb.run(c.shell, { language: "shell" });
      if (i >= w.warmup) times.push(performance.now() - t);
      if (!ok(r.stdout)) throw new Error(`W6 ${name}: ${JSON.stringify(r.stdout.slice(0, 200))} ${r.stderr.slice(0, 200)}`);
    }
    const native = [];
    for (let i = 0; i < w.warmup + w.reps * 2; i++) {
      const t = performance.now();
      const p = spawnSync("bash", ["-c", c.shell], { cwd: dir, encoding: "utf8", env: { LC_ALL: "C", PATH: "/usr/bin:/bin" } });
      if (i >= w.warmup) native.push(performance.now() - t);
      if (!ok(p.stdout)) throw new Error(`W6 ${name} (bash): ${JSON.stringify(p.stdout.slice(0, 200))} ${p.stderr}`);
    }
    const ratio = median(times) / median(native);
    row("W6", `${name}`, fmt(median(times)), `real bash: ${fmt(median(native))} (×${ratio.toFixed(2)})`);
  }
  rmSync(dir, { recursive: true, force: true });
  await sb.close();
}

if (wanted("W7")) {
  // In a child process of its own: memory before and after creating N
  // sandboxes that each ran `hi` once (each then holds its guest instance),
  // after a GC, at once and after half a second idle. PSS counts the pages instances share (the guest's image, mapped
  // copy-on-write) once, divided among them; RSS counts them in every instance.
  const w = workloads.W7;
  const script = `const { Sandbox } = require(${JSON.stringify(root)});
    const fs = require("node:fs");
    const kib = (key) => {
      const lines = fs.readFileSync("/proc/self/smaps_rollup", "utf8").split(String.fromCharCode(10));
      return parseInt(lines.find((l) => l.startsWith(key + ":")).slice(key.length + 1), 10);
    };
    (async () => {
      const warm = await Sandbox.create(); await warm.run(${JSON.stringify(hi.javascript)}); await warm.close();
      global.gc(); const pss = kib("Pss"), rss = kib("Rss");
      const held = [];
      for (let i = 0; i < ${w.count}; i++) {
        const sb = await Sandbox.create();
        const r = await sb.run(${JSON.stringify(hi.javascript)});
        if (!r.stdout.includes(${JSON.stringify(hi.expect)})) throw new Error("W7 output " + r.stdout);
        held.push(sb);
      }
      global.gc();
      const fresh = (kib("Pss") - pss) / ${w.count};
      // Idle: a sandbox idle for 100 ms gives back the pages its run wrote
      // but left unchanged (see ARCHITECTURE.md, "Idle sandboxes").
      await new Promise((resolve) => setTimeout(resolve, 500));
      global.gc();
      process.stdout.write(JSON.stringify({ fresh, pss: (kib("Pss") - pss) / ${w.count}, rss: (kib("Rss") - rss) / ${w.count} }));
      for (const sb of held) await sb.close();
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const p = spawnSync(process.execPath, ["--expose-gc", "-e", script], { encoding: "utf8" });
  if (p.status !== 0) throw new Error(`W7 failed: ${p.stderr}`);
  const { fresh, pss, rss } = JSON.parse(p.stdout);
  row(
    "W7",
    `host memory per idle sandbox (${w.count} alive)`,
    `${pss.toFixed(0)} KiB`,
    `PSS growth ÷ N after 0.5 s idle (at once: ${fresh.toFixed(0)} KiB; RSS: ${rss.toFixed(0)} KiB)`,
  );
}

if (wanted("W8")) {
  const w = workloads.W8;
  const sb = await Sandbox.create({ limits: { timeoutMs: w.limitMs } });
  const times = [];
  for (let i = 0; i < w.reps * 3; i++) {
    const t = performance.now();
    const err = await sb.run(w.code.javascript).then(() => null, (e) => e);
    times.push(performance.now() - t);
    if (!(err instanceof CordonError) || err.code !== "TIMEOUT") throw new Error(`W8: expected TIMEOUT, got ${err}`);
    check((await sb.run(hi.javascript)).stdout, hi.expect, "W8 after");
  }
  await sb.close();
  row("W8", `endless loop under a ${w.limitMs} ms limit`, fmt(median(times)), `max ${fmt(Math.max(...times))}`);
}
