//! `pwd`: the working directory.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin =
    Builtin { name: "pwd", run, help: "Usage: pwd [-LP]\nPrints the working directory.\n", help_flag: true };

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    for a in args {
        // bash ignores operands; only options are checked.
        if a.starts_with('-') && a.len() > 1 && a != "-L" && a != "-P" && a != "--" {
            ctx.shell_error(&format!("pwd: {a}: invalid option\npwd: usage: pwd [-LP]"));
            return 2;
        }
    }
    let cwd = ctx.sys().cwd();
    let _ = ctx.out(format!("{cwd}\n"));
    0
}
