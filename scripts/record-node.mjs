// Records what the real Node prints for the cases under
// __tests__/fixtures/node/<family>/: each case is a `.js` file, run with
// `node <case>.js` in its own directory; its stdout is written to
// `<case>.out`, its stderr (when not empty) to `<case>.err`, and its exit
// status (when not 0) to `<case>.exit`. `__tests__/node-cases.mjs` runs the
// same cases in a sandbox and compares.
//
//   RECORD=1 node scripts/record-node.mjs [family...]   write the files
//   node scripts/record-node.mjs [family...]            list what differs
//
// Paths in stderr are written relative to the case's directory, so a
// recording does not name this machine's checkout.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "__tests__", "fixtures", "node");
const record = process.env.RECORD === "1";
const families = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(root).sort();

let differ = 0;
for (const family of families) {
  const dir = join(root, family);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js")).sort()) {
    const base = join(dir, file.slice(0, -3));
    const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH } });
    const err = r.stderr.split(dir + "/").join("");
    const expected = { out: r.stdout, err: err || undefined, exit: r.status ? r.status + "\n" : undefined };
    for (const [ext, text] of Object.entries(expected)) {
      const path = base + "." + ext;
      const had = existsSync(path) ? readFileSync(path, "utf8") : undefined;
      if (had === text) continue;
      if (record) {
        if (text === undefined) rmSync(path);
        else writeFileSync(path, text);
        console.log("recorded " + family + "/" + file.slice(0, -3) + "." + ext);
      } else {
        differ++;
        console.log("differs: " + family + "/" + file.slice(0, -3) + "." + ext);
      }
    }
  }
}
if (!record) {
  console.log(differ ? differ + " recording(s) differ from " + process.version + " (RECORD=1 rewrites them)" : "all recordings match " + process.version);
  process.exitCode = differ ? 1 : 0;
}
