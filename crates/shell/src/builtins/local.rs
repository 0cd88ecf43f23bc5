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
    let mut status = 0;
    for arg in args.iter().filter(|a| !a.starts_with('-')) {
        let (name, value) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if !super::export::valid_name(name) {
            ctx.shell_error(&format!("local: `{arg}': not a valid identifier"));
            status = 1;
            continue;
        }
        ctx.state().local(name, value);
    }
    status
}
