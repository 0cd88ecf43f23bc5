import { Sandbox, type Language, type SandboxOptions, type ToolDefinition } from "./index";
/** Options of {@link createCodeTool}: the sandbox's, plus the tool's own. */
export interface LangChainCodeToolOptions extends SandboxOptions {
    /** Languages the model may use. Default both. */
    languages?: Language[];
    /** The tool's name. Default `run_code`. */
    name?: string;
    /** Text put before the generated description of the sandbox. */
    description?: string;
}
/**
 * Creates the sandbox (one per tool: files and globals persist between the
 * model's runs) and returns a LangChain structured tool taking
 * `{ code, language }`, described by {@link Sandbox.describe}. It returns
 * JSON text `{ exitCode, stdout, stderr, value?, error? }`; a limit comes back
 * as `error: { code, message }`. The run's `signal` comes from the call's
 * config. The tool carries the sandbox as `.sandbox`.
 */
export declare function createCodeTool(options?: LangChainCodeToolOptions): Promise<unknown & {
    sandbox: Sandbox;
}>;
/** The parts of a LangChain tool this module uses. */
interface LangChainToolLike {
    name: string;
    description?: string;
    schema?: unknown;
    invoke: (input: unknown) => Promise<unknown>;
}
/**
 * Existing LangChain tools as sandbox tools: the guest calls them by name
 * (under the capabilities), with their schemas (Zod or JSON Schema). A tool
 * that returns JSON text gives the guest the parsed value.
 */
export declare function fromLangChainTools(tools: LangChainToolLike[]): ToolDefinition[];
export {};
