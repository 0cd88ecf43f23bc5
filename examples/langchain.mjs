// Code mode with LangChain.js: existing LangChain tools become sandbox tools,
// and one `run_code` tool lets the model call them from a script. The fake
// chat model stands in for a real one so this runs offline.
import { tool } from "@langchain/core/tools";
import { AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { z } from "zod";
import { createCodeTool, fromLangChainTools } from "cordon/langchain";

const prices = tool(async ({ sku }) => JSON.stringify({ sku, price: { A1: 5, B2: 7 }[sku] ?? 0 }), {
  name: "price_lookup",
  description: "Price of a SKU in EUR.",
  schema: z.object({ sku: z.string() }),
});

const runCode = await createCodeTool({
  tools: fromLangChainTools([prices]),
  capabilities: [{ method: "price_lookup", maxCalls: 20 }],
});

const code = `const skus = ["A1", "B2", "A1"];
let total = 0;
for (const sku of skus) total += (await price_lookup({ sku })).price;
return total;`;
const model = new FakeStreamingChatModel({
  chunks: [new AIMessageChunk({ content: "", tool_calls: [{ id: "c1", name: "run_code", args: { code }, type: "tool_call" }] })],
}).bindTools([runCode]);

const ai = await model.invoke([new HumanMessage("What does the basket cost?")]);
const result = await runCode.invoke(ai.tool_calls[0]);
console.log("tool message:", result.content);
await runCode.sandbox.close();
