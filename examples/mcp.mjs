// MCP both ways: serve a cordon sandbox to an MCP client, and give guest code
// the tools of another MCP server under capabilities. In-memory transports
// keep it offline; `npx cordon mcp` serves the same over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Sandbox } from "cordon";
import { createMcpServer, mcpTools } from "cordon/mcp";

async function connect(server) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "example", version: "1.0.0" });
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

// 1. A sandbox as an MCP server.
const sb = await Sandbox.create();
const client = await connect(createMcpServer(sb));
const r = await client.callTool({ name: "run_shell", arguments: { code: "seq 1 5 | awk '{ s += $1 } END { print s }'" } });
console.log("run_shell:", r.content[0].text);

// 2. Another MCP server's tools inside the sandbox.
const weather = new McpServer({ name: "weather", version: "1.0.0" });
weather.registerTool("forecast", { description: "Forecast for a city." }, async () => ({
  content: [{ type: "text", text: JSON.stringify({ tempC: 21 }) }],
}));
const tools = await mcpTools(await connect(weather), { prefix: "weather" });
const guest = await Sandbox.create({ tools, capabilities: [{ method: "weather.forecast" }] });
console.log("guest:", (await guest.run("return (await weather.forecast({})).tempC")).value);
await Promise.all([client.close(), sb.close(), guest.close()]);
