//! `false`: status 1.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin =
    Builtin { name: "false", run, help: "Usage: false\nExits with status 1.\n", help_flag: false };

fn run(_ctx: &mut Ctx, _args: &[String]) -> i32 {
    1
}
