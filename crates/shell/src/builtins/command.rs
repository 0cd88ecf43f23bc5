//! `command`: runs a builtin skipping functions; `-v` says what a name is.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "command",
    run,
    help: "Usage: command [-v] NAME [ARG]...\nRuns NAME ignoring shell functions; -v prints how NAME would be found.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("-v") | Some("-V") => {
            let mut status = 0;
            for name in &args[1..] {
                if ctx.state().functions.contains_key(name) || super::find(name).is_some() {
                    let _ = ctx.out(format!("{name}\n"));
                } else {
                    status = 1;
                }
            }
            status
        }
        Some(_) => {
            let io = ctx.io.clone();
            ctx.interp.exec_builtin_or_file(args, &io)
        }
        None => 0,
    }
}
