// Two builds of cordon side by side in one process, their runs interleaved
// one by one: the way to tell a change from this machine's noise. Separate
// processes of the same build read up to 50 % apart here (other tenants
// share the caches), and a row of `npm run bench` moves by as much from one
// minute to the next; interleaved runs share whatever state the machine is
// in, so their ratio holds steady (two copies of one build read 0.99-1.01).
//
//   npm run bench:ab -- --save /tmp/before      copy this build (dist/, native.js, the addon)
//   ... change, rebuild ...
//   npm run bench:ab -- /tmp/before .           compare: the second against the first
//   npm run bench:ab -- /tmp/before . W4 --runs 200
//
// Workloads: W2 (warm hi), W3 (create + hi + close), W4seq and W4conc (the
// thousand calls of W4), W4fresh (W4conc's run as a new sandbox's first:
// create, run, close), W5fib (W5's fib at 24 rather than 27) and W5json (a
// tenth of W5's JSON loop), W6jq (W6's jq filter over its 5 MB file); all by
// default.
// Prints each build's median and the median of the per-round ratios B ÷ A.
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { w6Data } from "./w6data.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

const save = args.indexOf("--save");
if (save >= 0) {
  const to = path.resolve(args[save + 1] ?? "");
  if (!args[save + 1]) throw new Error("bench:ab: --save needs a directory");
  mkdirSync(to, { recursive: true });
  cpSync(path.join(root, "dist"), path.join(to, "dist"), { recursive: true });
  cpSync(path.join(root, "native.js"), path.join(to, "native.js"));
  cpSync(path.join(root, "package.json"), path.join(to, "package.json"));
  cpSync(path.join(root, "npm"), path.join(to, "npm"), { recursive: true });
  console.log(`bench:ab: this build is in ${to}`);
  process.exit(0);
}

const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 100;
if (!Number.isInteger(runs) || runs < 1) throw new Error("bench:ab: --runs takes a positive integer");
const rest = args.filter((a, i) => !(runsAt >= 0 && (i === runsAt || i === runsAt + 1)));
const builds = rest.filter((a) => !/^W\d/.test(a)).map((d) => path.resolve(d));
const only = rest.filter((a) => /^W\d/.test(a));
if (builds.length !== 2) throw new Error("bench:ab: give two build directories (see the top of bench/ab.mjs)");
for (const b of builds) {
  if (!existsSync(path.join(b, "dist", "index.js"))) throw new Error(`bench:ab: ${b} holds no dist/index.js`);
}

const workloads = JSON.parse(readFileSync(path.join(root, "bench/workloads/workloads.json"), "utf8"));
const hi = workloads.snippets.hi;
const w4 = workloads.W4.cases;
const fib = workloads.W5.cases.fib27;
const json = workloads.W5.cases.strjson1e6;
const w6 = workloads.W6;
const cases = [
  { id: "W2", what: "warm run of hi (µs)", code: hi.javascript, expect: hi.expect, unit: 1000, options: {} },
  { id: "W3", what: "create + hi + close (µs)", code: hi.javascript, expect: hi.expect, unit: 1000, options: {}, fresh: true },
  { id: "W4seq", what: "tool call, sequential (µs per call)", code: w4.sequential.javascript, expect: w4.sequential.expect, unit: 1 },
  { id: "W4conc", what: "tool call, Promise.all (µs per call)", code: w4.concurrent.javascript, expect: w4.concurrent.expect, unit: 1 },
  {
    id: "W4fresh",
    what: "create + W4conc's run + close (ms)",
    code: w4.concurrent.javascript,
    expect: w4.concurrent.expect,
    unit: 1,
    fresh: true,
  },
  {
    id: "W5fib",
    what: "fib(24) (ms)",
    code: fib.javascript.replace("fib(27)", "fib(24)"),
    expect: "46368",
    unit: 1,
    options: {},
  },
  {
    id: "W5json",
    what: "JSON loop, 10^5 iterations (ms)",
    code: json.javascript.replace("1000000", "100000"),
    expect: "2377780",
    unit: 1,
    options: {},
  },
  {
    id: "W6jq",
    what: "jq filter over 5 MB (ms)",
    code: w6.cases.jq_select_len.shell,
    expect: w6.cases.jq_select_len.expect,
    unit: 1,
    language: "shell",
    // as in bench/run.mjs
    options: () => ({ files: { [`/workspace/${w6.data.file}`]: w6Data(w6) }, limits: { memoryBytes: 256 * 2 ** 20 } }),
  },
].filter((c) => only.length === 0 || only.some((o) => c.id.startsWith(o)));

// W4's sandbox, as in bench/run.mjs; the other workloads run without tools.
const toolOptions = {
  tools: { add: async ({ a, b }) => a + b },
  capabilities: [{ method: "add" }],
  limits: { toolCalls: 2000, timeoutMs: 120_000 },
};
const packages = [];
for (const b of builds) packages.push(await import(path.join(b, "dist", "index.js")));
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

console.log(`A ${builds[0]}\nB ${builds[1]}\n${runs} interleaved rounds after 20 of warm-up`);
for (const c of cases) {
  const options = typeof c.options === "function" ? c.options() : (c.options ?? toolOptions);
  const sandboxes = await Promise.all(packages.map((p) => p.Sandbox.create(options)));
  const once = async (k) => {
    const t = performance.now();
    let sb = sandboxes[k];
    if (c.fresh) sb = await packages[k].Sandbox.create(options);
    const r = await sb.run(c.code, { language: c.language ?? "javascript" });
    if (c.fresh) await sb.close();
    const ms = performance.now() - t;
    if (!r.stdout.includes(c.expect)) throw new Error(`${c.id}: ${JSON.stringify(r.stdout.slice(0, 200))}`);
    return ms * c.unit;
  };
  const times = [[], []];
  for (let i = 0; i < runs + 20; i++) {
    // A then B, then B then A: neither always runs second.
    for (const k of i % 2 ? [1, 0] : [0, 1]) {
      const t = await once(k);
      if (i >= 20) times[k].push(t);
    }
  }
  await Promise.all(sandboxes.map((s) => s.close()));
  const ratio = median(times[1].map((t, i) => t / times[0][i]));
  console.log(
    `${c.id.padEnd(7)} ${c.what.padEnd(38)} A ${median(times[0]).toFixed(2).padStart(8)}  B ${median(times[1]).toFixed(2).padStart(8)}  B÷A ${ratio.toFixed(3)}`,
  );
}
