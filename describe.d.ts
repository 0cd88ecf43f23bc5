/** What {@link describeSandbox} reads. */
export interface DescribeInput {
    /** The languages the sandbox runs; both when absent. */
    languages?: readonly string[];
    tools: {
        name: string;
        description: string | undefined;
        inputSchema: unknown;
        needsApproval?: boolean;
    }[];
    capabilities: unknown[];
    constraints: Record<string, unknown>;
    maxCalls: Record<string, unknown>;
    limits: {
        timeoutMs: number;
        cpuMs: number;
        memoryBytes: number;
        outputBytes: number;
        toolCalls: number;
        fsBytes: number;
        fsFiles: number;
    };
}
/** A TypeScript type for a JSON Schema (the common subset; `unknown` otherwise). */
export declare function schemaType(schema: unknown, indent?: string, depth?: number): string;
/** The description text (see the module comment). */
export declare function describeSandbox(input: DescribeInput): string;
