// The argument type of a tool, read off its schema at compile time. Types
// only: no schema library is imported, each is recognised by its shape, so
// `cordon`'s types compile whether or not zod or ai is installed.

/**
 * What a tool's `execute` receives for the schema `S`:
 * - a Zod (3 or 4) or other Standard Schema: its output type (after
 *   transforms and defaults, as the parse hands it over);
 * - an AI SDK `jsonSchema<T>()` or `zodSchema()`: its `T`;
 * - a JSON Schema literal (`as const`, or written inline in `tool()`): the
 *   value it describes ({@link FromJsonSchema});
 * - no schema: any JSON object.
 * A schema it cannot read (`any`, a JSON Schema typed as a plain record)
 * gives `unknown`.
 */
export type InferToolInput<S> = 0 extends 1 & S
  ? unknown
  : [S] extends [undefined | null]
    ? Record<string, unknown>
    : S extends { readonly "~standard": { readonly types?: infer T } }
      ? NonNullable<T> extends { readonly output: infer O }
        ? O
        : unknown
      : S extends { readonly _output: infer O }
        ? O
        : S extends { readonly jsonSchema: unknown; readonly _type: infer T }
          ? T
          : FromJsonSchema<S>;

/** JSON Schema's primitive type names. */
type JsonTypeName = "string" | "number" | "integer" | "boolean" | "null" | "object" | "array";

/**
 * The TypeScript type of the values a JSON Schema literal admits: `const`,
 * `enum`, `anyOf`/`oneOf`, `type` (one name or an array of names) with
 * `properties`/`required` for objects and `items` for arrays. Anything else
 * (`$ref`, `allOf`, tuples, `additionalProperties` alone) is `unknown`, as
 * is a schema whose keywords are typed `string` rather than literals.
 */
export type FromJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer U)[] }
      ? FromJsonSchema<U>
      : S extends { readonly oneOf: readonly (infer U)[] }
        ? FromJsonSchema<U>
        : S extends { readonly type: infer T }
          ? T extends readonly (infer N)[]
            ? FromJsonType<N, S>
            : FromJsonType<T, S>
          : unknown;

/** The values of type name `N` (distributed over a union of names), `S` giving properties or items. */
type FromJsonType<N, S> = N extends JsonTypeName
  ? N extends "string"
    ? string
    : N extends "number" | "integer"
      ? number
      : N extends "boolean"
        ? boolean
        : N extends "null"
          ? null
          : N extends "array"
            ? S extends { readonly items: infer I }
              ? FromJsonSchema<I>[]
              : unknown[]
            : FromJsonObject<S>
  : unknown;

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

/** An object schema's value: its required properties, then the optional ones. */
type FromJsonObject<S> = S extends { readonly properties: infer P }
  ? Flat<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromJsonSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromJsonSchema<P[K]>;
      }
    >
  : Record<string, unknown>;

/** One object type instead of an intersection, for readable hovers and messages. */
type Flat<T> = { [K in keyof T]: T[K] } & {};
