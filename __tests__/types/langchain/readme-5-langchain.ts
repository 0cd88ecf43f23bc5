import { createCodeTool, fromLangChainTools } from "cordon/langchain";

const runCode = await createCodeTool({
  tools: fromLangChainTools([searchTool, priceTool]),   // existing LangChain tools
  capabilities: [{ method: "price_lookup", maxCalls: 20 }],
});
const model = chatModel.bindTools([runCode]);           // the model writes code that calls them
const msg = await model.invoke(messages);
messages.push(msg);
for (const call of msg.tool_calls ?? []) messages.push(await runCode.invoke(call));
