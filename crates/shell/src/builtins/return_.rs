//! `return`: leaves the current function (or sourced script).

use super::Builtin;
use crate::ctx::Ctx;
use crate::interp::Flow;

pub const BUILTIN: Builtin = Builtin {
    name: "return",
    run,
    help: "Usage: return [N]\nReturns from a function with status N (default: the last status).\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let code = match args.first() {
        None => ctx.state().last_status,
        Some(n) => match n.trim().parse::<i64>() {
            Ok(n) => (n & 0xff) as i32,
            Err(_) => {
                ctx.shell_error(&format!("return: {n}: numeric argument required"));
                2
            }
        },
    };
    if ctx.interp.depth == 0 && ctx.state().locals.is_empty() {
        ctx.shell_error("return: can only `return' from a function or sourced script");
        return 2;
    }
    ctx.interp.flow = Some(Flow::Return(code));
    code
}
