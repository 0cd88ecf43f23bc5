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
    let n = match args.first() {
        None => 1,
        Some(a) => match a.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => {
                ctx.shell_error(&format!("break: {a}: loop count out of range"));
                return 1;
            }
        },
    };
    if ctx.interp.loops == 0 {
        ctx.shell_error("break: only meaningful in a `for', `while', or `until' loop");
        return 0;
    }
    ctx.interp.flow = Some(Flow::Break(n.min(ctx.interp.loops)));
    0
}
