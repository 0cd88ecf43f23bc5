import { type Language, type Sandbox } from "./index";
/** What the model gets back from one run. */
export interface CodeToolOutput {
    exitCode: number;
    stdout: string;
    stderr: string;
    /** The returned value (JavaScript), when there is one. */
    value?: string;
    /** Why the run failed: the uncaught exception, or the limit that ended it. */
    error?: {
        code?: string;
        name?: string;
        message: string;
    };
}
/** Checks an adapter's `languages` option, as `Sandbox.create` checks its own. */
export declare function checkLanguages(languages: unknown): Language[];
/** The JSON Schema of the code tool's input: `{ code, language? }`. */
export declare function codeInputSchema(languages: Language[]): Record<string, unknown>;
/**
 * Runs the model's code. Script failures and limits come back as data the
 * model can act on; cancellation and a closed sandbox propagate.
 */
export declare function runForModel(sandbox: Sandbox, input: {
    code: string;
    language?: Language;
}, languages: Language[], signal: AbortSignal | undefined): Promise<CodeToolOutput>;
