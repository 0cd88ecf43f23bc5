import { Sandbox, type SandboxOptions, type ToolDefinition } from "./index";
type Any = any;
/**
 * An MCP server (the SDK's `Server`, not yet connected) exposing `sandbox`:
 * `run_javascript` and `run_shell` (`{ code }`), `read_file` (`{ path }`) and
 * `write_file` (`{ path, content }`). Results are JSON text; a limit or a
 * file error is an MCP tool error (`isError: true`) with the code.
 */
export declare function createMcpServer(sandbox: Sandbox, info?: {
    name?: string;
    version?: string;
}): Any;
/** Serves a new sandbox with `options` over stdio until stdin closes (`cordon mcp`). */
export declare function serveStdio(options?: SandboxOptions): Promise<void>;
/**
 * The tools of a connected MCP client as sandbox tools (their JSON Schemas
 * included). With `prefix`, `search` becomes `prefix.search`. A result's
 * `structuredContent` reaches the guest as data; otherwise its text (parsed
 * when it is JSON). A tool error becomes a failed call in the guest.
 */
export declare function mcpTools(client: Any, options?: {
    prefix?: string;
}): Promise<ToolDefinition[]>;
export {};
