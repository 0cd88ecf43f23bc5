#!/usr/bin/env node
// The `cordon` command: run a script or a REPL session in a sandbox from a
// terminal. Exit status follows the script's; a failure of the sandbox
// itself (a limit, bad options) prints its code and exits 125.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Sandbox, CordonError, type Capability, type Language, type SandboxOptions } from "./index";
import { startRepl } from "./repl";

const HELP = `Usage: cordon run [OPTIONS] FILE        run a JavaScript or shell (.sh) file
       cordon run [OPTIONS] -e CODE     run JavaScript given inline
       cordon run [OPTIONS] --shell CODE  run a shell script given inline
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

Exit status: the script's exit status; 125 when the sandbox failed (a limit was
hit, bad options), with "cordon: CODE: message" on stderr; 2 for usage errors.
The REPL echoes each expression's value and keeps declarations for the next
input; \`.shell\` and \`.js\` switch languages, \`.help\` lists the commands,
\`.exit\` or Ctrl-D quits, and Ctrl-C cancels a running input (status 130).
`;

interface Parsed {
  command: string;
  language: Language;
  code: string | undefined;
  file: string | undefined;
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

function parse(argv: string[]): Parsed {
  const out: Parsed = {
    command: "",
    language: "javascript",
    code: undefined,
    file: undefined,
    tools: undefined,
    caps: undefined,
    limits: {},
    json: false,
  };
  const args = [...argv];
  out.command = args.shift() ?? "";
  const value = (flag: string): string => {
    const v = args.shift();
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const number = (flag: string): number => {
    const v = value(flag);
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new UsageError(`${flag} needs a non-negative integer, got ${JSON.stringify(v)}`);
    return n;
  };
  while (args.length > 0) {
    const arg = args.shift() as string;
    switch (arg) {
      case "-e":
      case "--eval":
        out.code = value(arg);
        out.language = "javascript";
        break;
      case "--shell":
        out.language = "shell";
        if (out.command === "run" && args.length > 0 && !args[0].startsWith("--")) out.code = value(arg);
        break;
      case "--tools":
        out.tools = value(arg);
        break;
      case "--caps":
        out.caps = value(arg);
        break;
      case "--timeout":
        out.limits.timeoutMs = number(arg);
        break;
      case "--cpu":
        out.limits.cpuMs = number(arg);
        break;
      case "--memory":
        out.limits.memoryBytes = number(arg);
        break;
      case "--json":
        out.json = true;
        break;
      default:
        if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown option ${arg}`);
        if (out.file !== undefined || out.code !== undefined) throw new UsageError(`unexpected argument ${arg}`);
        out.file = arg;
    }
  }
  return out;
}

async function options(p: Parsed): Promise<SandboxOptions> {
  const opts: SandboxOptions = { limits: p.limits };
  if (p.tools !== undefined) {
    const mod = await importModule(pathToFileURL(resolve(p.tools)).href);
    const tools = mod.tools ?? mod.default;
    if (tools === undefined) throw new UsageError(`${p.tools} exports no tools (a default export or \`tools\`)`);
    opts.tools = tools as SandboxOptions["tools"];
    if (mod.capabilities !== undefined) opts.capabilities = mod.capabilities as Capability[];
  }
  if (p.caps !== undefined) {
    let caps: unknown;
    try {
      caps = JSON.parse(readFileSync(p.caps, "utf8"));
    } catch (e) {
      throw new UsageError(`cannot read capabilities from ${p.caps}: ${(e as Error).message}`);
    }
    opts.capabilities = caps as Capability[];
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

async function run(p: Parsed): Promise<number> {
  let code = p.code;
  let language = p.language;
  if (code === undefined) {
    if (p.file === undefined) throw new UsageError("nothing to run: give a FILE, -e CODE or --shell CODE");
    code = readFileSync(p.file === "-" ? 0 : p.file, "utf8");
    if (/\.(sh|bash)$/.test(p.file)) language = "shell";
    if (code.startsWith("#!")) code = code.slice(code.indexOf("\n") + 1);
  }
  const sb = await Sandbox.create(await options(p));
  try {
    const r = await sb.run(code, { language });
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
  const sb = await Sandbox.create(await options(p));
  try {
    return await startRepl(sb, { language: p.language, failure: sandboxFailure });
  } finally {
    await sb.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes("-h") || argv.includes("--help")) {
    process.stdout.write(HELP);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const parsed = parse(argv);
    switch (parsed.command) {
      case "run":
        return await run(parsed);
      case "repl":
        return await repl(parsed);
      case "mcp": {
        const { serveStdio } = require("./mcp") as typeof import("./mcp");
        await serveStdio(await options(parsed));
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(parsed.command)} (run, repl, mcp)`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`cordon: ${err.message}\nTry 'cordon --help' for more information.\n`);
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
