//! `sh` / `bash`: runs a script from `-c` text, a file of the sandbox, or
//! standard input, in a subshell (for `xargs sh -c …`, `bash script.sh`).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin { name: "sh", run, help: HELP, help_flag: true };
pub const BASH: Builtin = Builtin { name: "bash", run: run_bash, help: HELP, help_flag: true };

const HELP: &str = "Usage: sh [-eux] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]...]\n\
Runs a shell script in a subshell of this sandbox: the text after -c, a file, or standard input.\n\
  -c  run SCRIPT; NAME becomes $0 and the ARGs $1...\n  -e, -u, -x  as `set -e`, `set -u`, `set -x`\n";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    run_as(ctx, args, "sh")
}

fn run_bash(ctx: &mut Ctx, args: &[String]) -> i32 {
    run_as(ctx, args, "bash")
}

/// Runs the script; `shell` is `$0` unless `-c` gives a name.
fn run_as(ctx: &mut Ctx, args: &[String], shell: &str) -> i32 {
    let mut options: Vec<String> = Vec::new();
    let mut shopts = String::new();
    let mut i = 0;
    let mut command = None;
    let mut interactive = false;
    let mut rcfile = None;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-c" | "+c" => {
                let Some(text) = args.get(i + 1) else {
                    ctx.err("sh: -c: option requires an argument\n");
                    return 2;
                };
                command = Some(text.clone());
                i += 2;
                break;
            }
            "--" | "-" => {
                i += 1;
                break;
            }
            // No startup files are read here.
            "--norc" | "--noprofile" | "--login" | "--posix" | "--noediting" => i += 1,
            // Read first when the shell is interactive (`-i`).
            "--rcfile" | "--init-file" => {
                let Some(file) = args.get(i + 1) else {
                    ctx.err(format!("sh: {arg}: option requires an argument\n"));
                    return 2;
                };
                rcfile = Some(file.clone());
                i += 2;
            }
            "-o" | "+o" | "-O" | "+O" => {
                let Some(name) = args.get(i + 1) else {
                    ctx.err(format!("sh: {arg}: option requires an argument\n"));
                    return 2;
                };
                let on = if arg.starts_with('-') { '-' } else { '+' };
                if arg.ends_with('o') {
                    options.push(format!("{on}o {}", crate::expand::quote_if_needed(name)));
                } else {
                    let flag = if on == '-' { 's' } else { 'u' };
                    shopts.push_str(&format!("shopt -{flag} {}; ", crate::expand::quote_if_needed(name)));
                }
                i += 2;
            }
            flag if flag.starts_with('-') && flag.len() > 1 => {
                for c in flag.chars().skip(1) {
                    match c {
                        'e' | 'u' | 'x' | 'f' | 'v' | 'C' | 'a' | 'E' => options.push(format!("-{c}")),
                        'i' => interactive = true,
                        // Login and read-from-stdin: nothing to change.
                        'c' | 'l' | 's' => {}
                        other => {
                            ctx.err(format!("sh: -{other}: invalid option\n"));
                            return 2;
                        }
                    }
                }
                if flag.contains('c') {
                    let Some(text) = args.get(i + 1) else {
                        ctx.err("sh: -c: option requires an argument\n");
                        return 2;
                    };
                    command = Some(text.clone());
                    i += 2;
                    break;
                }
                i += 1;
            }
            _ => break,
        }
    }
    let rest = args.get(i..).unwrap_or_default();
    let (script, name, params) = match command {
        Some(text) => {
            let name = rest.first().cloned().unwrap_or_else(|| shell.to_string());
            (text, name, rest.get(1..).unwrap_or_default().to_vec())
        }
        None => match rest.split_first() {
            Some((file, params)) => match ctx.read_input(file) {
                Ok(bytes) if binary(&bytes) => {
                    ctx.err(format!("sh: {file}: cannot execute binary file\n"));
                    return 126;
                }
                Ok(mut bytes) => {
                    // bash reads past NUL bytes in a script's later lines.
                    bytes.retain(|&b| b != 0);
                    (String::from_utf8_lossy(&bytes).into_owned(), file.clone(), params.to_vec())
                }
                Err(e) => {
                    ctx.err(format!("sh: {file}: {}\n", e.describe()));
                    return 127;
                }
            },
            None => {
                let bytes = ctx.stdin_all();
                (String::from_utf8_lossy(&bytes).into_owned(), shell.to_string(), Vec::new())
            }
        },
    };
    // The options become commands on the script's first line (its line
    // numbers stay).
    let mut prefix = shopts;
    if !options.is_empty() {
        prefix.push_str(&format!("set {}; ", options.join(" ")));
    }
    if let Some(file) = rcfile.filter(|_| interactive) {
        prefix.push_str(&format!(". '{}'; ", file.replace('\'', "'\\''")));
    }
    let script = format!("{prefix}{script}");
    let io = ctx.io.clone();
    ctx.interp.run_script_text(&script, &name, &params, &io)
}

/// Bash's test for a file that is not a script: a NUL byte in its first
/// line (within the first 80 bytes).
fn binary(bytes: &[u8]) -> bool {
    bytes.iter().take(80).take_while(|&&b| b != b'\n').any(|&b| b == 0)
}
