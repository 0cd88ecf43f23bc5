//! `readonly`: variables that can no longer change.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "readonly",
    run,
    help: "Usage: readonly NAME[=VALUE]...\nMakes variables read-only.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    super::export::each_assignment(ctx, "readonly", args, |ctx, name, value| {
        if ctx.state().readonly.contains(name) {
            // Marking a read-only variable again is allowed; assigning it is not.
            if value.is_some() {
                ctx.shell_error(&format!("{name}: readonly variable"));
                return false;
            }
            return true;
        }
        if let Some(v) = value {
            ctx.state().set(name, v);
        }
        ctx.state().readonly.insert(name.to_string());
        true
    })
}
