// cordon/langchain in LangChain 1: tools built with tool() and Zod 4 go
// through fromLangChainTools; the code tool goes into bindTools,
// createAgent and LangGraph's ToolNode.
import { createAgent } from "langchain";
import { tool } from "@langchain/core/tools";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { createCodeTool, fromLangChainTools } from "cordon/langchain";

const search = tool(async ({ query }) => JSON.stringify([query]), {
  name: "search",
  description: "Searches.",
  schema: z.object({ query: z.string() }),
});
const price = tool(async (input: { sku: string }) => `${input.sku}: 3`, {
  name: "price_lookup",
  description: "A price.",
  schema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
});
const runCode = await createCodeTool({ tools: fromLangChainTools([search, price]), capabilities: [{ method: "search" }], languages: ["shell"] });
const bound = chatModel.bindTools([runCode, search]);
const agent = createAgent({ model: chatModel, tools: [runCode] });
const node = new ToolNode([runCode, search]);
void [bound, agent, node];
await runCode.sandbox.close();
