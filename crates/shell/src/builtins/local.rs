//! `local`: variables of the current function (`declare` inside it, so
//! `local -a/-A/-i/-l/-u` take the same attributes).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "local",
    run,
    help: "Usage: local [-aAilrux] NAME[=VALUE]...\nDeclares variables local to the current function.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    if ctx.state().locals.is_empty() {
        ctx.shell_error("local: can only be used in a function");
        return 1;
    }
    if args.iter().any(|a| a.starts_with('-') && a.contains('g')) {
        ctx.shell_error("local: -g: invalid option");
        return 2;
    }
    super::declare::declare(ctx, args, "local")
}
