//! `sh` / `bash`: runs a script from `-c` text, a file of the sandbox, or
//! standard input, in a subshell (for `xargs sh -c …`, `bash script.sh`).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin { name: "sh", run, help: HELP, help_flag: true };
pub const BASH: Builtin = Builtin { name: "bash", run, help: HELP, help_flag: true };

const HELP: &str = "Usage: sh [-eux] [-c SCRIPT [NAME [ARG]...] | FILE [ARG]...]\n\
Runs a shell script in a subshell of this sandbox: the text after -c, a file, or standard input.\n\
  -c  run SCRIPT; NAME becomes $0 and the ARGs $1...\n  -e, -u, -x  as `set -e`, `set -u`, `set -x`\n";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut options = Vec::new();
    let mut i = 0;
    let mut command = None;
    let mut interactive = false;
    let mut rcfile = None;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            // Long options of bash that change nothing here.
            "--norc" | "--noprofile" | "--login" | "--posix" | "--noediting" => i += 1,
            "--rcfile" | "--init-file" => {
                let Some(file) = args.get(i + 1) else {
                    ctx.err(format!("sh: {arg}: option requires an argument\n"));
                    return 2;
                };
                rcfile = Some(file.clone());
                i += 2;
            }
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
            flag if flag.starts_with('-') && flag.len() > 1 => {
                for c in flag.chars().skip(1) {
                    match c {
                        'e' | 'u' | 'x' | 'f' => options.push(c),
                        // Interactive: the `--rcfile` runs first.
                        'i' => interactive = true,
                        // Verbose, login and read-from-stdin: nothing to change.
                        'c' | 'v' | 'l' | 's' => {}
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
            let name = rest.first().cloned().unwrap_or_else(|| "sh".to_string());
            (text, name, rest.get(1..).unwrap_or_default().to_vec())
        }
        None => match rest.split_first() {
            Some((file, params)) => match ctx.read_input(file) {
                Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), file.clone(), params.to_vec()),
                Err(e) => {
                    ctx.err(format!("sh: {file}: {}\n", e.describe()));
                    return 127;
                }
            },
            None => {
                let bytes = ctx.stdin_all();
                (String::from_utf8_lossy(&bytes).into_owned(), "sh".to_string(), Vec::new())
            }
        },
    };
    let mut prefix: String = options.iter().map(|c| format!("set -{c}\n")).collect();
    if let Some(file) = rcfile.filter(|_| interactive) {
        prefix.push_str(&format!(". '{}'\n", file.replace('\'', "'\\''")));
    }
    let script = if prefix.is_empty() { script } else { format!("{prefix}{script}") };
    let io = ctx.io.clone();
    ctx.interp.run_script_text(&script, &name, &params, &io)
}
