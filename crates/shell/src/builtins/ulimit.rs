//! `ulimit`: the shell's resource limits. The sandbox's own limits (time,
//! memory, output) are set by its host, so every limit reads `unlimited`;
//! setting one is accepted and changes nothing.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "ulimit",
    run,
    help: "Usage: ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]\nShows resource limits (all unlimited in the sandbox); setting one has no effect.\n",
    help_flag: true,
};

/// `ulimit -a`'s rows: description, unit, flag.
const LIMITS: &[(&str, &str, char)] = &[
    ("real-time non-blocking time", "(microseconds, -R)", 'R'),
    ("core file size", "(blocks, -c)", 'c'),
    ("data seg size", "(kbytes, -d)", 'd'),
    ("scheduling priority", "(-e)", 'e'),
    ("file size", "(blocks, -f)", 'f'),
    ("pending signals", "(-i)", 'i'),
    ("max locked memory", "(kbytes, -l)", 'l'),
    ("max memory size", "(kbytes, -m)", 'm'),
    ("open files", "(-n)", 'n'),
    ("pipe size", "(512 bytes, -p)", 'p'),
    ("POSIX message queues", "(bytes, -q)", 'q'),
    ("real-time priority", "(-r)", 'r'),
    ("stack size", "(kbytes, -s)", 's'),
    ("cpu time", "(seconds, -t)", 't'),
    ("max user processes", "(-u)", 'u'),
    ("virtual memory", "(kbytes, -v)", 'v'),
    ("file locks", "(-x)", 'x'),
];

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut all = false;
    let mut operands = Vec::new();
    let mut flags_done = false;
    for a in args {
        if flags_done || !a.starts_with('-') || a.len() == 1 {
            operands.push(a.as_str());
            continue;
        }
        if a == "--" {
            flags_done = true;
            continue;
        }
        for c in a[1..].chars() {
            match c {
                'a' => all = true,
                'S' | 'H' | 'b' | 'k' | 'P' | 'T' => {}
                c if LIMITS.iter().any(|l| l.2 == c) => {}
                c => {
                    ctx.shell_error(&format!("ulimit: -{c}: invalid option"));
                    ctx.err("ulimit: usage: ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]\n");
                    return 2;
                }
            }
        }
    }
    if all {
        let text: String =
            LIMITS.iter().map(|(what, unit, _)| format!("{what:<28}{unit} unlimited\n")).collect();
        let _ = ctx.out(text);
        return 0;
    }
    match operands.first() {
        None => {
            let _ = ctx.out("unlimited\n");
            0
        }
        Some(&v) if v == "unlimited" || v == "hard" || v == "soft" || v.parse::<u64>().is_ok() => 0,
        Some(v) => {
            ctx.shell_error(&format!("ulimit: {v}: invalid number"));
            1
        }
    }
}
