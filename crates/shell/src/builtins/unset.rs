//! `unset`: removes variables (or functions with `-f`).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "unset",
    run,
    help: "Usage: unset [-fv] NAME...\nRemoves variables (-v, default) or functions (-f).\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut functions = false;
    // `-v`: variables only (without it, a name that is no variable may be
    // a function).
    let mut variables = false;
    // `-n`: a name reference itself, not what it refers to.
    let mut reference = false;
    let mut status = 0;
    for a in args {
        let resolved;
        let a = if reference || a.starts_with('-') {
            a
        } else {
            resolved = ctx.state().resolve_name(a);
            &resolved
        };
        match a.as_str() {
            "-f" => functions = true,
            "-v" => (functions, variables) = (false, true),
            "-n" => reference = true,
            element if !functions && element.ends_with(']') && element.contains('[') => {
                status |= unset_element(ctx, element);
            }
            name => {
                let was_variable = ctx.state().is_set(name) || ctx.state().is_array(name);
                if functions {
                    ctx.state().functions.remove(name);
                } else if !ctx.state().unset(name) {
                    ctx.shell_error(&format!("unset: {name}: cannot unset: readonly variable"));
                    status = 1;
                } else if !variables && !was_variable {
                    ctx.state().functions.remove(name);
                }
            }
        }
    }
    status
}

/// `unset 'a[k]'`: one element of an array.
fn unset_element(ctx: &mut Ctx, element: &str) -> i32 {
    let Some((name, sub)) = element.strip_suffix(']').and_then(|e| e.split_once('[')) else {
        return 0;
    };
    if ctx.state().readonly.contains(name) {
        ctx.shell_error(&format!("unset: {name}: cannot unset: readonly variable"));
        return 1;
    }
    if ctx.state().assoc.contains_key(name) {
        let key = match ctx.interp.expand_string(sub) {
            Ok(k) => k,
            Err(e) => return ctx.interp.expansion_failed(e),
        };
        if let Some(assoc) = ctx.state().assoc.get_mut(name) {
            assoc.remove(&key);
        }
        return 0;
    }
    let index = match ctx.interp.arith_text(sub) {
        Ok(i) => i,
        Err(e) => return ctx.interp.expansion_failed(e),
    };
    let state = ctx.state();
    if let Some(array) = state.arrays.get_mut(name) {
        if let Some(i) = array.resolve(index) {
            array.remove(i);
        } else {
            ctx.shell_error(&format!("unset: [{index}]: bad array subscript"));
            return 1;
        }
    } else if index == 0 && state.vars.contains_key(name) {
        state.unset(name);
    }
    0
}
