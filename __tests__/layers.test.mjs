// The TypeScript sources keep a one-way order: each file imports only from
// files on a lower floor (ARCHITECTURE.md lists them top to bottom), the
// adapters never from each other, and no file grows past 500 lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("../js/", import.meta.url));
const FLOORS = [
  ["cli"],
  ["repl"],
  ["replsource"],
  ["ai", "langchain", "mcp"],
  ["codetool"],
  ["index"],
  ["sandbox"],
  ["scriptsource"],
  ["jstokens"],
  ["describe"],
  ["schematype"],
  ["dispatch"],
  ["files"],
  ["tools"],
  ["options"],
  ["binding"],
  ["errors"],
  ["types", "infer"],
];
const floor = new Map(FLOORS.flatMap((names, i) => names.map((n) => [n, FLOORS.length - i])));

/** The local modules a source imports, statically or through require(). */
function imports(text) {
  const found = new Set();
  for (const m of text.matchAll(/(?:from\s+|require\(\s*|import\(\s*)["']\.\/([\w-]+)["']/g)) found.add(m[1]);
  return [...found];
}

test("every file in js/ has a floor, and imports only from lower floors", () => {
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
  assert.deepEqual(files.filter((f) => !floor.has(f)), [], "a new file in js/ needs its floor here and in ARCHITECTURE.md");
  const wrong = [];
  for (const file of files) {
    for (const target of imports(readFileSync(`${dir}${file}.ts`, "utf8"))) {
      if (!(floor.get(target) < floor.get(file))) wrong.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("the import scan sees static, type-only and lazy imports", () => {
  const text = `import { a } from "./x";\nimport type { B } from './y';\nconst z = require("./z") as typeof import("./w");`;
  assert.deepEqual(imports(text).sort(), ["w", "x", "y", "z"]);
});

test("no file in js/ is over 500 lines", () => {
  const long = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => [f, readFileSync(`${dir}${f}`, "utf8").split("\n").length])
    .filter(([, lines]) => lines > 500);
  assert.deepEqual(long, []);
});
