//! `pwd`: the working directory.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin =
    Builtin { name: "pwd", run, help: "Usage: pwd [-LP]\nPrints the working directory.\n", help_flag: true };

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    for a in args {
        if a != "-L" && a != "-P" {
            ctx.shell_error(&format!("pwd: {a}: invalid option\npwd: usage: pwd [-LP]"));
            return 2;
        }
    }
    let cwd = ctx.sys().cwd();
    let _ = ctx.out(format!("{cwd}\n"));
    0
}
