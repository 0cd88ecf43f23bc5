// Every file in examples/ runs as a user would run it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("../examples/", import.meta.url));
const expected = {
  "ai-sdk.mjs":
    'tool output: {"exitCode":0,"stdout":"{\\"city\\":\\"Rome\\",\\"tempC\\":24}\\n","stderr":"","value":"{\\"city\\":\\"Rome\\",\\"tempC\\":24}"}\n' +
    "answer: Rome is the warmest.\n",
  "mcp.mjs": 'run_shell: {"exitCode":0,"stdout":"15\\n","stderr":""}\nguest: 21\n',
  "langchain.mjs": 'tool message: {"exitCode":0,"stdout":"","stderr":"","value":"17"}\n',
};

for (const file of readdirSync(dir).filter((f) => f.endsWith(".mjs")).sort()) {
  test(`examples/${file} runs`, () => {
    const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8" });
    assert.equal(r.stderr, "");
    assert.equal(r.status, 0);
    if (expected[file] !== undefined) assert.equal(r.stdout, expected[file]);
    else assert.ok(r.stdout.length > 0);
  });
}
