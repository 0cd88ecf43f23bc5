/**
 * cordon: run the code an AI agent writes inside a WebAssembly sandbox, under
 * real limits, with nothing to reach but what you grant.
 *
 * ```ts
 * import { Sandbox } from "cordon";
 * const sb = await Sandbox.create({ limits: { timeoutMs: 1000 } });
 * const r = await sb.run("console.log('hi'); return 6 * 7");
 * // r.stdout === "hi\n42\n", r.value === "42", r.exitCode === 0
 * await sb.close();
 * ```
 *
 * Errors of the script (an exception, a syntax error) are part of the
 * result (`exitCode`, `error`). Errors of the sandbox (a limit, bad input, a
 * cancelled or closed run) reject with a {@link CordonError} whose `code` is
 * stable.
 */

export * from "./types";
export { CordonError, FsError } from "./errors";
export { SandboxFs } from "./files";
export { tool, type ToolDefinitionInput } from "./tools";
export type { InferToolInput, FromJsonSchema } from "./infer";
export { Sandbox } from "./sandbox";
