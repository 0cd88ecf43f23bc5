//! `continue`: Starts the next iteration of the Nth enclosing loop (default 1).

use super::Builtin;
use crate::ctx::Ctx;
use crate::interp::Flow;

pub const BUILTIN: Builtin = Builtin {
    name: "continue",
    run,
    help: "Usage: continue [N]\nStarts the next iteration of the Nth enclosing loop (default 1).\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let n = match args.first() {
        None => 1,
        Some(a) => match a.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => {
                ctx.shell_error(&format!("continue: {a}: loop count out of range"));
                return 1;
            }
        },
    };
    if ctx.interp.loops == 0 {
        ctx.shell_error("continue: only meaningful in a `for', `while', or `until' loop");
        return 0;
    }
    ctx.interp.flow = Some(Flow::Continue(n.min(ctx.interp.loops)));
    0
}
