// cordon's tool(): execute's argument is inferred from the schema; a tool
// of the wrong type does not compile.
import { z } from "zod";
import { z as z3 } from "zod/v3";
import * as zm from "zod/mini";
import { Sandbox, tool, type InferToolInput, type ToolExecuteOptions } from "cordon";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): void {}
type Arg<T extends { execute(args: never, options: ToolExecuteOptions): unknown }> = Parameters<T["execute"]>[0];

const options: ToolExecuteOptions = { toolCallId: "1", toolName: "t", messages: [] };

// Zod 4, its mini API, and Zod 3: the parse's output, transforms applied.
const weather = tool({
  name: "get_weather",
  inputSchema: z.object({ city: z.string(), days: z.number().int().default(1), unit: z.enum(["C", "F"]).optional() }),
  execute: async ({ city, days, unit }) => ({ city: city.toUpperCase(), days: days + 1, unit }),
});
expectType<Equal<Arg<typeof weather>, { city: string; days: number; unit?: "C" | "F" | undefined }>>();
const trimmed = tool({
  name: "count",
  inputSchema: z.object({ text: z.string().transform((s) => s.length) }),
  execute: ({ text }) => text + 1,
});
expectType<Equal<Arg<typeof trimmed>, { text: number }>>();
const mini = tool({ name: "mini", inputSchema: zm.object({ q: zm.string() }), execute: ({ q }) => q.length });
expectType<Equal<Arg<typeof mini>, { q: string }>>();
const legacy = tool({ name: "legacy", inputSchema: z3.object({ n: z3.number() }), execute: ({ n }) => n * 2 });
expectType<Equal<Arg<typeof legacy>, { n: number }>>();

// JSON Schema, inline or `as const`.
const search = tool({
  name: "search",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string" },
      limit: { type: "integer" },
      tags: { type: "array", items: { type: "string" } },
      sort: { enum: ["asc", "desc"] },
      after: { anyOf: [{ type: "string" }, { type: "null" }] },
      strict: { type: "boolean", const: true },
    },
    required: ["query", "tags"],
    additionalProperties: false,
  },
  execute: ({ query, limit, tags, sort, after }) => [query.trim(), limit?.toFixed(), tags.join(","), sort, after],
});
expectType<Equal<Arg<typeof search>, { query: string; tags: string[]; limit?: number; sort?: "asc" | "desc"; after?: string | null; strict?: true }>>();
const schema = {
  type: "object",
  properties: { id: { type: ["string", "integer"] }, at: { oneOf: [{ type: "number" }, { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] }] } },
  required: ["id", "at"],
} as const;
expectType<Equal<InferToolInput<typeof schema>, { id: string | number; at: number | { ms: number } }>>();
// A schema typed as a plain record says nothing about the value.
const loose: Record<string, unknown> = { type: "object" };
expectType<Equal<InferToolInput<typeof loose>, unknown>>();

// No schema: any JSON object, or the type execute declares.
const free = tool({ name: "free", execute: (args) => Object.keys(args) });
expectType<Equal<Arg<typeof free>, Record<string, unknown>>>();
const declared = tool({ name: "declared", execute: async (args: { a: number; b: number }) => args.a + args.b });
expectType<Equal<Arg<typeof declared>, { a: number; b: number }>>();

// needsApproval sees the same argument type.
tool({
  name: "pay",
  inputSchema: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => amount > 100,
  execute: ({ amount }) => amount,
});

await Sandbox.create({ tools: [weather, trimmed, mini, legacy, search, free, declared] });
await Sandbox.create({
  tools: {
    add: (args) => args,
    mul: async (args: { a: number; b: number }) => args.a * args.b,
    echo: { description: "Echo", inputSchema: { type: "object" }, execute: async (args) => args },
  },
});

// What must not compile.
// @ts-expect-error execute declares an argument type its schema does not produce
tool({ name: "bad", inputSchema: z.object({ city: z.string() }), execute: (args: { city: number }) => args.city });
// @ts-expect-error execute reads a property the JSON Schema does not have
tool({ name: "bad", inputSchema: { type: "object", properties: { a: { type: "string" } } }, execute: ({ b }) => b });
// @ts-expect-error a tool called with the wrong argument type
await weather.execute({ city: 7 }, options);
// @ts-expect-error a tool called with the wrong argument type (JSON Schema)
await search.execute({ query: "x", tags: [1] }, options);
// @ts-expect-error a limit that does not exist
await Sandbox.create({ limits: { timeout: 1000 } });
// @ts-expect-error a limit of the wrong type
await Sandbox.create({ limits: { timeoutMs: "1s" } });
// @ts-expect-error a capability without a method
await Sandbox.create({ capabilities: [{ maxCalls: 3 }] });
