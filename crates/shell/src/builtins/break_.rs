//! `break`: Leaves N enclosing loops (default 1).

use super::Builtin;
use crate::ctx::Ctx;
use crate::interp::Flow;

pub const BUILTIN: Builtin = Builtin {
    name: "break",
    run,
    help: "Usage: break [N]\nLeaves N enclosing loops (default 1).\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    loop_control(ctx, args, "break", Flow::Break)
}

/// `break` and `continue`: check the count, then set the flow for `N`
/// loops (at most the loops there are).
pub(crate) fn loop_control(ctx: &mut Ctx, args: &[String], name: &str, flow: fn(u32) -> Flow) -> i32 {
    let n = match args.first() {
        None => 1,
        Some(a) => match a.trim().parse::<i64>() {
            Ok(n) if n >= 1 => u32::try_from(n).unwrap_or(u32::MAX),
            Ok(_) => {
                // bash then leaves every loop.
                ctx.shell_error(&format!("{name}: {a}: loop count out of range"));
                if ctx.interp.loops > 0 {
                    ctx.interp.flow = Some(Flow::Break(ctx.interp.loops));
                }
                return 1;
            }
            Err(_) => {
                // bash's non-interactive shell exits here.
                ctx.shell_error(&format!("{name}: {a}: numeric argument required"));
                ctx.interp.flow = Some(Flow::Exit(128));
                return 128;
            }
        },
    };
    if args.len() > 1 {
        // bash's non-interactive shell exits here too.
        ctx.shell_error(&format!("{name}: too many arguments"));
        ctx.interp.flow = Some(Flow::Exit(1));
        return 1;
    }
    if ctx.interp.loops == 0 {
        ctx.shell_error(&format!("{name}: only meaningful in a `for', `while', or `until' loop"));
        return 0;
    }
    ctx.interp.flow = Some(flow(n.min(ctx.interp.loops)));
    0
}
