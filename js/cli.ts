#!/usr/bin/env node
// The `cordon` command: run a script or a REPL session in a sandbox from a
// terminal. Exit status follows the script's; a failure of the sandbox
// itself (a limit, bad options) prints its code and exits 125; a usage
// error (a bad option, an unreadable file, a missing optional package)
// exits 2. Options are read with node:util's parseArgs.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isatty } from "node:tty";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Sandbox, CordonError, type Capability, type Language, type SandboxOptions } from "./index";
import { startRepl } from "./repl";
import { validateCapabilities } from "./options";

const HELP = `Usage: cordon run [OPTIONS] FILE [--] [ARGS...]     run a JavaScript, TypeScript (.ts) or shell (.sh) file
       cordon run [OPTIONS] -e CODE [--] [ARGS...]  run JavaScript given inline
       cordon run [OPTIONS] --shell CODE [--] [ARGS...]  run a shell script given inline
       cordon repl [OPTIONS] [--shell]  an interactive session (one sandbox)
       cordon mcp [OPTIONS]             serve a sandbox over stdio as an MCP server
                                        (tools run_javascript, run_shell, read_file, write_file)

Runs code in a cordon sandbox: no network, no host files, no processes; only the
tools you load, under the capabilities you grant.

Options:
  --tools FILE     a JavaScript module whose default export (or \`tools\` export)
                   is the sandbox's tools: an array of tool() definitions or a
                   record of functions; it may also export \`capabilities\`
  --caps FILE      a JSON file with the capabilities (an array); without it and
                   without a \`capabilities\` export, no tool call is allowed
  --timeout MS     wall-clock limit per run (limits.timeoutMs)
  --cpu MS         CPU limit per run (limits.cpuMs)
  --memory BYTES   memory limit (limits.memoryBytes)
  --json           print the whole result as JSON instead of the output
  -h, --help       this text
  -v, --version    the version of cordon

Options take their value as \`--timeout 500\` or \`--timeout=500\`. ARGS reach a
script as process.argv (['cordon', FILE, ...ARGS], as in node) or as $1, $2...
in the shell; put \`--\` before them when one starts with a dash. A shell run
reads cordon's own standard input when it is not a terminal.

Exit status: the script's exit status; 125 when the sandbox failed (a limit was
hit, bad options), with "cordon: CODE: message" on stderr; 2 for usage errors
(a bad option, a file that cannot be read, an optional package not installed).
The REPL echoes each expression's value and keeps declarations for the next
input; \`.shell\` and \`.js\` switch languages, \`.help\` lists the commands,
\`.exit\` or Ctrl-D quits, and Ctrl-C cancels a running input (status 130).
`;

type Command = "run" | "repl" | "mcp";

interface Parsed {
  command: Command;
  language: Language;
  code: string | undefined;
  file: string | undefined;
  args: string[];
  tools: string | undefined;
  caps: string | undefined;
  limits: Record<string, number>;
  json: boolean;
}

class UsageError extends Error {}

// A real dynamic import (this file compiles to CommonJS, where TypeScript
// would turn `import()` into `require()`, which cannot load ES modules).
const importModule = new Function("specifier", "return import(specifier)") as (
  specifier: string,
) => Promise<Record<string, unknown>>;

// The options every command takes, and each command's own.
const COMMON = {
  tools: { type: "string" },
  caps: { type: "string" },
  timeout: { type: "string" },
  cpu: { type: "string" },
  memory: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;
const OPTIONS = {
  run: { ...COMMON, eval: { type: "string", short: "e" }, shell: { type: "string" }, json: { type: "boolean" } },
  repl: { ...COMMON, shell: { type: "boolean" } },
  mcp: COMMON,
} as const;
const LIMITS = { timeout: "timeoutMs", cpu: "cpuMs", memory: "memoryBytes" } as const;

/** parseArgs' errors in this command's words. */
function usage(err: unknown): UsageError {
  const e = err as { code?: string; message?: string };
  const message = String(e.message ?? err);
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  switch (e.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return new UsageError(`unknown option ${option ?? message}`);
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return new UsageError(
        /argument missing/.test(message)
          ? `${option ?? "an option"} needs a value`
          : /ambiguous/.test(message)
            ? `${option ?? "an option"} needs a value; write ${option ?? "--option"}=VALUE for one that starts with a dash`
            : message,
      );
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return new UsageError(`unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? message}`);
  }
  return new UsageError(message);
}

type Flags = { [K in keyof typeof OPTIONS.run]?: string | boolean };

/** The command line after `cordon`; `help` and `version` when asked for. */
function parse(argv: string[]): Parsed | "help" | "version" {
  const [command, ...rest] = argv;
  if (command === "-h" || command === "--help") return "help";
  if (command === "-v" || command === "--version") return "version";
  if (command !== "run" && command !== "repl" && command !== "mcp") {
    throw new UsageError(command.startsWith("-") ? `unknown option ${command}` : `unknown command ${JSON.stringify(command)} (run, repl, mcp)`);
  }
  let values: Flags;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: rest, options: OPTIONS[command], allowPositionals: command === "run", strict: true });
    values = parsed.values as Flags;
    positionals = parsed.positionals;
  } catch (err) {
    throw usage(err);
  }
  if (values.help) return "help";
  if (values.version) return "version";
  const limits: Record<string, number> = {};
  for (const [flag, key] of Object.entries(LIMITS)) {
    const v = values[flag as keyof Flags];
    if (typeof v !== "string") continue;
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new UsageError(`--${flag} needs a non-negative integer, got ${JSON.stringify(v)}`);
    limits[key] = n;
  }
  const out: Parsed = {
    command,
    language: "javascript",
    code: undefined,
    file: undefined,
    args: [],
    tools: values.tools as string | undefined,
    caps: values.caps as string | undefined,
    limits,
    json: values.json === true,
  };
  if (command === "repl") {
    if (values.shell === true) out.language = "shell";
    return out;
  }
  if (command !== "run") return out;
  if (typeof values.eval === "string" && typeof values.shell === "string") throw new UsageError("give -e CODE or --shell CODE, not both");
  if (typeof values.eval === "string") out.code = values.eval;
  else if (typeof values.shell === "string") {
    out.code = values.shell;
    out.language = "shell";
  } else {
    out.file = positionals.shift();
    if (out.file === undefined) throw new UsageError("nothing to run: give a FILE, -e CODE or --shell CODE");
  }
  out.args = positionals;
  return out;
}

const PACKAGE = join(__dirname, "..", "package.json");

function version(): string {
  return (JSON.parse(readFileSync(PACKAGE, "utf8")) as { version: string }).version;
}

/** A host file's text; a file that cannot be read is a usage error. */
function readText(path: string, what: string): string {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason =
      e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "it is a directory" : e.code === "EACCES" ? "permission denied" : e.message;
    throw new UsageError(`cannot read ${what} ${path}: ${reason}`);
  }
}

// The optional peer packages of cordon (its MCP server, cordon/ai,
// cordon/langchain).
const PEERS = ["@modelcontextprotocol/sdk", "ai", "@langchain/core"];

/** An optional peer package is not installed (`MISSING_PEER`, exit status 2). */
function missingPeer(peer: string, needer: string): CordonError {
  return new CordonError("MISSING_PEER", `${needer} needs the optional package ${peer}, which is not installed: npm install ${peer}`);
}

/** The peer package a module-not-found error is about, if it is one. */
function peerOf(err: unknown): string | undefined {
  const e = err as { code?: string; message?: string } | null;
  if (e?.code !== "ERR_MODULE_NOT_FOUND" && e?.code !== "MODULE_NOT_FOUND") return undefined;
  const specifier = /Cannot find (?:package|module) '([^']+)'/.exec(String(e.message))?.[1] ?? "";
  return PEERS.find((p) => specifier === p || specifier.startsWith(`${p}/`));
}

/**
 * Checks capabilities read from `source` as `create()` does, naming the
 * entry and key (`[1].maxCalls`) in the file.
 */
function checkCapabilities(caps: unknown, source: string): Capability[] {
  try {
    validateCapabilities(caps, "");
  } catch (err) {
    if (err instanceof CordonError) throw new UsageError(`bad capabilities in ${source}: ${err.message}`);
    throw err;
  }
  return caps as Capability[];
}

/** JSON.parse's error with the line and column in the file, not an offset. */
function jsonError(text: string, err: unknown): string {
  const message = String((err as Error).message);
  const at = /at position (\d+)/.exec(message);
  if (!at) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${message.slice(0, at.index).trim().replace(/ in JSON$/, "")} (line ${line}, column ${column})`;
}

async function options(p: Parsed): Promise<SandboxOptions> {
  const opts: SandboxOptions = { limits: p.limits };
  if (p.tools !== undefined) {
    readText(p.tools, "tools from");
    let mod: Record<string, unknown>;
    try {
      mod = await importModule(pathToFileURL(resolve(p.tools)).href);
    } catch (err) {
      const peer = peerOf(err);
      if (peer !== undefined) throw missingPeer(peer, `the tools module ${p.tools}`);
      // cordon's adapters say which package they need and how to install it.
      throw new UsageError(`cannot load tools from ${p.tools}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const tools = mod.tools ?? mod.default;
    if (tools === undefined) throw new UsageError(`${p.tools} exports no tools (a default export or \`tools\`)`);
    opts.tools = tools as SandboxOptions["tools"];
    if (mod.capabilities !== undefined) opts.capabilities = checkCapabilities(mod.capabilities, `the capabilities export of ${p.tools}`);
  }
  if (p.caps !== undefined) {
    const text = readText(p.caps, "capabilities from");
    let caps: unknown;
    try {
      caps = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`bad capabilities in ${p.caps}: not JSON: ${jsonError(text, e)}`);
    }
    opts.capabilities = checkCapabilities(caps, p.caps);
  }
  if (opts.tools !== undefined && opts.capabilities === undefined) {
    process.stderr.write("cordon: warning: --tools without --caps (nor a `capabilities` export): every tool call will be denied\n");
  }
  return opts;
}

function sandboxFailure(err: unknown): number {
  if (err instanceof CordonError) {
    if (err.result) {
      process.stdout.write(err.result.stdout);
      process.stderr.write(err.result.stderr);
    }
    process.stderr.write(`cordon: ${err.code}: ${err.message}\n`);
    return 125;
  }
  throw err;
}

/** `'a b'` for the shell. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The CLI's own standard input, for the script, when it is not a terminal. */
function pipedStdin(): { stdin?: Uint8Array } {
  if (isatty(0)) return {};
  try {
    return { stdin: readFileSync(0) };
  } catch {
    // Closed or unreadable: the script's standard input is empty.
    return {};
  }
}

async function run(p: Parsed): Promise<number> {
  let code = p.code;
  let language = p.language;
  if (code === undefined) {
    const file = p.file as string;
    code = readText(file, "the script");
    if (/\.(sh|bash)$/.test(file)) language = "shell";
    else if (/\.(ts|mts|cts)$/.test(file)) language = "typescript";
    // The `#!` line goes; the line numbers stay.
    if (code.startsWith("#!")) code = code.slice(code.search(/\n|$/));
  }
  const sb = await Sandbox.create(await options(p));
  try {
    if (language === "shell") {
      // `$1`, `$2`...: set on the first line, so line numbers stay.
      if (p.args.length > 0) code = `set -- ${p.args.map(shellQuote).join(" ")}; ${code}`;
    } else {
      // As in node: the script's path when there is one, then the arguments.
      const argv = ["cordon", ...(p.file !== undefined ? [p.file] : []), ...p.args];
      await sb.run(`process.argv = ${JSON.stringify(argv)};`);
    }
    const r = await sb.run(code, { language, ...pipedStdin() });
    if (p.json) {
      process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    } else {
      process.stdout.write(r.stdout);
      process.stderr.write(r.stderr);
    }
    return r.exitCode;
  } catch (err) {
    if (p.json && err instanceof CordonError) {
      process.stdout.write(`${JSON.stringify({ error: { code: err.code, message: err.message }, result: err.result ?? null }, null, 2)}\n`);
      return 125;
    }
    return sandboxFailure(err);
  } finally {
    await sb.close();
  }
}

async function repl(p: Parsed): Promise<number> {
  const opts = await options(p);
  return await startRepl(() => Sandbox.create(opts), { language: p.language, failure: sandboxFailure });
}

async function mcp(p: Parsed): Promise<number> {
  try {
    require.resolve("@modelcontextprotocol/sdk/server/index.js");
  } catch {
    throw missingPeer("@modelcontextprotocol/sdk", "cordon mcp");
  }
  const { serveStdio } = require("./mcp") as typeof import("./mcp");
  await serveStdio(await options(p));
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    process.stdout.write(HELP);
    return 2;
  }
  try {
    const parsed = parse(argv);
    if (parsed === "help") {
      process.stdout.write(HELP);
      return 0;
    }
    if (parsed === "version") {
      process.stdout.write(`cordon ${version()}\n`);
      return 0;
    }
    switch (parsed.command) {
      case "run":
        return await run(parsed);
      case "repl":
        return await repl(parsed);
      case "mcp":
        return await mcp(parsed);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`cordon: ${err.message}\nTry 'cordon --help' for more information.\n`);
      return 2;
    }
    // A missing optional package, found by the CLI or by cordon's adapters.
    if (err instanceof CordonError && err.code === "MISSING_PEER") {
      process.stderr.write(`cordon: MISSING_PEER: ${err.message}\n`);
      return 2;
    }
    if (err instanceof CordonError) return sandboxFailure(err);
    throw err;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`cordon: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 125;
    },
  );
}
