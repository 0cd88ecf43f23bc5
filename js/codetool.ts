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

/** The languages a model may name: TypeScript wherever JavaScript runs. */
function withTypeScript(languages: Language[]): Language[] {
  if (!languages.includes("javascript") || languages.includes("typescript")) return languages;
  const out = [...languages];
  out.splice(languages.indexOf("javascript") + 1, 0, "typescript");
  return out;
}

/** The JSON Schema of the code tool's input: `{ code, language? }`. */
export function codeInputSchema(languages: Language[]): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      code: { type: "string", description: "The program to run." },
      language: { type: "string", enum: withTypeScript(languages), description: `Default "${languages[0]}".` },
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
  if (!withTypeScript(languages).includes(language)) {
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

/** Bytes of each text a model is given of one run, by default (`modelOutputBytes`). */
export const MODEL_OUTPUT_BYTES = 16 * 1024;

/** Checks an adapter's `modelOutputBytes` option; its default when absent. */
export function checkModelOutputBytes(value: unknown): number {
  if (value === undefined) return MODEL_OUTPUT_BYTES;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 256 || value > 2 ** 30) {
    throw new CordonError("INVALID_OPTIONS", `modelOutputBytes must be an integer from 256 to ${2 ** 30}, got ${String(value)}`);
  }
  return value;
}

/**
 * What a model is given of a run: the returned value is not repeated at the
 * end of stdout (where the guest also prints it), and each text keeps its
 * head and tail within `max` bytes of UTF-8, with a line between saying how
 * many bytes were cut. The full output stays with the host.
 */
export function forModel(output: CodeToolOutput, max: number): CodeToolOutput {
  let stdout = output.stdout;
  if (output.value !== undefined && stdout.endsWith(`${output.value}\n`)) {
    stdout = stdout.slice(0, stdout.length - output.value.length - 1);
  }
  const out: CodeToolOutput = { exitCode: output.exitCode, stdout: clip(stdout, max), stderr: clip(output.stderr, max) };
  if (output.value !== undefined) out.value = clip(output.value, max);
  if (output.error) out.error = { ...output.error, message: clip(output.error.message, max) };
  return out;
}

/**
 * The AI SDK's `toModelOutput` for a code tool: what the model reads of a
 * run ({@link forModel}). AI SDK 5 passes the output; 6 and later pass
 * `{ toolCallId, input, output }`.
 */
export function modelOutput(max: number): (arg: unknown) => { type: "json"; value: CodeToolOutput } {
  return (arg) => {
    const a = arg as { toolCallId?: unknown; output?: CodeToolOutput };
    const output = typeof a.toolCallId === "string" && a.output !== undefined ? a.output : (arg as CodeToolOutput);
    return { type: "json", value: forModel(output, max) };
  };
}

/** `text` within `max` bytes of UTF-8: its head and tail, and how much was cut between. */
export function clip(text: string, max: number): string {
  // A string of n UTF-16 units has at most 3n bytes of UTF-8.
  if (text.length * 3 <= max) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return text;
  // The marker is sized for the largest count it can show.
  const room = max - `\n[… ${bytes.length} bytes cut …]\n`.length - 4;
  let head = Math.floor(room / 2);
  let tail = bytes.length - (room - head);
  // Cut between characters: a UTF-8 continuation byte is 10xxxxxx.
  while (head > 0 && ((bytes[head] as number) & 0xc0) === 0x80) head--;
  while (tail < bytes.length && ((bytes[tail] as number) & 0xc0) === 0x80) tail++;
  return `${bytes.toString("utf8", 0, head)}\n[… ${tail - head} bytes cut …]\n${bytes.toString("utf8", tail)}`;
}
