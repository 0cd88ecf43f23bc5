// cordon/langchain end to end with LangChain's own fake chat model: the model
// asks for the code tool, cordon runs the code, which calls a LangChain tool
// through the capabilities, and the tool message goes back to the model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tool } from "@langchain/core/tools";
import { AIMessage, AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { z } from "zod";
import { createCodeTool, fromLangChainTools } from "cordon/langchain";
import { assertCapped } from "./fixtures/capped.mjs";

test("a LangChain agent step runs code that calls LangChain tools under capabilities", async () => {
  const looked = [];
  const lookup = tool(
    async ({ sku }) => {
      looked.push(sku);
      return JSON.stringify({ sku, stock: sku.length * 10 });
    },
    { name: "inventory_lookup", description: "Stock for a SKU.", schema: z.object({ sku: z.string() }) },
  );
  const wipe = tool(async () => "wiped", { name: "wipe_db", description: "Danger.", schema: z.object({}) });
  const runCode = await createCodeTool({
    tools: fromLangChainTools([lookup, wipe]),
    capabilities: [{ method: "inventory_lookup", maxCalls: 5 }],
  });
  assert.equal(runCode.name, "run_code");
  assert.match(runCode.description, /declare function inventory_lookup\(args: \{\n {2}sku: string;\n\}\): Promise<unknown>;/);

  const code = `let total = 0;
for (const sku of ["A1", "B22"]) total += (await inventory_lookup({ sku })).stock;
try { await wipe_db({}); } catch (e) { console.log(e.code); }
return total;`;
  // The fake model answers with one scripted message per instance: first a
  // tool call, then (given the tool's result) the final answer.
  const asks = new FakeStreamingChatModel({
    chunks: [new AIMessageChunk({ content: "", tool_calls: [{ id: "t1", name: "run_code", args: { code }, type: "tool_call" }] })],
  }).bindTools([runCode]);
  const answers = new FakeStreamingChatModel({ responses: [new AIMessage("There are 50 items in stock.")] }).bindTools([runCode]);
  const messages = [new HumanMessage("How much stock?")];
  const first = await asks.invoke(messages);
  messages.push(first);
  assert.equal(first.tool_calls.length, 1);
  const toolMessage = await runCode.invoke(first.tool_calls[0]);
  messages.push(toolMessage);
  assert.equal(toolMessage.tool_call_id, "t1");
  // The model reads the value once; the host has the whole output as the artifact.
  assert.deepEqual(JSON.parse(toolMessage.content), { exitCode: 0, stdout: "DENIED\n", stderr: "", value: "50" });
  assert.deepEqual(toolMessage.artifact, { exitCode: 0, stdout: "DENIED\n50\n", stderr: "", value: "50" });
  assert.deepEqual(looked, ["A1", "B22"]);
  const final = await answers.invoke(messages);
  assert.equal(final.content, "There are 50 items in stock.");

  // Shell too, in the same sandbox session.
  const sh = await runCode.invoke({ code: "echo $((6 * 7))", language: "shell" });
  assert.deepEqual(JSON.parse(sh), { exitCode: 0, stdout: "42\n", stderr: "" });
  await runCode.sandbox.close();
});

test("a 5 MB print reaches the model as 16 KiB of head and tail; the artifact keeps it whole", async () => {
  const runCode = await createCodeTool({ limits: { outputBytes: 8 * 1024 * 1024 } });
  const code = 'console.log(Array.from({ length: 400000 }, (_, i) => "line " + i).join("\\n"))';
  const message = await runCode.invoke({ id: "t2", name: "run_code", args: { code }, type: "tool_call" });
  const lines = Array.from({ length: 400000 }, (_, i) => "line " + i).join("\n") + "\n";
  assert.deepEqual(message.artifact, { exitCode: 0, stdout: lines, stderr: "" });
  const seen = JSON.parse(message.content);
  assert.deepEqual(Object.keys(seen), ["exitCode", "stdout", "stderr"]);
  assertCapped(seen.stdout, lines, 16384);
  // Called with plain input, the tool gives the model's text.
  const plain = JSON.parse(await runCode.invoke({ code }));
  assert.deepEqual(plain, seen);
  await runCode.sandbox.close();
});
