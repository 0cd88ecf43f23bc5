// cordon/mcp typed with the MCP SDK's own types.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Sandbox } from "cordon";
import { createMcpServer, mcpTools } from "cordon/mcp";

const sb = await Sandbox.create();
const server: Server = createMcpServer(sb, { name: "cordon" });
const client = new Client({ name: "test", version: "1.0.0" });
const tools = await mcpTools(client, { prefix: "remote" });
const sb2 = await Sandbox.create({ tools, capabilities: [{ method: "remote.**" }] });
await tools[0]?.execute({ q: "x" }, { toolCallId: "1", toolName: "remote.search", messages: [] });
void [server, sb2];

// @ts-expect-error mcpTools takes a client, not a server
await mcpTools(server);
// @ts-expect-error an MCP tool takes an argument object
await tools[0]?.execute("x", { toolCallId: "1", toolName: "remote.search", messages: [] });

// The types are the frameworks' own, never any.
const notAny: (0 extends 1 & typeof tools ? true : false) = false;
void notAny;
