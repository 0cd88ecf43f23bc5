import { Sandbox, type Language, type SandboxOptions } from "./index";
import { type CodeToolOutput } from "./codetool";
export type { CodeToolOutput };
/** Options of {@link createCodeTool}: the sandbox's, plus the tool's own. */
export interface CodeToolOptions extends SandboxOptions {
    /** Languages the model may use. Default both. */
    languages?: Language[];
    /** Text put before the generated description of the sandbox. */
    description?: string;
}
/**
 * Creates the sandbox (one for the conversation: files and globals persist
 * between the model's runs) and returns an AI SDK tool whose input is
 * `{ code, language }`. The tool's description is {@link Sandbox.describe}.
 * The AI SDK's `abortSignal` cancels a run. Tools may be AI SDK tools (Zod
 * or JSON schemas) or cordon tools. The returned tool carries the sandbox as
 * `.sandbox` (close it when the conversation ends).
 */
export declare function createCodeTool(options?: CodeToolOptions): Promise<Record<string, unknown> & {
    sandbox: Sandbox;
}>;
