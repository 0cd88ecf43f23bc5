// The public red-team cases, every category. Every case must be contained; a
// case that needs what cordon does not offer is skipped and counted; a case
// re-targeted in the runner (RETARGETED) is judged by what cordon's design
// guarantees instead, with the reason printed; a table per category is printed.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { loadCategory, runCase, RETARGETED } from "./redteam/runner.mjs";

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
  "stack_exhaustion",
  "host_object_reachability",
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
  lines.push("", "re-targeted cases (judged by what cordon's design must guarantee instead):");
  for (const [id, r] of Object.entries(RETARGETED)) lines.push(`  ${id}: ${r.why}`);
  console.log(lines.join("\n"));
});
