// `cordon/langchain`: a LangChain.js tool that runs the model's code in a
// cordon sandbox, and existing LangChain tools as sandbox tools.
//
//   import { createCodeTool, fromLangChainTools } from "cordon/langchain";
//   const runCode = await createCodeTool({ tools: fromLangChainTools([search]), capabilities: [{ method: "search" }] });
//   const model = chatModel.bindTools([runCode]);

import type { DynamicStructuredTool, StructuredToolInterface } from "@langchain/core/tools";
import { Sandbox, CordonError, type Language, type SandboxOptions, type ToolDefinition } from "./index";
import { InvalidArgumentsError } from "./errors";
import { jsonSchemaOnly } from "./tools";
import { checkLanguages, checkModelOutputBytes, codeInputSchema, forModel, runForModel, type CodeToolInput } from "./codetool";

export type { CodeToolInput };

/**
 * The LangChain tool {@link createCodeTool} returns: a structured tool
 * (JSON Schema input, typed as {@link CodeToolInput}) whose result is the
 * run's JSON text, with its sandbox.
 */
export type LangChainCodeTool = DynamicStructuredTool<
  // LangChain's default schema type (Zod or JSON Schema), whichever major is installed.
  DynamicStructuredTool["schema"],
  CodeToolInput,
  CodeToolInput,
  string
> & {
  /** The tool's sandbox: close it when the tool is no longer used. */
  readonly sandbox: Sandbox;
};

/** Options of {@link createCodeTool}: the sandbox's, plus the tool's own. */
export interface LangChainCodeToolOptions extends SandboxOptions {
  /** Languages the model may use. Default both. */
  languages?: Language[];
  /** The tool's name. Default `run_code`. */
  name?: string;
  /** Text put before the generated description of the sandbox. */
  description?: string;
  /**
   * Bytes of each of stdout, stderr, the value and the error message in the
   * JSON text the model reads (their head and tail, with how much was cut).
   * Default 16 KiB. The whole output is the `ToolMessage`'s `artifact`.
   */
  modelOutputBytes?: number;
}

type ToolsModule = {
  tool: (func: (input: never, config?: { signal?: AbortSignal }) => Promise<string>, fields: Record<string, unknown>) => unknown;
};

function loadTools(): ToolsModule {
  try {
    return require("@langchain/core/tools") as ToolsModule;
  } catch {
    throw new CordonError("MISSING_PEER", 'cordon/langchain needs "@langchain/core": npm install @langchain/core');
  }
}

/**
 * Creates the sandbox (one per tool: files and globals persist between the
 * model's runs) and returns a LangChain structured tool taking
 * `{ code, language }`, described by {@link Sandbox.describe}. It returns
 * JSON text `{ exitCode, stdout, stderr, value?, error? }` capped for the
 * model (`modelOutputBytes`), and the whole output as the `ToolMessage`'s
 * `artifact` when called with a tool call; a limit comes back
 * as `error: { code, message }`. The run's `signal` comes from the call's
 * config. The tool carries the sandbox as `.sandbox`.
 */
export async function createCodeTool(options: LangChainCodeToolOptions = {}): Promise<LangChainCodeTool> {
  const lc = loadTools();
  const { languages: requested = ["javascript", "shell"], name = "run_code", description, modelOutputBytes, ...sandboxOptions } = options;
  const languages = checkLanguages(requested);
  const max = checkModelOutputBytes(modelOutputBytes);
  const sandbox = await Sandbox.create({ ...sandboxOptions, languages });
  const schema = codeInputSchema(languages);
  // LangChain's content and artifact: the model reads the first, the host
  // keeps the second on the ToolMessage.
  const run = async (input: CodeToolInput, config?: { signal?: AbortSignal }) => {
    const output = await runForModel(sandbox, input, languages, config?.signal);
    return [JSON.stringify(forModel(output, max)), output];
  };
  const tool = lc.tool(run as unknown as (input: never, config?: { signal?: AbortSignal }) => Promise<string>, {
    name,
    description: (description ? `${description.trim()}\n\n` : "") + sandbox.describe(),
    schema,
    responseFormat: "content_and_artifact",
  });
  Object.defineProperty(tool, "sandbox", { value: sandbox, enumerable: false });
  return tool as LangChainCodeTool;
}

/**
 * Existing LangChain tools as sandbox tools: the guest calls them by name
 * (under the capabilities), with their schemas (Zod or JSON Schema). A tool
 * that returns JSON text gives the guest the parsed value.
 */
export function fromLangChainTools(tools: readonly StructuredToolInterface[]): ToolDefinition[] {
  return tools.map((t) => {
    if (!t || typeof t.name !== "string" || typeof t.invoke !== "function") {
      throw new CordonError("INVALID_OPTIONS", "fromLangChainTools takes LangChain tools (with a name and invoke())");
    }
    return {
      name: t.name,
      description: t.description,
      // LangChain's `invoke` parses with the tool's own schema: the host
      // checks its JSON Schema only.
      inputSchema: jsonSchemaOnly(t.name, t.schema),
      execute: async (args: Record<string, unknown>) => {
        // `invoke` (and `call` again) takes an object whose `type` is
        // "tool_call" for an envelope and runs the tool on its `args`: the
        // part no constraint saw. Such arguments never reach LangChain.
        if (args !== null && typeof args === "object" && Object.hasOwn(args, "type") && args.type === "tool_call") {
          throw new InvalidArgumentsError('a top-level "type": "tool_call" would make LangChain read the arguments as a tool-call envelope');
        }
        const out = await t.invoke(args);
        if (typeof out === "string") {
          try {
            return JSON.parse(out);
          } catch {
            return out;
          }
        }
        // A ToolMessage-like result: its content.
        if (out && typeof out === "object" && "content" in out) return (out as { content: unknown }).content;
        return out;
      },
    } as ToolDefinition;
  });
}
