// Host memory per run is bounded whatever the guest does: the tool-call log,
// denial messages, traces, values and errors all have bounds, hitting one is
// a typed error that keeps the record of what happened, and never INTERNAL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./fixtures/worst-loops.mjs", import.meta.url));

// The documented bound: the guest's memory (memoryBytes, 64 MiB by default)
// plus 96 MiB for the host's side of a run (log, trace, output, result copies).
const BOUND_KIB = (64 + 96) * 1024;

test("the worst loops end with typed errors and the host's peak RSS stays within memoryBytes + 96 MiB", () => {
  const child = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 120_000 });
  assert.equal(child.status, 0, child.stderr);
  const { runs, riseKiB } = JSON.parse(child.stdout);
  const denial = { tool: "pay", decision: "denied", reason: "constraint", code: "DENIED" };
  // Denied calls with a megabyte of arguments: the CPU limit ends the run, the
  // log keeps every call, each record with 1 KiB of the arguments.
  assert.equal(runs["denied-large"].code, "CPU_LIMIT");
  assert.ok(runs["denied-large"].calls > 10, JSON.stringify(runs["denied-large"]));
  assert.deepEqual({ ...runs["denied-large"].last, durationMs: 0, args: runs["denied-large"].last.args.length }, {
    ...denial,
    durationMs: 0,
    args: 1024 + "…".length,
    message: "pay denied: amount must be < 0, got 5",
  });
  assert.equal(runs["unknown-large"].code, "CPU_LIMIT");
  assert.ok(runs["unknown-large"].last.tool.length <= 129);
  assert.ok(runs["unknown-large"].last.message.length < 200);
  // Denials without end: the run stops after 10,000 of them, with its log.
  assert.deepEqual([runs["denied-forever"].code, runs["denied-forever"].calls], ["TOOL_CALL_LIMIT", 10_000]);
  assert.equal(runs["denied-forever"].last.reason, "unknown_tool");
  // Allowed calls: at most toolCalls (1000) run; the rest are denied.
  assert.deepEqual([runs["large-results"].exitCode, runs["large-results"].calls], [0, 2000]);
  assert.equal(runs["large-args"].exitCode, 0);
  // Traces stop at limits.traceBytes (16 MiB).
  assert.equal(runs["record-clock-random"].code, "TRACE_LIMIT");
  assert.equal(runs["record-calls"].code, "TRACE_LIMIT");
  assert.ok(runs["record-calls"].calls > 0 && runs["record-calls"].calls < 40, JSON.stringify(runs["record-calls"]));
  // A value and an error message of 8 MiB are cut at outputBytes (1 MiB).
  const cut = (1 << 20) + "\n[cordon: output truncated at 1048576 bytes]".length;
  assert.deepEqual(runs.value, { exitCode: 0, calls: 0, last: null, value: cut });
  assert.deepEqual([runs.error.exitCode, runs.error.error], [1, cut]);
  assert.ok(riseKiB < BOUND_KIB, `peak RSS rose by ${riseKiB} KiB`);
});
