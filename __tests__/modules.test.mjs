// The modules family against Node's recorded output (fixtures/node/modules/).
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("modules");

import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox } from "../dist/index.js";

test("an unknown module is an error naming it and what exists; imports keep line numbers", async () => {
  const sb = await Sandbox.create();
  const codeOf = async (code) => {
    const r = await sb.run(code);
    return r.exitCode === 0 ? JSON.parse(r.value) : r.error;
  };
  const [pkg, builtin] = [
    await codeOf('try { require("left-pad") } catch (e) { return JSON.stringify([e.code, e.message]) }'),
    await codeOf('try { require("node:nope") } catch (e) { return JSON.stringify([e.code, e.message]) }'),
  ];
  const list = "cordon provides path, path/posix, fs, fs/promises, util, events, buffer, crypto, url, process, readline (with or without node:)";
  assert.deepEqual(pkg, ["MODULE_NOT_FOUND", `Cannot find module 'left-pad': the sandbox has no packages or module files; ${list}`]);
  assert.deepEqual(builtin, ["ERR_UNKNOWN_BUILTIN_MODULE", `No such built-in module: node:nope; ${list}`]);
  // An import of an unknown module fails at its own line; later lines keep theirs.
  const r = await sb.run('import {\n  x\n} from "nope";');
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /^Uncaught Error: Cannot find module 'nope'/);
  assert.match(r.error.stack, /main\.js:1:/);
  const after = await sb.run('import path from "path";\nimport type { T } from "t";\n\nnull.x;', { language: "typescript" });
  assert.match(after.error.stack, /main\.js:4:/);
  // `import(…)`, `import.meta` and a property named import are left alone.
  const left = await sb.run('const o = { import: 1 }; return typeof import.meta + o.import');
  assert.equal(left.error.name, "SyntaxError");
  // Bad arguments are Node's codes.
  const bad = await sb.run(`const out = [];
for (const f of [() => Buffer.from(5), () => Buffer.alloc(-1), () => Buffer.from("x", "nope"), () => require("crypto").createHash("md5"), () => Buffer.from("ab").readUInt16LE(1), () => require(1)])
  try { f(); out.push("no error"); } catch (e) { out.push(e.code); }
return out.join()`);
  assert.equal(bad.value, "ERR_INVALID_ARG_TYPE,ERR_OUT_OF_RANGE,ERR_UNKNOWN_ENCODING,ERR_OSSL_EVP_UNSUPPORTED,ERR_OUT_OF_RANGE,ERR_INVALID_ARG_TYPE");
  await sb.close();
});
