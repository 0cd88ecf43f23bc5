//! `local`: variables of the current function.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "local",
    run,
    help: "Usage: local NAME[=VALUE]...\nDeclares variables local to the current function.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    if ctx.state().locals.is_empty() {
        ctx.shell_error("local: can only be used in a function");
        return 1;
    }
    super::export::each_assignment(ctx, "local", args, |ctx, name, value| {
        ctx.state().local(name, value);
        true
    })
}
