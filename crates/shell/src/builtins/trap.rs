//! `trap`: commands the shell runs on a condition. `EXIT` (0) runs when
//! the script or a `( )` subshell ends, `ERR` after a command fails where
//! `set -e` would apply, `RETURN` when a function that set it returns or a
//! sourced script ends, `DEBUG` before each simple command, `[[`, `((` and
//! `for`/`case` head (not inside functions or subshells). The sandbox has
//! no real signals: signal traps are stored and listed, never run.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "trap",
    run,
    help: "Usage: trap [-p] [ACTION] [CONDITION]...\nRuns ACTION on EXIT, ERR, DEBUG or RETURN; `-` resets, `''` ignores.\n",
    help_flag: true,
};

/// Condition numbers: `EXIT`, then the signals, then these (bash's order).
pub const EXIT: u32 = 0;
pub const DEBUG: u32 = 65;
pub const ERR: u32 = 66;
pub const RETURN: u32 = 67;

/// Whether condition `n` is a signal (not `EXIT`, `DEBUG`, `ERR`, `RETURN`).
pub(crate) fn is_signal(n: u32) -> bool {
    (1..=SIGNALS.len() as u32).contains(&n)
}

pub(crate) const SIGNALS: [&str; 31] = [
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE",
    "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
    "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
];

/// The condition a trap argument names (`EXIT`, `0`, `INT`, `SIGINT`, `2`…).
pub(crate) fn condition(spec: &str) -> Option<u32> {
    if let Ok(n) = spec.parse::<u32>() {
        return (n <= 31).then_some(n);
    }
    let upper = spec.to_ascii_uppercase();
    match upper.as_str() {
        "EXIT" => return Some(EXIT),
        "DEBUG" => return Some(DEBUG),
        "ERR" => return Some(ERR),
        "RETURN" => return Some(RETURN),
        _ => {}
    }
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    SIGNALS.iter().position(|s| *s == name).and_then(|i| u32::try_from(i + 1).ok())
}

fn name(n: u32) -> String {
    match n {
        EXIT => "EXIT".into(),
        DEBUG => "DEBUG".into(),
        ERR => "ERR".into(),
        RETURN => "RETURN".into(),
        n => format!("SIG{}", SIGNALS.get(n as usize - 1).copied().unwrap_or("")),
    }
}

fn listing(ctx: &mut Ctx, only: Option<&[u32]>) -> String {
    let mut text = String::new();
    let state = ctx.state();
    for (n, action) in state.inherited_traps.as_ref().unwrap_or(&state.traps) {
        if only.is_none_or(|o| o.contains(n)) {
            text.push_str(&format!("trap -- {} {}\n", crate::expand::quote(action), name(*n)));
        }
    }
    text
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut args = args;
    let mut print = false;
    while let Some(first) = args.first() {
        match first.as_str() {
            "-p" => print = true,
            "-l" => {
                let mut text = String::new();
                for (i, s) in SIGNALS.iter().enumerate() {
                    text.push_str(&format!("{:2}) SIG{s}\n", i + 1));
                }
                let _ = ctx.out(text);
                return 0;
            }
            "--" => {
                args = &args[1..];
                break;
            }
            f if f.starts_with('-') && f.len() > 1 => {
                ctx.shell_error(&format!("trap: {f}: invalid option"));
                ctx.err("trap: usage: trap [-Plp] [[action] signal_spec ...]\n");
                return 2;
            }
            _ => break,
        }
        args = &args[1..];
    }
    if print || args.is_empty() {
        let mut status = 0;
        let mut only = Vec::new();
        for spec in args {
            match condition(spec) {
                Some(n) => only.push(n),
                None => {
                    ctx.shell_error(&format!("trap: {spec}: invalid signal specification"));
                    status = 1;
                }
            }
        }
        let text = listing(ctx, if args.is_empty() { None } else { Some(&only) });
        let _ = ctx.out(text);
        return status;
    }
    // `trap - SIG…` and `trap SIG` (one argument) reset; so does a first
    // argument that is a number (POSIX).
    let (action, specs) = match args {
        [only] => (None, std::slice::from_ref(only)),
        [first, rest @ ..] if first == "-" || first.parse::<u32>().is_ok() => {
            if first == "-" {
                (None, rest)
            } else {
                (None, args)
            }
        }
        [first, rest @ ..] => (Some(first.clone()), rest),
        [] => (None, args),
    };
    let mut status = 0;
    for spec in specs {
        match condition(spec) {
            Some(n) => {
                ctx.state().inherited_traps = None;
                let traps = &mut ctx.state().traps;
                match &action {
                    Some(a) => traps.insert(n, a.clone()),
                    None => traps.remove(&n),
                };
            }
            None => {
                ctx.shell_error(&format!("trap: {spec}: invalid signal specification"));
                status = 1;
            }
        }
    }
    status
}
