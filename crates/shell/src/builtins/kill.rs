//! `kill`: lists and translates signals (`-l`, `-L`), and signals the
//! emulated background jobs (see [`crate::jobs`]); the sandbox has no
//! other processes: another process ID fails as one that has ended.

use super::trap::SIGNALS;
use super::Builtin;
use crate::ctx::Ctx;
use crate::jobs::Lookup;

pub const BUILTIN: Builtin = Builtin {
    name: "kill",
    run,
    help: "Usage: kill [-s SIGSPEC | -n SIGNUM | -SIGSPEC] PID | JOBSPEC ...\n   or: kill -l [SIGSPEC]\nSends a signal (there are no other processes in the sandbox); -l lists signals.\n",
    help_flag: true,
};

const USAGE: &str =
    "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n";

/// A signal's number from its name (`TERM`, `SIGterm`, `EXIT`) or number:
/// `trap`'s conditions, less its pseudo-signals.
fn number(spec: &str) -> Option<u32> {
    super::trap::condition(spec).filter(|&n| n <= 31)
}

fn signal_name(n: u32) -> &'static str {
    match n {
        0 => "EXIT",
        n => SIGNALS.get(n as usize - 1).copied().unwrap_or(""),
    }
}

/// `kill -l`: the table; `kill -l ARG…`: each number as a name (an exit
/// status above 128 as its signal) and each name as a number.
fn list(ctx: &mut Ctx, args: &[String]) -> i32 {
    if args.is_empty() {
        let mut text = String::new();
        for (i, s) in SIGNALS.iter().enumerate() {
            let n = i + 1;
            text.push_str(&format!("{n:2}) SIG{s}"));
            text.push(if n % 5 == 0 || n == SIGNALS.len() { '\n' } else { '\t' });
        }
        let _ = ctx.out(text);
        return 0;
    }
    let mut status = 0;
    let mut text = String::new();
    for a in args {
        match a.parse::<u32>() {
            Ok(n) if n > 128 && n - 128 <= 31 => text.push_str(&format!("{}\n", signal_name(n - 128))),
            Ok(n) if n <= 31 => text.push_str(&format!("{}\n", signal_name(n))),
            _ => match number(a).filter(|_| a.parse::<u32>().is_err()) {
                Some(n) => text.push_str(&format!("{n}\n")),
                None => {
                    let _ = ctx.out(std::mem::take(&mut text));
                    ctx.shell_error(&format!("kill: {a}: invalid signal specification"));
                    status = 1;
                }
            },
        }
    }
    let _ = ctx.out(text);
    status
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut rest = args;
    let mut signal = 15;
    match rest.first().map(String::as_str) {
        Some("-l" | "-L") => return list(ctx, &rest[1..]),
        Some("-s" | "-n") => {
            let Some(spec) = rest.get(1) else {
                ctx.shell_error(&format!("kill: {}: option requires an argument", rest[0]));
                ctx.err(USAGE);
                return 2;
            };
            let Some(n) = number(spec) else {
                ctx.shell_error(&format!("kill: {spec}: invalid signal specification"));
                return 1;
            };
            signal = n;
            rest = &rest[2..];
        }
        Some("--") => rest = &rest[1..],
        Some(flag) if flag.len() > 1 && flag.starts_with('-') => {
            let Some(n) = number(&flag[1..]) else {
                ctx.shell_error(&format!("kill: {}: invalid signal specification", &flag[1..]));
                return 1;
            };
            signal = n;
            rest = &rest[1..];
        }
        _ => {}
    }
    if rest.is_empty() {
        ctx.err(USAGE);
        return 2;
    }
    let now = ctx.interp.clock_ms;
    let mut status = 0;
    for target in rest {
        match ctx.state().jobs.lookup(target, now) {
            Lookup::Job(index) => ctx.state().jobs.signal(index, signal, now),
            Lookup::NoSuchJob => {
                ctx.shell_error(&format!("kill: {target}: no such job"));
                status = 1;
            }
            Lookup::Done(_) | Lookup::NotChild => {
                ctx.shell_error(&format!("kill: ({target}) - No such process"));
                status = 1;
            }
            Lookup::Invalid => {
                ctx.shell_error(&format!("kill: {target}: arguments must be process or job IDs"));
                status = 1;
            }
        }
    }
    status
}
