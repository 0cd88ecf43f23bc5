// sb.describe(): the prompt text for a sandbox, exact and deterministic.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, tool } from "cordon";

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
- javascript: QuickJS (ES2023). The code is the body of an async function: use top-level \`await\`; a \`return\`ed value is the result; \`console.log\` prints. \`fs\` (Node-like, sync and \`fs.promises\`) reads and writes files; \`await shell("cmd")\` runs the shell and returns { stdout, stderr, exitCode }. Globals persist between runs.
- shell: bash-compatible (pipes, redirections, variables, functions, if/for/while/case, $(...), $((...))) with builtin commands: cat grep sed awk jq sort uniq cut tr head tail wc find xargs ls cp mv rm mkdir touch diff printf date seq base64 sha256sum and more (\`CMD --help\`). \`js -e CODE\` runs JavaScript. No other programs exist.

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
\`\`\`
Call these with \`await tools.call(name, args)\`: "admin.drop-table".
Allowed calls (anything else is denied with a catchable error):
- get_weather: at most 5 calls
- stripe.charges.*: amount <= 10000; currency in ["USD","EUR"]; at most 100 calls
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
