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
    let mut status = 0;
    for arg in args.iter().filter(|a| !a.starts_with('-')) {
        let (name, value) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if !super::export::valid_name(name) {
            ctx.shell_error(&format!("readonly: `{arg}': not a valid identifier"));
            status = 1;
            continue;
        }
        if ctx.state().readonly.contains(name) {
            if value.is_some() {
                ctx.shell_error(&format!("{name}: readonly variable"));
                status = 1;
            }
            continue;
        }
        if let Some(v) = value {
            ctx.state().set(name, v);
        }
        ctx.state().readonly.insert(name.to_string());
    }
    status
}
