// The addon in Node worker threads: two workers create and run sandboxes at
// the same time, each with its own files and tools.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";

const body = `
const { parentPort, workerData } = require("node:worker_threads");
const { Sandbox } = require(workerData.index);
(async () => {
  const sb = await Sandbox.create({
    tools: { whoami: async () => ({ worker: workerData.id }) },
    capabilities: [{ method: "whoami" }],
  });
  await sb.fs.writeFile("/workspace/id.txt", String(workerData.id));
  const out = [];
  for (let i = 0; i < 20; i++) {
    const js = await sb.run("return (await whoami({})).worker + ':' + fs.readFileSync('id.txt', 'utf8')");
    const sh = await sb.run("cat id.txt; tool whoami | jq .worker", { language: "shell" });
    out.push(js.value + "|" + sh.stdout.replace(/\\n/g, ","));
  }
  await sb.close();
  parentPort.postMessage(out);
})().catch((e) => parentPort.postMessage(String(e && e.stack || e)));
`;

function inWorker(id) {
  const index = new URL("../dist/index.js", import.meta.url).pathname;
  return new Promise((resolve, reject) => {
    const w = new Worker(body, { eval: true, workerData: { id, index } });
    w.once("message", resolve);
    w.once("error", reject);
  });
}

test("two worker threads run sandboxes at once without cross-talk", async () => {
  const [a, b] = await Promise.all([inWorker(1), inWorker(2)]);
  assert.deepEqual(a, Array(20).fill("1:1|11,"));
  assert.deepEqual(b, Array(20).fill("2:2|22,"));
});
