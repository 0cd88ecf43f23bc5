// What a consumer project does first, run from a fresh project that installed
// the packed packages (scripts/test-consumer.sh), on each runtime: a sandbox
// with a tool, a tool call from JavaScript and from the shell, a
// deterministic sandbox. Prints one JSON line; the script compares it.
import { Sandbox } from "cordon";

const tools = {
  add: {
    description: "Adds two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    execute: async ({ a, b }) => a + b,
  },
};
const sb = await Sandbox.create({ tools, capabilities: [{ method: "add", maxCalls: 5 }] });
const js = await sb.run("console.log(await add({ a: 1, b: 2 }))");
const sh = await sb.run("tool add --a 2 --b 3 && echo ok | tr a-z A-Z", { language: "shell" });
await sb.close();
const det = await Sandbox.create({ deterministic: true });
const d = await det.run("console.log(Math.random() === Math.random(), typeof Date.now())");
await det.close();
console.log(
  JSON.stringify({
    js: [js.exitCode, js.stdout, js.stderr],
    sh: [sh.exitCode, sh.stdout, sh.stderr],
    det: [d.exitCode, d.stdout],
    calls: js.toolCalls.length + sh.toolCalls.length,
  }),
);
