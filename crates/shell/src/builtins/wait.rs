//! `wait`: background commands (`cmd &`) run to completion when started in
//! the sandbox, so there is never anything to wait for: status 0.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "wait",
    run,
    help: "Usage: wait [ID]...\nBackground commands have already finished: returns 0.\n",
    help_flag: false,
};

fn run(_ctx: &mut Ctx, _args: &[String]) -> i32 {
    0
}
