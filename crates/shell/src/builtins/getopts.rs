//! `getopts`: parses options from the positional parameters (or the given
//! arguments) one call at a time, as bash does: `OPTIND` is the next
//! argument, `OPTARG` an option's argument, a leading `:` in the option
//! string selects silent error reporting.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "getopts",
    run,
    help: "Usage: getopts OPTSTRING NAME [ARG...]\nParses the next option from the positional parameters or ARGs.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (Some(optstring), Some(name)) = (args.first(), args.get(1)) else {
        ctx.err("getopts: usage: getopts optstring name [arg ...]\n");
        return 2;
    };
    let argv: Vec<String> = if args.len() > 2 { args[2..].to_vec() } else { ctx.state().positional.clone() };
    let silent = optstring.starts_with(':');
    let spec = optstring.trim_start_matches(':').as_bytes();
    let mut optind =
        ctx.state().get("OPTIND").and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1).max(1);
    // The position inside a group of options (`-abc`) is kept between calls
    // for as long as OPTIND is the value getopts left.
    let (last, mut pos) = ctx.state().getopts_pos;
    if last != optind {
        pos = 0;
    }
    let mut result = Step::End;
    if let Some(arg) = argv.get(optind - 1).map(String::as_bytes) {
        if pos == 0 {
            if arg == b"--" {
                optind += 1;
            } else if arg.len() > 1 && arg[0] == b'-' {
                pos = 1;
            }
        }
        if pos > 0 {
            let c = arg.get(pos).copied().unwrap_or(b'?');
            pos += 1;
            let at_end = pos >= arg.len();
            let found = (c != b':').then(|| spec.iter().position(|&s| s == c)).flatten();
            result = match found {
                None => {
                    if at_end {
                        optind += 1;
                        pos = 0;
                    }
                    Step::Illegal(c)
                }
                Some(i) if spec.get(i + 1) == Some(&b':') => {
                    let value = if !at_end {
                        Some(String::from_utf8_lossy(&arg[pos..]).into_owned())
                    } else {
                        let next = argv.get(optind).cloned();
                        if next.is_some() {
                            optind += 1;
                        }
                        next
                    };
                    optind += 1;
                    pos = 0;
                    match value {
                        Some(v) => Step::Opt(c, Some(v)),
                        None => Step::Missing(c),
                    }
                }
                Some(_) => {
                    if at_end {
                        optind += 1;
                        pos = 0;
                    }
                    Step::Opt(c, None)
                }
            };
        }
    }
    if matches!(result, Step::End) {
        // Past the end (the parameters changed): bash points OPTIND just after them.
        optind = optind.min(argv.len() + 1);
    }
    ctx.state().getopts_pos = (optind, pos);
    ctx.state().set("OPTIND", optind.to_string());
    let program = ctx.interp.name.clone();
    let (letter, optarg, status) = match result {
        Step::End => ("?".to_string(), None, 1),
        Step::Opt(c, value) => (char::from(c).to_string(), value, 0),
        Step::Illegal(c) if silent => ("?".to_string(), Some(char::from(c).to_string()), 0),
        Step::Illegal(c) => {
            ctx.err(format!("{program}: illegal option -- {}\n", char::from(c)));
            ("?".to_string(), None, 0)
        }
        Step::Missing(c) if silent => (":".to_string(), Some(char::from(c).to_string()), 0),
        Step::Missing(c) => {
            ctx.err(format!("{program}: option requires an argument -- {}\n", char::from(c)));
            ("?".to_string(), None, 0)
        }
    };
    match optarg {
        Some(v) => {
            ctx.state().set("OPTARG", v);
        }
        None => {
            ctx.state().unset("OPTARG");
        }
    }
    if !super::export::valid_name(name) {
        ctx.shell_error(&format!("getopts: `{name}': not a valid identifier"));
        return 1;
    }
    if !ctx.state().set(name, letter) {
        ctx.shell_error(&format!("{name}: readonly variable"));
        return 2;
    }
    status
}

enum Step {
    End,
    Opt(u8, Option<String>),
    Illegal(u8),
    Missing(u8),
}
