// The README's examples run, verbatim: each readme-<n> file (the README's js
// blocks, see readme.test.mjs) is compiled to JavaScript with TypeScript's
// own transpiler and run in a Node process beside what the README takes as
// given (a `stripe` client, the AI SDK's mock model), and what its comments
// say it prints is what it prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import ts from "typescript";

const root = fileURLToPath(new URL("../", import.meta.url));
const work = path.join(root, ".cache", "readme-run");

// Observes the sandboxes an example makes: what each run printed, and what
// `sb.fs.readFile` returned, written to stderr as JSON lines.
const OBSERVE = `
import { Sandbox as __Sandbox } from "cordon";
const __run = __Sandbox.prototype.run;
__Sandbox.prototype.run = async function (...a) {
  const r = await __run.apply(this, a);
  process.stderr.write(JSON.stringify({ run: r.stdout }) + "\\n");
  return r;
};
const __create = __Sandbox.create;
__Sandbox.create = async (...a) => {
  const sb = await __create(...a);
  const read = sb.fs.readFile.bind(sb.fs);
  sb.fs.readFile = async (...b) => { const v = await read(...b); process.stderr.write(JSON.stringify({ read: v }) + "\\n"); return v; };
  return sb;
};
globalThis.stripe = { charges: { create: async (p) => ({ id: "ch_1", ...p }) } };
`;

const AI = `
import { tool as __tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z as __z } from "zod";
const __usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let __step = 0;
globalThis.model = new MockLanguageModelV3({
  doGenerate: async () => __step++ === 0
    ? { content: [{ type: "tool-call", toolCallId: "c0", toolName: "run_code",
        input: JSON.stringify({ code: "const w = await get_weather({ city: 'Oslo' }); console.log(w.city, w.tempC)" }) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: __usage, warnings: [] }
    : { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage: __usage, warnings: [] },
});
globalThis.prompt = "weather in Oslo?";
globalThis.get_weather = __tool({ description: "Weather", inputSchema: __z.object({ city: __z.string() }),
  execute: async ({ city }) => ({ city, tempC: 21 }) });
`;

function runExample(file, given) {
  const source = readFileSync(path.join(root, "__tests__", "types", file), "utf8");
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  mkdirSync(work, { recursive: true });
  const out = path.join(work, path.basename(file).replace(/\.ts$/, ".mjs"));
  writeFileSync(out, `${OBSERVE}${given}\n${js}`);
  const p = spawnSync(process.execPath, [out], { encoding: "utf8", cwd: root, timeout: 60_000 });
  const observed = p.stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  const rest = p.stderr.split("\n").filter((l) => l && !l.startsWith("{")).join("\n");
  return { status: p.status, stdout: p.stdout, stderr: rest, observed };
}

test("README quick start prints the doubled array", () => {
  const r = runExample("common/readme-1-quickstart.ts", "");
  assert.deepEqual(r, { status: 0, stdout: "[ 2, 4, 6 ]\n\n", stderr: "", observed: [{ run: "[ 2, 4, 6 ]\n" }] });
});

test("README errors example: the result is as its comment shows, and the loop is TIMEOUT", () => {
  const r = runExample("common/readme-2-errors.ts", "");
  assert.deepEqual(r, { status: 0, stdout: "TIMEOUT\n", stderr: "", observed: [{ run: 'hi\n{"answer":42}\n' }] });
});

test("README tools example: the over-limit charge is denied with the message its comment shows", () => {
  const r = runExample("common/readme-6-tools.ts", "");
  assert.deepEqual(r, {
    status: 0,
    stdout: "",
    stderr: "",
    observed: [{ run: "DENIED constraint stripe.charges.create denied: amount must be <= 10000, got 50000\n" }],
  });
});

test("README files example reads back what the guest wrote", () => {
  const r = runExample("common/readme-7-files.ts", "");
  assert.deepEqual(r, { status: 0, stdout: "", stderr: "", observed: [{ run: "" }, { read: "a=1" }] });
});

test("README AI SDK example: the model's code calls the AI SDK tool in the sandbox", () => {
  const r = runExample("ai/readme-3-ai-sdk.ts", AI);
  assert.deepEqual(r, { status: 0, stdout: "", stderr: "", observed: [{ run: "Oslo 21\n" }] });
});
