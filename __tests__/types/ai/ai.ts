// cordon/ai with the installed AI SDK (5, 6 or 7): the code tool is the
// SDK's Tool, and the SDK's tools are cordon tools.
import { generateText, jsonSchema, stepCountIs, tool, type Tool, type ToolSet } from "ai";
import { z } from "zod";
import { Sandbox } from "cordon";
import { createCodeTool, type CodeTool, type CodeToolInput, type CodeToolOutput } from "cordon/ai";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): void {}

const weather = tool({
  description: "Current temperature for a city, in °C.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: 21 }),
});
const lookup = tool({
  description: "Looks a key up.",
  inputSchema: jsonSchema<{ key: string }>({ type: "object", properties: { key: { type: "string" } }, required: ["key"] }),
  execute: async ({ key }) => key.length,
});
// A tool the model calls but the application answers: no execute (refused
// when the sandbox is created, accepted by the types as the SDK types it).
const ask = tool({ description: "Ask the user.", inputSchema: z.object({ question: z.string() }) });

const runCode = await createCodeTool({
  tools: { weather, lookup, ask },
  capabilities: [{ method: "weather" }, { method: "lookup", maxCalls: 3 }],
  languages: ["javascript"],
  description: "Weather tools.",
});
const asTool: Tool<CodeToolInput, CodeToolOutput> = runCode;
const sandbox: Sandbox = runCode.sandbox;
const tools: ToolSet = { run_code: runCode, weather };
await generateText({ model, prompt, tools: { run_code: runCode }, stopWhen: stepCountIs(3) });
void [asTool, sandbox, tools];

// The code tool's execute takes { code, language? } and resolves to CodeToolOutput.
const out = await runCode.execute!({ code: "return 1" }, { toolCallId: "1", messages: [] } as unknown as Parameters<NonNullable<CodeTool["execute"]>>[1]);
if (!(Symbol.asyncIterator in Object(out))) {
  const result = out as CodeToolOutput;
  expectType<Equal<typeof result.exitCode, number>>();
}

// What must not compile.
// @ts-expect-error the code tool called with the wrong argument type
await runCode.execute!({ code: 42 }, { toolCallId: "1", messages: [] } as unknown as Parameters<NonNullable<CodeTool["execute"]>>[1]);
// @ts-expect-error a language cordon does not run
await createCodeTool({ languages: ["python"] });
// @ts-expect-error a limit that does not exist
await createCodeTool({ limits: { cpu: 5 } });

// The types are the frameworks' own, never any.
const notAny: (0 extends 1 & typeof runCode ? true : false) = false;
void notAny;
