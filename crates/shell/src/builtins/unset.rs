//! `unset`: removes variables (or functions with `-f`).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "unset",
    run,
    help: "Usage: unset [-fv] NAME...\nRemoves variables (-v, default) or functions (-f).\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut functions = false;
    let mut status = 0;
    for a in args {
        match a.as_str() {
            "-f" => functions = true,
            "-v" => functions = false,
            name => {
                if functions {
                    ctx.state().functions.remove(name);
                } else if !ctx.state().unset(name) {
                    ctx.shell_error(&format!("unset: {name}: cannot unset: readonly variable"));
                    status = 1;
                } else if ctx.state().get(name).is_none() {
                    ctx.state().functions.remove(name);
                }
            }
        }
    }
    status
}
