// A run ends as a Node process does: when the script has settled and no
// timer, immediate or tool call it started is pending.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox } from "cordon";

const sb = await Sandbox.create({
  tools: { echo: async (a) => a },
  capabilities: [{ method: "echo" }],
  limits: { timeoutMs: 300 },
});
const run = async (code, options) => {
  const r = await sb.run(code, options);
  return [r.stdout, r.stderr, r.exitCode];
};

test("a pending setTimeout prints before the run ends", async () => {
  assert.deepEqual(await run('setTimeout(() => console.log("x"), 100)'), ["x\n", "", 0]);
});

test("waitForTimers: false ends the run when the script settles", async () => {
  assert.deepEqual(await run('setTimeout(() => console.log("x"), 10); console.log("body")', { waitForTimers: false }), [
    "body\n",
    "",
    0,
  ]);
  // The next run starts with no timer left over.
  assert.deepEqual(await run("await new Promise((r) => setTimeout(r, 20)); console.log('next')"), ["next\n", "", 0]);
  await assert.rejects(sb.run("1", { waitForTimers: "no" }), { code: "INVALID_OPTIONS" });
});

test("a tool call nobody awaits still completes", async () => {
  assert.deepEqual(await run('echo({ v: 1 }).then((r) => console.log("late", r.v)); console.log("body")'), [
    "body\nlate 1\n",
    "",
    0,
  ]);
});

test("callbacks run one at a time, each followed by its microtasks", async () => {
  const code = `
    setTimeout(() => { console.log("t1"); Promise.resolve().then(() => console.log("t1 micro")); });
    setTimeout(() => console.log("t2"));
    queueMicrotask(() => console.log("micro"));
    console.log("body");`;
  assert.deepEqual(await run(code), ["body\nmicro\nt1\nt1 micro\nt2\n", "", 0]);
});

test("setImmediate and clearImmediate", async () => {
  const code = `
    const a = setImmediate((x) => console.log("a", x), 1);
    setImmediate(() => { console.log("b"); setImmediate(() => console.log("c")); });
    clearImmediate(a);`;
  assert.deepEqual(await run(code), ["b\nc\n", "", 0]);
});

test("an interval runs until cleared; one never cleared runs until the time limit", async () => {
  assert.deepEqual(await run("let n = 0; const i = setInterval(() => { if (++n === 3) clearInterval(i); console.log(n) }, 5)"), [
    "1\n2\n3\n",
    "",
    0,
  ]);
  await assert.rejects(sb.run("setInterval(() => {}, 10)"), { code: "TIMEOUT" });
});

test("an unhandled rejection ends the run with exit code 1, as in Node", async () => {
  assert.deepEqual(await run('Promise.reject(new Error("boom")); setTimeout(() => console.log("never"), 10)'), [
    "",
    "Uncaught Error: boom\n    at <anonymous> (main.js:1:20)\n",
    1,
  ]);
  const r = await sb.run('Promise.reject("x")');
  assert.equal(r.exitCode, 1);
  assert.equal(r.error.name, "UnhandledPromiseRejection");
  assert.equal(
    r.stderr,
    "Uncaught UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \"x\".\n",
  );
  // A handler added in the same turn handles it.
  assert.deepEqual(await run('const p = Promise.reject(1); await null; p.catch(() => {}); console.log("ok")'), ["ok\n", "", 0]);
});

test("an exception in a timer callback is the run's uncaught error", async () => {
  assert.deepEqual(await run('setTimeout(() => { throw new Error("late") }, 5); return 1'), [
    "",
    "Uncaught Error: late\n    at <anonymous> (main.js:1:30)\n",
    1,
  ]);
  const r = await sb.run('setTimeout("x")');
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /^Uncaught TypeError: The "callback" argument must be of type function. Received type string \('x'\)\n/);
});

test("performance.now() counts up from 0", async () => {
  const [out] = await run("const a = performance.now(); await new Promise((r) => setTimeout(r, 20)); const b = performance.now(); console.log(a >= 0, b - a >= 15)");
  assert.equal(out, "true true\n");
});

test("js -e in the shell waits for its timers too", async () => {
  const r = await sb.run("js -e \"setTimeout(() => console.log('later'), 10); console.log('now')\"; echo done", { language: "shell" });
  assert.deepEqual([r.stdout, r.stderr, r.exitCode], ["now\nlater\ndone\n", "", 0]);
});

test("the new APIs keep working after a script replaces built-ins", async () => {
  const polluted = await Sandbox.create();
  await polluted.run("Array.prototype.push = () => { throw 1 }; Map.prototype.get = null; Map.prototype.set = null; String.prototype.slice = null");
  const r = await polluted.run(
    "console.table([{ a: 1 }]); console.log(new URLSearchParams('a=1').get('a'), structuredClone([1, { b: 2 }]), new TextDecoder().decode(new TextEncoder().encode('é')), atob(btoa('x')))",
  );
  assert.deepEqual(
    [r.stdout, r.stderr, r.exitCode],
    ["┌─────────┬───┐\n│ (index) │ a │\n├─────────┼───┤\n│ 0       │ 1 │\n└─────────┴───┘\n1 [ 1, { b: 2 } ] é x\n", "", 0],
  );
  await polluted.close();
});

test("immediates set in a timer callback run before timers it sets, however long it takes", async () => {
  const code = `
    setTimeout(() => {
      const until = Date.now() + 5;
      while (Date.now() < until) {}
      setTimeout(() => console.log("timeout"), 0);
      setImmediate(() => {
        console.log("immediate");
        setImmediate(() => console.log("immediate of immediate"));
        const stop = Date.now() + 5;
        while (Date.now() < stop) {}
      });
    }, 1);`;
  assert.deepEqual(await run(code), ["immediate\ntimeout\nimmediate of immediate\n", "", 0]);
});
