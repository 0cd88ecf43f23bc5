// A sandbox keeps one realm across runs, so a script may replace built-ins
// (Array.prototype.push, JSON.stringify, Promise.prototype.then, ...). The
// sandbox's own bridge (console, tools, timers, fs, process, crypto, shell,
// error reporting) must keep working exactly as in a fresh realm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox } from "cordon";

// Values the exercise prints. A polluted realm can no longer build them (the
// Map and Set constructors call the replaced set/add, Array.from and the
// iterators are gone), so both sandboxes make them first, unpolluted.
const SETUP = `
  const P = Promise;
  globalThis.fixtures = {
    map: new Map([["k", 1], [{ key: "obj" }, [1, 2]]]),
    set: new Set([1, "two", { three: 3 }]),
    point: new (class Point { constructor() { this.x = 1; this.y = 2; } })(),
    bytes: new Uint8Array([1, 2, 3]),
    big: Array.from({ length: 120 }, (_, i) => i),
    date: new Date(0),
    re: /a\\/b[c]/giu,
    fn: function named() {},
    nullProto: Object.assign(Object.create(null), { a: 1 }),
    sym: Symbol("s"),
    buf: new Uint8Array(4),
    sleep: (ms) => new P((resolve) => setTimeout(resolve, ms)),
  };
`;

// Replaces every method (and accessor) of the built-ins the bridge relies on
// with one that throws or returns junk, adds enumerable junk to
// Object.prototype, and replaces global bindings. Function.prototype goes
// last: from then on nothing here may call a method.
const POLLUTE = `
  const E = Error;
  const ownKeys = Reflect.ownKeys, describe = Object.getOwnPropertyDescriptor, define = Object.defineProperty;
  const boom = function () { throw new E("hijacked"); };
  const junk = function () { return "junk"; };
  let n = 0;
  const replace = (target, key) => {
    const d = describe(target, key);
    if (!d.configurable) return;
    const fake = n++ % 2 ? boom : junk;
    if (typeof d.value === "function") define(target, key, { __proto__: null, value: fake });
    else if (typeof d.get === "function" || typeof d.set === "function") define(target, key, { __proto__: null, get: fake, set: fake });
  };
  const everything = (target, except) => {
    const keys = ownKeys(target);
    for (let i = 0; i < keys.length; i++) if (keys[i] !== except) replace(target, keys[i]);
  };
  const TypedArray = Object.getPrototypeOf(Uint8Array);
  const targets = [
    Array.prototype, Array, String.prototype, String, Object, Map.prototype, Set.prototype, WeakSet.prototype,
    RegExp.prototype, Number.prototype, Number, Symbol.prototype, Date.prototype, Date, Error.prototype,
    TypedArray.prototype, TypedArray, Uint8Array.prototype, Uint32Array.prototype, DataView.prototype,
    ArrayBuffer.prototype, ArrayBuffer, JSON, Reflect, Promise,
  ];
  for (let i = 0; i < targets.length; i++) everything(targets[i]);
  // Math.random is the sandbox's own; its neighbours go.
  everything(Math, "random");
  // then, catch, finally; not the constructor (a script's own await reads it).
  everything(Promise.prototype, "constructor");
  everything(Object.prototype);
  const names = ["junk", "get", "set", "value", "writable", "enumerable", "configurable", "errno",
    "path", "from", "to", "mode", "op", "code", "stack", "name", "message", "entries", "kind", "due", "every",
    "fn", "args", "resolve", "reject", "1"];
  for (let i = 0; i < names.length; i++) {
    define(Object.prototype, names[i], { __proto__: null, value: "junk", writable: true, enumerable: true, configurable: true });
  }
  isNaN = boom; String = boom; Number = boom; Map = boom; Set = boom; WeakSet = boom; Promise = boom;
  Uint8Array = boom; Uint32Array = boom; JSON = {}; Reflect = {}; Object = boom; Array = boom;
  globalThis.globalThis = {};
  everything(Function.prototype);
`;

// Only what a polluted realm still allows: literals, property reads, string
// concatenation, await, try/catch, and the sandbox's own globals.
const EXERCISE = `
  console.log("a", 1, -0, 2.5, 10n, true, null, undefined, "it's");
  console.log({ n: 1, s: "two", list: [1, , 3, "x\\ny"], deep: { deeper: { deepest: { bottom: 1 } } } });
  console.log(fixtures.map, fixtures.set, fixtures.point, fixtures.bytes);
  console.log(fixtures.date, fixtures.re, fixtures.fn, fixtures.nullProto, fixtures.sym, fixtures.big);
  console.log("%s is %d and %i%% %j %o", "x", 42.5, 99.9, { j: 1 }, [1]);
  console.info({ alpha: "aaaaaaaaaaaaaaaa", beta: "bbbbbbbbbbbbbbbbbb", gamma: "cccccccccccccccc", delta: [1, 2, 3] });
  console.error(new Error("boom"));
  console.warn("nested", { e: new TypeError("inner") }, [{ o: 1 }]);
  const sum = await add({ a: 1, b: 2 });
  console.log("sum", sum, tools.list());
  try { await tools.call("missing", {}); } catch (e) { console.log(e.name, e.code, e.message); }
  setTimeout((a, b) => console.log("timer", a, b), 1, "x", 2);
  await fixtures.sleep(5);
  fs.writeFileSync("note.txt", "hello " + sum);
  fs.appendFileSync("note.txt", "!");
  console.log(fs.readFileSync("note.txt", "utf8"), fs.readFileSync("note.txt"), fs.readdirSync("."));
  console.log(await fs.promises.readFile("note.txt", "utf8"), fs.existsSync("nope"), fs.statSync("note.txt").size, process.cwd());
  try { fs.readFileSync("missing.txt"); } catch (e) { console.log(e.message, e.code, e.syscall); }
  console.log(crypto.randomUUID(), Math.random(), crypto.getRandomValues(fixtures.buf));
  console.log(await shell("echo hi from shell"));
  return { ok: true, sum, list: [1, "two"], nested: { x: null } };
`;

// Error reporting: uncaught errors, thrown non-errors and timer exceptions.
const FAILURES = [
  `await fixtures.sleep(1); throw new RangeError("bad " + 42);`,
  `throw { code: 7, list: [1, 2] };`,
  `setTimeout(() => { throw new TypeError("from a timer"); }, 0); await fixtures.sleep(5);`,
];

async function sandbox() {
  const calls = [];
  const sb = await Sandbox.create({
    tools: {
      add: async (args) => {
        calls.push(args);
        return args.a + args.b;
      },
    },
    capabilities: [{ method: "add" }],
    // Same seed for both: crypto and Math.random print the same values.
    deterministic: { seed: 7 },
  });
  return { sb, calls };
}

// What a run shows, without its timings.
const shown = (r) => ({
  exitCode: r.exitCode,
  stdout: r.stdout,
  stderr: r.stderr,
  value: r.value,
  error: r.error,
  toolCalls: r.toolCalls.map(({ durationMs, ...call }) => call),
});

async function ok(sb, code) {
  const r = await sb.run(code);
  assert.equal(r.exitCode, 0, r.stderr);
  return r;
}

test("replaced built-ins cannot hijack console, tools, timers, fs, crypto, shell or error reporting", async () => {
  const fresh = await sandbox();
  const polluted = await sandbox();
  await ok(fresh.sb, SETUP);
  await ok(polluted.sb, SETUP);
  const pollution = await ok(polluted.sb, POLLUTE);
  assert.deepEqual([pollution.stdout, pollution.stderr, pollution.value], ["", "", undefined]);

  // The pollution is in effect for scripts.
  const probe = await ok(
    polluted.sb,
    `const check = (f, want) => { try { return f() === want ? "intact" : "replaced"; } catch (e) { return "replaced"; } };
     return check(() => [1].push(2), 2) + " " + check(() => "abc".slice(1), "bc") + " " +
       check(() => ({ a: 1 }).hasOwnProperty("a"), true) + " " + check(() => JSON.stringify(1), "1") + " " +
       check(() => Math.max(1, 2), 2) + " " + check(() => /a/.test("a"), true) + " " +
       check(() => [..."ab"].length, 2) + " " + check(() => (function () { return 1; }).call(null), 1) + " " +
       ({}).junk;`,
  );
  assert.equal(probe.value, "replaced replaced replaced replaced replaced replaced replaced replaced junk");

  const expected = shown(await fresh.sb.run(EXERCISE));
  const actual = shown(await polluted.sb.run(EXERCISE));
  assert.equal(expected.exitCode, 0, expected.stderr);
  assert.ok(expected.stdout.includes("Map(2) { 'k' => 1, { key: 'obj' } => [ 1, 2 ] }"), expected.stdout);
  assert.ok(expected.stdout.includes("timer x 2\n"), expected.stdout);
  assert.ok(expected.stdout.includes("{ stdout: 'hi from shell\\n', stderr: '', exitCode: 0 }"), expected.stdout);
  assert.equal(expected.value, '{"ok":true,"sum":3,"list":[1,"two"],"nested":{"x":null}}');
  assert.deepEqual(actual, expected);
  assert.deepEqual(polluted.calls, [{ a: 1, b: 2 }]);
  assert.deepEqual(fresh.calls, [{ a: 1, b: 2 }]);
  assert.equal(await polluted.sb.fs.readFile("/workspace/note.txt", "utf8"), "hello 3!");

  for (const code of FAILURES) {
    const want = shown(await fresh.sb.run(code));
    assert.equal(want.exitCode, 1, code);
    assert.deepEqual(shown(await polluted.sb.run(code)), want, code);
  }

  // reset gives a clean realm.
  await polluted.sb.reset();
  const clean = await ok(
    polluted.sb,
    `return [1, 2].map(String).join("+") + " " + JSON.stringify({ a: [1] }) + " " + Object.keys({ x: 1 }) +
       " " + ("junk" in {}) + " " + typeof globalThis.fixtures + " " + [..."ab"].length + " " + /b/.test("abc");`,
  );
  assert.equal(clean.value, '1+2 {"a":[1]} x false undefined 2 true');
  const printed = await ok(polluted.sb, "console.log('a', 1, [2], new Map([[3, 4]]))");
  assert.equal(printed.stdout, "a 1 [ 2 ] Map(1) { 3 => 4 }\n");

  await fresh.sb.close();
  await polluted.sb.close();
});
