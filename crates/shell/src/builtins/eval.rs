//! `eval`: runs its arguments, joined by spaces, as shell code.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "eval",
    run,
    help: "Usage: eval [ARG]...\nRuns the arguments as a shell command.\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = match args.first().map(String::as_str) {
        Some("--") => &args[1..],
        Some(flag) if flag.len() > 1 && flag.starts_with('-') => {
            ctx.shell_error(&format!("eval: {flag}: invalid option\neval: usage: eval [arg ...]"));
            return 2;
        }
        _ => args,
    };
    run_nested(ctx, &args.join(" "))
}

/// Runs `code` as `eval` does, one nesting level deeper.
pub(crate) fn run_nested(ctx: &mut Ctx, code: &str) -> i32 {
    if ctx.interp.depth >= crate::interp::MAX_DEPTH {
        ctx.shell_error(&format!("eval: maximum nesting depth ({}) exceeded", crate::interp::MAX_DEPTH));
        return 1;
    }
    let io = ctx.io.clone();
    let line = ctx.interp.line;
    ctx.interp.depth += 1;
    let mut status = ctx.interp.run_source(code, &io);
    // An expansion error ends the eval'd text, not its caller's line.
    if let Some(crate::interp::Flow::Abort(code)) = ctx.interp.flow {
        ctx.interp.flow = None;
        status = code;
    }
    ctx.interp.depth -= 1;
    ctx.interp.line = line;
    status
}
