// JSON.stringify in the guest: plain data is written natively, anything
// else by QuickJS's own JSON.stringify, and a script cannot tell which.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox } from "cordon";

// `JSON.stringify(v)` takes the native path when it can; a `null` replacer
// (which the language ignores) always goes to QuickJS's own. Both must give
// the same text, or throw the same error, for every value.
const differential = `
let seed = 0x2545f491;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const pick = (list) => list[Math.floor(rnd() * list.length)];
const strings = ["", "a", "key", "x\\n\\t\\"\\\\/", "\\u0000\\u0001\\u001f\\u007f", "\\u2028\\u2029", "é ü ß",
  "😀", "\\ud800", "\\udc00x", "a\\ud83d", "\\ud83d\\ude00", "<\\/script>", "1", "10", "-1", "01", "1.5",
  "4294967294", "4294967295", "9007199254740993", "__proto__", "toJSON", "constructor", "x".repeat(70)];
const numbers = [0, -0, 1, -1, 7, 1.5, 0.1 + 0.2, 1 / 3, 1e21, 1e-7, 123e-20, 2 ** 31 - 1, 2 ** 31, -(2 ** 31),
  -(2 ** 31) - 1, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 5e-324, 1.7976931348623157e308, NaN, Infinity,
  -Infinity, 4294967295, 1e15 + 0.5];
const leaves = [...numbers, ...strings, true, false, null, undefined, function f() {}, () => 1, Symbol("s")];
class Point { constructor() { this.x = 1; this.y = [2]; } }
class Stamped { toJSON(key) { return "stamped:" + key; } }
function special(depth) {
  switch (Math.floor(rnd() * 22)) {
    case 0: return new Date(0);
    case 1: return new Number(3);
    case 2: return new String("boxed");
    case 3: return new Boolean(false);
    case 4: return new Map([[1, 2]]);
    case 5: return new Set([1]);
    case 6: return new Uint8Array([1, 2]);
    case 7: { const inner = gen(depth + 1); return { toJSON() { return { replaced: inner }; } }; }
    case 8: return Object.create({ toJSON() { return "inherited"; } });
    case 9: return { get g() { return "got"; }, plain: 1 };
    case 10: return new Proxy({ a: 1, b: [2] }, {});
    case 11: return [1, , 3];
    case 12: return new Point();
    case 13: return new Stamped();
    case 14: return Object.create({ inherited: 1 });
    case 15: { const o = Object.create(null); o.a = gen(depth + 1); return o; }
    case 16: return { big: 1n };
    case 17: { const o = { a: 1 }; o.self = o; return o; }
    case 18: { const a = [1]; a.push([a]); return a; }
    case 19: { const a = [1, 2]; a.extra = 3; return a; }
    case 20: { const o = { v: 1 }; Object.defineProperty(o, "hidden", { value: 2, enumerable: false }); o[Symbol("k")] = 3; return o; }
    default: { let v = gen(depth + 1); for (let i = 0; i < 70; i++) v = [v]; return v; }
  }
}
function gen(depth) {
  const r = rnd();
  if (depth > 4 || r < 0.4) return pick(leaves);
  if (r < 0.65) {
    const a = [];
    const n = Math.floor(rnd() * 6);
    for (let i = 0; i < n; i++) a.push(gen(depth + 1));
    return a;
  }
  if (r < 0.93) {
    const o = {};
    const n = Math.floor(rnd() * 6);
    for (let i = 0; i < n; i++) {
      const k = rnd() < 0.8 ? pick(strings) : String(pick(numbers));
      Object.defineProperty(o, k, { value: gen(depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return o;
  }
  return special(depth);
}
function attempt(f) {
  try {
    const text = f();
    return typeof text === "string" ? ["text", text] : ["not a string", typeof text];
  } catch (e) {
    return ["throws", e.name, e.message];
  }
}
const values = [];
for (let i = 0; i < 6000; i++) values.push(gen(0));
values.push("x".repeat(100000), Array.from({ length: 5000 }, (_, i) => i * 1.25), [[[[]]]], {}, []);
let nested = 1;
for (let i = 0; i < 63; i++) nested = [nested];
values.push(nested, [nested], [[nested]]);
const mismatches = [];
const kinds = {};
for (const v of values) {
  const native = attempt(() => JSON.stringify(v));
  const original = attempt(() => JSON.stringify(v, null));
  const undefinedArgs = attempt(() => JSON.stringify(v, undefined, undefined));
  kinds[native[0]] = (kinds[native[0]] ?? 0) + 1;
  if (JSON.stringify(native, null) !== JSON.stringify(original, null) ||
      JSON.stringify(undefinedArgs, null) !== JSON.stringify(original, null)) {
    if (mismatches.length < 5) mismatches.push([native, original, undefinedArgs]);
  }
}
return JSON.stringify({ compared: values.length, mismatches, kinds }, null);
`;

test("JSON.stringify gives QuickJS's own text or error for every value, whichever path writes it", async () => {
  const sb = await Sandbox.create({ limits: { cpuMs: 60000, timeoutMs: 60000 } });
  const r = await sb.run(differential);
  assert.equal(r.stderr, "");
  assert.equal(r.exitCode, 0);
  const { compared, mismatches, kinds } = JSON.parse(r.value);
  assert.deepEqual(mismatches, []);
  assert.equal(compared, 6008);
  // The corpus covers text, values that give no text and values that throw.
  assert.deepEqual(Object.keys(kinds).sort(), ["not a string", "text", "throws"]);
  assert.ok(kinds.text > 4000 && kinds.throws > 50 && kinds["not a string"] > 100, JSON.stringify(kinds));
  await sb.close();
});

test("JSON.stringify looks and behaves as the built-in: name, length, source, property, errors, getters, replacement", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run(`
    const out = [];
    out.push(String(JSON.stringify), JSON.stringify.name, JSON.stringify.length,
      JSON.stringify(Object.getOwnPropertyDescriptor(JSON, "stringify")), Object.keys(JSON).length);
    const cyclic = { a: 1 }; cyclic.self = cyclic;
    for (const v of [cyclic, { n: 2n }]) {
      try { JSON.stringify(v); } catch (e) { out.push(e instanceof TypeError, e.message, e.stack); }
    }
    let reads = 0;
    out.push(JSON.stringify({ get g() { reads++; return reads; }, v: [1, { w: "x" }] }), reads);
    out.push(JSON.stringify({ a: [1, 2], b: "c" }, (k, v) => (k === "b" ? undefined : v)), JSON.stringify({ a: [1] }, null, 1));
    out.push(JSON.stringify(), JSON.stringify(undefined), JSON.stringify(() => 1), JSON.stringify(Symbol()));
    const kept = JSON.stringify;
    JSON.stringify = () => "replaced";
    out.push(JSON.stringify({ a: 1 }));
    JSON.stringify = kept;
    out.push(JSON.stringify({ a: 1 }));
    return JSON.stringify(out);
  `);
  assert.equal(r.stderr, "");
  assert.deepEqual(JSON.parse(r.value), [
    "function stringify() {\n    [native code]\n}",
    "stringify",
    3,
    '{"writable":true,"enumerable":false,"configurable":true}',
    0,
    true,
    "circular reference",
    "    at stringify (native)\n    at <anonymous> (main.js:7:28)\n",
    true,
    "BigInt are forbidden in JSON.stringify",
    "    at stringify (native)\n    at <anonymous> (main.js:7:28)\n",
    '{"g":1,"v":[1,{"w":"x"}]}',
    1,
    '{"a":[1,2]}',
    '{\n "a": [\n  1\n ]\n}',
    null,
    null,
    null,
    null,
    "replaced",
    '{"a":1}',
  ]);
  await sb.close();
});
