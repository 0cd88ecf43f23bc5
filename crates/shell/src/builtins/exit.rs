//! `exit`: ends the script (or the subshell) with a status.

use super::Builtin;
use crate::ctx::Ctx;
use crate::interp::Flow;

pub const BUILTIN: Builtin = Builtin {
    name: "exit",
    run,
    help: "Usage: exit [N]\nEnds the script with status N (default: the last status).\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let code = match args {
        [] => ctx.state().last_status,
        [n, ..] => match n.trim().parse::<i64>() {
            Ok(n) if args.len() == 1 => (n & 0xff) as i32,
            Ok(_) => {
                // bash's non-interactive shell still exits.
                ctx.shell_error("exit: too many arguments");
                1
            }
            Err(_) => {
                ctx.shell_error(&format!("exit: {n}: numeric argument required"));
                2
            }
        },
    };
    ctx.interp.flow = Some(Flow::Exit(code));
    code
}
