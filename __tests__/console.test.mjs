// console.* formats plain data the way Node does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox } from "cordon";

const sb = await Sandbox.create();
const out = async (code) => {
  const r = await sb.run(code);
  assert.equal(r.exitCode, 0, r.stderr);
  return [r.stdout, r.stderr];
};

test("log, info and debug go to stdout; warn and error to stderr", async () => {
  assert.deepEqual(
    await out("console.log('a'); console.info('b'); console.debug('c'); console.warn('d'); console.error('e')"),
    ["a\nb\nc\n", "d\ne\n"],
  );
});

test("primitives print like Node", async () => {
  assert.deepEqual(await out("console.log('s', 1, -0, 1.5, 10n, true, null, undefined, NaN, Symbol('q'))"), [
    "s 1 -0 1.5 10n true null undefined NaN Symbol(q)\n",
    "",
  ]);
  assert.deepEqual(await out("console.log()"), ["\n", ""]);
});

test("objects and arrays print like util.inspect", async () => {
  const [stdout] = await out(`
    console.log({ a: 1, b: 'two', 'c-d': [1, 2, 3], e: { f: { g: { h: 1 } } } });
    console.log([]);
    console.log({});
    console.log([1, , 3]);
    console.log(['it\\'s']);
    console.log(new Map([['k', 1]]), new Set([1, 2]));
    console.log([function named() {}, () => 1, class K {}]);
    class Point { constructor() { this.x = 1; this.y = 2 } }
    console.log(new Point());
    const o = { name: 'loop' }; o.self = o;
    console.log(o);
  `);
  assert.equal(
    stdout,
    [
      "{ a: 1, b: 'two', 'c-d': [ 1, 2, 3 ], e: { f: { g: [Object] } } }",
      "[]",
      "{}",
      "[ 1, <1 empty item>, 3 ]",
      `[ "it's" ]`,
      "Map(1) { 'k' => 1 } Set(2) { 1, 2 }",
      "[ [Function: named], [Function (anonymous)], [class K] ]",
      "Point { x: 1, y: 2 }",
      "{ name: 'loop', self: [Circular *1] }",
      "",
    ].join("\n"),
  );
});

test("long objects break over lines with two-space indentation", async () => {
  const [stdout] = await out(
    "console.log({ alpha: 'aaaaaaaaaaaaaaaa', beta: 'bbbbbbbbbbbbbbbbbb', gamma: 'cccccccccccccccc', delta: 1 })",
  );
  assert.equal(
    stdout,
    "{\n  alpha: 'aaaaaaaaaaaaaaaa',\n  beta: 'bbbbbbbbbbbbbbbbbb',\n  gamma: 'cccccccccccccccc',\n  delta: 1\n}\n",
  );
});

test("errors print with their message and guest stack", async () => {
  const [stdout] = await out("console.log(new RangeError('too far'))");
  assert.equal(stdout, "RangeError: too far\n    at <anonymous> (main.js:1:17)\n");
});

test("format specifiers substitute like Node", async () => {
  const [stdout] = await out("console.log('%s has %d items (%i%%) %j', 'cart', 3, 42.9, {a: 1}, 'extra')");
  assert.equal(stdout, 'cart has 3 items (42%) {"a":1} extra\n');
});

test("one string prints as it is, cut at the output limit like any other output", async () => {
  const small = await Sandbox.create({ limits: { outputBytes: 10 } });
  const run = async (code) => {
    const r = await small.run(code);
    return [r.stdout, r.stderr, r.exitCode, r.stats.stdoutTruncated];
  };
  const cut = "xxxxxxxxxx\n[cordon: output truncated at 10 bytes]\n";
  // nine characters and the newline fill the limit exactly
  assert.deepEqual(await run("console.log('x'.repeat(9))"), ["xxxxxxxxx\n", "", 0, false]);
  assert.deepEqual(await run("console.log('x'.repeat(10))"), [cut, "", 0, true]);
  assert.deepEqual(await run("console.log('x'.repeat(1e6))"), [cut, "", 0, true]);
  // the same text through the general path (two arguments) is cut the same way
  assert.deepEqual(await run("console.log('%s', 'x'.repeat(10))"), [cut, "", 0, true]);
  // a lone surrogate becomes U+FFFD
  assert.deepEqual(await run("console.log('a\\ud800b')"), ["a\ufffdb\n", "", 0, false]);
  await small.close();
});

test("console.time, timeLog and timeEnd print the label and the elapsed time; misuse is a warning", async () => {
  const [stdout, stderr] = await out(`
    console.time(); console.time("t"); console.time("t");
    console.timeLog("t", "step", { a: 1 });
    console.timeEnd("t"); console.timeEnd("t"); console.timeLog("nope"); console.timeEnd();
    console.countReset("never");
  `);
  const lines = stdout.split("\n");
  assert.match(lines[0], /^t: \d+(\.\d{1,3})?ms step \{ a: 1 \}$/);
  assert.match(lines[1], /^t: \d+(\.\d{1,3})?ms$/);
  assert.match(lines[2], /^default: \d+(\.\d{1,3})?ms$/);
  assert.equal(lines.length, 4);
  assert.equal(
    stderr,
    [
      "Warning: Label 't' already exists for console.time()",
      "Warning: No such label 't' for console.timeEnd()",
      "Warning: No such label 'nope' for console.timeLog()",
      "Warning: Count for 'never' does not exist",
      "",
    ].join("\n"),
  );
});

test("the sandbox closes", async () => {
  await sb.close();
});
