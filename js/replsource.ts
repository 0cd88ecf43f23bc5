// How the REPL turns one input into a sandbox run. A run is the body of an
// async function in the guest, so its top-level `let`, `const`, `var`,
// `function` and `class` would die with the run; Node's REPL has the same
// problem for inputs with top-level `await` and rewrites them
// (lib/internal/repl/await.js), which is followed here:
//
//   let x = 5, {a} = o;   ->  ;(  x = 5, {a} = o);
//   function f() {}       ->  function f() {};globalThis.f = f;
//   class C {}            ->  class C {};globalThis.C = C;
//   x + 1                 ->  return <echo>((x + 1))
//
// The guest runs sloppy code, where assigning an undeclared name creates a
// global, so a declaration becomes a global that the next input sees;
// destructuring needs no rewriting, since a binding pattern is also a valid
// assignment pattern. The value of a final expression statement is printed
// the way Node's REPL prints it (util.inspect, strings quoted), anything
// else prints `undefined`. Only the top level is rewritten: `for (let ...)`,
// blocks and function bodies keep their own scopes. A declaration's keyword
// becomes `;(` of the same length and the rest is inserted after what it
// concerns, so functions keep their line and column numbers in later
// inputs' stack traces; the current input's top level is mapped back
// (`positions`).
//
// Node parses with acorn; cordon has no parser dependency, so it has a
// tokenizer (`jstokens.ts`: strings, comments, templates, regular
// expressions) and, here, a statement splitter that knows where top-level statements begin and end
// (brackets, semicolons, and automatic semicolon insertion at line breaks).
// The host parses only: `vm.Script` compiles a wrapper to check syntax and
// nothing is ever run on the host. When the input does not parse, it goes to
// the guest unchanged, which reports its own SyntaxError.

import { Script } from "node:vm";
import { OPENERS, continues, endsExpression, tokenize, type Token } from "./jstokens";

interface Edit {
  at: number;
  /** Characters replaced from `at` (0 inserts). */
  length: number;
  text: string;
}

/** A top-level statement: where it lies, and what it is. */
interface Statement {
  kind: "expression" | "declaration" | "function" | "class" | "other";
  first: number;
  /** Index after the statement's last token (its `;` included). */
  next: number;
}

class Splitter {
  constructor(private readonly t: Token[]) {}

  private is(i: number, value: string): boolean {
    const tok = this.t[i];
    return tok !== undefined && tok.value === value && (tok.type === "punct" || tok.type === "name");
  }

  /** From an opening bracket to just after its match. */
  group(i: number): number {
    let depth = 0;
    for (; i < this.t.length; i++) {
      const tok = this.t[i];
      if (tok.type !== "punct") continue;
      if (tok.value in OPENERS) depth++;
      else if (tok.value === ")" || tok.value === "]" || tok.value === "}") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }

  private parenthesised(i: number): number {
    return this.is(i, "(") ? this.group(i) : i;
  }

  /**
   * The index of the first token after the expression starting at `i`: a
   * `;`, a closing bracket, a `,` when `commas` end it (declarators), or a
   * token after a line break that cannot continue it (automatic semicolon
   * insertion).
   */
  expressionEnd(i: number, commas: boolean): number {
    let prev: Token | undefined;
    while (i < this.t.length) {
      const tok = this.t[i];
      if (tok.type === "punct") {
        if (tok.value === ";" || tok.value === ")" || tok.value === "]" || tok.value === "}") return i;
        if (commas && tok.value === ",") return i;
      }
      if (prev !== undefined && tok.nl && endsExpression(prev) && !continues(tok)) return i;
      if (tok.type === "punct" && tok.value in OPENERS) {
        i = this.group(i);
        prev = this.t[i - 1];
        continue;
      }
      prev = tok;
      i++;
    }
    return i;
  }

  private semicolon(i: number): number {
    return this.is(i, ";") ? i + 1 : i;
  }

  /** One statement from `i`; returns it with its kind. */
  statement(i: number): Statement {
    const t = this.t;
    const tok = t[i];
    const at = (kind: Statement["kind"], next: number): Statement => ({ kind, first: i, next: Math.max(next, i + 1) });
    if (tok.type === "punct") {
      if (tok.value === ";") return at("other", i + 1);
      if (tok.value === "{") return at("other", this.group(i));
      return at("expression", this.semicolon(this.expressionEnd(i, false)));
    }
    if (tok.type !== "name") return at("expression", this.semicolon(this.expressionEnd(i, false)));
    const next = t[i + 1];
    switch (tok.value) {
      case "var":
      case "const":
        return at("declaration", this.declaration(i));
      case "let":
        // `let` is a name unless a binding follows.
        if (next !== undefined && (next.type === "name" || next.value === "[" || next.value === "{")) {
          return at("declaration", this.declaration(i));
        }
        break;
      case "async":
        if (next?.value === "function" && !next.nl) return at("function", this.functionEnd(i + 1));
        break;
      case "function":
        return at("function", this.functionEnd(i));
      case "class":
        return at("class", this.classEnd(i));
      case "if": {
        let j = this.statement(this.parenthesised(i + 1)).next;
        if (this.is(j, "else")) j = this.statement(j + 1).next;
        return at("other", j);
      }
      case "for":
        return at("other", this.statement(this.parenthesised(this.is(i + 1, "await") ? i + 2 : i + 1)).next);
      case "while":
      case "with":
        return at("other", this.statement(this.parenthesised(i + 1)).next);
      case "do": {
        let j = this.statement(i + 1).next;
        if (this.is(j, "while")) j = this.semicolon(this.parenthesised(j + 1));
        return at("other", j);
      }
      case "try": {
        let j = this.group(i + 1);
        if (this.is(j, "catch")) j = this.group(this.parenthesised(j + 1));
        if (this.is(j, "finally")) j = this.group(j + 1);
        return at("other", j);
      }
      case "switch":
        return at("other", this.group(this.parenthesised(i + 1)));
      case "return":
      case "throw": {
        // `return` followed by a line break returns nothing.
        if (next === undefined || (tok.value === "return" && next.nl) || next.value === ";" || next.value === "}") {
          return at("other", this.semicolon(i + 1));
        }
        return at("other", this.semicolon(this.expressionEnd(i + 1, false)));
      }
      case "break":
      case "continue":
      case "debugger": {
        const j = next !== undefined && next.type === "name" && !next.nl ? i + 2 : i + 1;
        return at("other", this.semicolon(j));
      }
    }
    // A label.
    if (next?.type === "punct" && next.value === ":") return at("other", this.statement(i + 2).next);
    return at("expression", this.semicolon(this.expressionEnd(i, false)));
  }

  /** `function* name(...) {...}` from `function`. */
  private functionEnd(i: number): number {
    let j = i + 1;
    if (this.is(j, "*")) j++;
    if (this.t[j]?.type === "name") j++;
    return this.group(this.parenthesised(j));
  }

  /** `class Name extends Base {...}` from `class`. */
  private classEnd(i: number): number {
    let j = i + 1;
    while (j < this.t.length && !this.is(j, "{")) {
      j = this.t[j].type === "punct" && this.t[j].value in OPENERS ? this.group(j) : j + 1;
    }
    return this.group(j);
  }

  /** Declarators of `let`/`const`/`var` from the keyword; records them. */
  readonly declarators = new Map<number, { first: number; last: number; init: boolean }[]>();
  private declaration(i: number): number {
    const list: { first: number; last: number; init: boolean }[] = [];
    let j = i + 1;
    while (j < this.t.length) {
      const first = j;
      j = this.t[j].type === "punct" && this.t[j].value in OPENERS ? this.group(j) : j + 1;
      let init = false;
      if (this.is(j, "=")) {
        init = true;
        j = this.expressionEnd(j + 1, true);
      }
      list.push({ first, last: j - 1, init });
      if (!this.is(j, ",")) break;
      j++;
    }
    this.declarators.set(i, list);
    return this.semicolon(j);
  }
}

/** The name the echo function has in the code sent to the guest. */
const ECHO = "__cordonEcho";

// Declared after the input (a function declaration is hoisted), so the
// input keeps its line and column numbers: strings are shown quoted (`%o`),
// everything else as console.log shows one value (Node's util.inspect).
const ECHO_DEFINITION = `function ${ECHO}(v) { typeof v === "string" ? console.log("%o", v) : console.log(v); }`;

function parses(body: string): boolean {
  try {
    // Compiled, never run: the check of syntax only.
    new Script(`(async function () {\n${body}\n})`);
    return true;
  } catch {
    return false;
  }
}

export type Prepared =
  | { incomplete: true }
  | {
      incomplete: false;
      code: string;
      /** `main.js:LINE:COLUMN` positions of the guest's messages, made those of the input. */
      positions: (text: string) => string;
    };

const unchanged = (text: string) => text;

/**
 * What the REPL runs for one input. `incomplete` when the input stops in the
 * middle (an open bracket, template or comment, a trailing operator): the
 * REPL then reads another line.
 */
export function prepare(input: string): Prepared {
  // Like Node's REPL: `{ a: 1 }` alone is an object, not a block.
  if (/^\s*\{/.test(input) && !/;\s*$/.test(input) && parses(`(${input.trim()}\n)`)) {
    input = `(${input.trim()})\n`;
  }
  if (!parses(input)) {
    if (tokenize(input).open) return { incomplete: true };
    return { incomplete: false, code: input, positions: unchanged };
  }
  const { code, edits } = rewrite(input);
  // A rewrite the host cannot parse is a fault of the rewrite: the input
  // then runs as it is (its declarations stay local to the run).
  if (!parses(code)) return { incomplete: false, code: input, positions: unchanged };
  return { incomplete: false, code, positions: (text) => mapPositions(text, input, code, edits) };
}

/** Offsets where each line of `text` starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Maps the outermost frame of each stack in `text` (`at <anonymous>
 * (main.js:LINE:COLUMN)`, 1-based, the top level of this input) from `code`
 * back to `input`; a place inside inserted text becomes the place of the
 * insertion. Other frames may be functions of earlier inputs, whose
 * positions are their own (declarations are rewritten without moving them),
 * so they are left as they are.
 */
function mapPositions(text: string, input: string, code: string, edits: Edit[]): string {
  const codeLines = lineStarts(code);
  const inputLines = lineStarts(input);
  const map = (line: number, column: number): string | undefined => {
    if (line < 1 || line > codeLines.length) return undefined;
    const at = codeLines[line - 1] + column - 1;
    // Walk the edits in order, from `code`'s offsets back to `input`'s.
    let shift = 0;
    for (const e of edits) {
      const start = e.at + shift;
      if (at < start) break;
      if (at < start + e.text.length) return place(e.at);
      shift += e.text.length - e.length;
    }
    return place(at - shift);
  };
  const place = (offset: number): string | undefined => {
    if (offset > input.length) return undefined;
    let row = inputLines.length - 1;
    while (inputLines[row] > offset) row--;
    return `main.js:${row + 1}:${offset - inputLines[row] + 1}`;
  };
  const lines = text.split("\n");
  return lines
    .map((l, i) => {
      const frame = /^(\s+at <anonymous> \()main\.js:(\d+):(\d+)\)$/.exec(l);
      if (frame === null || /^\s+at /.test(lines[i + 1] ?? "")) return l;
      const mapped = map(Number(frame[2]), Number(frame[3]));
      return mapped === undefined ? l : `${frame[1]}${mapped})`;
    })
    .join("\n");
}

/**
 * The rewrite described at the top of this file, and the edits it made.
 * @internal exported for tests
 */
export function rewrite(input: string): { code: string; edits: Edit[] } {
  const { tokens } = tokenize(input);
  const s = new Splitter(tokens);
  const edits: Edit[] = [];
  const insert = (at: number, text: string) => edits.push({ at, length: 0, text });
  let last: Statement | undefined;
  for (let i = 0; i < tokens.length; ) {
    const st = s.statement(i);
    last = st;
    const first = tokens[st.first];
    if (st.kind === "declaration") {
      // The keyword becomes `;(` padded to its length, so the columns after
      // it stay; the `;` keeps a `(` from calling the line before.
      const list = s.declarators.get(st.first) ?? [];
      edits.push({ at: first.start, length: first.value.length, text: ";(".padEnd(first.value.length) });
      for (const d of list) if (!d.init) insert(tokens[d.last].end, " = undefined");
      insert(tokens[list[list.length - 1].last].end, ")");
    } else if (st.kind === "function" || st.kind === "class") {
      // The declaration stays as it is (its positions with it); its binding
      // is copied to a global after it.
      const at = first.value === "async" ? st.first + 2 : st.first + 1;
      const name = tokens[tokens[at]?.value === "*" ? at + 1 : at];
      if (name?.type === "name" && name.value !== "extends") {
        insert(tokens[st.next - 1].end, `;globalThis.${name.value} = ${name.value};`);
      }
    }
    i = st.next;
  }
  // A leading `'use strict'` would make the whole input strict, where an
  // assignment to an undeclared name throws: as a template literal (of the
  // same length) it is an ordinary expression, not a directive.
  const directive = tokens[0];
  if (directive?.type === "str" && directive.value.slice(1, -1) === "use strict") {
    edits.push({ at: directive.start, length: directive.value.length, text: "`use strict`" });
  }
  if (last?.kind === "expression") {
    // Up to the expression's end, its `;` left outside.
    const end = tokens[last.next - 1].value === ";" && tokens[last.next - 1].type === "punct" ? last.next - 2 : last.next - 1;
    insert(tokens[last.first].start, `return ${ECHO}((`);
    insert(tokens[end].end, "))");
  }
  // In order; at one place, insertions before a replacement that starts there.
  edits.sort((a, b) => a.at - b.at || Math.sign(a.length) - Math.sign(b.length));
  let out = "";
  let from = 0;
  for (const e of edits) {
    out += input.slice(from, e.at) + e.text;
    from = e.at + e.length;
  }
  out += input.slice(from);
  // Anything else (a declaration, a loop) shows `undefined`, as in Node.
  const tail = last?.kind === "expression" ? "" : `;return ${ECHO}(undefined);`;
  return { code: `${out}\n${tail} ${ECHO_DEFINITION}`, edits };
}
