// TypeScript types for JSON Schemas, as describe() shows a tool's
// arguments and result to a model: named types for `$ref`s, tuples,
// records, unions and intersections, with constraints as doc tags.

export const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/*
 * Bounds of the rendering. A schema may come from an MCP server, so it is
 * attacker-influenced data: nesting, the nodes visited and the text made are
 * all bounded. Nesting deeper than MAX_SCHEMA_DEPTH becomes `unknown` where it
 * is; a tool whose types need more than MAX_TOOL_NODES schema nodes or
 * MAX_TOOL_CHARS characters (its named types included), or that comes after
 * MAX_TOTAL_CHARS of declarations, gets `unknown` for its argument and its
 * result, and the named types it started are dropped. `$ref`s become named
 * types, never inlined, so a cycle or a reference bomb costs one declaration
 * per definition.
 */
const MAX_SCHEMA_DEPTH = 8;
const MAX_TOOL_NODES = 2000;
const MAX_TOOL_CHARS = 16_000;
const MAX_TOTAL_CHARS = 100_000;
/** Named types at most (past it a `$ref` is `unknown`). */
const MAX_NAMED = 200;
/** Characters of a nested description kept (the rest is cut with `…`). */
const MAX_DOC = 300;
/** Characters of a `default` or `pattern` shown in a doc comment; longer ones are left out. */
const MAX_TAG = 80;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

export function comment(text: unknown, indent: string): string {
  if (typeof text !== "string" || text.trim() === "") return "";
  const clean = text.trim().replaceAll("*/", "*\\/").replace(/\s+/g, " ");
  return `${indent}/** ${clean} */\n`;
}

function propertyKey(key: string): string {
  return IDENT.test(key) ? key : JSON.stringify(key);
}

/** Keywords shown as JSDoc tags (`@minimum 1`) after a property's or a named type's description. */
const TAGS = [
  "format",
  "pattern",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "default",
] as const;

/** The doc comment of a schema: its description (cut at MAX_DOC) and its constraints as tags. */
function docText(schema: unknown): string {
  if (!isObject(schema)) return "";
  const parts: string[] = [];
  const description = own(schema, "description");
  if (typeof description === "string" && description.trim() !== "") {
    const d = description.trim();
    parts.push(d.length > MAX_DOC ? `${d.slice(0, MAX_DOC)}…` : d);
  }
  // A tuple's length is in its type already.
  const tuple = Array.isArray(own(schema, "prefixItems")) || Array.isArray(own(schema, "items"));
  for (const tag of TAGS) {
    const v = own(schema, tag);
    if (v === undefined || (tuple && (tag === "minItems" || tag === "maxItems"))) continue;
    if (tag === "uniqueItems") {
      if (v === true) parts.push("@uniqueItems");
    } else if (tag === "format" || tag === "pattern") {
      if (typeof v === "string" && v.length <= MAX_TAG) parts.push(`@${tag} ${v}`);
    } else if (tag === "default") {
      const json = JSON.stringify(v);
      if (json !== undefined && json.length <= MAX_TAG) parts.push(`@default ${json}`);
    } else if (typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER) {
      // Zod gives every integer the safe range: no constraint worth a word.
      parts.push(`@${tag} ${v}`);
    }
  }
  if (own(schema, "deprecated") === true) parts.push("@deprecated");
  return parts.join(" ");
}

/** A rendered type and how tightly it binds: a union, an intersection, or anything else. */
interface Ty {
  text: string;
  prec: 0 | 1 | 2;
}
const UNKNOWN: Ty = { text: "unknown", prec: 2 };
const NEVER: Ty = { text: "never", prec: 2 };
const atom = (text: string): Ty => ({ text, prec: 2 });

function union(parts: Ty[]): Ty {
  const seen = new Set<string>();
  const kept: Ty[] = [];
  for (const p of parts) {
    if (p.text === "unknown") return UNKNOWN;
    if (p.text === "never" || seen.has(p.text)) continue;
    seen.add(p.text);
    kept.push(p);
  }
  if (kept.length === 0) return NEVER;
  if (kept.length === 1) return kept[0] as Ty;
  return { text: kept.map((p) => p.text).join(" | "), prec: 0 };
}

function intersection(parts: Ty[]): Ty {
  const kept = parts.filter((p, i) => p.text !== "unknown" && parts.findIndex((q) => q.text === p.text) === i);
  if (kept.length === 0) return UNKNOWN;
  if (kept.length === 1) return kept[0] as Ty;
  return { text: kept.map((p) => (p.prec === 0 ? `(${p.text})` : p.text)).join(" & "), prec: 1 };
}

function arrayOf(item: Ty): string {
  return IDENT.test(item.text) ? `${item.text}[]` : `Array<${item.text}>`;
}

/** Names a declaration must not take: TypeScript's keywords and global types, and the guest's globals. */
const RESERVED = new Set(
  (
    "any as asserts async await bigint boolean break case catch class const constructor continue debugger declare default delete do else enum " +
    "export extends false finally for from function get global if implements import in infer instanceof interface is keyof let module namespace " +
    "never new null number object of package private protected public readonly require return satisfies set static string super switch symbol " +
    "this throw true try type typeof undefined unique unknown var void while with yield " +
    "Array BigInt Boolean Date Error Function JSON Map Math Number Object Partial Promise Readonly Record RegExp Set String Symbol " +
    "console fs shell tools"
  ).split(" "),
);

/** `name` as an identifier: other characters become `_`, at most 64 characters. */
function identifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, "_").slice(0, 64);
  if (!/^[A-Za-z_$]/.test(id)) id = `_${id}`;
  return id;
}

/** `get_tree`, `fs.tree.get` → `GetTree`, `FsTreeGet`. */
function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

/** What `#` means while one schema is rendered: its root, and the name its own recursion takes. */
interface Root {
  schema: Record<string, unknown>;
  name: string;
}

/**
 * Renders the JSON Schemas of a sandbox's tools as TypeScript: the types of
 * each tool's argument and result, and the named types their `$ref`s point
 * to, declared once for all tools (see the bounds above).
 */
export class SchemaRenderer {
  /** `type X = ...;` declarations, in the order they were completed. */
  readonly declarations: string[] = [];
  /** A reference's identity (see `refKey`) → its type's name. */
  #names = new Map<string, string>();
  #taken: Set<string>;
  #total = MAX_TOTAL_CHARS;
  #nodes = 0;
  #chars = 0;
  #exhausted = false;
  #root: Root = { schema: {}, name: "" };
  /** Roots referred to by identity (see `refKey`). */
  #rootIds = new Map<object, number>();
  /** Schemas known by their JSON text (see `text`). */
  #texts = new Map<object, { id: number; refs: boolean } | null>();
  #textIds = new Map<string, number>();

  /** `taken`: the top-level names of the functions and namespaces. */
  constructor(taken: Iterable<string>) {
    this.#taken = new Set([...RESERVED, ...taken]);
  }

  /**
   * The argument and result types of a tool. They share the tool's budget:
   * past it, the schema being rendered is `unknown` (and any after it), and
   * the named types it started are dropped.
   */
  tool(name: string, input: unknown, output: unknown, indent: string): { args: string; result: string } {
    const budget = Math.min(MAX_TOOL_CHARS, this.#total);
    this.#nodes = MAX_TOOL_NODES;
    this.#chars = budget;
    this.#exhausted = budget <= 0;
    const args = input === undefined ? "Record<string, unknown>" : this.#rendered(input, `${pascal(name)}Args`, indent);
    const result = output === undefined ? "unknown" : this.#rendered(output, `${pascal(name)}Result`, indent);
    this.#total -= budget - Math.max(this.#chars, 0);
    return { args, result };
  }

  /** `schema`'s type, with `#` named `rootName`; `unknown` past the budget. */
  #rendered(schema: unknown, rootName: string, indent: string): string {
    const mark = { declarations: this.declarations.length, names: new Set(this.#names.keys()), taken: new Set(this.#taken), chars: this.#chars };
    const root = isObject(schema) ? schema : {};
    this.#root = { schema: root, name: rootName };
    const text = this.#type(schema, indent, 0).text;
    if (this.#exhausted) {
      this.declarations.length = mark.declarations;
      for (const key of [...this.#names.keys()]) if (!mark.names.has(key)) this.#names.delete(key);
      this.#taken = mark.taken;
      // Nothing of it is shown: the total budget is not charged for it.
      this.#chars = mark.chars;
      return "unknown";
    }
    // A schema that refers to itself (`$ref: "#"`) is its named type.
    return this.#names.get(this.#refKey("#", root)) ?? text;
  }

  /** Charges `n` characters of output; false once the tool's budget is spent. */
  #spend(n: number): boolean {
    this.#chars -= n;
    if (this.#chars < 0) this.#exhausted = true;
    return !this.#exhausted;
  }

  #type(schema: unknown, indent: string, depth: number): Ty {
    if (schema === false) return NEVER;
    if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH || this.#exhausted) return UNKNOWN;
    if (--this.#nodes < 0) {
      this.#exhausted = true;
      return UNKNOWN;
    }
    const parts: Ty[] = [];
    const ref = own(schema, "$ref");
    if (typeof ref === "string") parts.push(this.#ref(ref));
    if (Object.hasOwn(schema, "const")) {
      parts.push(this.#literal(schema.const));
    } else if (Array.isArray(own(schema, "enum"))) {
      const values = schema.enum as unknown[];
      const literals: Ty[] = [];
      for (const v of values) {
        literals.push(this.#literal(v));
        if (this.#exhausted) return UNKNOWN;
      }
      parts.push(union(literals));
    } else {
      const type = own(schema, "type");
      const types = Array.isArray(type) ? type : [type];
      const own_: Ty[] = [];
      for (const t of types) {
        const ty = this.#single(schema, t, indent, depth);
        if (ty) own_.push(ty);
      }
      if (own_.length > 0) parts.push(union(own_));
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const options = own(schema, key);
      if (Array.isArray(options) && options.length > 0) parts.push(union(this.#each(options, indent, depth)));
    }
    const all = own(schema, "allOf");
    if (Array.isArray(all)) parts.push(...this.#each(all, indent, depth));
    if (this.#exhausted) return UNKNOWN;
    let ty = intersection(parts);
    // OpenAPI 3.0's `nullable`.
    if (own(schema, "nullable") === true && ty.text !== "unknown") ty = union([ty, atom("null")]);
    return ty;
  }

  #each(schemas: unknown[], indent: string, depth: number): Ty[] {
    const out: Ty[] = [];
    for (const s of schemas) {
      out.push(this.#type(s, indent, depth + 1));
      if (this.#exhausted) break;
    }
    return out;
  }

  #literal(v: unknown): Ty {
    const json = JSON.stringify(v);
    if (json === undefined || !this.#spend(json.length + 3)) return UNKNOWN;
    return atom(json);
  }

  /** The type of `schema` as one JSON type `t` (undefined: whichever its keywords imply); null when it says nothing. */
  #single(schema: Record<string, unknown>, t: unknown, indent: string, depth: number): Ty | null {
    if (t === undefined) {
      if (["properties", "additionalProperties", "patternProperties"].some((k) => isObject(own(schema, k)))) t = "object";
      else if (Array.isArray(own(schema, "prefixItems")) || Object.hasOwn(schema, "items")) t = "array";
      else return null;
    }
    switch (t) {
      case "string":
      case "boolean":
      case "null":
        return atom(t);
      case "number":
      case "integer":
        return atom("number");
      case "array":
        return this.#array(schema, indent, depth);
      case "object":
        return this.#object(schema, indent, depth);
      default:
        return UNKNOWN;
    }
  }

  #array(schema: Record<string, unknown>, indent: string, depth: number): Ty {
    // A tuple: `prefixItems` (2020-12) or an array `items` (drafts 4 to 7).
    const prefix = own(schema, "prefixItems");
    const items = own(schema, "items");
    const elements = Array.isArray(prefix) ? prefix : Array.isArray(items) ? items : null;
    if (elements === null) return atom(arrayOf(this.#type(items, indent, depth + 1)));
    const rest = Array.isArray(prefix) ? items : own(schema, "additionalItems");
    const minItems = own(schema, "minItems");
    const maxItems = own(schema, "maxItems");
    const parts: string[] = [];
    for (const [i, element] of elements.entries()) {
      const ty = this.#type(element, indent, depth + 1);
      if (this.#exhausted) return UNKNOWN;
      const optional = typeof minItems === "number" && i >= minItems;
      parts.push(optional ? `${ty.prec === 2 ? ty.text : `(${ty.text})`}?` : ty.text);
    }
    const closed = rest === false || (typeof maxItems === "number" && maxItems <= elements.length);
    if (!closed) parts.push(`...${arrayOf(isObject(rest) ? this.#type(rest, indent, depth + 1) : UNKNOWN)}`);
    if (!this.#spend(parts.length * 2 + 2)) return UNKNOWN;
    return atom(`[${parts.join(", ")}]`);
  }

  #object(schema: Record<string, unknown>, indent: string, depth: number): Ty {
    const properties = own(schema, "properties");
    const keys = isObject(properties) ? Object.keys(properties) : [];
    // Values of the keys not listed: `additionalProperties` and `patternProperties`.
    const values: Ty[] = [];
    const additional = own(schema, "additionalProperties");
    if (isObject(additional)) values.push(this.#type(additional, indent, depth + 1));
    const patterns = own(schema, "patternProperties");
    if (isObject(patterns)) {
      for (const key of Object.keys(patterns)) {
        values.push(this.#type(patterns[key], indent, depth + 1));
        if (this.#exhausted) return UNKNOWN;
      }
    }
    const record = values.length > 0 ? union(values) : null;
    const recordType = record ? atom(`Record<string, ${record.text}>`) : null;
    if (keys.length === 0) {
      if (recordType && record?.text !== "unknown") return recordType;
      return atom(additional === false ? "{}" : "Record<string, unknown>");
    }
    const list = own(schema, "required");
    const required = new Set(Array.isArray(list) ? list.filter((r) => typeof r === "string") : []);
    const inner = `${indent}  `;
    let out = "{\n";
    for (const key of keys) {
      const prop = (properties as Record<string, unknown>)[key];
      const doc = comment(docText(prop), inner);
      const ty = this.#type(prop, inner, depth + 1);
      const line = `${inner}${propertyKey(key)}${required.has(key) ? "" : "?"}: ${ty.text};\n`;
      if (this.#exhausted || !this.#spend(doc.length + line.length - ty.text.length)) return UNKNOWN;
      out += doc + line;
    }
    const object = atom(`${out}${indent}}`);
    return recordType && record?.text !== "unknown" ? intersection([object, recordType]) : object;
  }

  /** A `$ref` within the schema: the name of its type, declared once; `unknown` for any other reference. */
  #ref(ref: string): Ty {
    // Follow references that are only a reference, so an alias cycle ends.
    let pointer = ref;
    let target: unknown;
    const seen = new Set<string>();
    for (;;) {
      if (seen.has(pointer) || seen.size > 16) return UNKNOWN;
      seen.add(pointer);
      target = this.#resolve(pointer);
      if (target === undefined) return UNKNOWN;
      const next = isObject(target) ? own(target, "$ref") : undefined;
      if (typeof next !== "string" || Object.keys(target as object).some((k) => k !== "$ref" && k !== "description" && k !== "title")) break;
      pointer = next;
    }
    const key = this.#refKey(pointer, target);
    const known = this.#names.get(key);
    if (known !== undefined) return atom(known);
    if (this.#names.size >= MAX_NAMED) return UNKNOWN;
    const segments = pointer.split("/");
    const base = identifier(pointer === "#" ? this.#root.name : decodePointer(segments[segments.length - 1] as string));
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}${n}`;
    this.#taken.add(name);
    this.#names.set(key, name);
    // The body, at the top level: its own references name it.
    const root = this.#root;
    const body = this.#type(target, "", 0);
    this.#root = root;
    const text = `${comment(docText(target), "")}type ${name} = ${body.text};\n`;
    this.#spend(text.length - body.text.length);
    this.declarations.push(text);
    return atom(name);
  }

  /** The schema a local JSON Pointer (`#`, `#/$defs/Node`) points to, or undefined. */
  #resolve(pointer: string): unknown {
    if (pointer === "#") return this.#root.schema;
    if (!pointer.startsWith("#/")) return undefined;
    let at: unknown = this.#root.schema;
    const segments = pointer.slice(2).split("/");
    if (segments.length > 16) return undefined;
    for (const s of segments) {
      const key = decodePointer(s);
      if (isObject(at) && Object.hasOwn(at, key)) at = at[key];
      else if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < at.length) at = at[Number(key)];
      else return undefined;
    }
    return isObject(at) || typeof at === "boolean" ? at : undefined;
  }

  /**
   * Two references are one type when they mean the same: the same pointer
   * into the same definitions. A definition without references is known by
   * its name and text, so tools whose schemas repeat it (under `$defs` or
   * `definitions`) share one declaration.
   */
  #refKey(pointer: string, target: unknown): string {
    const root = this.#root.schema;
    if (pointer !== "#") {
      const text = this.#text(target);
      if (text && !text.refs) return `${pointer.slice(pointer.lastIndexOf("/") + 1)}\0${text.id}`;
      const defs = this.#text(own(root, "$defs"));
      const definitions = this.#text(own(root, "definitions"));
      if (defs !== null && definitions !== null && /^#\/(\$defs|definitions)\//.test(pointer)) return `${pointer}\0${defs.id}\0${definitions.id}`;
    }
    let id = this.#rootIds.get(root);
    if (id === undefined) this.#rootIds.set(root, (id = this.#rootIds.size));
    return `${pointer}\0#${id}`;
  }

  /**
   * A small id of `v`'s JSON text (equal texts, equal ids) and whether it
   * holds a `$ref`; null when it has none (a cycle of objects). Kept per
   * object: each is stringified once however often it is referred to.
   */
  #text(v: unknown): { id: number; refs: boolean } | null {
    if (v === undefined) return { id: -1, refs: false };
    if (v === null || typeof v !== "object") return { id: this.#intern(JSON.stringify(v) ?? ""), refs: false };
    let text = this.#texts.get(v);
    if (text === undefined) {
      let json: string | undefined;
      try {
        json = JSON.stringify(v);
      } catch {
        json = undefined;
      }
      text = json === undefined ? null : { id: this.#intern(json), refs: json.includes('"$ref"') };
      this.#texts.set(v, text);
    }
    return text;
  }

  #intern(text: string): number {
    let id = this.#textIds.get(text);
    if (id === undefined) this.#textIds.set(text, (id = this.#textIds.size));
    return id;
  }
}

/** A JSON Pointer segment's text (`~1` is `/`, `~0` is `~`; percent-encoding decoded). */
function decodePointer(segment: string): string {
  let s = segment;
  try {
    s = decodeURIComponent(s);
  } catch {
    // not percent-encoded
  }
  return s.replaceAll("~1", "/").replaceAll("~0", "~");
}

