//! `true`: status 0.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin =
    Builtin { name: "true", run, help: "Usage: true\nExits with status 0.\n", help_flag: false };

fn run(_ctx: &mut Ctx, _args: &[String]) -> i32 {
    0
}
