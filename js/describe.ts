// The text a model needs to write code for a sandbox: the languages, the
// tools as TypeScript declarations generated from their JSON Schemas, what
// the capabilities allow, the file system and the limits. Deterministic:
// the same options always give the same text.

import { made, native } from "./binding";
import { IDENT, SchemaRenderer, comment } from "./schematype";

/** What {@link describeSandbox} reads. */
export interface DescribeInput {
  /** The languages the sandbox runs; both when absent. */
  languages?: readonly string[];
  /** Each tool's name, description, and the JSON Schemas of its argument and result (absent: any object, `unknown`). */
  tools: { name: string; description: string | undefined; inputSchema: unknown; outputSchema?: unknown }[];
  /** The policy's JSON as `create()` gives it to the addon, which states its grants; null without tools. */
  policy: string | null;
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

/**
 * Web and Node APIs a model reaches for, by whether the guest has them;
 * `describe.test.mjs` checks both lists against a real sandbox.
 */
export const JS_PRESENT = [
  "setTimeout",
  "setInterval",
  "setImmediate",
  "queueMicrotask",
  "URL",
  "URLSearchParams",
  "TextEncoder",
  "TextDecoder",
  "atob",
  "btoa",
  "structuredClone",
  "AbortController",
  "AbortSignal",
  "EventTarget",
  "Event",
  "console.table",
  "console.group",
  "console.count",
  "console.time",
  "console.assert",
  "console.dir",
  "crypto.getRandomValues",
  "crypto.randomUUID",
  "crypto.subtle.digest",
  "crypto.subtle.sign",
  "performance.now",
  "Buffer.from",
  "require",
  "process.stdout.write",
  "process.exit",
  "process.on",
];
export const JS_MISSING = [
  "fetch (no network)",
  "Blob",
  "WebAssembly",
];

interface Node {
  functions: string[];
  children: Map<string, Node>;
}

/**
 * Words a declaration cannot use as a name (reserved in strict code, or
 * globals that cannot be redefined): a tool with one in its path is declared
 * as an overload of `tools.call`.
 */
const NOT_A_NAME = new Set(
  (
    "await break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if implements import in instanceof interface let new null package private protected public return static " +
    "super switch this throw true try typeof var void while with yield arguments eval undefined NaN Infinity"
  ).split(" "),
);

const plain = (segment: string) => IDENT.test(segment) && !NOT_A_NAME.has(segment);

function declarations(tools: DescribeInput["tools"]): string {
  const root: Node = { functions: [], children: new Map() };
  const viaCall: string[] = [];
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const path = (name: string) => name.replaceAll("/", ".").split(".");
  const callable = sorted.filter((t) => path(t.name).every(plain));
  const renderer = new SchemaRenderer(callable.map((t) => path(t.name)[0] as string));
  for (const tool of sorted) {
    const segments = path(tool.name);
    if (!segments.every(plain)) {
      const { args, result } = renderer.tool(tool.name, tool.inputSchema, tool.outputSchema, "  ");
      const name = JSON.stringify(segments.join("."));
      viaCall.push(`${comment(tool.description, "  ")}  function call(name: ${name}, args: ${args}): Promise<${result}>;\n`);
      continue;
    }
    const fn = segments.pop() as string;
    let node = root;
    for (const s of segments) {
      let next = node.children.get(s);
      if (!next) {
        next = { functions: [], children: new Map() };
        node.children.set(s, next);
      }
      node = next;
    }
    const indent = "  ".repeat(segments.length);
    const { args, result } = renderer.tool(tool.name, tool.inputSchema, tool.outputSchema, indent);
    const keyword = segments.length === 0 ? "declare function" : "function";
    node.functions.push(`${comment(tool.description, indent)}${indent}${keyword} ${fn}(args: ${args}): Promise<${result}>;\n`);
  }
  const render = (node: Node, depth: number): string => {
    let out = node.functions.join("");
    for (const [name, child] of node.children) {
      const indent = "  ".repeat(depth);
      const keyword = depth === 0 ? "declare namespace" : "namespace";
      out += `${indent}${keyword} ${name} {\n${render(child, depth + 1)}${indent}}\n`;
    }
    return out;
  };
  // Names that are not identifiers are called through `tools.call`.
  const calls = viaCall.length > 0 ? `declare namespace tools {\n${viaCall.join("")}}\n` : "";
  // The named types come first: the functions' types refer to them.
  return renderer.declarations.join("") + render(root, 0) + calls;
}

function bytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function ms(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000} s` : `${n} ms`;
}

/** The description text (see the module comment). */
export function describeSandbox(input: DescribeInput): string {
  const { limits } = input;
  let out = "";
  out += "Run code in a cordon sandbox: no network, no host files, no processes.\n\n";
  const languages = input.languages ?? ["javascript", "shell"];
  const both = languages.length > 1;
  out += "Languages:\n";
  if (languages.includes("javascript") || languages.includes("typescript")) {
    out +=
      "- javascript, or typescript (its types are removed before it runs; enum, namespace and parameter properties are errors): " +
      "JavaScript ES2023 on QuickJS. " +
      "The code is the body of an async function: use top-level `await`; " +
      "a `return`ed value is the result; `console.log` prints. `fs` (Node-like, sync and `fs.promises`) reads and writes files; " +
      "`require` and top-level `import` give the node: modules path, fs, fs/promises, util, events, buffer, crypto, url, process and readline, no packages; standard input is `fs.readFileSync(0)` or `process.stdin`; " +
      (both ? '`await shell("cmd")` runs the shell and returns { stdout, stderr, exitCode }. ' : "") +
      "Declarations (`let`, `const`, `var`, `function`) end with the run; properties of `globalThis` persist between runs. " +
      "As in Node, a run ends once the code has finished and no timer or tool call it started is pending, " +
      "so a `setInterval` never cleared runs until the time limit; an unhandled promise rejection ends the run with exit code 1. " +
      `Also there: ${JS_PRESENT.join(", ")}. Not there: ${JS_MISSING.join(", ")}.\n`;
  }
  if (languages.includes("shell")) {
    const commands = native.shellCommands().filter((c) => both || (c !== "js" && c !== "node"));
    out +=
      "- shell: bash-compatible (pipes, redirections, variables, functions, if/for/while/case, $(...), $((...))). " +
      `Its commands (most take \`--help\`): ${commands.join(" ")}. ` +
      `${both ? "`js -e CODE` runs JavaScript. " : ""}No other programs exist.\n`;
  }
  out += "\n";
  out +=
    "Files: /workspace (the working directory) and /tmp are writable; everything else is read-only. " +
    "Files persist between runs.\n";

  const text = declarations(input.tools);
  if (input.tools.length === 0) {
    out += "\nTools: none.\n";
  } else {
    out += "\nTools (JavaScript: `await name(args)`; shell: `tool name --key value` prints the JSON result):\n";
    out += "```ts\n" + text + "```\n";
    out += "Allowed calls (anything else is denied with a catchable error):\n";
    const policy = made(native.describePolicy(input.policy ?? "{}"));
    const grants = policy.grants.map((g) => {
      const parts: string[] = [];
      if (g.constraints != null) parts.push(g.constraints);
      if (g.params != null) parts.push(`only the arguments ${g.params.join(", ")}`);
      if (g.maxCalls != null) parts.push(`at most ${g.maxCalls} calls`);
      if (g.requireApproval) parts.push("each call needs the user's approval");
      return `- ${g.method}: ${parts.length ? parts.join("; ") : "any arguments"}\n`;
    });
    out += grants.length ? grants.join("") : "- none: every call is denied\n";
    if (policy.ungranted.length > 0) out += `Not granted (calls are denied): ${policy.ungranted.join(", ")}.\n`;
    if (policy.approval.length > 0) out += `Need the user's approval (a call may be denied): ${policy.approval.join(", ")}.\n`;
  }
  out +=
    `\nLimits per run: ${ms(limits.timeoutMs)} wall time, ${ms(limits.cpuMs)} CPU, ${bytes(limits.memoryBytes)} memory, ` +
    `${bytes(limits.outputBytes)} of output per stream, ${limits.toolCalls} tool calls. ` +
    `Files: ${bytes(limits.fsBytes)} in at most ${limits.fsFiles} files. A run that hits a limit ends with an error.\n`;
  return out;
}
