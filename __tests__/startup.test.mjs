// Start-up with the guest compiled at build time: a new process maps the
// modules shipped beside the addon (plain and deterministic), compiles
// nothing and writes nothing; a shipped module that cannot be used (damaged,
// from another build, missing, or compiled for CPU features this machine
// lacks) is compiled instead, after one line on stderr saying why.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// This machine's platform, named as native.js names it.
const libc = process.platform === "linux" ? (process.report.getReport().header.glibcVersionRuntime ? "-gnu" : "-musl") : "";
const platform = `${process.platform}-${process.arch}${process.platform === "win32" ? "-msvc" : libc}`;
const built = path.join(root, "npm", platform);
const work = mkdtempSync(path.join(os.tmpdir(), "cordon-startup-"));
const home = path.join(work, "home");
mkdirSync(home);
chmodSync(home, 0o555);
const script = path.join(work, "first.mjs");
writeFileSync(
  script,
  `import { Sandbox } from ${JSON.stringify(path.join(root, "dist", "index.js"))};
const plain = await Sandbox.create();
const r = await plain.run("console.log(1)");
let out = r.stdout;
if (process.argv[2] === "both") {
  const det = await Sandbox.create({ deterministic: true });
  out += (await det.run("console.log(Math.random() < 1)")).stdout;
  await det.close();
}
await plain.close();
process.stdout.write(out);
`,
);

/** A new Node process with a read-only home and no cache but `cache`. */
function firstUse({ cache, native, both = false }) {
  const env = { ...process.env, HOME: home, CORDON_CACHE_DIR: cache };
  delete env.XDG_CACHE_HOME;
  delete env.CORDON_PREBUILT;
  if (native) env.CORDON_NATIVE_PATH = native;
  else delete env.CORDON_NATIVE_PATH;
  return spawnSync(process.execPath, [script, ...(both ? ["both"] : [])], { env, encoding: "utf8" });
}

after(() => rmSync(work, { recursive: true, force: true }));
// Where the fallbacks below cache the module they compile, so only the first
// one compiles.
const fallbackCache = mkdtempSync(path.join(work, "cache-"));

test("a new process runs both engines from the shipped modules and writes nothing", () => {
  const cache = mkdtempSync(path.join(work, "cache-"));
  const r = firstUse({ cache, both: true });
  assert.equal(r.stderr, "");
  assert.equal(r.stdout, "1\ntrue\n");
  assert.equal(r.status, 0);
  // Compiling would have stored the module in the cache.
  assert.deepEqual(readdirSync(cache), []);
  assert.deepEqual(readdirSync(home), []);
});

test("a shipped module that cannot be used is compiled instead, with one line saying why", () => {
  const copy = path.join(work, "addon");
  cpSync(built, copy, { recursive: true });
  const native = path.join(copy, `cordon.${platform}.node`);
  const cache = fallbackCache;
  const module = path.join(copy, "cordon-guest.cwasm");
  const sum = path.join(copy, "cordon-guest.sum");
  const pristine = { module: readFileSync(module), sum: readFileSync(sum) };
  const expectNotice = (r, why) => {
    assert.equal(r.stdout, "1\n", r.stderr);
    assert.equal(r.status, 0);
    const lines = r.stderr.split("\n");
    assert.equal(lines.length, 2, r.stderr);
    assert.equal(lines[1], "");
    const prefix = `cordon: compiling the guest instead of using the shipped one, which takes seconds (cached in ${cache}): `;
    assert.ok(lines[0].startsWith(prefix), lines[0]);
    assert.match(lines[0].slice(prefix.length), why);
  };

  // Damaged: one byte of the code changed.
  const damaged = Buffer.from(pristine.module);
  damaged[damaged.length >> 1] ^= 0xff;
  writeFileSync(module, damaged);
  expectNotice(firstUse({ cache, native }), /cordon-guest\.cwasm does not match its summary \(damaged\)$/);
  // The compiled module went to the cache; later fallbacks load it from there.
  assert.equal(readdirSync(cache).filter((f) => f.endsWith(".cwasm")).length, 1);

  // From another build: the summary's key differs.
  writeFileSync(module, pristine.module);
  const foreign = Buffer.from(pristine.sum);
  foreign[8] ^= 0xff;
  writeFileSync(sum, foreign);
  expectNotice(firstUse({ cache, native }), /cordon-guest\.cwasm belongs to another build of cordon$/);

  // Missing.
  rmSync(sum);
  expectNotice(firstUse({ cache, native }), /cordon-guest\.sum cannot be read \(.*\)$/);
  writeFileSync(sum, pristine.sum);
  const r = firstUse({ cache, native });
  assert.equal(r.stderr, "");
  assert.equal(r.stdout, "1\n");
});

// A CPU feature this machine does not have, to compile a module it refuses.
function missingFeature() {
  if (process.platform !== "linux" || process.arch !== "x64") return null;
  const flags = new Set(/^flags\s*:(.*)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1].trim().split(/\s+/));
  const candidates = [
    ["has_avx512f", "avx512f"],
    ["has_avx512vbmi", "avx512vbmi"],
    ["has_avx_vnni", "avx_vnni"],
  ];
  return candidates.find(([, cpu]) => !flags.has(cpu))?.[0] ?? null;
}

test("a module compiled for CPU features this machine lacks is refused by wasmtime and compiled instead", (t) => {
  const feature = missingFeature();
  if (!feature) return t.skip("needs an x86-64 Linux machine without one of AVX-512F, AVX-512 VBMI, AVX-VNNI");
  const copy = path.join(work, "addon-cpu");
  cpSync(built, copy, { recursive: true });
  const native = path.join(copy, `cordon.${platform}.node`);
  const made = spawnSync(process.execPath, [path.join(root, "scripts", "precompile.mjs"), native, "", copy, `x86-64-v2,${feature}`], {
    encoding: "utf8",
  });
  assert.equal(made.status, 0, made.stderr);
  const r = firstUse({ cache: fallbackCache, native });
  assert.equal(r.stdout, "1\n", r.stderr);
  assert.match(r.stderr, /^cordon: compiling the guest instead of using the shipped one, which takes seconds \(cached in .*\): .*cordon-guest\.cwasm does not fit this machine \(.*\)\n$/);
});
