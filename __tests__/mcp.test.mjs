// cordon/mcp in both directions, over the SDK's in-memory transport and over
// real stdio (`cordon mcp`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Sandbox } from "cordon";
import { createMcpServer, mcpTools } from "cordon/mcp";
import { assertCapped } from "./fixtures/capped.mjs";

async function connected(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

const text = (r) => r.content.map((c) => c.text).join("");

test("an MCP client runs code and files in a cordon sandbox", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 200 } });
  const client = await connected(createMcpServer(sb));
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["run_javascript", "run_shell", "read_file", "write_file"]);
  assert.match(tools[0].description, /^Run JavaScript in the sandbox\.\n\nRun code in a cordon sandbox/);

  assert.equal(text(await client.callTool({ name: "write_file", arguments: { path: "in.txt", content: "b\na\n" } })), "ok");
  const sh = await client.callTool({ name: "run_shell", arguments: { code: "sort in.txt > out.txt; wc -l < out.txt" } });
  assert.deepEqual([sh.isError, JSON.parse(text(sh))], [undefined, { exitCode: 0, stdout: "2\n", stderr: "" }]);
  assert.equal(text(await client.callTool({ name: "read_file", arguments: { path: "out.txt" } })), "a\nb\n");
  const js = await client.callTool({ name: "run_javascript", arguments: { code: "return fs.readFileSync('out.txt', 'utf8').length" } });
  assert.deepEqual(JSON.parse(text(js)), { exitCode: 0, stdout: "", stderr: "", value: "4" });
  const loop = await client.callTool({ name: "run_javascript", arguments: { code: "while (true) {}" } });
  assert.equal(loop.isError, true);
  assert.deepEqual(JSON.parse(text(loop)), {
    error: { code: "TIMEOUT", message: "the run exceeded its time limit of 200 ms (limits.timeoutMs)" },
  });
  const missing = await client.callTool({ name: "read_file", arguments: { path: "/etc/passwd" } });
  assert.equal(missing.isError, true);
  assert.equal(JSON.parse(text(missing)).error.code, "ENOENT");
  await client.close();
  await sb.close();
});

test("mcpTools: a connected MCP server's tools become sandbox tools under capabilities", async () => {
  const server = new McpServer({ name: "shop", version: "1.0.0" });
  const calls = [];
  server.registerTool("get_price", { description: "Price of a SKU.", inputSchema: {} }, async (args) => {
    calls.push(args);
    return { content: [{ type: "text", text: JSON.stringify({ price: 7 }) }] };
  });
  server.registerTool("delete_all", { description: "Deletes everything." }, async () => ({ content: [{ type: "text", text: "gone" }] }));
  const client = await connected(server);
  const tools = await mcpTools(client, { prefix: "shop" });
  assert.deepEqual(tools.map((t) => t.name), ["shop.get_price", "shop.delete_all"]);
  const sb = await Sandbox.create({ tools, capabilities: [{ method: "shop.get_price" }] });
  const r = await sb.run(`
    const a = await shop.get_price({ sku: "A1" });
    let denied;
    try { await shop.delete_all({}); } catch (e) { denied = e.code; }
    return { a, denied };
  `);
  assert.deepEqual(JSON.parse(r.value), { a: { price: 7 }, denied: "DENIED" });
  assert.deepEqual(calls.length, 1);
  await sb.close();
  await client.close();
});

test("cordon mcp serves over stdio", async () => {
  const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "mcp", "--timeout", "1000"], stderr: "pipe" });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  const r = await client.callTool({ name: "run_shell", arguments: { code: "echo $((6 * 7)) | tr 4 X" } });
  assert.deepEqual(JSON.parse(text(r)), { exitCode: 0, stdout: "X2\n", stderr: "" });
  await client.close();
});

test("a 5 MB print or file reaches the MCP client as 16 KiB of head and tail", async () => {
  const sandbox = await Sandbox.create({ limits: { outputBytes: 8 * 1024 * 1024 } });
  const server = createMcpServer(sandbox);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  const lines = Array.from({ length: 400000 }, (_, i) => "line " + i).join("\n") + "\n";
  const code = 'const t = Array.from({ length: 400000 }, (_, i) => "line " + i).join("\\n"); console.log(t); fs.writeFileSync("big.txt", t + "\\n")';
  const run = JSON.parse((await client.callTool({ name: "run_javascript", arguments: { code } })).content[0].text);
  assert.deepEqual(Object.keys(run), ["exitCode", "stdout", "stderr"]);
  assertCapped(run.stdout, lines, 16384);
  const file = (await client.callTool({ name: "read_file", arguments: { path: "big.txt" } })).content[0].text;
  assertCapped(file, lines, 16384);
  await client.close();
  await sandbox.close();
});

// A server whose tool list comes in pages, as the low-level SDK server
// serves it: `cursor` in, `nextCursor` out.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRequire } from "node:module";

function pagedServer(pages, next = (i) => (i + 1 < pages.length ? `page-${i + 1}` : undefined)) {
  const server = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } });
  const requests = [];
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    requests.push(cursor ?? null);
    const i = cursor === undefined ? 0 : Number(cursor.slice("page-".length));
    const nextCursor = next(i);
    return { tools: pages[i] ?? [], ...(nextCursor !== undefined ? { nextCursor } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: "text", text: JSON.stringify({ called: request.params.name }) }],
  }));
  return { server, requests };
}

const object = { type: "object" };

test("mcpTools reads every page of the tool list, and the annotations reach describe()", async () => {
  const { server, requests } = pagedServer([
    [{ name: "search", description: "Find products.", inputSchema: object, annotations: { readOnlyHint: true, openWorldHint: false } }],
    [{ name: "remove", description: "Delete a product.", inputSchema: object, annotations: { destructiveHint: true, idempotentHint: true } }],
    [
      { name: "update", title: "Update a product", inputSchema: object, annotations: { readOnlyHint: false, destructiveHint: false } },
      { name: "plain", inputSchema: object },
    ],
  ]);
  const client = await connected(server);
  const tools = await mcpTools(client, { prefix: "shop" });
  assert.deepEqual(requests, [null, "page-1", "page-2"]);
  assert.deepEqual(
    tools.map((t) => [t.name, t.description]),
    [
      ["shop.search", "(read-only, closed world) Find products."],
      ["shop.remove", "(destructive, idempotent) Delete a product."],
      ["shop.update", "(not destructive) Update a product"],
      ["shop.plain", undefined],
    ],
  );
  const sb = await Sandbox.create({ tools, capabilities: [{ method: "shop.**" }] });
  const text = sb.describe();
  assert.equal(
    text.slice(text.indexOf("```ts\n") + 6, text.indexOf("```\n", text.indexOf("```ts\n") + 6)),
    `declare namespace shop {
  function plain(args: Record<string, unknown>): Promise<unknown>;
  /** (destructive, idempotent) Delete a product. */
  function remove(args: Record<string, unknown>): Promise<unknown>;
  /** (read-only, closed world) Find products. */
  function search(args: Record<string, unknown>): Promise<unknown>;
  /** (not destructive) Update a product */
  function update(args: Record<string, unknown>): Promise<unknown>;
}
`,
  );
  // A tool of the last page is called through the client.
  assert.equal((await sb.run("return (await shop.plain({})).called")).value, "plain");
  await sb.close();
  await client.close();
});

test("mcpTools stops at maxPages, and at a cursor the server repeats, with INVALID_OPTIONS", async () => {
  const endless = pagedServer([], (i) => `page-${i + 1}`);
  const client = await connected(endless.server);
  await assert.rejects(mcpTools(client), {
    name: "CordonError",
    code: "INVALID_OPTIONS",
    message: "the MCP server's tool list has more than 100 pages (maxPages)",
  });
  assert.equal(endless.requests.length, 100);
  await assert.rejects(mcpTools(client, { maxPages: 3 }), {
    code: "INVALID_OPTIONS",
    message: "the MCP server's tool list has more than 3 pages (maxPages)",
  });
  await assert.rejects(mcpTools(client, { maxPages: 0 }), { code: "INVALID_OPTIONS", message: "maxPages must be an integer of at least 1, got 0" });
  await client.close();
  const looping = pagedServer([[], []], () => "page-1");
  const again = await connected(looping.server);
  await assert.rejects(mcpTools(again), { code: "INVALID_OPTIONS", message: 'the MCP server\'s tool list repeats its cursor "page-1"' });
  assert.deepEqual(looping.requests, [null, "page-1"]);
  await again.close();
});

test("mcpTools refuses two tools whose names become the same, naming both", async () => {
  const { server } = pagedServer([[{ name: "get price", inputSchema: object }], [{ name: "get_price", inputSchema: object }]]);
  const client = await connected(server);
  await assert.rejects(mcpTools(client, { prefix: "shop" }), {
    name: "CordonError",
    code: "INVALID_OPTIONS",
    message: 'the MCP tools "get price" and "get_price" would both be named "shop.get_price"',
  });
  await client.close();
});

test("cordon's MCP server reports the package's version", async () => {
  const { version } = createRequire(import.meta.url)("../package.json");
  const sb = await Sandbox.create();
  const client = await connected(createMcpServer(sb));
  assert.deepEqual(client.getServerVersion(), { name: "cordon", version });
  await client.close();
  const named = await connected(createMcpServer(sb, { name: "mine", version: "9.9.9" }));
  assert.deepEqual(named.getServerVersion(), { name: "mine", version: "9.9.9" });
  await named.close();
  await sb.close();
});
