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
