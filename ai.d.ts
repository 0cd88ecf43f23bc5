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
/** Options of {@link createCodeCaller}: a sandbox's, without `tools`. */
export interface CodeCallerOptions extends Omit<CodeToolOptions, "tools"> {
}
/** The caller tool, with `close()` for its sandbox. */
export type CodeCaller = Record<string, unknown> & {
    close(): Promise<void>;
};
/**
 * Code mode for AI SDK 7's tool callers: returns a tool marked with
 * `experimental_toolCaller`. Route tools to it with `experimental_toolCallers`
 * (`{ get_weather: ["run_code"] }`) and the AI SDK binds it to them: the
 * model's code calls them in a cordon sandbox, under `capabilities` (default:
 * each routed tool, unconstrained, except tools that need approval, which
 * stay denied: the routing is the grant). The model sees
 * one stable tool; the routed tools are announced as TypeScript declarations
 * in a message. Nested calls get the outer call's abort signal and context. One sandbox serves the conversation while the routed
 * tools stay the same; `close()` ends it.
 */
export declare function createCodeCaller(options?: CodeCallerOptions): Promise<CodeCaller>;
/** What {@link createSandboxSession} accepts beside the sandbox. */
export interface SandboxSessionOptions {
    /** The base directory relative paths and commands start from. Default /workspace. */
    root?: string;
}
/**
 * An AI SDK 7 `Experimental_SandboxSession` backed by a cordon sandbox, for
 * `experimental_sandbox`: files are the sandbox's file system, commands run
 * in its shell (each in a subshell starting at `root`, so a `cd` or variable
 * of one command does not leak into the next). Processes have no stdin and
 * stream their output when they end; the session never reaches the host.
 */
export declare function createSandboxSession(sandbox: Sandbox, options?: SandboxSessionOptions): Record<string, unknown>;
