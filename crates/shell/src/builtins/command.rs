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
        Some(flag @ ("-v" | "-V")) => {
            let verbose = flag == "-V";
            let mut status = 0;
            for name in &args[1..] {
                match super::type_::describe(ctx, name) {
                    Some((_, long)) => {
                        let _ = ctx.out(if verbose { format!("{long}\n") } else { format!("{name}\n") });
                    }
                    None => {
                        if verbose {
                            ctx.shell_error(&format!("command: {name}: not found"));
                        }
                        status = 1;
                    }
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
