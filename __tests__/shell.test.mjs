// The shell through the real sandbox: sessions, the shared file system, host
// tools, limits, and every recorded bash fixture replayed inside the guest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { Sandbox, CordonError, tool } from "cordon";

const sh = { language: "shell" };

function outcome(r) {
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
}

test("a script's stdout, stderr and exit status are its own", async () => {
  const sb = await Sandbox.create();
  const r = await sb.run('echo out; echo err >&2; nosuch arg; echo "status $?"; exit 3', sh);
  assert.deepEqual(outcome(r), {
    stdout: "out\nstatus 127\n",
    stderr: "err\ncordon: line 1: nosuch: command not found\n",
    exitCode: 3,
  });
  assert.equal(r.value, undefined);
  // As in bash, the commands before the one that does not parse run.
  const syntax = await sb.run("echo start\nif true; then\n", sh);
  assert.deepEqual(outcome(syntax), {
    stdout: "start\n",
    stderr: "cordon: line 3: syntax error: unexpected end of file\n",
    exitCode: 2,
  });
  await sb.close();
});

test("run's stdin is the script's standard input: strings, bytes, pipelines, partial reads", async () => {
  const sb = await Sandbox.create({ limits: { codeBytes: 64 } });
  const run = async (code, stdin) => outcome(await sb.run(code, { ...sh, stdin }));
  const ok = (stdout) => ({ stdout, stderr: "", exitCode: 0 });
  assert.deepEqual(await run("cat", "hello\n"), ok("hello\n"));
  assert.deepEqual(await run('read a; read b; echo "$b-$a"', "1\n2\n"), ok("2-1\n"));
  assert.deepEqual(await run("head -n1; echo rest; cat", "a\nb\nc\n"), ok("a\nrest\nb\nc\n"));
  assert.deepEqual(await run('while read l; do echo "<$l>"; done; echo "[$l]"', "x\ny"), ok("<x>\n[y]\n"));
  assert.deepEqual(await run("grep -c b | tr 0-9 a-j", "ab\nb\nc\n"), ok("c\n"));
  assert.deepEqual(await run("jq -c .a", '{"a":[1,2]}'), ok("[1,2]\n"));
  assert.deepEqual(await run("f() { tr a-z A-Z; }; f", "abc\n"), ok("ABC\n"));
  assert.deepEqual(await run("wc -c; od -An -tx1", new Uint8Array([0, 255, 10])), ok("3\n"));
  assert.deepEqual(await run("od -An -tx1", Buffer.from([0, 255, 10])), ok(" 00 ff 0a\n"));
  // Without stdin, standard input is empty; the session keeps no stdin.
  assert.deepEqual(await run("cat; read x; echo $?", undefined), ok("1\n"));
  const refused = async (options, message) =>
    assert.rejects(sb.run("cat", options), (e) => e instanceof CordonError && e.code === "INVALID_OPTIONS" && e.message === message);
  await refused({ ...sh, stdin: 5 }, "stdin must be a string or a Uint8Array, got 5");
  await refused({ ...sh, stdin: "x".repeat(65) }, "stdin is at least 65 bytes, over the limit of 64 (limits.codeBytes)");
  await refused({ ...sh, stdin: "é".repeat(40) }, "stdin is 80 bytes, over the limit of 64 (limits.codeBytes)");
  const js = await sb.run('return require("fs").readFileSync(0, "utf8")', { stdin: "js in" });
  assert.equal(js.value, "js in");
  assert.deepEqual(await run("cat", "x".repeat(64)), ok("x".repeat(64)));
  await sb.close();
});

test("a sandbox is a shell session: variables, functions and the directory persist; reset clears them", async () => {
  const sb = await Sandbox.create();
  await sb.run("x=41; greet() { echo \"hi $1\"; }; mkdir -p proj && cd proj", sh);
  const r = await sb.run('echo $((x + 1)); greet you; pwd', sh);
  assert.deepEqual(outcome(r), { stdout: "42\nhi you\n/workspace/proj\n", stderr: "", exitCode: 0 });
  // The working directory is the sandbox's, shared with JavaScript.
  assert.equal((await sb.run("return process.cwd()")).value, "/workspace/proj");
  await sb.reset();
  const after = await sb.run('echo "[$x]"; pwd', sh);
  assert.deepEqual(outcome(after), { stdout: "[]\n/workspace\n", stderr: "", exitCode: 0 });
  await sb.close();
});

test("the shell, JavaScript and the host share one file system", async () => {
  const sb = await Sandbox.create({ files: { "/workspace/data.csv": "b,2\na,1\nc,3\n" } });
  const r = await sb.run("sort data.csv | cut -d, -f1 > /tmp/names.txt; cat /tmp/names.txt | wc -l", sh);
  assert.deepEqual(outcome(r), { stdout: "3\n", stderr: "", exitCode: 0 });
  assert.equal((await sb.run('return fs.readFileSync("/tmp/names.txt", "utf8")')).value, "a\nb\nc\n");
  await sb.run('fs.writeFileSync("from-js.txt", "js wrote this")');
  const back = await sb.run("cat from-js.txt; echo; echo nope > /etc/x; echo $?", sh);
  assert.deepEqual(outcome(back), {
    stdout: "js wrote this\n1\n",
    stderr: "cordon: line 1: /etc/x: Read-only file system\n",
    exitCode: 0,
  });
  assert.equal(await sb.fs.readFile("/tmp/names.txt", "utf8"), "a\nb\nc\n");
  await sb.close();
});

test("`tool` calls host tools under the same capabilities, with typed arguments", async () => {
  const calls = [];
  const sb = await Sandbox.create({
    tools: {
      "stripe.charges.create": async (args) => {
        calls.push(args);
        return { id: "ch_1", amount: args.amount };
      },
      "admin.drop": async () => "dropped",
    },
    capabilities: [{ method: "stripe.charges.create", constraints: [{ param: "amount", op: "<=", value: 1000 }] }],
  });
  const ok = await sb.run("tool stripe.charges.create --amount 500 --currency USD --meta.ref 0042", sh);
  assert.deepEqual(outcome(ok), { stdout: '{"id":"ch_1","amount":500}\n', stderr: "", exitCode: 0 });
  assert.deepEqual(calls, [{ amount: 500, currency: "USD", meta: { ref: "0042" } }]);

  const over = await sb.run('tool stripe.charges.create --amount 5000 --currency USD; echo "status $?"', sh);
  assert.deepEqual(outcome(over), {
    stdout: "status 1\n",
    stderr: "tool: stripe.charges.create: DENIED (constraint): stripe.charges.create denied: amount must be <= 1000, got 5000\n",
    exitCode: 0,
  });
  const denied = await sb.run("tool admin.drop", sh);
  assert.deepEqual(outcome(denied), {
    stdout: "",
    stderr: "tool: admin.drop: DENIED (not_granted): admin.drop denied: no capability grants this tool\n",
    exitCode: 1,
  });
  assert.equal(calls.length, 1, "denied calls never reach a handler");

  const json = await sb.run(`tool stripe.charges.create --json '{"amount": 7, "currency": "EUR"}' | jq -r .id`, sh);
  assert.deepEqual(outcome(json), { stdout: "ch_1\n", stderr: "", exitCode: 0 });
  const list = await sb.run("tool --list", sh);
  assert.deepEqual(outcome(list), { stdout: "admin.drop\nstripe.charges.create\n", stderr: "", exitCode: 0 });
  await sb.close();
});

test("endless shell loops stop at the time limit and the session survives", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 100 } });
  await sb.run("kept=yes", sh);
  const started = performance.now();
  const err = await sb.run("while true; do :; done", sh).then(
    () => null,
    (e) => e,
  );
  const elapsed = performance.now() - started;
  assert.ok(err instanceof CordonError);
  assert.equal(err.code, "TIMEOUT");
  assert.ok(elapsed < 150, `returned after ${elapsed.toFixed(1)} ms`);
  const after = await sb.run('echo "alive [$kept]"', sh);
  // The instance restarted: shell variables are gone, files are not.
  assert.deepEqual(outcome(after), { stdout: "alive []\n", stderr: "", exitCode: 0 });
  await sb.close();
});

test("`yes` is bounded by the output limit", async () => {
  const sb = await Sandbox.create({ limits: { outputBytes: 1000 } });
  const r = await sb.run("yes | head -n 3; yes", sh).catch((e) => e.result ?? e);
  assert.ok(r.stdout.startsWith("y\ny\ny\ny\n"));
  assert.ok(r.stdout.length <= 1100, `stdout is ${r.stdout.length} bytes`);
  await sb.close();
});

// Every fixture recorded from real bash runs inside the real guest, too.
const root = new URL("../crates/shell/tests/fixtures/", import.meta.url);
const known = new Set(
  readFileSync(new URL("known-differences.txt", root), "utf8")
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l) => l.split(": ")[0].trim()),
);

test("recorded bash fixtures match inside the sandbox", async () => {
  const failures = [];
  let total = 0;
  for (const file of readdirSync(new URL("expected/", root)).sort()) {
    const group = file.replace(/\.json$/, "");
    for (const c of JSON.parse(readFileSync(new URL(`expected/${file}`, root), "utf8"))) {
      if (known.has(`${group}/${c.name}`)) continue;
      total++;
      const sb = await Sandbox.create();
      const r = await sb.run(c.script, sh).catch((e) => ({ error: e }));
      await sb.close();
      if (r.error) {
        failures.push(`${group}/${c.name}: ${r.error.code} ${r.error.message}`);
        continue;
      }
      const got = outcome(r);
      const want = { stdout: c.stdout, stderr: c.stderr, exitCode: c.status };
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        failures.push(`${group}/${c.name}: got ${JSON.stringify(got)} want ${JSON.stringify(want)}`);
      }
    }
  }
  assert.ok(total > 0);
  assert.deepEqual(failures, []);
});

test("JavaScript and the shell call each other in one session", async () => {
  const sb = await Sandbox.create({
    tools: { add: async ({ a, b }) => ({ sum: a + b }) },
    capabilities: [{ method: "add" }],
  });
  const fromJs = await sb.run(`
    globalThis.greeting = "hello";
    fs.writeFileSync("n.txt", "3\\n1\\n2\\n");
    const pending = add({ a: 1, b: 2 });
    const r = await shell("sort -n n.txt | tail -n 1; tool add --a 20 --b 22; echo oops >&2; exit 4");
    return { ...r, pending: await pending };
  `);
  assert.equal(fromJs.exitCode, 0, fromJs.stderr);
  assert.deepEqual(JSON.parse(fromJs.value), {
    stdout: '3\n{"sum":42}\n',
    stderr: "oops\n",
    exitCode: 4,
    pending: { sum: 3 },
  });
  const fromShell = await sb.run(`js -e 'console.log(greeting + " from js"); return 6 * 7' | tr a-z A-Z; js -e 'throw new Error("no")'; echo "status $?"`, sh);
  assert.equal(fromShell.stdout, "HELLO FROM JS\n42\nstatus 1\n");
  assert.match(fromShell.stderr, /^Uncaught Error: no\n/);
  await sb.close();
});

test("`tool --list` and `tool NAME --help` describe the tools from their schemas", async () => {
  const sb = await Sandbox.create({
    tools: [
      tool({
        name: "get_weather",
        description: "Current weather for a city.",
        inputSchema: {
          type: "object",
          properties: { city: { type: "string", description: "City name" }, days: { type: "integer" } },
          required: ["city"],
        },
        execute: async ({ city }) => ({ city, tempC: 21 }),
      }),
    ],
    capabilities: [{ method: "get_weather" }],
  });
  const r = await sb.run("tool --list; tool get_weather --help; tool nope --help", sh);
  assert.deepEqual(outcome(r), {
    stdout:
      "get_weather\tCurrent weather for a city.\n" +
      "tool get_weather\nCurrent weather for a city.\nArguments:\n" +
      "  --city <string> (required)  City name\n  --days <integer>\n",
    stderr: "tool: nope: no such tool in this sandbox\n",
    exitCode: 1,
  });
  await sb.close();
});

test("a snapshot carries the shell session: variables, functions and the directory", async () => {
  const sb = await Sandbox.create();
  await sb.run('x=41; f() { echo "f:$1"; }; cd /tmp; echo kept > note.txt', sh);
  const bytes = await sb.snapshot();
  await sb.close();
  const copy = await Sandbox.restore(bytes);
  const r = await copy.run("echo $((x + 1)); f ok; pwd; cat note.txt", sh);
  assert.deepEqual(outcome(r), { stdout: "42\nf:ok\n/tmp\nkept\n", stderr: "", exitCode: 0 });
  await copy.close();
});
