// `cordon/ai`: a Vercel AI SDK (v5 and later) tool that runs the model's
// code in a cordon sandbox — "code mode": one script makes many tool calls.
//
//   import { createCodeTool } from "cordon/ai";
//   const runCode = await createCodeTool({ tools: { get_weather }, capabilities: [{ method: "get_weather" }] });
//   await generateText({ model, tools: { run_code: runCode }, prompt, stopWhen: stepCountIs(5) });
//   await runCode.sandbox.close();

import { Sandbox, CordonError, type Language, type SandboxOptions } from "./index";
import { checkLanguages, codeInputSchema, runForModel, type CodeToolOutput } from "./codetool";

export type { CodeToolOutput };

/** Options of {@link createCodeTool}: the sandbox's, plus the tool's own. */
export interface CodeToolOptions extends SandboxOptions {
  /** Languages the model may use. Default both. */
  languages?: Language[];
  /** Text put before the generated description of the sandbox. */
  description?: string;
}

type AiModule = {
  tool: (definition: Record<string, unknown>) => Record<string, unknown>;
  jsonSchema: (schema: Record<string, unknown>) => unknown;
};

function loadAi(): AiModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("ai") as AiModule;
  } catch {
    throw new CordonError("INVALID_OPTIONS", 'cordon/ai needs the "ai" package (the Vercel AI SDK, v5 or later): npm install ai');
  }
}

/**
 * Creates the sandbox (one for the conversation: files and globals persist
 * between the model's runs) and returns an AI SDK tool whose input is
 * `{ code, language }`. The tool's description is {@link Sandbox.describe}.
 * The AI SDK's `abortSignal` cancels a run. Tools may be AI SDK tools (Zod
 * or JSON schemas) or cordon tools. The returned tool carries the sandbox as
 * `.sandbox` (close it when the conversation ends).
 */
export async function createCodeTool(
  options: CodeToolOptions = {},
): Promise<Record<string, unknown> & { sandbox: Sandbox }> {
  const ai = loadAi();
  const { languages: requested = ["javascript", "shell"], description, ...sandboxOptions } = options;
  const languages = checkLanguages(requested);
  const sandbox = await Sandbox.create(sandboxOptions);
  const text = (description ? `${description.trim()}\n\n` : "") + sandbox.describe();
  const tool = ai.tool({
    description: text,
    inputSchema: ai.jsonSchema(codeInputSchema(languages)),
    execute: (input: { code: string; language?: Language }, context?: { abortSignal?: AbortSignal }) =>
      runForModel(sandbox, input, languages, context?.abortSignal),
  });
  Object.defineProperty(tool, "sandbox", { value: sandbox, enumerable: false });
  return tool as Record<string, unknown> & { sandbox: Sandbox };
}
