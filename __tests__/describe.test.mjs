// sb.describe(): the prompt text for a sandbox, exact and deterministic.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, tool } from "cordon";
import { mcpTools } from "cordon/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchema, tool as aiTool } from "ai";
import * as z from "zod";

const options = () => ({
  tools: [
    tool({
      name: "get_weather",
      description: "Current weather for a city.",
      inputSchema: {
        type: "object",
        properties: { city: { type: "string", description: "City name" }, units: { enum: ["c", "f"] } },
        required: ["city"],
      },
      execute: async () => 1,
    }),
    tool({
      name: "stripe/charges/create",
      description: "Charge a card.",
      inputSchema: {
        type: "object",
        properties: {
          amount: { type: "integer" },
          currency: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
          meta: { anyOf: [{ type: "null" }, { type: "object", properties: { "order-id": { type: "string" } } }] },
        },
        required: ["amount", "currency"],
      },
      execute: async () => 1,
    }),
    tool({ name: "admin.drop-table", execute: async () => 1 }),
  ],
  capabilities: [
    { method: "get_weather", maxCalls: 5 },
    {
      method: "stripe.charges.*",
      constraints: [
        { param: "amount", op: "<=", value: 10000 },
        { param: "currency", op: "in", value: ["USD", "EUR"] },
      ],
      maxCalls: 100,
    },
  ],
  limits: { timeoutMs: 5000 },
});

const expected = `Run code in a cordon sandbox: no network, no host files, no processes.

Languages:
- javascript, or typescript (its types are removed before it runs; enum, namespace and parameter properties are errors): JavaScript ES2023 on QuickJS. The code is the body of an async function: use top-level \`await\`; a \`return\`ed value is the result; \`console.log\` prints. \`fs\` (Node-like, sync and \`fs.promises\`) reads and writes files; \`require\` and top-level \`import\` give the node: modules path, fs, fs/promises, util, events, buffer, crypto, url, process and readline, no packages; standard input is \`fs.readFileSync(0)\` or \`process.stdin\`; \`await shell("cmd")\` runs the shell and returns { stdout, stderr, exitCode }. Declarations (\`let\`, \`const\`, \`var\`, \`function\`) end with the run; properties of \`globalThis\` persist between runs. As in Node, a run ends once the code has finished and no timer or tool call it started is pending, so a \`setInterval\` never cleared runs until the time limit; an unhandled promise rejection ends the run with exit code 1. Also there: setTimeout, setInterval, setImmediate, queueMicrotask, URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone, AbortController, AbortSignal, EventTarget, Event, console.table, console.group, console.count, console.time, console.assert, console.dir, crypto.getRandomValues, crypto.randomUUID, crypto.subtle.digest, crypto.subtle.sign, performance.now, Buffer.from, require, process.stdout.write, process.exit, process.on. Not there: fetch (no network), Blob, WebAssembly.
- shell: bash-compatible (pipes, redirections, variables, functions, if/for/while/case, $(...), $((...))). Its commands (most take \`--help\`): [ awk base64 basename bash cat chmod column comm command cp cut date diff dirname du echo egrep env expr false fgrep file find fold grep head jq js kill ln ls md5sum mkdir mktemp mv nl node od paste printenv printf pwd realpath rev rm rmdir sed seq sh sha256sum sleep sort split stat tac tail tee test tool touch tr true umask uniq wc which xargs xxd yes. \`js -e CODE\` runs JavaScript. No other programs exist.

Files: /workspace (the working directory) and /tmp are writable; everything else is read-only. Files persist between runs.

Tools (JavaScript: \`await name(args)\`; shell: \`tool name --key value\` prints the JSON result):
\`\`\`ts
/** Current weather for a city. */
declare function get_weather(args: {
  /** City name */
  city: string;
  units?: "c" | "f";
}): Promise<unknown>;
declare namespace stripe {
  namespace charges {
    /** Charge a card. */
    function create(args: {
      amount: number;
      currency: string;
      tags?: string[];
      meta?: null | {
        "order-id"?: string;
      };
    }): Promise<unknown>;
  }
}
declare namespace tools {
  function call(name: "admin.drop-table", args: Record<string, unknown>): Promise<unknown>;
}
\`\`\`
Allowed calls (anything else is denied with a catchable error):
- get_weather: at most 5 calls
- stripe.charges.*: amount <= 10000 and currency in ["USD","EUR"]; at most 100 calls
Not granted (calls are denied): admin.drop-table.

Limits per run: 5 s wall time, 10 s CPU, 64 MiB memory, 1 MiB of output per stream, 1000 tool calls. Files: 64 MiB in at most 10000 files. A run that hits a limit ends with an error.
`;

test("describe() gives the model the languages, typed tools, grants, files and limits", async () => {
  const sb = await Sandbox.create(options());
  assert.equal(sb.describe(), expected);
  // Deterministic: another sandbox with the same options says the same.
  const again = await Sandbox.create(options());
  assert.equal(again.describe(), expected);
  await sb.close();
  await again.close();
});

test("describe() of a sandbox without tools says so", async () => {
  const sb = await Sandbox.create();
  const text = sb.describe();
  assert.ok(text.includes("\nTools: none.\n"), text);
  assert.ok(text.endsWith(
    "Limits per run: 30 s wall time, 10 s CPU, 64 MiB memory, 1 MiB of output per stream, 1000 tool calls. Files: 64 MiB in at most 10000 files. A run that hits a limit ends with an error.\n",
  ), text);
  await sb.close();
});

test("describe() says what the guest has and lacks, and each is so", async () => {
  const sb = await Sandbox.create();
  const text = sb.describe();
  const list = (label) => text.match(new RegExp(`${label}: ([^.]+(?:\\.[a-zA-Z]+[^.]*)*)\\.`))[1].split(", ");
  const present = list("Also there");
  const missing = list("Not there");
  assert.ok(present.length >= 20 && missing.length >= 3, text);
  // "fetch (no network)" names fetch.
  const expr = (item) => item.split(" ")[0];
  const types = async (items) =>
    JSON.parse((await sb.run(`return JSON.stringify([${items.map((i) => `typeof ${expr(i)}`).join(", ")}])`)).value);
  assert.deepEqual(await types(present), present.map(() => "function"), present.join());
  assert.deepEqual(await types(missing), missing.map(() => "undefined"), missing.join());
  // Declarations end with the run; globalThis persists; type annotations fail.
  await sb.run("let a = 1; var b = 2; function c() {} globalThis.d = 4");
  assert.equal((await sb.run("return [typeof a, typeof b, typeof c, typeof d].join()")).value, "undefined,undefined,undefined,number");
  assert.equal((await sb.run("const t: number = 1; return t")).error.name, "SyntaxError");
  assert.equal((await sb.run("const t: number = 1; return t", { language: "typescript" })).value, "1");
  assert.equal((await sb.run('import { join } from "node:path"; return join("a", "b")')).value, "a/b");
  // Every command it lists runs (and `--help` of most).
  const commands = text.match(/Its commands \(most take `--help`\): ([^\n]+?)\. /)[1].split(" ");
  assert.ok(commands.includes("jq") && commands.includes("awk") && !commands.includes("cd"), commands.join(" "));
  const script = commands.map((c) => `type ${c} >/dev/null || echo "no ${c}"`).join("\n");
  const ran = await sb.run(script, { language: "shell" });
  assert.deepEqual([ran.stdout, ran.stderr, ran.exitCode], ["", "", 0]);
  await sb.close();
});

/** The declarations block of a describe() text. */
const declarationsOf = (text) => text.slice(text.indexOf("```ts\n") + 6, text.indexOf("```\n", text.indexOf("```ts\n") + 6));

test("describe() names references safely: cycles end, names never collide, foreign references are unknown", async () => {
  const tools = [
    tool({
      name: "refs",
      execute: async () => 1,
      // Not sent to the policy (which compiles input schemas): only describe() reads an output schema.
      outputSchema: {
        type: "object",
        $defs: {
          A: { $ref: "#/$defs/B" },
          B: { $ref: "#/$defs/A" },
          Self: { $ref: "#/$defs/Self" },
          Alias: { $ref: "#/$defs/Real", description: "An alias." },
          Real: { type: "boolean" },
          string: { type: "number" },
          "my type/v2": { enum: ["x", "y"] },
          "9lives": { const: 9 },
          refs: { type: "null" },
          Never: false,
        },
        properties: {
          a: { $ref: "#/$defs/A" },
          self: { $ref: "#/$defs/Self" },
          alias: { $ref: "#/$defs/Alias" },
          reserved: { $ref: "#/$defs/string" },
          spaced: { $ref: "#/$defs/my%20type~1v2" },
          digit: { $ref: "#/$defs/9lives" },
          tool: { $ref: "#/$defs/refs" },
          never: { $ref: "#/$defs/Never" },
          proto: { $ref: "#/constructor/prototype" },
          hidden: { $ref: "#/__proto__" },
          remote: { $ref: "https://example.com/schema.json" },
          pointer: { $ref: "#/properties/alias" },
          missing: { $ref: "#/$defs/Nope" },
        },
      },
    }),
    // Two tools whose `Item`s differ get Item and Item2; one with the same `Item` shares it.
    tool({ name: "one", execute: async () => 1, outputSchema: { $defs: { Item: { type: "string" } }, type: "array", items: { $ref: "#/$defs/Item" } } }),
    tool({ name: "two", execute: async () => 1, outputSchema: { definitions: { Item: { type: "number" } }, type: "array", items: { $ref: "#/definitions/Item" } } }),
    tool({ name: "three", execute: async () => 1, outputSchema: { definitions: { Item: { type: "string" } }, type: "array", items: { $ref: "#/definitions/Item" } } }),
  ];
  const sb = await Sandbox.create({ tools });
  assert.equal(
    declarationsOf(sb.describe()),
    `type Item = string;
type Real = boolean;
type string2 = number;
type my_type_v2 = "x" | "y";
type _9lives = 9;
type refs2 = null;
type Never = never;
type Item2 = number;
declare function one(args: Record<string, unknown>): Promise<Item[]>;
declare function refs(args: Record<string, unknown>): Promise<{
  a?: unknown;
  self?: unknown;
  alias?: Real;
  reserved?: string2;
  spaced?: my_type_v2;
  digit?: _9lives;
  tool?: refs2;
  never?: Never;
  proto?: unknown;
  hidden?: unknown;
  remote?: unknown;
  pointer?: Real;
  missing?: unknown;
}>;
declare function three(args: Record<string, unknown>): Promise<Item[]>;
declare function two(args: Record<string, unknown>): Promise<Item2[]>;
`,
  );
  await sb.close();
});

test("describe() shows the result type of cordon tools from Zod and of AI SDK tools; `$ref: \"#\"` names the tool's own type", async () => {
  const Tree = z.object({ value: z.number(), get children() { return z.array(Tree); } });
  const sb = await Sandbox.create({
    tools: {
      tree: tool({ name: "tree", inputSchema: z.object({ depth: z.number().int().min(1).default(2) }), outputSchema: Tree, execute: async () => ({ value: 1, children: [] }) }),
      weather: aiTool({
        description: "Weather.",
        inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
        outputSchema: jsonSchema({ type: "object", properties: { celsius: { type: "number" }, sky: { enum: ["clear", "cloudy"] } }, required: ["celsius"] }),
        execute: async () => ({ celsius: 20 }),
      }),
      untyped: aiTool({ description: "No output schema.", inputSchema: z.object({ q: z.string() }), execute: async () => 1 }),
    },
  });
  assert.equal(
    declarationsOf(sb.describe()),
    `type TreeResult = {
  value: number;
  children: TreeResult[];
};
declare function tree(args: {
  /** @minimum 1 @default 2 */
  depth?: number;
}): Promise<TreeResult>;
/** No output schema. */
declare function untyped(args: {
  q: string;
}): Promise<unknown>;
/** Weather. */
declare function weather(args: {
  city: string;
}): Promise<{
  celsius: number;
  sky?: "clear" | "cloudy";
}>;
`,
  );
  await sb.close();
});

test("describe() bounds all declarations together: past 100000 characters a tool's types are unknown", async () => {
  // Each output schema renders to some 14000 characters, under a tool's 16000.
  const big = { type: "object", properties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`field${i}`, { type: "string", description: "d".repeat(120) }])) };
  const names = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, "0")}`);
  const small = tool({ name: "z", outputSchema: { type: "object", properties: { ok: { type: "boolean" } } }, execute: async () => 1 });
  const sb = await Sandbox.create({ tools: [...names.map((name) => tool({ name, outputSchema: big, execute: async () => 1 })), small] });
  const text = declarationsOf(sb.describe());
  const body = Object.keys(big.properties).map((k) => `  /** ${"d".repeat(120)} */\n  ${k}?: string;\n`).join("");
  const full = (name) => `declare function ${name}(args: Record<string, unknown>): Promise<{\n${body}}>;\n`;
  const bare = (name) => `declare function ${name}(args: Record<string, unknown>): Promise<unknown>;\n`;
  // A tool costs 14300 (its lines but the types' names): six fit in 100000,
  // the seventh does not, and a small tool after them still does.
  assert.equal(
    text,
    names.map((n, i) => (i < 6 ? full(n) : bare(n))).join("") + "declare function z(args: Record<string, unknown>): Promise<{\n  ok?: boolean;\n}>;\n",
  );
  await sb.close();
});

test("an outputSchema that cannot become JSON Schema is INVALID_OPTIONS naming the tool", async () => {
  await assert.rejects(Sandbox.create({ tools: [tool({ name: "when", outputSchema: z.date(), execute: async () => 1 })] }), {
    name: "CordonError",
    code: "INVALID_OPTIONS",
    message: /^the outputSchema of tool "when" cannot become JSON Schema: /,
  });
  await assert.rejects(Sandbox.create({ tools: [tool({ name: "bad", outputSchema: "string", execute: async () => 1 })] }), {
    name: "CordonError",
    code: "INVALID_OPTIONS",
    message: 'the outputSchema of tool "bad" must be an object',
  });
});

// --- Schemas as real MCP servers list them ------------------------------

async function connected(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

/** A low-level SDK server listing `tools` as they are (JSON Schemas a Python or Go server would send). */
function rawServer(tools, call = async () => ({ content: [{ type: "text", text: "{}" }] })) {
  const server = new Server({ name: "raw", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, call);
  return server;
}

const lineItem = {
  type: "object",
  title: "LineItem",
  properties: {
    sku: { type: "string", title: "Sku" },
    quantity: { type: "integer", title: "Quantity", minimum: 1, maximum: 99 },
  },
  required: ["sku", "quantity"],
};

// The shapes of a FastMCP (pydantic) server: $defs, anyOf with null,
// titles, defaults, formats; its outputSchema wraps a list of models.
const orders = {
  name: "create_order",
  description: "Place an order.",
  inputSchema: {
    type: "object",
    $defs: {
      Address: {
        type: "object",
        title: "Address",
        description: "A postal address.",
        properties: {
          street: { type: "string", title: "Street" },
          zip: { type: "string", title: "Zip", pattern: "^[0-9]{5}$" },
          country: { type: "string", title: "Country", default: "US", minLength: 2, maxLength: 2 },
        },
        required: ["street", "zip"],
      },
      LineItem: lineItem,
    },
    properties: {
      email: { type: "string", format: "email", title: "Email", description: "Where the receipt goes." },
      items: { type: "array", items: { $ref: "#/$defs/LineItem" }, minItems: 1, title: "Items" },
      ship_to: { anyOf: [{ $ref: "#/$defs/Address" }, { type: "null" }], default: null, title: "Ship To" },
      gift: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], minItems: 1, items: { type: "boolean" }, title: "Gift" },
    },
    required: ["email", "items"],
  },
  outputSchema: {
    type: "object",
    properties: {
      id: { type: "string", format: "uuid" },
      items: { type: "array", items: { $ref: "#/$defs/LineItem" } },
      total: { type: "number", exclusiveMinimum: 0 },
    },
    required: ["id", "items", "total"],
    $defs: {
      // The same definition, sent again: declared once.
      LineItem: structuredClone(lineItem),
    },
  },
  annotations: { destructiveHint: true, openWorldHint: true },
};

// A draft-07 server: a recursive type under `definitions`, a tuple, a record
// with typed values and patternProperties, allOf, OpenAPI's nullable.
const tree = {
  name: "category_tree",
  description: "The category tree.",
  inputSchema: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      root: { $ref: "#/definitions/Category" },
      bounds: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false, description: "Price range" },
      labels: { type: "object", additionalProperties: { type: "string" } },
      headers: { type: "object", properties: { host: { type: "string" } }, patternProperties: { "^x-": { type: "string" }, "^n-": { type: "number" } } },
      owner: { allOf: [{ $ref: "#/definitions/Named" }, { type: "object", properties: { email: { type: "string" } }, required: ["email"] }] },
      note: { type: "string", nullable: true, deprecated: true },
    },
    required: ["root"],
    definitions: {
      Named: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      Category: {
        type: "object",
        description: "A category and its subcategories.",
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/definitions/Category" } },
        },
        required: ["name", "children"],
      },
    },
  },
  outputSchema: {
    type: "object",
    properties: {
      counts: { type: "object", additionalProperties: { type: "integer" } },
      pair: { type: "array", prefixItems: [{ type: "string" }, { enum: ["a", "b"] }] },
    },
    required: ["counts"],
  },
  annotations: { title: "Category tree", readOnlyHint: true, idempotentHint: true },
};

const expectedMcp = `/** A category and its subcategories. */
type Category = {
  name: string;
  children: Category[];
};
type Named = {
  name: string;
};
type LineItem = {
  sku: string;
  /** @minimum 1 @maximum 99 */
  quantity: number;
};
/** A postal address. */
type Address = {
  street: string;
  /** @pattern ^[0-9]{5}$ */
  zip: string;
  /** @minLength 2 @maxLength 2 @default "US" */
  country?: string;
};
type Node = {
  label: string;
  kids?: Node[];
};
declare namespace shop {
  /** (read-only, idempotent) Category tree: The category tree. */
  function category_tree(args: {
    root: Category;
    /** Price range */
    bounds?: [number, number];
    labels?: Record<string, string>;
    headers?: {
      host?: string;
    } & Record<string, string | number>;
    owner?: Named & {
      email: string;
    };
    /** @deprecated */
    note?: string | null;
  }): Promise<{
    counts: Record<string, number>;
    pair?: [string, "a" | "b", ...unknown[]];
  }>;
  /** (destructive, open world) Place an order. */
  function create_order(args: {
    /** Where the receipt goes. @format email */
    email: string;
    /** @minItems 1 */
    items: LineItem[];
    /** @default null */
    ship_to?: Address | null;
    gift?: [string, number?, ...boolean[]];
  }): Promise<{
    /** @format uuid */
    id: string;
    items: LineItem[];
    /** @exclusiveMinimum 0 */
    total: number;
  }>;
  /** (read-only) Walk a tree. */
  function walk(args: {
    /** Start and depth */
    from: [string, number];
    weights?: Record<string, number>;
  }): Promise<{
    root: Node;
    visited: number;
  }>;
}
`;

test("describe() renders $defs, recursion, tuples, records, allOf and output schemas of real MCP servers' tools", async () => {
  const raw = await connected(rawServer([orders, tree]));
  // The TypeScript SDK's own server, from Zod (draft-07 `definitions`, tuples as `items: [...]`).
  const sdk = new McpServer({ name: "zod", version: "1.0.0" });
  const TreeNode = z.object({ label: z.string(), get kids() { return z.array(TreeNode).optional(); } }).meta({ id: "Node" });
  sdk.registerTool(
    "walk",
    {
      description: "Walk a tree.",
      inputSchema: { from: z.tuple([z.string(), z.number().int()]).describe("Start and depth"), weights: z.record(z.string(), z.number()).optional() },
      outputSchema: { root: TreeNode, visited: z.number().int() },
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [], structuredContent: { root: { label: "a" }, visited: 1 } }),
  );
  const zod = await connected(sdk);
  const tools = [...(await mcpTools(raw, { prefix: "shop" })), ...(await mcpTools(zod, { prefix: "shop" }))];
  const sb = await Sandbox.create({ tools });
  assert.equal(declarationsOf(sb.describe()), expectedMcp);
  // The guest gets the structured result the output schema describes.
  const sb2 = await Sandbox.create({ tools, capabilities: [{ method: "shop.walk" }] });
  assert.equal((await sb2.run('return await shop.walk({ from: ["a", 1] })')).value, '{"root":{"label":"a"},"visited":1}');
  await sb2.close();
  await sb.close();
  await raw.close();
  await zod.close();
});

// A hostile server: one schema too wide, one too deep, one a reference bomb
// (each definition referring twice to the next: 2^60 paths inlined).
function hostileTools() {
  let deep = { type: "string" };
  for (let i = 0; i < 200; i++) deep = { type: "object", properties: { a: deep }, required: ["a"] };
  const wide = {
    type: "object",
    properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: "string", description: "x".repeat(200) }])),
  };
  const defs = { D60: { type: "string" } };
  for (let i = 59; i >= 0; i--) defs[`D${i}`] = { type: "object", properties: { l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } } };
  return [
    { name: "deep", inputSchema: { type: "object" }, outputSchema: deep },
    { name: "wide", inputSchema: wide, outputSchema: wide },
    { name: "bomb", inputSchema: { type: "object", $defs: defs, properties: { x: { $ref: "#/$defs/D0" } } } },
  ];
}

test("describe() of a hostile MCP server's schemas is bounded: unknown past the bounds, one declaration per definition", async () => {
  const client = await connected(rawServer(hostileTools()));
  const sb = await Sandbox.create({ tools: await mcpTools(client) });
  const started = performance.now();
  const text = declarationsOf(sb.describe());
  const elapsed = performance.now() - started;
  // Each definition once, in the order they complete (the last first).
  let bomb = "type D60 = string;\n";
  for (let i = 59; i >= 0; i--) bomb += `type D${i} = {\n  l?: D${i + 1};\n  r?: D${i + 1};\n};\n`;
  // Nesting past 8 levels is unknown where it is.
  let deep = "unknown";
  for (let i = 9; i >= 1; i--) deep = `{\n${"  ".repeat(i)}a: ${deep};\n${"  ".repeat(i - 1)}}`;
  assert.equal(
    text,
    `${bomb}declare function bomb(args: {\n  x?: D0;\n}): Promise<unknown>;\n` +
      `declare function deep(args: Record<string, unknown>): Promise<${deep}>;\n` +
      // 5000 described properties are past a tool's 16000 characters.
      "declare function wide(args: unknown): Promise<unknown>;\n",
  );
  assert.ok(elapsed < 1000, `${elapsed} ms`);
  await sb.close();
  await client.close();
});

test("tools whose names are not identifiers or are reserved words are declared as tools.call overloads, and the declarations parse as TypeScript", async () => {
  const ts = (await import("typescript")).default;
  const f = async () => 1;
  const sb = await Sandbox.create({
    tools: { class: f, "shop.delete": f, "shop.items.new": f, "x.await": f, "a-b": f, "shop.list": f },
    capabilities: [{ method: "**" }],
  });
  const d = sb.describe();
  const decl = d.slice(d.indexOf("```ts\n") + 6, d.indexOf("```\n", d.indexOf("```ts\n")));
  assert.equal(
    decl,
    `declare namespace shop {
  function list(args: Record<string, unknown>): Promise<unknown>;
}
declare namespace tools {
  function call(name: "a-b", args: Record<string, unknown>): Promise<unknown>;
  function call(name: "class", args: Record<string, unknown>): Promise<unknown>;
  function call(name: "shop.delete", args: Record<string, unknown>): Promise<unknown>;
  function call(name: "shop.items.new", args: Record<string, unknown>): Promise<unknown>;
  function call(name: "x.await", args: Record<string, unknown>): Promise<unknown>;
}
`,
  );
  const parsed = ts.createSourceFile("describe.d.ts", decl, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  assert.deepEqual(parsed.parseDiagnostics.map((x) => x.messageText), []);
  // Each is callable that way.
  const r = await sb.run(`return [await tools.call("class", {}), await tools.call("shop.delete", {}), await shop.delete({})]`);
  assert.equal(r.value, "[1,1,1]");
  await sb.close();
});
