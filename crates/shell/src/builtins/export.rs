//! `export`: marks variables for the environment of commands (`env`).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "export",
    run,
    help: "Usage: export [-n] [NAME[=VALUE]]...\nMarks variables exported; -n unmarks; without names lists them.\n",
    help_flag: true,
};

/// Whether `name` is a valid variable name.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Applies `assign` to each `NAME[=VALUE]` operand of `builtin` (`local`,
/// `readonly`) in order; options (`-…`) are skipped. A name that is not
/// valid gets bash's message instead. Returns 1 when any name was invalid
/// or `assign` returned false, else 0.
pub(crate) fn each_assignment(
    ctx: &mut Ctx,
    builtin: &str,
    args: &[String],
    mut assign: impl FnMut(&mut Ctx, &str, Option<String>) -> bool,
) -> i32 {
    let mut status = 0;
    for arg in args.iter().filter(|a| !a.starts_with('-')) {
        let (name, value) = match arg.split_once('=') {
            // `readonly r+=x` appends to the current value.
            Some((n, v)) if n.ends_with('+') && valid_name(&n[..n.len() - 1]) => {
                let n = &n[..n.len() - 1];
                (n, Some(format!("{}{v}", ctx.state().get(n).unwrap_or_default())))
            }
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if !valid_name(name) {
            // bash names just the element in `a[1]=x`.
            let shown = if name.contains('[') { name } else { arg.as_str() };
            ctx.shell_error(&format!("{builtin}: `{shown}': not a valid identifier"));
            status = 1;
        } else if !assign(ctx, name, value) {
            status = 1;
        }
    }
    status
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut unexport = false;
    let mut functions = false;
    let mut names = Vec::new();
    let mut operands = false;
    for a in args {
        match a.strip_prefix('-') {
            Some("-") if !operands => operands = true,
            Some(flags) if !operands && !flags.is_empty() && flags.chars().all(|c| "npf".contains(c)) => {
                unexport |= flags.contains('n');
                functions |= flags.contains('f');
            }
            _ => {
                operands = true;
                names.push(a.clone());
            }
        }
    }
    if functions {
        return export_functions(ctx, &names, unexport);
    }
    if names.is_empty() {
        let mut text = String::new();
        for (name, value) in ctx.state().environment() {
            text.push_str(&format!(
                "declare -x {name}=\"{}\"\n",
                value.replace('\\', "\\\\").replace('"', "\\\"")
            ));
        }
        let _ = ctx.out(text);
        return 0;
    }
    let mut status = 0;
    for arg in names {
        let (name, value, append) = match arg.split_once('=') {
            Some((n, v)) => match n.strip_suffix('+') {
                Some(n) => (n.to_string(), Some(v.to_string()), true),
                None => (n.to_string(), Some(v.to_string()), false),
            },
            None => (arg.clone(), None, false),
        };
        if !valid_name(&name) {
            let shown = if name.contains('[') { &name } else { &arg };
            ctx.shell_error(&format!("export: `{shown}': not a valid identifier"));
            status = 1;
            continue;
        }
        if unexport {
            // `export -n x=v`: assigned, and no longer exported.
            if let Some(v) = value {
                if !ctx.state().set(&name, v) {
                    ctx.shell_error(&format!("{name}: readonly variable"));
                    status = 1;
                }
            }
            if let Some(var) = ctx.state().vars.get_mut(&name) {
                var.exported = false;
            }
            continue;
        }
        let value = match (value, append) {
            (Some(v), true) => Some(format!("{}{v}", ctx.state().get(&name).unwrap_or_default())),
            (v, _) => v,
        };
        if !ctx.state().export(&name, value) {
            ctx.shell_error(&format!("{name}: readonly variable"));
            status = 1;
        }
    }
    status
}

/// `export -f NAME…`: a child shell (`bash -c`, a script) gets the
/// functions; `-n` takes the mark away.
fn export_functions(ctx: &mut Ctx, names: &[String], unexport: bool) -> i32 {
    let mut status = 0;
    for name in names {
        let state = ctx.state();
        if !state.functions.contains_key(name) {
            ctx.shell_error(&format!("export: {name}: not a function"));
            status = 1;
        } else if unexport {
            state.exported_functions.remove(name);
        } else {
            state.exported_functions.insert(name.clone());
        }
    }
    status
}
