// What the framework adapters share: the code tool's input schema, and one
// run turned into the result shape a model reads (limits included as data).

import { CordonError, type Language, type Sandbox } from "./index";
import { validateLanguages } from "./options";

/** What the model sends: the code, and its language when not the first enabled. */
export interface CodeToolInput {
  code: string;
  language?: Language;
}

/** What the model gets back from one run. */
export interface CodeToolOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The returned value (JavaScript), when there is one. */
  value?: string;
  /** Why the run failed: the uncaught exception, or the limit that ended it. */
  error?: { code?: string; name?: string; message: string };
}

/** Checks an adapter's `languages` option, as `Sandbox.create` checks its own. */
export function checkLanguages(languages: unknown): Language[] {
  // An adapter always has a list (its default is both): undefined is refused.
  return validateLanguages(languages === undefined ? null : languages) as Language[];
}

/** The JSON Schema of the code tool's input: `{ code, language? }`. */
export function codeInputSchema(languages: Language[]): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      code: { type: "string", description: "The program to run." },
      language: { type: "string", enum: languages, description: `Default "${languages[0]}".` },
    },
    required: ["code"],
    additionalProperties: false,
  };
}

/**
 * Runs the model's code. Script failures and limits come back as data the
 * model can act on; cancellation and a closed sandbox propagate.
 */
export async function runForModel(
  sandbox: Sandbox,
  input: CodeToolInput,
  languages: Language[],
  signal: AbortSignal | undefined,
): Promise<CodeToolOutput> {
  const language = input.language ?? languages[0];
  if (!languages.includes(language)) {
    return { exitCode: 2, stdout: "", stderr: "", error: { message: `language ${language} is not enabled` } };
  }
  try {
    const r = await sandbox.run(input.code, signal ? { language, signal } : { language });
    const out: CodeToolOutput = { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
    if (r.value !== undefined) out.value = r.value;
    if (r.error) out.error = { name: r.error.name, message: r.error.message };
    return out;
  } catch (err) {
    if (err instanceof CordonError && err.code !== "CANCELLED" && err.code !== "CLOSED") {
      return {
        exitCode: 1,
        stdout: err.result?.stdout ?? "",
        stderr: err.result?.stderr ?? "",
        error: { code: err.code, message: err.message },
      };
    }
    throw err;
  }
}
