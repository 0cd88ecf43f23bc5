// `cordon repl` as a user meets it: in a real terminal (tmux), and with
// piped input; a real sandbox behind it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { Script } from "node:vm";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

function repl(input, args = []) {
  const r = spawnSync(process.execPath, [cli, "repl", ...args], {
    encoding: "utf8",
    input,
    timeout: 30_000,
    env: { ...process.env, CORDON_REPL_HISTORY: "" },
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

test("cordon repl: values are echoed as Node's REPL shows them; declarations stay for the next input", () => {
  const input = [
    "1 + 1",
    "let x = 5",
    "x * 2",
    "'a string'",
    "({ a: [1, { b: 2 }], s: 'q' })",
    "{ a: 1 }",
    "const { p, q: [r = 3, ...rest] } = { p: 1, q: [undefined, 4, 5] }; [p, r, rest]",
    "var v = 'var'; v",
    "function twice(n) { return n * x }",
    "twice(4)",
    "class Point { constructor(x) { this.x = x } }",
    "new Point(7).x",
    "let a = 1, b",
    "b",
    // Inner scopes keep their own: `i` and `j` are not globals afterwards.
    "for (let i = 0; i < 3; i++) { let j = i }",
    "typeof i + ' ' + typeof j",
    "await Promise.resolve('awaited')",
    "let s = `${x} ; let y = 1`, re = /[;}]/g; s.replace(re, '')",
    "typeof y",
    "undefinedName",
    "x",
  ].join("\n");
  const r = repl(`${input}\n`);
  assert.equal(
    r.stdout,
    [
      "2",
      "undefined",
      "10",
      "'a string'",
      "{ a: [ 1, { b: 2 } ], s: 'q' }",
      "{ a: 1 }",
      "[ 1, 3, [ 4, 5 ] ]",
      "'var'",
      "undefined",
      "20",
      "undefined",
      "7",
      "undefined",
      "undefined",
      "undefined",
      "'undefined undefined'",
      "'awaited'",
      "'5  let y = 1'",
      "'undefined'",
      "5",
      "",
    ].join("\n"),
  );
  assert.equal(r.stderr, "Uncaught ReferenceError: undefinedName is not defined\n    at <anonymous> (main.js:1:1)\n");
  assert.equal(r.status, 0);
});

test("cordon repl: an incomplete input goes on over the next lines", () => {
  const r = repl("function add(a, b) {\n  return a +\n    b\n}\nadd(2,\n3)\nconst t = `one\ntwo`\nt.split('\\n')\n");
  assert.deepEqual(r, { stdout: "undefined\n5\nundefined\n[ 'one', 'two' ]\n", stderr: "", status: 0 });
});

test("cordon repl: error positions are those of the input as typed", () => {
  const r = repl(
    [
      "'use strict'; function fails(n) { return n.missing.deeper }",
      "let a = 1, b = nope",
      "  1 +",
      "  (2 + oops)",
      "class K { m() { return zz } }",
      "new K().m()",
      "fails({})",
    ].join("\n") + "\n",
  );
  assert.equal(r.stdout, "undefined\nundefined\n");
  // The input's own top level, and functions of earlier inputs, where they
  // were typed.
  assert.equal(
    r.stderr,
    [
      "Uncaught ReferenceError: nope is not defined",
      "    at <anonymous> (main.js:1:16)",
      "Uncaught ReferenceError: oops is not defined",
      "    at <anonymous> (main.js:2:8)",
      "Uncaught ReferenceError: zz is not defined",
      "    at m (main.js:1:24)",
      "    at <anonymous> (main.js:1:9)",
      "Uncaught TypeError: cannot read property 'deeper' of undefined",
      "    at fails (main.js:1:42)",
      "    at <anonymous> (main.js:1:1)",
      "",
    ].join("\n"),
  );
});

test("cordon repl: .help lists the commands; a limit is reported and the session goes on; .clear starts over", () => {
  const r = repl(
    ".help\n.shell\necho $((6 * 7)) > n.txt; cat n.txt\n.js\nglobalThis.kept = 1\nwhile (true) {}\ntypeof kept\nfs.existsSync('n.txt')\n.clear\nfs.existsSync('n.txt')\n",
    ["--timeout", "300"],
  );
  assert.match(r.stdout, /^\.break +Sometimes you get stuck/m);
  assert.match(r.stdout, /^\.shell +Run the next inputs as shell \(bash-compatible\) scripts$/m);
  assert.match(r.stdout, /^\.js +Run the next inputs as JavaScript$/m);
  assert.match(r.stdout, /^\.clear +Break, and start over in a new sandbox \(globals and files are gone\)$/m);
  // The files outlive the restart after the limit, not `.clear`.
  assert.match(r.stdout, /\n42\n1\n'undefined'\ntrue\nfalse\n$/);
  assert.equal(
    r.stderr,
    "cordon: TIMEOUT: the run exceeded its time limit of 300 ms (limits.timeoutMs)\n" +
      "cordon: the sandbox restarted: JavaScript globals from earlier inputs are gone (files remain)\n",
  );
  assert.equal(r.status, 0);
});

test("the REPL's rewrite of real code still parses: cordon's own compiled files as inputs", () => {
  const { rewrite } = createRequire(import.meta.url)("../dist/replsource.js");
  const dist = fileURLToPath(new URL("../dist/", import.meta.url));
  const parses = (body) => {
    try {
      new Script(`(async function () {\n${body}\n})`);
      return true;
    } catch {
      return false;
    }
  };
  const files = readdirSync(dist).filter((f) => f.endsWith(".js"));
  assert.ok(files.length >= 10);
  for (const f of files) {
    const text = readFileSync(join(dist, f), "utf8").replace(/^#!.*/, "");
    assert.ok(parses(text), f);
    const { code } = rewrite(text);
    assert.ok(parses(code), `the rewrite of ${f} does not parse`);
    // Declarations became assignments to globals: no `const`, `let` or
    // `var` is left at the start of a line (these files indent the rest).
    assert.doesNotMatch(code, /^(const|let|var) /m, f);
  }
});

// ---- a real terminal ------------------------------------------------------

const tmux = spawnSync("tmux", ["-V"], { encoding: "utf8" });
const noTmux = tmux.error ? "tmux is not installed (scripts/setup.sh installs it)" : false;

/** A tmux server of its own, one window running `command` in a shell. */
function terminal(command, env) {
  const socket = `cordon-test-${process.pid}`;
  const run = (...args) => {
    const r = spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8", timeout: 10_000 });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  };
  const vars = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(" ");
  run("new-session", "-d", "-x", "100", "-y", "50", `env ${vars} ${command}; echo "[exit $?]"; sleep 600`);
  const screen = () => run("capture-pane", "-p", "-S", "-200").replace(/\s+$/, "");
  return {
    keys: (...keys) => run("send-keys", ...keys),
    // Sends literal text then Enter.
    line: (text) => {
      run("send-keys", "-l", text);
      run("send-keys", "Enter");
    },
    screen,
    // Waits, at most `ms`, until the screen's text passes `check`.
    async until(check, what, ms = 15_000) {
      const end = Date.now() + ms;
      for (;;) {
        const text = screen();
        if (check(text)) return text;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the screen:\n${text}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => spawnSync("tmux", ["-L", socket, "kill-server"]),
  };
}

test("cordon repl in a terminal: echo, declarations kept, multi-line input, Ctrl-C cancels a run, history", { skip: noTmux }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "cordon-repl-"));
  const history = join(dir, "history");
  const t = terminal(`${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} repl`, { CORDON_REPL_HISTORY: history });
  const prompts = (text) => text.split("\n").filter((l) => l === "cordon>").length;
  try {
    await t.until((s) => s.endsWith("cordon>"), "the first prompt");
    t.line("1 + 1");
    t.line("let x = 5");
    t.line("x + 1");
    // Typed without waiting: the lines of one input arrive while the
    // previous input may still run.
    t.line("function f(n) {");
    t.line("return n * x");
    t.line("}");
    t.line("f(3)");
    await t.until((s) => /^15$/m.test(s) && s.endsWith("cordon>"), "f(3)");
    assert.equal(
      t.screen(),
      [
        "cordon> 1 + 1",
        "2",
        "cordon> let x = 5",
        "undefined",
        "cordon> x + 1",
        "6",
        "cordon> function f(n) {",
        "... return n * x",
        "... }",
        "undefined",
        "cordon> f(3)",
        "15",
        "cordon>",
      ].join("\n"),
    );

    // An endless loop: Ctrl-C cancels it, and the prompt works again.
    t.line("while (true) {}");
    await t.until((s) => s.endsWith("cordon> while (true) {}"), "the loop to start");
    await new Promise((r) => setTimeout(r, 300));
    t.keys("C-c");
    await t.until((s) => s.endsWith("cordon>"), "the prompt after Ctrl-C");
    assert.ok(
      t.screen().endsWith(
        [
          "cordon> while (true) {}",
          "cordon: interrupted: the run was cancelled (Ctrl-C)",
          "cordon: the sandbox restarted: JavaScript globals from earlier inputs are gone (files remain)",
          "cordon>",
        ].join("\n"),
      ),
      t.screen(),
    );
    t.line("let y = 6 * 7");
    t.line("y");
    await t.until((s) => /^42$/m.test(s) && s.endsWith("cordon>"), "y after the interrupted run");
    assert.ok(t.screen().endsWith("cordon> let y = 6 * 7\nundefined\ncordon> y\n42\ncordon>"), t.screen());

    // Up arrow recalls the last input.
    t.keys("Up");
    await t.until((s) => s.endsWith("cordon> y"), "the recalled input");
    t.keys("Enter");
    await t.until((s) => s.endsWith("cordon> y\n42\ncordon>"), "the recalled input's value");

    // At the prompt, Ctrl-C twice exits, as in Node.
    const before = prompts(t.screen());
    t.keys("C-c");
    await t.until((s) => s.endsWith("(To exit, press Ctrl+C again or Ctrl+D or type .exit)\ncordon>"), "the exit hint");
    assert.equal(prompts(t.screen()), before + 1);
    t.keys("C-c");
    // The last input succeeded: status 0.
    await t.until((s) => s.endsWith("[exit 0]"), "the exit");
    // The history file, newest first (a repeated input is kept once).
    assert.deepEqual(readFileSync(history, "utf8").split("\n").slice(0, 4), ["y", "let y = 6 * 7", "while (true) {}", "f(3)"]);
  } finally {
    t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
