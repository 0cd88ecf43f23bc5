//! `shift`: drops the first N positional parameters.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "shift",
    run,
    help: "Usage: shift [N]\nRemoves the first N positional parameters (default 1).\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    if args.len() > 1 {
        // A usage error of a special builtin: bash's script stops.
        ctx.shell_error("shift: too many arguments");
        ctx.interp.flow = Some(crate::interp::Flow::Exit(1));
        return 1;
    }
    let n = match args.first() {
        None => 1,
        Some(a) => match a.parse::<usize>() {
            Ok(n) => n,
            Err(_) => {
                ctx.shell_error(&format!("shift: {a}: numeric argument required"));
                return 1;
            }
        },
    };
    let positional = &mut ctx.state().positional;
    if n > positional.len() {
        return 1;
    }
    positional.drain(..n);
    0
}
