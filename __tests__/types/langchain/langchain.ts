// cordon/langchain with the installed @langchain/core (0.3 or 1): the code
// tool is a DynamicStructuredTool, LangChain tools are cordon tools.
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createCodeTool, fromLangChainTools, type LangChainCodeTool } from "cordon/langchain";

// The LangChain tools are declared (langchain/ambient.d.ts), not built with
// Zod here: @langchain/core 0.3's tool() infers from Zod's v3 API only, at a
// compile cost of minutes. langgraph/ builds them with LangChain 1.
const search = searchTool;
const price = priceTool;
const runCode = await createCodeTool({
  tools: fromLangChainTools([search, price]),
  capabilities: [{ method: "search" }, { method: "price_lookup", maxCalls: 2 }],
  name: "run_code",
});
const structured: DynamicStructuredTool = runCode;
const asInterface: StructuredToolInterface = runCode;
void [structured, asInterface];
const bound = chatModel.bindTools([runCode, search]);
const reply = await bound.invoke([new AIMessage("hi")]);
for (const call of reply.tool_calls ?? []) {
  const message: ToolMessage = await runCode.invoke(call);
  void message;
}
const text: string = await runCode.invoke({ code: "return 1", language: "javascript" });
void text;
const typed: LangChainCodeTool = runCode;
await typed.sandbox.close();

// What must not compile.
// @ts-expect-error the code tool called with the wrong argument type
await runCode.invoke({ code: 1 });
// @ts-expect-error a language cordon does not run
await runCode.invoke({ code: "1", language: "python" });
// @ts-expect-error fromLangChainTools takes LangChain tools
fromLangChainTools([{ name: "x" }]);

// The types are the frameworks' own, never any.
const notAny: (0 extends 1 & typeof runCode ? true : false) = false;
void notAny;
