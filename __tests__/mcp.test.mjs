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
