// cordon/ai against AI SDK 7 (Node >= 22), run by scripts/test-ai7.sh from a
// project that installs the packed cordon beside ai@7: experimental_toolCaller
// routing with the AI SDK's own mock model, and cordon as the
// experimental_sandbox session. Not picked up by `node --test __tests__/`
// (that runs on Node 20 against ai@6).
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { Sandbox, CordonError } from "cordon";
import { createCodeCaller, createSandboxSession } from "cordon/ai";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function scriptedModel(steps) {
  const calls = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      calls.push(options);
      const step = steps[calls.length - 1];
      if (step) {
        return {
          content: [{ type: "tool-call", toolCallId: `call-${calls.length}`, toolName: step.tool, input: JSON.stringify(step.input) }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
  return { model, calls };
}

test("experimental_toolCallers routes tools to cordon's code tool; nested calls run under the routing", async () => {
  const weatherCalls = [];
  const get_weather = tool({
    description: "Current temperature for a city, in °C.",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }, options) => {
      weatherCalls.push({ city, hasSignal: options.abortSignal instanceof AbortSignal, id: options.toolCallId });
      return { city, tempC: { Paris: 18, Oslo: 9, Rome: 24 }[city] };
    },
  });
  let wiped = false;
  const wipe = tool({
    description: "Deletes everything.",
    inputSchema: z.object({}),
    needsApproval: true,
    execute: async () => {
      wiped = true;
      return "gone";
    },
  });
  const run_code = await createCodeCaller({ limits: { timeoutMs: 5000 } });
  const code = `
    const temps = await Promise.all(["Paris", "Oslo", "Rome"].map((city) => get_weather({ city })));
    let refused = "";
    try { await wipe({}); } catch (e) { refused = e.message; }
    return { warmest: temps.sort((a, b) => b.tempC - a.tempC)[0].city, refused };`;
  const { model, calls } = scriptedModel([{ tool: "run_code", input: { code } }]);
  const controller = new AbortController();
  const result = await generateText({
    model,
    tools: { run_code, get_weather, wipe },
    experimental_toolCallers: { get_weather: ["run_code"], wipe: ["run_code"] },
    abortSignal: controller.signal,
    prompt: "Which city is warmest?",
    stopWhen: stepCountIs(3),
  });
  // The model sees only the code tool; the routed tools are announced in a message.
  assert.deepEqual(calls[0].tools.map((t) => t.name), ["run_code"]);
  const announced = calls[0].prompt.filter((m) => m.role === "user").map((m) => m.content[0].text);
  assert.equal(announced[0], "Which city is warmest?");
  assert.match(announced[1], /^Run code in a cordon sandbox/);
  assert.match(announced[1], /declare function get_weather\(args: \{\n {2}city: string;\n\}\): Promise<unknown>;/);
  assert.match(announced[1], /declare function wipe\(args: Record<string, unknown>\): Promise<unknown>;/);
  assert.match(announced[1], /Allowed calls \(anything else is denied with a catchable error\):\n- get_weather: any arguments\nNot granted \(calls are denied\): wipe\.\n/);
  // The run's result, with the approval-needing tool refused inside the script.
  const output = result.steps[0].toolResults[0].output;
  assert.equal(output.exitCode, 0);
  assert.deepEqual(JSON.parse(output.value), {
    warmest: "Rome",
    refused: "wipe denied: no capability grants this tool",
  });
  assert.equal(wiped, false);
  assert.deepEqual(
    weatherCalls.map((c) => c.city).sort(),
    ["Oslo", "Paris", "Rome"],
  );
  // Nested calls carry the outer call's abort signal and an id derived from its id.
  assert.ok(weatherCalls.every((c) => c.hasSignal && /^call-1\.\d+$/.test(c.id)), JSON.stringify(weatherCalls));
  assert.equal(result.text, "done");
  await run_code.close();
});

test("one caller serving two conversations at once shares no sandbox, files, globals or routing", async () => {
  const seen = [];
  const whoami = tool({
    description: "The caller's user.",
    inputSchema: z.object({}),
    // Whose conversation the nested call carries: the outer call's messages.
    execute: async (_args, options) => {
      const first = options.messages[0].content;
      const user = (typeof first === "string" ? first : first[0].text).replace("I am ", "");
      seen.push(user);
      return user;
    },
  });
  const run_code = await createCodeCaller({ limits: { timeoutMs: 5000 } });
  // Each conversation: step 1 writes a file and a global, step 2 reads both
  // back and asks whoami; the two run interleaved.
  const conversation = (user) => {
    const { model } = scriptedModel([
      { tool: "run_code", input: { code: `fs.writeFileSync("/workspace/secret.txt", "${user}"); globalThis.owner = "${user}"; return 1` } },
      {
        tool: "run_code",
        input: {
          code: `await new Promise((r) => setTimeout(r, 20));
            let file = "none"; try { file = fs.readFileSync("/workspace/secret.txt", "utf8") } catch {}
            return { file, owner: globalThis.owner ?? "none", me: await whoami({}) }`,
        },
      },
    ]);
    return generateText({
      model,
      tools: { run_code, whoami },
      experimental_toolCallers: { whoami: ["run_code"] },
      prompt: `I am ${user}`,
      stopWhen: stepCountIs(3),
    });
  };
  const [a, b] = await Promise.all([conversation("alice"), conversation("bob")]);
  const last = (r) => JSON.parse(r.steps[1].toolResults[0].output.value);
  assert.deepEqual(last(a), { file: "alice", owner: "alice", me: "alice" });
  assert.deepEqual(last(b), { file: "bob", owner: "bob", me: "bob" });
  assert.deepEqual(seen.sort(), ["alice", "bob"]);
  await run_code.close();
});

test("createCodeCaller refuses tools of its own and malformed options at once", async () => {
  await assert.rejects(createCodeCaller({ tools: {} }), (e) => e instanceof CordonError && e.code === "INVALID_OPTIONS");
  await assert.rejects(createCodeCaller({ limits: { timeoutMs: NaN } }), (e) => e instanceof CordonError && e.code === "INVALID_OPTIONS");
});

test("a cordon sandbox is an AI SDK 7 sandbox session: files, commands, processes", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 5000 } });
  const session = createSandboxSession(sb);
  assert.match(session.description, /cordon sandbox/);
  await session.writeTextFile({ path: "notes/a.txt", content: "one\ntwo\nthree\n" });
  assert.equal(await session.readTextFile({ path: "notes/a.txt", startLine: 2, endLine: 3 }), "two\nthree");
  assert.equal(await session.readTextFile({ path: "/workspace/notes/a.txt" }), "one\ntwo\nthree\n");
  assert.equal(await session.readTextFile({ path: "missing.txt" }), null);
  assert.deepEqual(await session.stat({ path: "notes/a.txt" }), { type: "file", size: 14 });
  assert.deepEqual(await session.stat({ path: "notes" }), { type: "directory", size: 1 });
  assert.equal(await session.stat({ path: "nope" }), null);
  assert.deepEqual(await session.listDirectory({ path: "notes" }), [{ name: "a.txt", type: "file" }]);
  assert.equal(await session.listDirectory({ path: "nope" }), null);
  await session.writeBinaryFile({ path: "/tmp/b.bin", content: new Uint8Array([0, 255, 7]) });
  assert.deepEqual([...(await session.readBinaryFile({ path: "/tmp/b.bin" }))], [0, 255, 7]);
  const streamed = await new Response(await session.readFile({ path: "/tmp/b.bin" })).arrayBuffer();
  assert.deepEqual([...new Uint8Array(streamed)], [0, 255, 7]);
  await session.writeFile({ path: "s.txt", content: new Response("streamed in").body });
  assert.equal(await sb.fs.readFile("/workspace/s.txt", "utf8"), "streamed in");
  await assert.rejects(session.deleteFile({ path: "notes" }));
  assert.equal(await session.deleteFile({ path: "notes/a.txt" }), true);
  assert.equal(await session.deleteFile({ path: "notes/a.txt" }), false);

  // Each command starts at the root; cd and variables do not leak.
  assert.deepEqual(await session.run({ command: "cd /tmp; pwd; echo $X", env: { X: "y z" } }), {
    exitCode: 0,
    stdout: "/tmp\ny z\n",
    stderr: "",
  });
  assert.deepEqual(await session.run({ command: "pwd; echo ${X:-unset}" }), { exitCode: 0, stdout: "/workspace\nunset\n", stderr: "" });
  assert.deepEqual(await session.run({ command: "echo oops >&2; exit 3", workingDirectory: "/tmp" }), {
    exitCode: 3,
    stdout: "",
    stderr: "oops\n",
  });
  const p = await session.spawn({ command: "printf 'a\\nb\\n' | wc -l" });
  assert.equal(await new Response(p.stdout).text(), "2\n");
  assert.equal(await new Response(p.stderr).text(), "");
  assert.deepEqual(await p.wait(), { exitCode: 0 });
  // With stdin, the command runs once stdin is closed, reading what was written.
  const piped = await session.spawn({ command: "tr a-z A-Z; wc -l < /dev/stdin", stdin: true });
  const writer = piped.stdin.getWriter();
  await writer.write(new TextEncoder().encode("one\n"));
  await writer.write(new TextEncoder().encode("two\n"));
  await writer.close();
  assert.equal(await new Response(piped.stdout).text(), "ONE\nTWO\n0\n");
  assert.deepEqual(await piped.wait(), { exitCode: 0 });
  assert.equal("stdin" in (await session.spawn({ command: "true" })), false);
  const waiting = await session.spawn({ command: "cat", stdin: true });
  await waiting.kill();
  assert.deepEqual(await waiting.wait(), { exitCode: 137 });
  const looping = await session.spawn({ command: "while true; do :; done" });
  await looping.kill();
  await looping.kill();
  assert.deepEqual(await looping.wait(), { exitCode: 137 });
  const controller = new AbortController();
  const aborted = session.run({ command: "while true; do :; done", abortSignal: controller.signal });
  setTimeout(() => controller.abort(new Error("stop now")), 50);
  await assert.rejects(aborted, /stop now/);

  // The AI SDK hands the session to tools as experimental_sandbox.
  const list = tool({
    description: "Lists the workspace.",
    inputSchema: z.object({}),
    execute: async (_input, { experimental_sandbox }) => (await experimental_sandbox.run({ command: "ls" })).stdout,
  });
  const { model } = scriptedModel([{ tool: "list", input: {} }]);
  const result = await generateText({ model, tools: { list }, experimental_sandbox: session, prompt: "ls", stopWhen: stepCountIs(2) });
  assert.equal(result.steps[0].toolResults[0].output, "notes\ns.txt\n");
  await sb.close();
});
