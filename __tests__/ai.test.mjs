// cordon/ai end to end with the AI SDK's own mock model: the model emits a
// code tool call, cordon runs it, a real tool is called through the
// capabilities, and the result flows back into the model's next step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs, tool, jsonSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { createCodeTool } from "cordon/ai";
import { assertCapped } from "./fixtures/capped.mjs";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function scriptedModel(calls) {
  const prompts = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      const step = prompts.length - 1;
      if (step < calls.length) {
        return {
          content: [{ type: "tool-call", toolCallId: `call-${step}`, toolName: "run_code", input: JSON.stringify(calls[step]) }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
  return { model, prompts };
}

test("the model's code runs in the sandbox and calls AI SDK tools under capabilities", async () => {
  const seen = [];
  const getWeather = tool({
    description: "Weather for a city.",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      seen.push(city);
      return { city, tempC: city.length };
    },
  });
  const refund = tool({
    description: "Refund a charge.",
    inputSchema: jsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"] }),
    execute: async () => "refunded",
  });
  const runCode = await createCodeTool({
    tools: { get_weather: getWeather, refund },
    capabilities: [{ method: "get_weather", maxCalls: 3 }],
  });
  assert.match(runCode.description, /declare function get_weather\(args: \{\n {2}city: string;\n\}\): Promise<unknown>;/);
  assert.match(runCode.description, /Not granted \(calls are denied\): refund\./);

  const { model, prompts } = scriptedModel([
    {
      code: `const rows = [];
for (const city of ["Paris", "Oslo"]) rows.push(await get_weather({ city }));
fs.writeFileSync("rows.json", JSON.stringify(rows));
try { await refund({ id: "ch_1" }); } catch (e) { console.log(e.code); }
return rows.map((r) => r.tempC).join(",");`,
    },
    { code: "jq -r '.[].city' rows.json | sort", language: "shell" },
  ]);
  const result = await generateText({ model, tools: { run_code: runCode }, prompt: "weather?", stopWhen: stepCountIs(5) });
  assert.equal(result.text, "done");
  assert.deepEqual(seen, ["Paris", "Oslo"]);
  const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output));
  assert.deepEqual(outputs, [
    { exitCode: 0, stdout: "DENIED\n5,4\n", stderr: "", value: "5,4" },
    { exitCode: 0, stdout: "Oslo\nParis\n", stderr: "" },
  ]);
  // The tool results reached the model's next step.
  // The model reads the returned value once: not again at stdout's end.
  const toolMessages = prompts[prompts.length - 1].filter((m) => m.role === "tool");
  assert.deepEqual(toolMessages.map((m) => m.content[0].output), [
    { type: "json", value: { exitCode: 0, stdout: "DENIED\n", stderr: "", value: "5,4" } },
    { type: "json", value: outputs[1] },
  ]);
  await runCode.sandbox.close();
});

test("limits come back to the model as data; the sandbox stays usable", async () => {
  const runCode = await createCodeTool({ limits: { timeoutMs: 100 }, languages: ["javascript"] });
  const { model } = scriptedModel([{ code: "while (true) {}" }, { code: "return 'alive'" }]);
  const result = await generateText({ model, tools: { run_code: runCode }, prompt: "loop", stopWhen: stepCountIs(5) });
  const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output));
  assert.deepEqual(outputs, [
    {
      exitCode: 1,
      stdout: "",
      stderr: "",
      error: { code: "TIMEOUT", message: "the run exceeded its time limit of 100 ms (limits.timeoutMs)" },
    },
    { exitCode: 0, stdout: "alive\n", stderr: "", value: "alive" },
  ]);
  await runCode.sandbox.close();
});

test("createCodeCaller needs AI SDK 7: with ai@6 it is a clear typed error", async () => {
  const { createCodeCaller } = await import("cordon/ai");
  await assert.rejects(
    createCodeCaller(),
    (e) =>
      e.code === "INVALID_OPTIONS" &&
      e.message === 'createCodeCaller needs AI SDK 7 or later ("ai" exports no experimental_toolCaller)',
  );
});

test("a 5 MB print reaches the model as 16 KiB of head and tail; the host keeps it whole", async () => {
  const runCode = await createCodeTool({ limits: { outputBytes: 8 * 1024 * 1024 } });
  const code = `console.log(Array.from({ length: 400000 }, (_, i) => "line " + i).join("\\n"));
console.error("€".repeat(2000000));
return "x".repeat(100000);`;
  const { model, prompts } = scriptedModel([{ code }]);
  const result = await generateText({ model, tools: { run_code: runCode }, prompt: "print", stopWhen: stepCountIs(5) });
  const [output] = result.steps.flatMap((s) => s.toolResults.map((r) => r.output));
  const lines = Array.from({ length: 400000 }, (_, i) => "line " + i).join("\n") + "\n";
  assert.equal(output.stdout, lines + "x".repeat(100000) + "\n");
  assert.equal(output.stderr, "€".repeat(2000000) + "\n");
  const [seen] = prompts[1].filter((m) => m.role === "tool").map((m) => m.content[0].output.value);
  assert.equal(seen.exitCode, 0);
  assertCapped(seen.stdout, lines, 16384);
  assert.ok(seen.stdout.startsWith("line 0\nline 1\n") && seen.stdout.endsWith("line 399999\n"));
  assertCapped(seen.stderr, output.stderr, 16384);
  assertCapped(seen.value, output.value, 16384);
  assert.ok(JSON.stringify(seen).length < 3 * 16384 + 200);
  await runCode.sandbox.close();

  const small = await createCodeTool({ modelOutputBytes: 1024, limits: { outputBytes: 8 * 1024 * 1024 } });
  const again = scriptedModel([{ code }]);
  await generateText({ model: again.model, tools: { run_code: small }, prompt: "print", stopWhen: stepCountIs(5) });
  const [capped] = again.prompts[1].filter((m) => m.role === "tool").map((m) => m.content[0].output.value);
  assertCapped(capped.stdout, lines, 1024);
  await small.sandbox.close();
  await assert.rejects(createCodeTool({ modelOutputBytes: 10 }), { code: "INVALID_OPTIONS", message: /modelOutputBytes must be an integer from 256/ });
});
