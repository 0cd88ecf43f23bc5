//! `:`: does nothing, successfully (its arguments are still expanded).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin =
    Builtin { name: ":", run, help: "Usage: : [ARG]...\nDoes nothing; status 0.\n", help_flag: false };

fn run(_ctx: &mut Ctx, _args: &[String]) -> i32 {
    0
}
