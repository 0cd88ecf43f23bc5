// A script as the guest runs it: top-level `import` declarations become
// `require` calls, `export` before a declaration goes, and TypeScript's
// types are replaced by white space (Node's own stripper, `amaro`, loaded on
// first use). Lines and columns stay where the user wrote them.

import { tokenize, type Token } from "./jstokens";

/** A script the guest can run, or where it is not valid TypeScript. */
export type Prepared = { code: string } | { error: { message: string; line: number; column: number } };

interface Amaro {
  transformSync(code: string, options: { mode: "strip-only" }): { code: string };
}
let amaro: Amaro | undefined;

// The script is stripped as the body of an async function, as the guest
// runs it (so `return` and `await` at the top level are accepted); the
// prefix ends a line, so the script's first column is its own.
const PREFIX = "async function __cordon__() {\n";
const SUFFIX = "\n}";

// Constructs strip-only mode refuses, each with what to write instead.
const HINTS: [string, string][] = [
  ["enum", "use a const object"],
  ["namespace", "use an object or plain declarations"],
  ["parameter property", "declare the field and assign it in the constructor"],
];

/** Prepares `code` for the guest; `typescript` strips its types. */
export function prepareScript(code: string, typescript: boolean): Prepared {
  if (code.includes("import") || code.includes("export")) code = rewriteModules(code, typescript);
  if (!typescript) return { code };
  amaro ??= require("amaro") as Amaro;
  let out: string;
  try {
    out = amaro.transformSync(PREFIX + code + SUFFIX, { mode: "strip-only" }).code;
  } catch (e) {
    return { error: strippingError(e) };
  }
  return { code: out.slice(PREFIX.length, out.length - SUFFIX.length) };
}

/**
 * amaro's report (an object with `message`, `startLine`, `startColumn`;
 * older versions throw text: `  x message`, then a snippet with a gutter of
 * line numbers and a line of carets) as a message, a line and a column of
 * the user's script.
 */
function strippingError(e: unknown): { message: string; line: number; column: number } {
  if (typeof e === "object" && e !== null && typeof (e as { startLine?: unknown }).startLine === "number") {
    const { message, startLine, startColumn } = e as { message: string; startLine: number; startColumn: number };
    return { message: withHint(String(message)), line: Math.max(1, startLine - 1), column: Math.max(0, startColumn) + 1 };
  }
  const text = typeof e === "string" ? e : e instanceof Error ? e.message : String(e);
  const lines = text.split("\n");
  const message = (lines.find((l) => /^\s*x /.test(l)) ?? lines[0] ?? "invalid TypeScript").replace(/^\s*x /, "");
  let line = 1;
  let column = 1;
  for (let i = 1; i < lines.length; i++) {
    const caret = /^(\s*): *?(\s*)\^/.exec(lines[i]);
    const gutter = /^\s*(\d+) \|/.exec(lines[i - 1]);
    if (caret && gutter) {
      line = Math.max(1, Number(gutter[1]) - 1);
      column = lines[i].indexOf("^") - caret[1].length - 1;
      break;
    }
  }
  return { message: withHint(message), line, column: Math.max(1, column) };
}

function withHint(message: string): string {
  for (const [construct, instead] of HINTS) {
    if (message.includes(`TypeScript ${construct} `)) {
      return `${message}: cordon removes types without generating code; ${instead}`;
    }
  }
  return message;
}

/**
 * Rewrites the top-level `import … from "m"` declarations into `const … =
 * require("m")` on the same lines, and drops `export` before a declaration.
 * With `typescript`, `import type` and `type` specifiers go.
 */
export function rewriteModules(code: string, typescript: boolean): string {
  const { tokens } = tokenize(code);
  const edits: { start: number; end: number; text: string }[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === "punct" && (t.value === "{" || t.value === "(" || t.value === "[")) depth++;
    else if (t.type === "punct" && (t.value === "}" || t.value === ")" || t.value === "]")) depth--;
    if (depth !== 0 || t.type !== "name") continue;
    const prev = tokens[i - 1];
    if (prev && prev.type === "punct" && (prev.value === "." || prev.value === "?.")) continue;
    const next = tokens[i + 1];
    if (t.value === "export" && next?.type === "name" && /^(const|let|var|function|class|async|interface|type|abstract|declare)$/.test(next.value)) {
      edits.push({ start: t.start, end: t.end, text: "" });
    } else if (t.value === "import" && next && !(next.type === "punct" && (next.value === "(" || next.value === "."))) {
      const found = importDeclaration(tokens, i, typescript);
      if (found) {
        edits.push({ start: t.start, end: tokens[found.last].end, text: found.text });
        i = found.last;
      }
    }
  }
  let out = "";
  let at = 0;
  for (const e of edits) {
    const replaced = code.slice(e.start, e.end);
    // Line breaks the declaration spanned stay, so later lines keep their numbers.
    const breaks = replaced.match(/\r\n|[\n\r\u2028\u2029]/g) ?? [];
    const pad = breaks.length > 0 ? "" : " ".repeat(Math.max(0, replaced.length - e.text.length));
    out += code.slice(at, e.start) + e.text + pad + breaks.join("");
    at = e.end;
  }
  return out + code.slice(at);
}

/** The declaration starting at `tokens[i]` (`import`), as a statement, and its last token. */
function importDeclaration(tokens: Token[], i: number, typescript: boolean): { text: string; last: number } | undefined {
  let j = i + 1;
  const at = (k: number) => tokens[k];
  const is = (k: number, value: string) => at(k) !== undefined && at(k).value === value && at(k).type !== "str";
  const semicolon = (k: number) => (is(k + 1, ";") ? k + 1 : k);
  // `import "m"`
  if (at(j)?.type === "str") return { text: `require(${at(j).value});`, last: semicolon(j) };
  let typeOnly = false;
  if (typescript && is(j, "type") && !is(j + 1, "from") && !is(j + 1, ",")) {
    typeOnly = true;
    j++;
  }
  let defaultName: string | undefined;
  let namespace: string | undefined;
  const named: string[] = [];
  if (at(j)?.type === "name" && !is(j, "{") && !is(j, "*")) {
    defaultName = at(j).value;
    j++;
    if (is(j, ",")) j++;
  }
  if (is(j, "*") && is(j + 1, "as") && at(j + 2)?.type === "name") {
    namespace = at(j + 2).value;
    j += 3;
  } else if (is(j, "{")) {
    j++;
    while (at(j) && !is(j, "}")) {
      let skip = false;
      if (typescript && is(j, "type") && at(j + 1)?.type === "name" && !is(j + 1, "as") && !is(j + 1, ",")) {
        skip = true;
        j++;
      }
      const imported = at(j);
      if (imported === undefined || (imported.type !== "name" && imported.type !== "str")) return undefined;
      let local = imported.value;
      j++;
      if (is(j, "as") && at(j + 1)?.type === "name") {
        local = at(j + 1).value;
        j += 2;
      }
      if (!skip) {
        const key = imported.type === "str" ? imported.value : imported.value;
        named.push(key === "default" ? `default: ${local}` : key === local ? local : `${key}: ${local}`);
      }
      if (is(j, ",")) j++;
    }
    if (!is(j, "}")) return undefined;
    j++;
  }
  if (!is(j, "from") || at(j + 1)?.type !== "str") return undefined;
  const source = at(j + 1).value;
  j += 1;
  // `with { type: "json" }` / `assert { … }`
  if ((is(j + 1, "with") || is(j + 1, "assert")) && is(j + 2, "{")) {
    j += 2;
    while (at(j) && !is(j, "}")) j++;
  }
  const last = semicolon(j);
  if (typeOnly) return { text: "", last };
  const bindings: string[] = [];
  const module = `require(${source})`;
  const first = defaultName ?? namespace;
  if (first !== undefined) {
    bindings.push(`${first} = ${module}`);
    if (defaultName !== undefined && namespace !== undefined) bindings.push(`${namespace} = ${defaultName}`);
    if (named.length > 0) bindings.push(`{ ${named.join(", ")} } = ${first}`);
  } else if (named.length > 0) {
    bindings.push(`{ ${named.join(", ")} } = ${module}`);
  } else {
    return { text: `${module};`, last };
  }
  return { text: `const ${bindings.join(", ")};`, last };
}
