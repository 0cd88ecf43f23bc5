// The README's JavaScript examples are the files under __tests__/types/
// named readme-<n>-<topic>.ts, verbatim and in order: scripts/test-types.sh
// compiles those files under `tsc --strict` against the packed package, so
// what the README shows is what type-checks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = fileURLToPath(new URL("../", import.meta.url));
const dir = path.join(root, "__tests__", "types");

function snippetFiles() {
  const files = [];
  for (const sub of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    for (const name of readdirSync(path.join(dir, sub.name))) {
      const m = /^readme-(\d+)-[a-z0-9-]+\.ts$/.exec(name);
      if (m) files.push({ n: Number(m[1]), file: path.join("__tests__", "types", sub.name, name) });
    }
  }
  return files.sort((a, b) => a.n - b.n);
}

test("every JavaScript example of the README is a type-checked file, verbatim and in order", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const files = snippetFiles();
  assert.deepEqual(
    files.map((f) => f.n),
    files.map((_, i) => i + 1),
    "the readme-<n> files are numbered 1, 2, 3, … without gaps",
  );
  assert.equal(blocks.length, files.length, `the README has ${blocks.length} js blocks, __tests__/types/ has ${files.length} readme-<n> files`);
  blocks.forEach((block, i) => {
    assert.equal(block, readFileSync(path.join(root, files[i].file), "utf8"), `README js block ${i + 1} differs from ${files[i].file}`);
  });
});
