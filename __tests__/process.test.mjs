// Node's process in the guest, where it meets the host: exit and exitCode
// end a run and leave the sandbox as it was; standard input reaches
// JavaScript runs (and `js -e` in the shell) once per run; traces record a
// run's standard input and `waitForTimers`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox } from "../dist/index.js";

const outcome = (r) => ({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, value: r.value, error: r.error ?? null });

test("process.exit ends the run at once with its status; the next run starts clean", async () => {
  const sb = await Sandbox.create();
  assert.deepEqual(outcome(await sb.run('console.log("a"); process.exit(7); console.log("b")')), { stdout: "a\n", stderr: "", exitCode: 7, value: undefined, error: null });
  // Nothing of the script runs after it: not a catch, a finally, a pending timer or a later callback.
  const r = await sb.run(`
    setTimeout(() => console.log("timer"), 0);
    Promise.resolve().then(() => console.log("job"));
    try { process.exit(300) } catch { console.log("catch") } finally { console.log("finally") }`);
  assert.deepEqual(outcome(r), { stdout: "", stderr: "", exitCode: 300 & 255, value: undefined, error: null });
  // From inside an awaited tool-free promise chain and a timer.
  assert.equal((await sb.run("await null; setTimeout(() => process.exit(3), 1); await new Promise(() => {})")).exitCode, 3);
  // exitCode is the status of a run that ends normally, reset for the next run.
  assert.deepEqual(outcome(await sb.run("process.exitCode = 2; return 5")), { stdout: "5\n", stderr: "", exitCode: 2, value: "5", error: null });
  assert.deepEqual(outcome(await sb.run("return process.exitCode")), { stdout: "", stderr: "", exitCode: 0, value: undefined, error: null });
  // process.exit() without a status takes exitCode.
  assert.equal((await sb.run("process.exitCode = 9; process.exit()")).exitCode, 9);
  // An uncaught error is still 1 and the sandbox goes on.
  assert.equal((await sb.run("process.exitCode = 4; throw new Error('x')")).exitCode, 1);
  assert.deepEqual(outcome(await sb.run("globalThis.kept = 1; return kept")), { stdout: "1\n", stderr: "", exitCode: 0, value: "1", error: null });
  await sb.close();
});

test("process.nextTick: a callback that throws is the run's uncaught error and drops the later ticks; exit in a tick ends the run", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run(`
    process.nextTick(() => { throw new TypeError("in a tick") });
    process.nextTick(() => console.log("dropped"));
    Promise.resolve().then(() => console.log("job"));
    console.log("sync")`);
  // Promise jobs already queued still run, as after a timer that threw (Node stops at once).
  assert.equal(r.stdout, "sync\njob\n");
  assert.equal(r.exitCode, 1);
  assert.equal(r.error?.name, "TypeError");
  assert.equal(r.error?.message, "in a tick");
  // The queue is empty for the next run, which orders ticks before jobs again.
  const next = await sb.run('Promise.resolve().then(() => console.log("job")); process.nextTick(() => console.log("tick"))');
  assert.deepEqual(outcome(next), { stdout: "tick\njob\n", stderr: "", exitCode: 0, value: undefined, error: null });
  const exited = await sb.run('process.nextTick(() => process.exit(6)); process.nextTick(() => console.log("after"))');
  assert.deepEqual(outcome(exited), { stdout: "", stderr: "", exitCode: 6, value: undefined, error: null });
  // A run that ends with ticks queued (its body threw) leaves none to the next.
  assert.equal((await sb.run('process.nextTick(() => console.log("stale")); throw new Error("x")')).exitCode, 1);
  assert.deepEqual(outcome(await sb.run('console.log("clean")')), { stdout: "clean\n", stderr: "", exitCode: 0, value: undefined, error: null });
  await sb.close();
});

test("process events: listeners belong to the run that added them; 'exit' runs once, also for a failed run", async () => {
  const sb = await Sandbox.create();
  const first = await sb.run('process.on("exit", (c) => console.log("exit", c)); process.on("uncaughtException", () => {}); console.log("body")');
  assert.deepEqual(outcome(first), { stdout: "body\nexit 0\n", stderr: "", exitCode: 0, value: undefined, error: null });
  // The next run starts without them: its timer's exception is its error again.
  const second = await sb.run('setTimeout(() => { throw new Error("t") }, 0); console.log(process.listenerCount("exit"))');
  assert.equal(second.stdout, "0\n");
  assert.equal(second.exitCode, 1);
  assert.equal(second.error?.message, "t");
  // A failed run's listeners get 1; process.exit in a listener ends the run with its status.
  const failed = await sb.run('process.on("exit", (c) => console.log("exit", c)); throw new Error("x")');
  assert.equal(failed.stdout, "exit 1\n");
  assert.equal(failed.exitCode, 1);
  const exiting = await sb.run('process.on("exit", (c) => { console.log("exit", c); process.exit(9) }); process.exit(2)');
  assert.deepEqual(outcome(exiting), { stdout: "exit 2\n", stderr: "", exitCode: 9, value: undefined, error: null });
  const late = await sb.run('process.on("exit", () => process.exit(6)); console.log("ok")');
  assert.deepEqual(outcome(late), { stdout: "ok\n", stderr: "", exitCode: 6, value: undefined, error: null });
  assert.deepEqual(outcome(await sb.run('console.log("clean")')), { stdout: "clean\n", stderr: "", exitCode: 0, value: undefined, error: null });
  await sb.close();
});

test("a JavaScript run's standard input: fs.readFileSync(0), process.stdin, readline; once per run", async () => {
  const sb = await Sandbox.create();
  const read = 'const fs = require("fs"); return JSON.stringify([fs.readFileSync(0, "utf8"), fs.readFileSync("/dev/stdin", "utf8")])';
  assert.equal((await sb.run(read, { stdin: "abc" })).value, '["abc",""]');
  // The next run has its own (here none).
  assert.equal((await sb.run(read)).value, '["",""]');
  const bytes = new Uint8Array([0, 255, 10]);
  assert.equal((await sb.run('return [...require("fs").readFileSync(0)].join()', { stdin: bytes })).value, "0,255,10");
  // process.stdin is a new stream each run.
  const stream = 'let s = ""; for await (const c of process.stdin) s += c; return s';
  assert.equal((await sb.run(stream, { stdin: "one" })).value, "one");
  assert.equal((await sb.run(stream, { stdin: "two" })).value, "two");
  // 200 KiB arrives in 64 KiB chunks.
  const big = "x".repeat(200 * 1024);
  const chunks = 'const n = []; process.stdin.on("data", (c) => n.push(c.length)); await new Promise((r) => process.stdin.on("end", r)); return n.join()';
  const sized = await Sandbox.create({ limits: { codeBytes: 1 << 20 } });
  assert.equal((await sized.run(chunks, { stdin: big })).value, "65536,65536,65536,8192");
  await sized.close();
  // js -e inside the shell reads the pipeline.
  const piped = await sb.run(`printf 'a\\nb\\n' | js -e 'const rl = require("readline").createInterface({ input: process.stdin }); rl.on("line", (l) => console.log(l.toUpperCase()))'`, { language: "shell" });
  assert.deepEqual(outcome(piped), { stdout: "A\nB\n", stderr: "", exitCode: 0, value: undefined, error: null });
  await sb.close();
});

test("a trace keeps the run's standard input and waitForTimers: false; replay uses them", async () => {
  const code = 'setTimeout(() => console.log("late"), 5); console.log(require("fs").readFileSync(0, "utf8"))';
  const sb = await Sandbox.create();
  const recorded = await sb.run(code, { record: true, stdin: "from stdin", waitForTimers: false });
  assert.equal(recorded.stdout, "from stdin\n");
  assert.equal(recorded.trace.stdin, Buffer.from("from stdin").toString("hex"));
  assert.equal(recorded.trace.leave_pending, true);
  const replayed = await Sandbox.replay(recorded.trace, code);
  assert.equal(replayed.divergence, null);
  assert.equal(replayed.result.stdout, "from stdin\n");
  // A run that waited records neither key.
  const plain = await sb.run("return 1", { record: true });
  assert.equal("stdin" in plain.trace || "leave_pending" in plain.trace, false);
  await sb.close();
});
