//! `yes`: print a line (default `y`) until the reader goes away.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "yes",
    run,
    help: "Usage: yes [STRING]...\n\
Repeatedly output a line with all specified STRING(s), or 'y'.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut operands: &[String] = args;
    if let Some(first) = args.first() {
        if first == "--" {
            operands = &args[1..];
        } else if first.starts_with("--") {
            ctx.err(format!("yes: unrecognized option '{first}'\nTry 'yes --help' for more information.\n"));
            return 1;
        } else if first.len() > 1 && first.starts_with('-') {
            let c = first.chars().nth(1).unwrap_or('-');
            ctx.err(format!("yes: invalid option -- '{c}'\nTry 'yes --help' for more information.\n"));
            return 1;
        }
    }
    let mut line = if operands.is_empty() { "y".to_string() } else { operands.join(" ") };
    line.push('\n');
    // Write in large chunks: the pipe fills (or the reader closes) quickly.
    let mut chunk = Vec::with_capacity(64 * 1024 + line.len());
    while chunk.len() < 64 * 1024 {
        chunk.extend_from_slice(line.as_bytes());
    }
    loop {
        if ctx.out(&chunk).is_err() || ctx.interrupted() {
            return 141;
        }
    }
}
