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

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut unexport = false;
    let mut names = Vec::new();
    for a in args {
        match a.as_str() {
            "-n" => unexport = true,
            "-p" | "-f" => {}
            _ => names.push(a.clone()),
        }
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
            ctx.shell_error(&format!("export: `{arg}': not a valid identifier"));
            status = 1;
            continue;
        }
        if unexport {
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
