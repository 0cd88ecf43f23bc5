// A JavaScript tokenizer for the REPL (`replsource.ts`): names, numbers,
// strings, templates, regular expressions and punctuators, with where line
// breaks fall and whether the input stops inside something still open.

export type TokenType = "name" | "num" | "str" | "template" | "regex" | "punct";

export interface Token {
  type: TokenType;
  value: string;
  start: number;
  end: number;
  /** A line break lies between this token and the previous one. */
  nl: boolean;
}

export interface Tokens {
  tokens: Token[];
  /** The input stops inside a bracket, template or comment, or right after an operator. */
  open: boolean;
}

const PUNCTUATORS = [
  ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
  "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=",
  "&=", "|=", "^=", "**", "<<", ">>",
];
export const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
// Keywords after which an expression, not an operator, comes: `/` there
// starts a regular expression.
const EXPRESSION_KEYWORDS = new Set([
  "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else",
  "yield", "await", "extends",
]);
// Words that cannot end an expression (an operator keyword needs its operand).
const OPERATOR_WORDS = new Set(["typeof", "instanceof", "in", "new", "delete", "void", "await", "yield", "extends"]);
// Tokens that continue an expression across a line break (a binary operator,
// a call, a member access, a tagged template); before anything else a line
// break after a complete expression ends the statement.
const CONTINUATIONS = new Set([
  "(", "[", ".", "?.", ",", "?", ":", "=", "=>", "==", "!=", "===", "!==", "<", ">", "<=", ">=", "+", "-", "*",
  "/", "%", "**", "&", "|", "^", "<<", ">>", ">>>", "&&", "||", "??", "+=", "-=", "*=", "/=", "%=", "**=",
  "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??=",
]);

const NAME = /[\p{ID_Start}$_\\#][\p{ID_Continue}$\u200c\u200d\\]*/uy;
const NUMBER = /(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?)n?/y;
const SPACE = /[\t\v\f \u00a0\ufeff\p{Zs}]+/uy;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** Whether an expression can end with `t` (so `/` after it divides). */
export function endsExpression(t: Token | undefined): boolean {
  if (t === undefined) return false;
  if (t.type === "punct") return t.value === ")" || t.value === "]" || t.value === "}" || t.value === "++" || t.value === "--";
  if (t.type === "name") return !OPERATOR_WORDS.has(t.value) && !EXPRESSION_KEYWORDS.has(t.value);
  return true;
}

export function continues(t: Token): boolean {
  if (t.type === "template") return true;
  if (t.type === "name") return t.value === "in" || t.value === "instanceof";
  return t.type === "punct" && CONTINUATIONS.has(t.value);
}

/**
 * Splits `src` into tokens. A template literal is one token (its `${}`
 * parts are scanned for their own brackets); comments and white space are
 * dropped, but the line breaks they hold are kept in `nl`.
 */
export function tokenize(src: string): Tokens {
  const { tokens, open } = scan(src, 0, false);
  return { tokens, open };
}

/**
 * Tokens from `from`; with `substitution`, only up to the `}` that closes a
 * template's `${`, and `end` is the index after it.
 */
function scan(src: string, from: number, substitution: boolean): Tokens & { end: number } {
  const tokens: Token[] = [];
  const stack: string[] = [];
  let open = false;
  let nl = false;
  let i = from;

  // Scans a template from its backtick; returns the index after it.
  const template = (at: number): number => {
    let j = at + 1;
    while (j < src.length) {
      const c = src[j];
      if (c === "\\") j += 2;
      else if (c === "`") return j + 1;
      else if (c === "$" && src[j + 1] === "{") {
        const inner = scan(src, j + 2, true);
        if (inner.open) open = true;
        j = inner.end;
      } else j++;
    }
    open = true;
    return src.length;
  };

  while (i < src.length) {
    const c = src[i];
    if (LINE_BREAK.test(c)) {
      nl = true;
      i++;
      continue;
    }
    SPACE.lastIndex = i;
    if (SPACE.test(src)) {
      i = SPACE.lastIndex;
      continue;
    }
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && !LINE_BREAK.test(src[i])) i++;
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const close = src.indexOf("*/", i + 2);
      if (close < 0) {
        open = true;
        i = src.length;
        break;
      }
      if (LINE_BREAK.test(src.slice(i, close))) nl = true;
      i = close + 2;
      continue;
    }
    // A shebang line is a comment.
    if (c === "#" && src[i + 1] === "!" && i === 0) {
      while (i < src.length && !LINE_BREAK.test(src[i])) i++;
      continue;
    }
    if (substitution && c === "}" && stack.length === 0) return { tokens, open, end: i + 1 };
    const start = i;
    let type: TokenType;
    if (c === "'" || c === '"') {
      type = "str";
      i++;
      while (i < src.length && src[i] !== c && !LINE_BREAK.test(src[i])) i += src[i] === "\\" ? 2 : 1;
      i = Math.min(i + 1, src.length);
    } else if (c === "`") {
      type = "template";
      i = template(i);
    } else if (c === "/" && !endsExpression(tokens[tokens.length - 1])) {
      type = "regex";
      let inClass = false;
      i++;
      while (i < src.length && !LINE_BREAK.test(src[i])) {
        const d = src[i];
        if (d === "\\") i++;
        else if (d === "[") inClass = true;
        else if (d === "]") inClass = false;
        else if (d === "/" && !inClass) break;
        i++;
      }
      i++;
      NAME.lastIndex = i;
      if (NAME.test(src)) i = NAME.lastIndex;
    } else if (/\d/.test(c) || (c === "." && /\d/.test(src[i + 1] ?? ""))) {
      type = "num";
      NUMBER.lastIndex = i;
      i = NUMBER.test(src) ? NUMBER.lastIndex : i + 1;
    } else {
      NAME.lastIndex = i;
      if (NAME.test(src) && NAME.lastIndex > i) {
        type = "name";
        i = NAME.lastIndex;
      } else {
        type = "punct";
        const p = PUNCTUATORS.find((q) => src.startsWith(q, i) && !(q === "?." && /\d/.test(src[i + 2] ?? "")));
        i += p ? p.length : 1;
      }
    }
    const value = src.slice(start, i);
    if (type === "punct") {
      if (value in OPENERS) stack.push(OPENERS[value]);
      else if (value === stack[stack.length - 1]) stack.pop();
    }
    tokens.push({ type, value, start, end: i, nl });
    nl = false;
  }
  // The input ended inside a substitution, or with brackets open.
  if (substitution || stack.length > 0) open = true;
  const last = tokens[tokens.length - 1];
  // `1 +`, `x =`, `f(a,`: the expression goes on on the next line.
  if (last?.type === "punct" && CONTINUATIONS.has(last.value)) open = true;
  return { tokens, open, end: i };
}
