// Code mode with the Vercel AI SDK: the model writes one script that calls
// your tools many times, and cordon runs it under the capabilities you grant.
// A scripted mock model stands in for a real one so this runs offline; with
// a provider, pass e.g. `model: openai("gpt-5")` instead.
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { createCodeTool } from "cordon/ai";

const getWeather = tool({
  description: "Current temperature for a city, in °C.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: { Paris: 18, Oslo: 9, Rome: 24 }[city] ?? 15 }),
});

const runCode = await createCodeTool({
  tools: { get_weather: getWeather },
  capabilities: [{ method: "get_weather", maxCalls: 10 }],
  limits: { timeoutMs: 2000 },
});

// The model's side: one tool call with a script, then an answer.
const usage = { inputTokens: { total: 0 }, outputTokens: { total: 0 } };
let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async () =>
    step++ === 0
      ? {
          content: [
            {
              type: "tool-call",
              toolCallId: "c1",
              toolName: "run_code",
              input: JSON.stringify({
                code: `const cities = ["Paris", "Oslo", "Rome"];
const temps = await Promise.all(cities.map((city) => get_weather({ city })));
return temps.sort((a, b) => b.tempC - a.tempC)[0];`,
              }),
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        }
      : { content: [{ type: "text", text: "Rome is the warmest." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
});

const result = await generateText({ model, tools: { run_code: runCode }, prompt: "Which city is warmest?", stopWhen: stepCountIs(3) });
console.log("tool output:", JSON.stringify(result.steps[0].toolResults[0].output));
console.log("answer:", result.text);
await runCode.sandbox.close();
