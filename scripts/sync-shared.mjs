// Keeps the project's copies of the shared data in step with the team's
// shared folder: the public red-team corpus (__tests__/redteam/corpus/) and
// the benchmark workloads (bench/workloads/). Tests and benchmarks read only
// the copies, so a clone of this repository is complete on its own; updating
// them is a deliberate step, reviewed like any change.
//
//   node scripts/sync-shared.mjs [shared-dir]           copy (default ../shared)
//   node scripts/sync-shared.mjs --check [shared-dir]   list differences, exit 1 if any
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const check = args.includes("--check");
const shared = path.resolve(args.find((a) => !a.startsWith("--")) ?? path.join(root, "..", "shared"));

/** Shared folder → project folder, and which entries of it are copied. */
const copies = [
  { from: "redteam", to: "__tests__/redteam/corpus", entries: ["README.md", "configs.json", "cases"] },
  { from: "bench", to: "bench/workloads", entries: ["README.md", "workloads.json"] },
];

function files(dir) {
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) return [""];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => statSync(path.join(dir, name)).isFile())
    .sort();
}

if (!existsSync(shared)) {
  console.error(`sync-shared: ${shared} does not exist; pass the shared folder's path`);
  process.exit(2);
}
const differences = [];
for (const { from, to, entries } of copies) {
  for (const entry of entries) {
    const source = path.join(shared, from, entry);
    const target = path.join(root, to, entry);
    if (check) {
      const names = new Set([...files(source), ...files(target)]);
      for (const name of names) {
        const a = path.join(source, name);
        const b = path.join(target, name);
        const same = existsSync(a) && existsSync(b) && readFileSync(a).equals(readFileSync(b));
        if (!same) differences.push(path.relative(root, b) || b);
      }
    } else {
      cpSync(source, target, { recursive: true });
    }
  }
}
if (check) {
  for (const name of differences) console.log(`differs: ${name}`);
  console.log(differences.length === 0 ? "sync-shared: the copies match" : `sync-shared: ${differences.length} file(s) differ`);
  process.exit(differences.length === 0 ? 0 : 1);
}
console.log(`sync-shared: copied from ${shared}`);
