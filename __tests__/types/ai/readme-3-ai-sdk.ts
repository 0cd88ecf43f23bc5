import { generateText, stepCountIs } from "ai";
import { createCodeTool } from "cordon/ai";

const runCode = await createCodeTool({
  tools: { get_weather },                       // AI SDK tools (Zod or JSON schemas) or cordon tools
  capabilities: [{ method: "get_weather", maxCalls: 10 }],
});
const r = await generateText({ model, tools: { run_code: runCode }, prompt, stopWhen: stepCountIs(5) });
await runCode.sandbox.close();
