// `cordon repl`: an interactive session on one sandbox, built on node:repl
// (line editing, history, `.help`, `.editor`, multi-line input, Ctrl-C and
// Ctrl-D as in Node). Each input runs in the guest (replsource.ts says how);
// the host never evaluates it.

import { homedir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import * as nodeRepl from "node:repl";
import { CordonError, type Language, type Sandbox } from "./index";
import { prepare } from "./replsource";
import { prepareScript } from "./scriptsource";

export interface ReplOptions {
  language: Language;
  /** Writes a sandbox failure (partial output, `cordon: CODE: message`); returns the exit status. */
  failure: (err: unknown) => number;
}

const PROMPTS: Record<Language, string> = { javascript: "cordon> ", typescript: "cordon> ", shell: "cordon$ " };

/** Where history is kept: `CORDON_REPL_HISTORY` (empty: nowhere), else ~/.cordon_repl_history. */
function historyFile(): string {
  const env = process.env.CORDON_REPL_HISTORY;
  return env !== undefined ? env.trim() : join(homedir(), ".cordon_repl_history");
}

/**
 * Runs the session on a sandbox from `create` (`.clear` makes a new one)
 * until `.exit`, Ctrl-D or Ctrl-C twice; resolves with the exit status of
 * the last input (125 when the sandbox stopped it, 130 when Ctrl-C did).
 */
export async function startRepl(create: () => Promise<Sandbox>, opts: ReplOptions): Promise<number> {
  let sb = await create();
  // A terminal gets prompts, line editing and history; piped input gets no
  // prompts, only what the inputs print.
  const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const gate = new Gate(terminal);
  let language = opts.language;
  let last = 0;

  const server = nodeRepl.start({
    prompt: terminal ? PROMPTS[language] : "",
    input: gate.input,
    output: process.stdout,
    terminal,
    ignoreUndefined: true,
    // Previews and the default completer evaluate code on the host.
    preview: false,
    completer: (line: string) => {
      const commands = Object.keys(server.commands).map((c) => `.${c}`);
      const hits = line.startsWith(".") ? commands.filter((c) => c.startsWith(line)) : [];
      return [hits, line];
    },
    eval: (cmd, _context, _file, callback) => {
      if (cmd.trim() === "") return callback(null, undefined);
      let code = cmd;
      let positions = (text: string) => text;
      if (language !== "shell") {
        // Decided at once: the REPL reads the next line into the same input.
        const first = prepare(cmd);
        if (first.incomplete) return callback(new nodeRepl.Recoverable(new SyntaxError("incomplete input")), undefined);
        // `import` lines become `require`, TypeScript's types go (lines and
        // columns stay), then declarations are made to outlive the input.
        const source = prepareScript(cmd, language === "typescript");
        if ("error" in source) {
          const { message, line, column } = source.error;
          process.stderr.write(`Uncaught SyntaxError: ${message}\n    at main.js:${line}:${column}\n`);
          last = 1;
          return callback(null, undefined);
        }
        const prepared = source.code === cmd ? first : prepare(source.code);
        if (!prepared.incomplete) ({ code, positions } = prepared);
      }
      gate.busy = true;
      runOne(code, positions).then(
        () => gate.done(() => callback(null, undefined)),
        (err: unknown) => {
          // A fault of cordon itself: reported, and the session goes on.
          process.stderr.write(`cordon: ${err instanceof Error ? err.message : String(err)}\n`);
          last = 125;
          gate.done(() => callback(null, undefined));
        },
      );
    },
  });
  // Without a terminal there is no prompt to show (not even `... `).
  if (!terminal) server.displayPrompt = () => {};

  const write = (out: string, err: string) => {
    process.stdout.write(out);
    process.stderr.write(err);
  };

  /** Runs one input; `positions` maps the places in its error messages back to the input. */
  async function runOne(code: string, positions: (text: string) => string): Promise<void> {
    const controller = new AbortController();
    const stopped = gate.running(() => controller.abort());
    try {
      const r = await sb.run(code, { language: language === "shell" ? "shell" : "javascript", signal: controller.signal });
      write(r.stdout, positions(r.stderr));
      last = r.exitCode;
    } catch (err) {
      if (err instanceof CordonError && err.code === "CANCELLED" && controller.signal.aborted) {
        if (err.result) write(err.result.stdout, err.result.stderr);
        process.stderr.write("cordon: interrupted: the run was cancelled (Ctrl-C)\n");
        last = 130;
      } else {
        last = opts.failure(err);
      }
      // A run the sandbox stopped may have cost the guest instance; say so
      // now rather than let the next input find its globals gone.
      try {
        const probe = await sb.run("", { language: "javascript" });
        if (probe.stats.instanceRestarted) {
          process.stderr.write("cordon: the sandbox restarted: JavaScript globals from earlier inputs are gone (files remain)\n");
        }
      } catch {
        // The next input reports whatever is wrong.
      }
    } finally {
      stopped();
    }
  }

  const switchTo = (to: Language) => () => {
    language = to;
    if (terminal) server.setPrompt(PROMPTS[to]);
    server.displayPrompt();
  };
  server.defineCommand("shell", { help: "Run the next inputs as shell (bash-compatible) scripts", action: switchTo("shell") });
  server.defineCommand("js", { help: "Run the next inputs as JavaScript", action: switchTo("javascript") });
  server.defineCommand("ts", { help: "Run the next inputs as TypeScript (types removed, not checked)", action: switchTo("typescript") });
  // node:repl's own `.clear` resets a host context this REPL does not use.
  server.defineCommand("clear", {
    help: "Break, and start over in a new sandbox (globals and files are gone)",
    action() {
      server.clearBufferedCommand();
      gate.busy = true;
      const old = sb;
      create()
        .then((fresh) => {
          sb = fresh;
          return old.close();
        })
        .catch((err: unknown) => {
          last = opts.failure(err);
        })
        .finally(() => gate.done(() => server.displayPrompt()));
    },
  });

  if (terminal) {
    const file = historyFile();
    if (file !== "") {
      server.setupHistory(file, (err) => {
        if (err) process.stderr.write(`cordon: history is not kept: ${err.message}\n`);
      });
    }
  }

  await new Promise((resolve) => server.on("exit", resolve));
  gate.close();
  await sb.close();
  return last;
}

/**
 * Stands between stdin and the REPL. node:repl with an asynchronous eval
 * would read the next line while an input still runs: a second run would
 * start at once, and a multi-line input typed ahead would lose its first
 * lines. So while an input runs, what arrives waits here (as a terminal
 * holds type-ahead), and it is handed on one line at a time. Ctrl-C during
 * a run cancels the run and drops what waits; at the prompt it goes to the
 * REPL (clear the line, or exit on the second press).
 */
class Gate {
  readonly input: PassThrough;
  /** An input is running; nothing is handed on until `done`. */
  busy = false;
  private pending = "";
  private ended = false;
  private stepping = false;
  private readonly onData = (chunk: string) => this.receive(chunk);
  private readonly onEnd = () => {
    this.ended = true;
    this.pump();
  };
  private readonly onSignal = () => this.cancel();
  private cancelRun: (() => void) | null = null;

  constructor(private readonly terminal: boolean) {
    this.input = new PassThrough({ encoding: "utf8" });
    if (terminal) {
      // readline puts its input in raw mode: pass that on to the terminal.
      Object.assign(this.input, {
        isTTY: true,
        setRawMode: (mode: boolean) => {
          process.stdin.setRawMode(mode);
          return this.input;
        },
      });
    }
    this.input.on("resume", () => this.pump());
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", this.onData);
    process.stdin.on("end", this.onEnd);
  }

  private receive(chunk: string): void {
    if (this.busy && this.terminal && chunk.includes("\x03")) {
      this.cancel();
      return;
    }
    this.pending += chunk;
    this.pump();
  }

  private cancel(): void {
    this.pending = "";
    this.cancelRun?.();
  }

  /**
   * A run starts: Ctrl-C calls `cancel` until the returned function is
   * called. Without a terminal, Ctrl-C reaches the process as a signal,
   * which is caught only meanwhile (at other times it ends the process).
   */
  running(cancel: () => void): () => void {
    this.cancelRun = cancel;
    if (!this.terminal) process.on("SIGINT", this.onSignal);
    return () => {
      this.cancelRun = null;
      process.removeListener("SIGINT", this.onSignal);
    };
  }

  /**
   * Hands on input up to the next line end, then waits a turn: the REPL may
   * start a run with it. Nothing while the REPL has paused its input (it
   * does while it loads the history file): it would all arrive at once.
   */
  private pump(): void {
    if (this.busy || this.stepping || this.input.isPaused()) return;
    if (this.pending === "") {
      if (this.ended) this.input.end();
      return;
    }
    const end = this.pending.search(/[\r\n]/);
    const piece = end < 0 ? this.pending : this.pending.slice(0, end + 1);
    this.pending = this.pending.slice(piece.length);
    this.input.write(piece);
    this.stepping = true;
    setImmediate(() => {
      this.stepping = false;
      this.pump();
    });
  }

  /** The run is over: `finish` shows its result and the prompt, then input flows again. */
  done(finish: () => void): void {
    this.busy = false;
    finish();
    this.pump();
  }

  close(): void {
    process.stdin.removeListener("data", this.onData);
    process.stdin.removeListener("end", this.onEnd);
    process.stdin.pause();
  }
}
