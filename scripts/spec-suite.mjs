// Measurement tool, not a test: runs a third-party bash conformance suite in
// the Oils spec format (`#### name` cases, e.g. the Oils project's spec/*.test.sh
// as imported into vercel-labs/just-bash under src/spec-tests/bash/cases) through
// cordon's shell and through real bash, and compares stdout and exit status.
// The suite stays outside the repository; name its directory:
//
//   node scripts/spec-suite.mjs /tmp/spec/cases [--out /tmp/spec-result.json] [--native|--native-dev] [--only FILE...]
//
// Real bash (the oracle) runs each case like scripts/record-shell-fixtures.mjs
// does (private mount namespace, fresh /workspace and /tmp, fixed environment);
// it runs twice, and cases whose two runs differ are counted apart as
// nondeterministic. Both shells get the same prelude: shell functions standing
// in for the suite's Python helpers (argv.py, printenv.py, ...) and SH=bash. For
// real bash the same helpers are also commands on PATH, so `$SH -c '… argv.py'`
// finds them. Bash results are cached in <out>.bash.json (keyed by script).
// Uses the built package (dist/ and the addon in npm/); with --native, the
// shell crate's `sh` example instead (the same interpreter over the in-memory
// test system, built natively: for iterating on the interpreter); with
// --native-dev, its unoptimised build (quicker to rebuild).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repo = new URL("..", import.meta.url).pathname;
const args = process.argv.slice(2);
const native = args.includes("--native") || args.includes("--native-dev");
const release = !args.includes("--native-dev");
const dir = args[0];
if (!dir || !existsSync(dir)) {
  console.error("usage: node scripts/spec-suite.mjs SUITE_DIR [--out FILE] [--only FILE...]");
  process.exit(2);
}
const outAt = args.indexOf("--out");
const out = outAt >= 0 ? args[outAt + 1] : "/tmp/spec-result.json";
const onlyAt = args.indexOf("--only");
const only = onlyAt >= 0 ? args.slice(onlyAt + 1) : [];

let Sandbox;
let shBin;
if (native) {
  const target = spawnSync("rustc", ["-vV"], { encoding: "utf8" }).stdout.match(/host: (\S+)/)[1];
  const built = spawnSync(
    "cargo",
    [
      "build",
      ...(release ? ["--release"] : []),
      "-q",
      "-p",
      "cordon-shell",
      "--target",
      target,
      "--example",
      "sh",
    ],
    { cwd: repo, stdio: "inherit" },
  );
  if (built.status !== 0) process.exit(1);
  shBin = join(repo, "target", target, release ? "release" : "debug", "examples", "sh");
} else {
  process.env.CORDON_NATIVE_PATH ??= join(repo, "npm", "cordon.linux-x64-gnu.node");
  ({ Sandbox } = await import(join(repo, "dist", "index.js")));
}

// `%{` stands for `${` (which a template literal would interpolate).
const PRELUDE = String.raw`SH=bash; export TMP=/tmp
argv.py() { local _o= _s= _a; for _a in "$@"; do _a=%{_a//\\/\\\\}; _a=%{_a//$'\n'/\\n}; _a=%{_a//$'\r'/\\r}; _a=%{_a//$'\t'/\\t}; if [[ $_a == *\'* && $_a != *\"* ]]; then _o+="$_s\"$_a\""; else _a=%{_a//\'/\\\'}; _o+="$_s'$_a'"; fi; _s=', '; done; printf '[%s]\n' "$_o"; }
printenv.py() { local _n; for _n in "$@"; do if printenv "$_n" >/dev/null; then printenv "$_n"; else echo None; fi; done; }
stdout_stderr.py() { if [ $# -gt 0 ]; then echo "$1"; else echo STDOUT; fi; echo STDERR >&2; }
read_from_fd.py() { local _f _c; for _f in "$@"; do _c=$(cat <&"$_f"); echo "$_f: $_c"; done; }
`.replaceAll("%{", "${");

// (On the prelude's last line, so line numbers stay bash's.)
const CORDON_PRELUDE = PRELUDE.replace(/\n$/, "; export -f argv.py printenv.py stdout_stderr.py read_from_fd.py\n");

// Cases of one file: the script is every line that is not a `## ` directive
// and not inside a `## STDOUT:`/`## STDERR:` … `## END` block.
function parse(text) {
  const cases = [];
  let cur = null;
  let inBlock = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("#### ")) {
      cur = { name: line.slice(5).trim(), script: "", meta: [] };
      cases.push(cur);
      inBlock = false;
      continue;
    }
    if (!cur) continue;
    if (inBlock) {
      cur.meta.push(line);
      if (line.startsWith("## END")) inBlock = false;
      continue;
    }
    if (line.startsWith("## ")) {
      cur.meta.push(line);
      if (/(STDOUT|STDERR):\s*$/.test(line)) inBlock = true;
      const code = line.match(/^## code:\s?(.*)$/);
      if (code) cur.script += code[1] + "\n";
      continue;
    }
    cur.script += line + "\n";
  }
  return cases;
}

const binDir = "/var/tmp/spec-suite-bin";
mkdirSync(binDir, { recursive: true });
writeFileSync(join(binDir, "prelude.sh"), PRELUDE);
for (const name of ["argv.py", "printenv.py", "stdout_stderr.py", "read_from_fd.py"]) {
  writeFileSync(join(binDir, name), `#!/bin/bash\nsource ${binDir}/prelude.sh\n${name} "$@"\n`, { mode: 0o755 });
}

const inner = `set -e
mount --bind "$1" /workspace
mount --bind "$2" /tmp
cd /workspace
exec env -i HOME=/workspace PATH=${binDir}:/usr/bin:/bin LC_ALL=C TZ=UTC timeout 5 bash -c "$3" cordon </dev/null`;

function runBash(script) {
  mkdirSync("/workspace", { recursive: true });
  const ws = mkdtempSync(join(tmpdir(), "spec-ws-"));
  const tmp = mkdtempSync(join(tmpdir(), "spec-tmp-"));
  const r = spawnSync("unshare", ["-rm", "bash", "-c", inner, "spec", ws, tmp, script], {
    encoding: "latin1",
    timeout: 15_000,
  });
  rmSync(ws, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", status: r.status ?? 128 };
}

function runNative(script) {
  const r = spawnSync(shBin, [], { input: Buffer.from(script, "latin1"), encoding: "latin1", timeout: 10_000 });
  if (r.error || r.status === null) {
    return { stdout: "", stderr: String(r.error?.code ?? r.signal), status: -1, error: "TIMEOUT" };
  }
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

async function runCordon(script) {
  if (native) return runNative(script);
  const sb = await Sandbox.create({ limits: { timeoutMs: 5000 } });
  try {
    const r = await sb.run(script, { language: "shell" });
    return { stdout: r.stdout, stderr: r.stderr, status: r.exitCode };
  } catch (e) {
    return { stdout: "", stderr: String(e?.code ?? e), status: -1, error: String(e?.code ?? e) };
  } finally {
    await sb.close?.();
  }
}

const cachePath = `${out}.bash.json`;
const cache = existsSync(cachePath) ? JSON.parse(readFileSync(cachePath, "utf8")) : {};
const results = [];
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".test.sh"))
  .filter((f) => !only.length || only.includes(f) || only.includes(f.replace(/\.test\.sh$/, "")))
  .sort();
for (const file of files) {
  const cases = parse(readFileSync(join(dir, file), "latin1"));
  for (const c of cases) {
    const script = PRELUDE + c.script;
    const key = createHash("sha256").update(script).digest("hex").slice(0, 24);
    let b = cache[key];
    if (!b) {
      const one = runBash(script);
      const two = runBash(script);
      b = { ...one, deterministic: one.stdout === two.stdout && one.status === two.status };
      cache[key] = b;
    }
    // bash finds the helpers as programs on PATH, cordon as functions:
    // exported, so child shells (`$SH -c`, scripts) have them too.
    const k = await runCordon(CORDON_PRELUDE + c.script);
    const pass = k.stdout === b.stdout && k.status === b.status;
    results.push({
      file,
      name: c.name,
      script: c.script,
      pass,
      deterministic: b.deterministic,
      bash: { stdout: b.stdout, status: b.status, stderr: b.stderr },
      cordon: { stdout: k.stdout, status: k.status, stderr: k.stderr, error: k.error },
    });
  }
  writeFileSync(cachePath, JSON.stringify(cache));
  const mine = results.filter((r) => r.file === file && r.deterministic);
  console.log(`${file}: ${mine.filter((r) => r.pass).length}/${mine.length}`);
}
writeFileSync(out, JSON.stringify(results, null, 1));
const det = results.filter((r) => r.deterministic);
const passed = det.filter((r) => r.pass).length;
console.log(
  `total: ${passed}/${det.length} (${((100 * passed) / det.length).toFixed(1)} %)` +
    `, ${results.length - det.length} nondeterministic cases left out`,
);
