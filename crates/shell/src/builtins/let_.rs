//! `let`: evaluates arithmetic expressions; status 1 when the last is 0.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "let",
    run,
    help: "Usage: let EXPRESSION...\nEvaluates each EXPRESSION; fails when the last one is 0.\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    if args.is_empty() {
        ctx.shell_error("let: expression expected");
        return 1;
    }
    let saved = std::mem::replace(&mut ctx.interp.err, ctx.io.stderr.clone());
    let mut last = 0;
    let mut status = 0;
    ctx.interp.arith_cmd = "let";
    for expr in args {
        match ctx.interp.arith_eval_str(expr, 0) {
            Ok(v) => last = v,
            Err(crate::expand::ExpandError::Reported { fatal, status: s }) => {
                if fatal {
                    ctx.interp.flow = Some(crate::interp::Flow::Exit(s));
                }
                status = s;
                break;
            }
        }
    }
    ctx.interp.arith_cmd = "";
    ctx.interp.err = saved;
    if status != 0 {
        return status;
    }
    i32::from(last == 0)
}
