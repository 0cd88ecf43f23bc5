// The `cordon` command, run as a user would: real processes, real sandboxes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const index = new URL("../dist/index.js", import.meta.url).href;

function cordon(args, input) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", input: input ?? "" });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

test("cordon run: files, inline JavaScript and shell; the exit status is the script's", () => {
  const dir = mkdtempSync(join(tmpdir(), "cordon-cli-"));
  try {
    writeFileSync(join(dir, "s.js"), "#!/usr/bin/env node\nconsole.log('from a file'); return 7;\n");
    writeFileSync(join(dir, "s.sh"), "echo shell file; exit 4\n");
    assert.deepEqual(cordon(["run", join(dir, "s.js")]), { stdout: "from a file\n7\n", stderr: "", status: 0 });
    assert.deepEqual(cordon(["run", join(dir, "s.sh")]), { stdout: "shell file\n", stderr: "", status: 4 });
    assert.deepEqual(cordon(["run", "--shell", "printf 'b\\na\\n' | sort; echo err >&2; exit 3"]), {
      stdout: "a\nb\n",
      stderr: "err\n",
      status: 3,
    });
    assert.deepEqual(cordon(["run", "-e", "throw new TypeError('bad')"]).status, 1);
    assert.deepEqual(cordon(["run", "-"], "console.log('stdin')"), { stdout: "stdin\n", stderr: "", status: 0 });
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
