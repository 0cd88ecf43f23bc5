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
        Some(a) => match a.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => {
                ctx.shell_error(&format!("{name}: {a}: loop count out of range"));
                return 1;
            }
        },
    };
    if ctx.interp.loops == 0 {
        ctx.shell_error(&format!("{name}: only meaningful in a `for', `while', or `until' loop"));
        return 0;
    }
    ctx.interp.flow = Some(flow(n.min(ctx.interp.loops)));
    0
}
