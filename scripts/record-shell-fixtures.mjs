// Records what real bash, GNU coreutils, mawk and jq print for every case
// under crates/shell/tests/fixtures/cases, into fixtures/expected/<group>.json.
// Each case runs in a private mount namespace where /workspace and /tmp are
// fresh empty directories, as in the sandbox, with a fixed environment.
//
//   RECORD=1 npm run record:shell            # all groups
//   RECORD=1 npm run record:shell -- grep sed   # some groups
//
// Needs `unshare` (util-linux) with user namespaces, and root to create the
// /workspace mount point.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

if (process.env.RECORD !== "1") {
  console.error("set RECORD=1 to re-record the shell fixtures");
  process.exit(2);
}
const root = new URL("../crates/shell/tests/fixtures/", import.meta.url).pathname;
const only = process.argv.slice(2);
mkdirSync("/workspace", { recursive: true });

function cases(text) {
  const out = [];
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith("#### ")) out.push({ name: line.slice(5).trim(), script: "" });
    else if (out.length) out[out.length - 1].script += line;
  }
  return out;
}

const inner = `set -e
mount --bind "$1" /workspace
mount --bind "$2" /tmp
cd /workspace
exec env -i HOME=/workspace PATH=/usr/bin:/bin LC_ALL=C TZ=UTC bash -c "$3" cordon </dev/null`;

for (const file of readdirSync(join(root, "cases")).sort()) {
  if (!file.endsWith(".sh")) continue;
  const group = file.slice(0, -3);
  if (only.length && !only.includes(group)) continue;
  const recorded = [];
  for (const { name, script } of cases(readFileSync(join(root, "cases", file), "utf8"))) {
    const ws = mkdtempSync(join(tmpdir(), "cordon-ws-"));
    const tmp = mkdtempSync(join(tmpdir(), "cordon-tmp-"));
    const r = spawnSync("unshare", ["-rm", "bash", "-c", inner, "record", ws, tmp, script], {
      encoding: "utf8",
      timeout: 10_000,
    });
    rmSync(ws, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
    if (r.error) throw new Error(`${group}/${name}: ${r.error.message}`);
    recorded.push({ name, script, stdout: r.stdout, stderr: r.stderr, status: r.status ?? 128 });
  }
  writeFileSync(join(root, "expected", `${group}.json`), JSON.stringify(recorded, null, 1) + "\n");
  console.log(`${group}: ${recorded.length} cases`);
}
