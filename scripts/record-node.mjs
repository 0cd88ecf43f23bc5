// Records Node's output for the cases under __tests__/fixtures/node/<family>/:
// each `<case>.js` runs as the body of an async function (as cordon runs a
// script), each `<case>.mjs` as an ES module, in an empty directory, with
// `<case>.in` (when there is one) as its standard input; its stdout and
// stderr are written beside it as `<case>.out` and `<case>.err`, and an exit
// status other than 0 as `<case>.status`. Record with the active LTS Node
// (24: https://nodejs.org/en/about/previous-releases); the version is kept
// in fixtures/node/NODE_VERSION.
//   RECORD=1 node scripts/record-node.mjs [family...]
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

if (process.env.RECORD !== "1") {
  console.error("record-node: set RECORD=1 to overwrite the recorded outputs");
  process.exit(2);
}
const root = fileURLToPath(new URL("../__tests__/fixtures/node/", import.meta.url));
writeFileSync(join(root, "NODE_VERSION"), `${process.version}\n`);
const families = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
for (const family of families) {
  for (const file of readdirSync(join(root, family)).filter((f) => /\.m?js$/.test(f)).sort()) {
    const code = readFileSync(join(root, family, file), "utf8");
    const dir = mkdtempSync(join(tmpdir(), "record-node-"));
    try {
      const module = file.endsWith(".mjs");
      const script = join(dir, module ? "main.mjs" : "main.cjs");
      writeFileSync(script, module ? code : `(async () => {\n${code}\n})().catch((e) => { console.error("Uncaught", e); process.exitCode = 1; });\n`);
      const base = join(root, family, file.replace(/\.m?js$/, ""));
      const input = existsSync(`${base}.in`) ? readFileSync(`${base}.in`) : "";
      const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: "utf8", timeout: 30_000, input });
      writeFileSync(`${base}.out`, r.stdout);
      writeFileSync(`${base}.err`, r.stderr);
      if (r.status !== 0) writeFileSync(`${base}.status`, `${r.status}\n`);
      else rmSync(`${base}.status`, { force: true });
      console.log(`${family}/${file}: exit ${r.status}, ${r.stdout.length} bytes out, ${r.stderr.length} bytes err`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
