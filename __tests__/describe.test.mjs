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
- javascript: plain JavaScript (ES2023, QuickJS), not TypeScript: type annotations are syntax errors. The code is the body of an async function: use top-level \`await\`; a \`return\`ed value is the result; \`console.log\` prints. \`fs\` (Node-like, sync and \`fs.promises\`) reads and writes files; \`await shell("cmd")\` runs the shell and returns { stdout, stderr, exitCode }. Declarations (\`let\`, \`const\`, \`var\`, \`function\`) end with the run; properties of \`globalThis\` persist between runs. Also there: setTimeout, setInterval, queueMicrotask, atob, btoa, crypto.getRandomValues, crypto.randomUUID, performance.now. Not there: fetch (no network), require and import, Buffer, URL, URLSearchParams, TextEncoder, TextDecoder, structuredClone, AbortController, Blob, crypto.subtle, process.env.
- shell: bash-compatible (pipes, redirections, variables, functions, if/for/while/case, $(...), $((...))). Its commands (most take \`--help\`): [ awk base64 basename bash cat column comm command cp cut date diff dirname du echo env expr false file find fold grep head jq js ln ls md5sum mkdir mv nl node od paste printenv printf pwd realpath rev rm rmdir sed seq sh sha256sum sleep sort split stat tac tail tee test tool touch tr true uniq wc xargs xxd yes. \`js -e CODE\` runs JavaScript. No other programs exist.

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
  assert.ok(present.length >= 5 && missing.length >= 5, text);
  // "fetch (no network)" names fetch; "require and import" names require.
  const expr = (item) => item.split(" ")[0];
  const types = async (items) =>
    JSON.parse((await sb.run(`return JSON.stringify([${items.map((i) => `typeof ${expr(i)}`).join(", ")}])`)).value);
  assert.deepEqual(await types(present), present.map(() => "function"), present.join());
  assert.deepEqual(await types(missing), missing.map(() => "undefined"), missing.join());
  // Declarations end with the run; globalThis persists; type annotations fail.
  await sb.run("let a = 1; var b = 2; function c() {} globalThis.d = 4");
  assert.equal((await sb.run("return [typeof a, typeof b, typeof c, typeof d].join()")).value, "undefined,undefined,undefined,number");
  assert.equal((await sb.run("const t: number = 1; return t")).error.name, "SyntaxError");
  // Every command it lists runs (and `--help` of most).
  const commands = text.match(/Its commands \(most take `--help`\): ([^\n]+?)\. /)[1].split(" ");
  assert.ok(commands.includes("jq") && commands.includes("awk") && !commands.includes("cd"), commands.join(" "));
  const script = commands.map((c) => `type ${c} >/dev/null || echo "no ${c}"`).join("\n");
  const ran = await sb.run(script, { language: "shell" });
  assert.deepEqual([ran.stdout, ran.stderr, ran.exitCode], ["", "", 0]);
  await sb.close();
});
