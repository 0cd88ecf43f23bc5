// The public red-team cases of the categories cordon implements so far. Every
// case must be contained; a case that needs what cordon has not built yet
// (the shell) is skipped and counted; a table per category is printed.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { loadCategory, runCase } from "./redteam/runner.mjs";

const CATEGORIES = [
  "capability_bypass",
  "constraint_bypass",
  "max_calls_bypass",
  "amla_readme",
  "cpu_exhaustion",
  "memory_exhaustion",
  "output_flooding",
  "filesystem_escape",
  "timing_side_channels",
  "determinism",
  "api_misuse",
];
const table = [];

for (const category of CATEGORIES) {
  const row = { category, tried: 0, contained: 0, failed: 0, skipped: 0 };
  table.push(row);
  for (const c of loadCategory(category)) {
    test(`${c.id} ${c.title ?? ""}`.trim(), async (t) => {
      const verdict = await runCase(c);
      if (verdict.skipped) {
        row.skipped++;
        t.skip(verdict.skipped);
        return;
      }
      row.tried++;
      if (verdict.contained) row.contained++;
      else row.failed++;
      assert.ok(verdict.contained, `${c.id}: ${verdict.why}`);
    });
  }
}

after(() => {
  const lines = ["category            tried  contained  failed  skipped"];
  for (const r of table) {
    lines.push(
      `${r.category.padEnd(19)} ${String(r.tried).padStart(5)}  ${String(r.contained).padStart(9)}  ${String(r.failed).padStart(6)}  ${String(r.skipped).padStart(7)}`,
    );
  }
  console.log(lines.join("\n"));
});
