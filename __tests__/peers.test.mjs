// Without its optional peers, each adapter fails with MISSING_PEER and the
// command that installs the peer; the core works.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const preload = fileURLToPath(new URL("./fixtures/no-peers.cjs", import.meta.url));

test("each adapter names its missing peer with MISSING_PEER; the core still runs", () => {
  const script = `
    const { Sandbox } = require("cordon");
    const out = [];
    (async () => {
      for (const [entry, make] of [
        ["cordon/ai", (m) => m.createCodeTool()],
        ["cordon/langchain", (m) => m.createCodeTool()],
        ["cordon/mcp", (m) => m.serveStdio()],
      ]) {
        try { await make(require(entry)); out.push("no error"); } catch (e) { out.push(e.code + ": " + e.message); }
      }
      const sb = await Sandbox.create();
      out.push((await sb.run("return 6 * 7")).value);
      await sb.close();
      console.log(JSON.stringify(out));
    })();`;
  const r = spawnSync(process.execPath, ["--require", preload, "-e", script], { encoding: "utf8", cwd: fileURLToPath(new URL("..", import.meta.url)) });
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
  assert.deepEqual(JSON.parse(r.stdout), [
    'MISSING_PEER: cordon/ai needs the "ai" package (the Vercel AI SDK, v5 or later): npm install ai',
    'MISSING_PEER: cordon/langchain needs "@langchain/core": npm install @langchain/core',
    'MISSING_PEER: cordon/mcp needs "@modelcontextprotocol/sdk": npm install @modelcontextprotocol/sdk',
    "42",
  ]);
});

test("a Zod 3 schema is converted by the first installed converter, and without one create() says what to install", () => {
  const script = `
    const { Sandbox } = require("cordon");
    const { z } = require("zod/v3");
    (async () => {
      const add = { inputSchema: z.object({ a: z.number(), b: z.number().refine((n) => n % 2 === 0).optional() }), execute: async ({ a, b }) => a + (b ?? 0) };
      try {
        const sb = await Sandbox.create({ tools: { add }, capabilities: [{ method: "add" }] });
        const r = await sb.run("return [await add({ a: 1, b: 2 }), await add({ a: 'x' }).catch((e) => e.reason), await add({ a: 1, b: 3 }).catch((e) => e.code)]");
        console.log(r.value);
        await sb.close();
      } catch (e) { console.log(e.code + ": " + e.message); }
    })();`;
  const run = (hidden) => {
    const r = spawnSync(process.execPath, ["--require", preload, "-e", script], {
      encoding: "utf8",
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { ...process.env, HIDDEN_PACKAGES: hidden },
    });
    assert.equal(r.stderr, "");
    assert.equal(r.status, 0);
    return r.stdout;
  };
  // The policy checks the converted JSON Schema; Zod's own parse checks the rest.
  assert.equal(run(""), '[3,"schema","INVALID_ARGUMENTS"]\n');
  assert.equal(run("zod-to-json-schema"), '[3,"schema","INVALID_ARGUMENTS"]\n');
  assert.equal(run("zod-to-json-schema,ai"), '[3,"schema","INVALID_ARGUMENTS"]\n');
  assert.equal(
    run("zod-to-json-schema,ai,@langchain/core"),
    'INVALID_OPTIONS: tool "add" has a Zod 3 schema, and no converter is installed: install zod-to-json-schema, use zod 4, or pass JSON Schema\n',
  );
});
