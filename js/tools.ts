// Tools and their schemas: a user's tool entries made uniform, their
// schemas exported to JSON Schema and parsed with their own library.

import { CordonError } from "./errors";
import { isPlainObject, show } from "./options";
import type { InferToolInput } from "./infer";
import type { JsonSchema, NeedsApproval, ToolDefinition, ToolExecuteOptions } from "./types";

/** What {@link tool} takes: a definition whose `inputSchema` is `Schema`. */
export interface ToolDefinitionInput<Schema, Args = InferToolInput<Schema>> extends Omit<ToolDefinition<Args>, "inputSchema"> {
  /** JSON Schema of the argument object, a Zod 4 schema, a Standard Schema with JSON Schema, or an AI SDK `jsonSchema()`. */
  inputSchema?: Schema;
}

/**
 * Defines a tool. `execute`'s argument is typed from `inputSchema`: a Zod or
 * Standard Schema's output, an AI SDK schema's type, the value a JSON Schema
 * literal describes (see {@link InferToolInput}). Without a schema it is the
 * type `execute` declares, else any JSON object.
 */
export function tool<Args = Record<string, unknown>>(definition: ToolDefinitionInput<undefined, Args>): ToolDefinition<Args>;
export function tool<const Schema>(definition: ToolDefinitionInput<Schema>): ToolDefinition<InferToolInput<Schema>>;
export function tool(definition: ToolDefinitionInput<unknown, never>): ToolDefinition<never> {
  return definition;
}

export interface NormalTool {
  name: string;
  description: string | undefined;
  inputSchema: JsonSchema | undefined;
  /** JSON Schema of the result, for `describe()` only: cordon does not check results against it. */
  outputSchema: JsonSchema | undefined;
  /** The schema's own parse (Zod, Standard Schema, an AI SDK schema), run on the host after the policy allowed a call. */
  parse: SchemaParse | undefined;
  needsApproval: boolean | NeedsApproval<unknown> | undefined;
  execute: (args: unknown, options: ToolExecuteOptions) => unknown;
}

/** A parse's outcome: the value the tool gets, or why the arguments were refused. */
export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };
type SchemaParse = (args: unknown) => Parsed | PromiseLike<Parsed>;

/**
 * `schema` as JSON Schema only, for a tool whose framework parses its
 * arguments itself (LangChain's `invoke`): the policy checks the JSON
 * Schema, and the host does not parse a second time (a transform would
 * apply twice).
 * @internal
 */
export function jsonSchemaOnly(name: string, schema: unknown): { jsonSchema: JsonSchema } | undefined {
  const json = exportSchema(name, schema, "input");
  return json === undefined ? undefined : { jsonSchema: json };
}

/** Which of a tool's schemas: its argument's (`inputSchema`) or its result's (`outputSchema`). */
type Io = "input" | "output";

/** {@link toJsonSchema}, with a library's own refusal as `INVALID_OPTIONS` naming the tool. */
function exportSchema(name: string, schema: unknown, io: Io): JsonSchema | undefined {
  try {
    return toJsonSchema(name, schema, io);
  } catch (err) {
    if (err instanceof CordonError) throw err;
    // The library's exporter refused (a BigInt, a Date, a transform it cannot express).
    const why = err instanceof Error ? err.message : String(err);
    throw new CordonError("INVALID_OPTIONS", `the ${io}Schema of tool ${JSON.stringify(name)} cannot become JSON Schema: ${issueText(why)}`);
  }
}

/** At most 300 characters of a schema library's message, one line. */
function issueText(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** The first issue of a Zod or Standard Schema failure, as `path: message`. */
function firstIssue(issues: unknown): string {
  const first = Array.isArray(issues) ? (issues[0] as { path?: unknown[]; message?: unknown } | undefined) : undefined;
  if (!first) return "the arguments do not match the tool's schema";
  const path = Array.isArray(first.path)
    ? first.path.map((p) => (typeof p === "object" && p !== null && "key" in p ? String((p as { key: unknown }).key) : String(p))).join(".")
    : "";
  return issueText(`${path ? `${path}: ` : ""}${String(first.message ?? "invalid")}`);
}

/**
 * The parse a tool's schema defines, when it has one beyond JSON Schema:
 * Zod's `safeParse` (refinements, formats, transforms, defaults), a Standard
 * Schema's `validate`, an AI SDK schema's `validate`. Plain JSON Schema has
 * none: the policy checks it fully.
 */
function schemaParse(schema: unknown): SchemaParse | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const s = schema as Record<string, any>;
  if (typeof s.safeParseAsync === "function" && (s._zod || s._def)) {
    return async (args) => {
      const r = await s.safeParseAsync(args);
      return r.success ? { ok: true, value: r.data } : { ok: false, reason: firstIssue(r.error?.issues) };
    };
  }
  const std = s["~standard"];
  if (std && typeof std === "object" && typeof std.validate === "function") {
    return (args) => {
      const settle = (r: { value?: unknown; issues?: unknown }): Parsed =>
        r.issues ? { ok: false, reason: firstIssue(r.issues) } : { ok: true, value: r.value };
      const r = std.validate(args);
      return r && typeof r.then === "function" ? Promise.resolve(r).then(settle) : settle(r);
    };
  }
  if (typeof s.validate === "function") {
    return (args) => {
      const settle = (r: { success?: boolean; value?: unknown; error?: unknown }): Parsed =>
        r?.success === true
          ? { ok: true, value: r.value }
          : { ok: false, reason: issueText(r?.error instanceof Error ? r.error.message : "the arguments do not match the tool's schema") };
      const r = s.validate(args);
      return r && typeof r.then === "function" ? Promise.resolve(r).then(settle) : settle(r);
    };
  }
  return undefined;
}

/**
 * Converts a schema to JSON Schema with its library's own exporter: the
 * values it accepts (`input`) or gives (`output`), which differ for a
 * schema with transforms or defaults.
 */
function toJsonSchema(name: string, schema: unknown, io: Io): JsonSchema | undefined {
  if (schema === undefined || schema === null) return undefined;
  if (typeof schema !== "object") {
    throw new CordonError("INVALID_OPTIONS", `the ${io}Schema of tool ${JSON.stringify(name)} must be an object`);
  }
  const s = schema as Record<string, any>;
  // AI SDK `jsonSchema()` / `zodSchema()` wrap the JSON Schema.
  if (s.jsonSchema && typeof s.jsonSchema === "object" && typeof s.jsonSchema.then !== "function") {
    return s.jsonSchema as JsonSchema;
  }
  const std = s["~standard"];
  if (std && typeof std === "object") {
    // Standard JSON Schema (the interface newer validators implement).
    if (std.jsonSchema && typeof std.jsonSchema[io] === "function") {
      return std.jsonSchema[io]({ target: "draft-2020-12" }) as JsonSchema;
    }
    if (std.vendor === "zod" && !s._zod && s._def) return zod3JsonSchema(name, schema, io);
    if (std.vendor === "zod" && s._zod) {
      let z: { toJSONSchema?: (s: unknown, o?: unknown) => JsonSchema };
      try {
        z = require("zod");
      } catch {
        throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)} has a Zod schema, but "zod" cannot be loaded`);
      }
      if (typeof z.toJSONSchema !== "function") {
        throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)}: the installed zod has no toJSONSchema (zod 4 needed)`);
      }
      return z.toJSONSchema(schema, { io });
    }
    throw new CordonError(
      "INVALID_OPTIONS",
      `tool ${JSON.stringify(name)} has a ${String(std.vendor)} schema cordon cannot convert; pass JSON Schema, a Zod 4 schema or an AI SDK jsonSchema()`,
    );
  }
  if (s._def && typeof s.safeParseAsync === "function") return zod3JsonSchema(name, schema, io);
  return s as JsonSchema;
}

/**
 * A Zod 3 schema (zod 3.x, or `zod/v3`) as JSON Schema. Zod 3 has no
 * exporter of its own, so the first installed of the converters the
 * frameworks use does it: `zod-to-json-schema`, the AI SDK's `zodSchema`,
 * `@langchain/core`'s `toJsonSchema`.
 */
function zod3JsonSchema(name: string, schema: unknown, io: Io): JsonSchema {
  const converters: Array<() => unknown> = [
    () => (require("zod-to-json-schema") as { zodToJsonSchema: (s: unknown, o: object) => unknown }).zodToJsonSchema(schema, {
      $refStrategy: "none",
      pipeStrategy: io,
      effectStrategy: "input",
    }),
    () => (require("ai") as { zodSchema: (s: unknown) => { jsonSchema: unknown } }).zodSchema(schema).jsonSchema,
    () => (require("@langchain/core/utils/json_schema") as { toJsonSchema: (s: unknown) => unknown }).toJsonSchema(schema),
  ];
  for (const convert of converters) {
    let converted: unknown;
    try {
      converted = convert();
    } catch (e) {
      if ((e as { code?: unknown })?.code === "MODULE_NOT_FOUND") continue;
      throw new CordonError("INVALID_OPTIONS", `the ${io}Schema of tool ${JSON.stringify(name)} cannot be converted to JSON Schema: ${String((e as Error)?.message ?? e)}`);
    }
    if (converted !== null && typeof converted === "object" && typeof (converted as { then?: unknown }).then !== "function") {
      return converted as JsonSchema;
    }
  }
  throw new CordonError(
    "INVALID_OPTIONS",
    `tool ${JSON.stringify(name)} has a Zod 3 schema, and no converter is installed: install zod-to-json-schema, use zod 4, or pass JSON Schema`,
  );
}

function normalTool(name: unknown, entry: unknown): NormalTool {
  if (typeof name !== "string") {
    throw new CordonError("INVALID_OPTIONS", `a tool name must be a string, got ${show(name)}`);
  }
  if (typeof entry === "function") {
    return { name, description: undefined, inputSchema: undefined, outputSchema: undefined, parse: undefined, needsApproval: undefined, execute: entry as NormalTool["execute"] };
  }
  if (entry === null || typeof entry !== "object") {
    throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)} must be a function or { execute }, got ${show(entry)}`);
  }
  const e = entry as Record<string, unknown>;
  if (typeof e.execute !== "function") {
    throw new CordonError("INVALID_OPTIONS", `tool ${JSON.stringify(name)} has no execute function`);
  }
  if (e.description !== undefined && typeof e.description !== "string") {
    throw new CordonError("INVALID_OPTIONS", `the description of tool ${JSON.stringify(name)} must be a string`);
  }
  const needsApproval = e.needsApproval;
  if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    throw new CordonError("INVALID_OPTIONS", `the needsApproval of tool ${JSON.stringify(name)} must be a boolean or a function`);
  }
  const schema = e.inputSchema ?? e.parameters;
  const inputSchema = exportSchema(name, schema, "input");
  const outputSchema = exportSchema(name, e.outputSchema, "output");
  return {
    name,
    description: e.description as string | undefined,
    inputSchema,
    outputSchema,
    parse: schemaParse(schema),
    needsApproval: needsApproval as NormalTool["needsApproval"],
    execute: e.execute as NormalTool["execute"],
  };
}

export function normalTools(tools: unknown): NormalTool[] {
  if (tools === undefined) return [];
  if (Array.isArray(tools)) {
    return tools.map((t) => {
      if (t === null || typeof t !== "object") {
        throw new CordonError("INVALID_OPTIONS", `tools must hold tool() definitions, got ${show(t)}`);
      }
      return normalTool((t as ToolDefinition).name, t);
    });
  }
  if (!isPlainObject(tools)) {
    throw new CordonError("INVALID_OPTIONS", `tools must be an array or a record, got ${show(tools)}`);
  }
  return Object.entries(tools).map(([name, entry]) => normalTool(name, entry));
}
