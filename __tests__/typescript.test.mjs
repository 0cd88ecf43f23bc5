// TypeScript input: types become white space (lines and columns stay), and
// what needs code generated is a SyntaxError naming the construct.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox } from "../dist/index.js";

const sb = await Sandbox.create();
const ts = (code) => sb.run(code, { language: "typescript" });
const outcome = (r) => ({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, value: r.value, error: r.error });

test("annotations, interfaces, generics, casts and type-only imports are removed", async () => {
  const r = await ts(`import type { Thing } from "./thing";
interface User<T = string> { id: number; name: T }
type Pair<A, B> = [a: A, b: B];
function greet<T extends User>(u: T, times: number = 1): string {
  return Array.from({ length: times }, () => "hi " + (u.name as string)).join(", ")!;
}
class Box<T> {
  private items: T[] = [];
  declare readonly size: number;
  add(x: T): this { this.items.push(x satisfies T); return this; }
}
const pair: Pair<number, string> = [1, "é"];
console.log(greet({ id: 1, name: "ann" } as User, 2), new Box<number>().add(3), pair);
return (await Promise.resolve(pair[0])) as number;`);
  assert.deepEqual(outcome(r), {
    exitCode: 0,
    stdout: "hi ann, hi ann Box { items: [ 3 ] } [ 1, 'é' ]\n1\n",
    stderr: "",
    value: "1",
    error: undefined,
  });
});

test("a runtime error points at the line and column the user wrote", async () => {
  const r = await ts("const a: { b: number } | undefined = undefined as any;\nconst n: number = 1; a!.b;");
  assert.equal(r.exitCode, 1);
  assert.equal(r.error.name, "TypeError");
  assert.match(r.error.stack, /main\.js:2:2\d/);
});

test("enum, namespace and parameter properties are SyntaxErrors naming the construct, at its place", async () => {
  const cases = [
    ["let x = 1;\nenum Color { Red }", "TypeScript enum is not supported", 2, 1],
    ["namespace N { export const x = 1 }", "TypeScript namespace declaration is not supported", 1, 1],
    ["class K {\n  constructor(private x: number) {}\n}", "TypeScript parameter property is not supported", 2, 23],
    ["let y: = 1", "Unexpected token `=`", 1, 8],
  ];
  for (const [code, message, line, column] of cases) {
    const r = await ts(code);
    assert.equal(r.exitCode, 1, code);
    assert.equal(r.error.name, "SyntaxError");
    assert.ok(r.error.message.startsWith(message), r.error.message);
    assert.equal(r.error.stack, `    at main.js:${line}:${column}\n`);
    assert.equal(r.stderr, `Uncaught SyntaxError: ${r.error.message}\n    at main.js:${line}:${column}\n`);
    assert.equal(r.stdout, "");
  }
});

test("TypeScript runs wherever JavaScript is enabled; JavaScript is not stripped", async () => {
  const js = await Sandbox.create({ languages: ["javascript"] });
  assert.equal((await js.run("return 1 as number", { language: "typescript" })).value, "1");
  assert.equal((await js.run("let x: number = 1")).error.name, "SyntaxError");
  const shell = await Sandbox.create({ languages: ["shell"] });
  await assert.rejects(shell.run("1", { language: "typescript" }), { code: "INVALID_OPTIONS" });
  await assert.rejects(sb.run("1", { language: "coffeescript" }), { code: "INVALID_OPTIONS" });
  await Promise.all([js.close(), shell.close()]);
});
