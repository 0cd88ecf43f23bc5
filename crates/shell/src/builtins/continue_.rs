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
    super::break_::loop_control(ctx, args, "continue", Flow::Continue)
}
