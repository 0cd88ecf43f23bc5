// The `cordon` command, run as a user would: real processes, real sandboxes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, cpSync, symlinkSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const index = new URL("../dist/index.js", import.meta.url).href;

function cordon(args, input, script = cli) {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: "utf8", input: input ?? "", timeout: 30_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const TRY = "Try 'cordon --help' for more information.\n";
// What a usage error shows: the message, the hint, status 2.
const usageError = (message) => ({ stdout: "", stderr: `cordon: ${message}\n${TRY}`, status: 2 });

test("cordon run: files, inline JavaScript and shell; the exit status is the script's", () => {
  const dir = mkdtempSync(join(tmpdir(), "cordon-cli-"));
  try {
    writeFileSync(join(dir, "s.js"), "#!/usr/bin/env node\nconsole.log('from a file'); return 7;\n");
    writeFileSync(join(dir, "s.sh"), "echo shell file; exit 4\n");
    writeFileSync(join(dir, "t.ts"), "interface P { x: number }\nconst p: P = { x: 2 };\nconsole.log(p.x as number);\nthrow new Error('typed');\n");
    assert.deepEqual(cordon(["run", join(dir, "t.ts")]), {
      stdout: "2\n",
      stderr: "Uncaught Error: typed\n    at <anonymous> (main.js:4:11)\n",
      status: 1,
    });
    assert.deepEqual(cordon(["run", join(dir, "s.js")]), { stdout: "from a file\n7\n", stderr: "", status: 0 });
    assert.deepEqual(cordon(["run", join(dir, "s.sh")]), { stdout: "shell file\n", stderr: "", status: 4 });
    assert.deepEqual(cordon(["run", "--shell", "printf 'b\\na\\n' | sort; echo err >&2; exit 3"]), {
      stdout: "a\nb\n",
      stderr: "err\n",
      status: 3,
    });
    assert.deepEqual(cordon(["run", "-e", "throw new TypeError('bad')"]).status, 1);
    assert.deepEqual(cordon(["run", "-"], "console.log('stdin')"), { stdout: "stdin\n", stderr: "", status: 0 });
    // A shell run reads cordon's own standard input.
    assert.deepEqual(cordon(["run", "--shell", "tr a-z A-Z"], "hi\n"), { stdout: "HI\n", stderr: "", status: 0 });
    assert.deepEqual(cordon(["run", join(dir, "s.sh")], "unread\n"), { stdout: "shell file\n", stderr: "", status: 4 });
    assert.deepEqual(cordon(["run", "--shell", "wc -l; cat"]), { stdout: "0\n", stderr: "", status: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cordon run --tools/--caps: tools load from a module and calls follow the capabilities", () => {
  const dir = mkdtempSync(join(tmpdir(), "cordon-cli-"));
  try {
    writeFileSync(
      join(dir, "tools.mjs"),
      `import { tool } from ${JSON.stringify(index)};
       export default [tool({ name: "add", execute: async ({ a, b }) => ({ sum: a + b }) }),
                       tool({ name: "wipe", execute: async () => "wiped" })];`,
    );
    writeFileSync(join(dir, "caps.json"), JSON.stringify([{ method: "add", constraints: [{ param: "a", op: "<", value: 100 }] }]));
    const base = ["run", "--tools", join(dir, "tools.mjs"), "--caps", join(dir, "caps.json")];
    assert.deepEqual(cordon([...base, "--shell", "tool add --a 2 --b 40 | jq .sum"]), { stdout: "42\n", stderr: "", status: 0 });
    const denied = cordon([...base, "-e", "try { await wipe({}) } catch (e) { console.log(e.code) }"]);
    assert.deepEqual(denied, { stdout: "DENIED\n", stderr: "", status: 0 });
    const json = cordon([...base, "--json", "-e", "return await add({ a: 1, b: 2 })"]);
    assert.equal(json.status, 0);
    const parsed = JSON.parse(json.stdout);
    assert.deepEqual([parsed.exitCode, parsed.value, parsed.toolCalls.length], [0, '{"sum":3}', 1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cordon: limits end a run with status 125 and the code; usage errors exit 2", () => {
  assert.deepEqual(cordon(["run", "--timeout", "50", "-e", "while (true) {}"]), {
    stdout: "",
    stderr: "cordon: TIMEOUT: the run exceeded its time limit of 50 ms (limits.timeoutMs)\n",
    status: 125,
  });
  assert.deepEqual(cordon(["run", "--bogus"]), {
    stdout: "",
    stderr: "cordon: unknown option --bogus\nTry 'cordon --help' for more information.\n",
    status: 2,
  });
  assert.deepEqual(cordon(["run", "--timeout", "soon", "-e", "1"]).status, 2);
  const help = cordon(["--help"]);
  assert.equal(help.status, 0);
  assert.ok(help.stdout.startsWith("Usage: cordon run [OPTIONS] FILE"));
});

test("cordon repl: one session across lines, in both languages; values are echoed", () => {
  // Since the REPL echoes values as Node's does, `globalThis.x = 41` shows 41.
  const r = cordon(["repl"], "globalThis.x = 41\nreturn x + 1\n.shell\necho $((2 + 3)) > n.txt; cat n.txt\n.js\nreturn fs.readFileSync('n.txt', 'utf8').trim()\n.exit\n");
  assert.deepEqual(r, { stdout: "41\n42\n5\n5\n", stderr: "", status: 0 });
});

test("cordon run: JavaScript reads the CLI's piped standard input; process.exit is the status", () => {
  assert.deepEqual(cordon(["run", "-e", 'const t = require("fs").readFileSync(0, "utf8"); console.log(t.trim().toUpperCase()); process.exit(3)'], "piped\n"), {
    stdout: "PIPED\n",
    stderr: "",
    status: 3,
  });
});

test("cordon repl: .ts takes TypeScript, and import lines, with declarations kept across inputs", () => {
  const r = cordon(["repl"], '.ts\nconst n: number = 40\ninterface P { x: number }\nfunction add(p: P): number { return p.x + n }\nadd({ x: 2 })\n.js\nimport { join } from "node:path"\njoin("a", "b")\nlet t: string = "x"\n.exit\n');
  // Declarations echo undefined, as in Node's REPL.
  assert.equal(r.stdout, "undefined\nundefined\nundefined\n42\nundefined\n'a/b'\n");
  assert.match(r.stderr, /^Uncaught SyntaxError: /);
  assert.equal(r.status, 1);
});

test("cordon --version, and options written as --name=value", () => {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  assert.deepEqual(cordon(["--version"]), { stdout: `cordon ${version}\n`, stderr: "", status: 0 });
  assert.deepEqual(cordon(["run", "-v"]), { stdout: `cordon ${version}\n`, stderr: "", status: 0 });
  assert.deepEqual(cordon(["run", "--timeout=500", "-e", "while (true) {}"]), {
    stdout: "",
    stderr: "cordon: TIMEOUT: the run exceeded its time limit of 500 ms (limits.timeoutMs)\n",
    status: 125,
  });
  assert.deepEqual(cordon(["run", "--json", "--eval=return 6 * 7"]).status, 0);
});

test("cordon run: arguments after the script reach it, `--` before ones that look like options", () => {
  const dir = mkdtempSync(join(tmpdir(), "cordon-cli-"));
  try {
    writeFileSync(join(dir, "args.js"), "#!/usr/bin/env cordon\nconsole.log(JSON.stringify(process.argv))\n");
    writeFileSync(join(dir, "args.sh"), "echo \"$#: $1|$2|$3\"\n");
    const js = join(dir, "args.js");
    assert.deepEqual(cordon(["run", js, "--", "--json", "a b"]), { stdout: `["cordon","${js}","--json","a b"]\n`, stderr: "", status: 0 });
    assert.deepEqual(cordon(["run", js, "plain"]), { stdout: `["cordon","${js}","plain"]\n`, stderr: "", status: 0 });
    assert.deepEqual(cordon(["run", "-e", "console.log(process.argv.slice(1).join(','))", "--", "-x", "y"]), {
      stdout: "-x,y\n",
      stderr: "",
      status: 0,
    });
    assert.deepEqual(cordon(["run", join(dir, "args.sh"), "--", "-n", "it's", "$HOME"]), { stdout: "3: -n|it's|$HOME\n", stderr: "", status: 0 });
    assert.deepEqual(cordon(["run", "--shell", 'echo "$@"', "--", "--tools", "x"]), { stdout: "--tools x\n", stderr: "", status: 0 });
    // Without `--`, an option after the file is cordon's.
    assert.deepEqual(cordon(["run", js, "--bogus"]), usageError("unknown option --bogus"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cordon run: a file that cannot be read, and other usage errors, exit 2 with a message", () => {
  const dir = mkdtempSync(join(tmpdir(), "cordon-cli-"));
  try {
    const missing = join(dir, "missing.js");
    assert.deepEqual(cordon(["run", missing]), usageError(`cannot read the script ${missing}: no such file`));
    assert.deepEqual(cordon(["run", dir]), usageError(`cannot read the script ${dir}: it is a directory`));
    assert.deepEqual(cordon(["run", "--tools", missing, "-e", "1"]), usageError(`cannot read tools from ${missing}: no such file`));
    assert.deepEqual(cordon(["run", "--caps", missing, "-e", "1"]), usageError(`cannot read capabilities from ${missing}: no such file`));
    assert.deepEqual(cordon(["run"]), usageError("nothing to run: give a FILE, -e CODE or --shell CODE"));
    assert.deepEqual(cordon(["run", "--timeout"]), usageError("--timeout needs a value"));
    assert.deepEqual(cordon(["run", "--timeout", "soon", "-e", "1"]), usageError('--timeout needs a non-negative integer, got "soon"'));
    assert.deepEqual(cordon(["repl", "extra"]), usageError("unexpected argument extra"));
    assert.deepEqual(cordon(["serve"]), usageError('unknown command "serve" (run, repl, mcp)'));
    assert.deepEqual(cordon(["run", "-e", "1", "--shell", "true"]), usageError("give -e CODE or --shell CODE, not both"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cordon run --tools without --caps warns that every call will be denied; a bad capabilities file names the key", () => {
  const dir = mkdtempSync(join(tmpdir(), "cordon-cli-"));
  try {
    const tools = join(dir, "tools.mjs");
    writeFileSync(tools, "export default { add: async ({ a, b }) => a + b };\n");
    assert.deepEqual(cordon(["run", "--tools", tools, "-e", "try { await add({ a: 1, b: 2 }) } catch (e) { console.log(e.code) }"]), {
      stdout: "DENIED\n",
      stderr: "cordon: warning: --tools without --caps (nor a `capabilities` export): every tool call will be denied\n",
      status: 0,
    });
    // A module that grants its own capabilities needs no --caps.
    const granted = join(dir, "granted.mjs");
    writeFileSync(granted, "export default { add: async ({ a, b }) => a + b };\nexport const capabilities = [{ method: 'add' }];\n");
    assert.deepEqual(cordon(["run", "--tools", granted, "-e", "return await add({ a: 1, b: 2 })"]), { stdout: "3\n", stderr: "", status: 0 });

    const caps = (name, text) => {
      writeFileSync(join(dir, name), text);
      return cordon(["run", "--tools", tools, "--caps", join(dir, name), "-e", "1"]);
    };
    const bad = (name, what) => usageError(`bad capabilities in ${join(dir, name)}: ${what}`);
    assert.deepEqual(
      caps("typo.json", '[{ "method": "add" },\n { "methd": "add" }]'),
      bad("typo.json", "[1].methd: unknown key; expected one of method, constraints, maxCalls, params, requireApproval"),
    );
    assert.deepEqual(caps("calls.json", '[{ "method": "add", "maxCalls": "3" }]'), bad("calls.json", '[0].maxCalls: expected a non-negative integer, got "3"'));
    assert.deepEqual(caps("object.json", '{ "method": "add" }'), bad("object.json", "the top level: expected an array of capabilities, got an object"));
    assert.deepEqual(caps("name.json", '["add"]'), bad("name.json", '[0]: expected an object like {"method": "name"}, got "add"'));
    assert.deepEqual(caps("syntax.json", '[\n  { "method": "add", }\n]'), bad("syntax.json", "not JSON: Expected double-quoted property name (line 2, column 22)"));
    // Constraints are checked by the sandbox, whose message names the key.
    assert.deepEqual(caps("constraint.json", '[{ "method": "add", "constraints": [{ "parm": "a", "op": "<", "value": 1 }] }]'), {
      stdout: "",
      stderr: 'cordon: INVALID_OPTIONS: capability "add": unknown key "parm" in constraint; expected param, op, value\n',
      status: 125,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cordon: a missing optional package exits 2 with the command that installs it", () => {
  // cordon installed without its optional peers: the package's files in a
  // directory with no node_modules above it.
  const dir = mkdtempSync(join(tmpdir(), "cordon-nopeers-"));
  try {
    const root = fileURLToPath(new URL("..", import.meta.url));
    for (const f of ["dist", "package.json", "native.js"]) cpSync(join(root, f), join(dir, f), { recursive: true });
    symlinkSync(join(root, "npm"), join(dir, "npm"));
    const copy = join(dir, "dist", "cli.js");
    assert.deepEqual(cordon(["mcp"], "", copy), {
      stdout: "",
      stderr: "cordon: MISSING_PEER: cordon mcp needs the optional package @modelcontextprotocol/sdk, which is not installed: npm install @modelcontextprotocol/sdk\n",
      status: 2,
    });
    const tools = join(dir, "tools.mjs");
    writeFileSync(tools, "import { tool } from 'ai';\nexport default { t: tool };\n");
    assert.deepEqual(cordon(["run", "--tools", tools, "-e", "1"], "", copy), {
      stdout: "",
      stderr: `cordon: MISSING_PEER: the tools module ${tools} needs the optional package ai, which is not installed: npm install ai\n`,
      status: 2,
    });
    // The copy works otherwise.
    assert.deepEqual(cordon(["run", "-e", "return 1 + 1"], "", copy), { stdout: "2\n", stderr: "", status: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
