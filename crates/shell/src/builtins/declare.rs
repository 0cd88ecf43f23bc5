//! `declare`/`typeset`: variables with attributes (`-x` exported, `-r`
//! readonly, `-a` arrays, `-g` global; `-p` prints).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "declare",
    run,
    help: "Usage: declare [-axrgp] [NAME[=VALUE]]...\nDeclares variables: -x export, -r readonly, -a array, -g global, -p print.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut export, mut readonly, mut array, mut global, mut print) = (false, false, false, false, false);
    let mut names = Vec::new();
    for a in args {
        match a.strip_prefix('-') {
            Some(flags) if !flags.is_empty() && !a.contains('=') => {
                for c in flags.chars() {
                    match c {
                        'x' => export = true,
                        'r' => readonly = true,
                        'a' => array = true,
                        'g' => global = true,
                        'p' => print = true,
                        'i' | 'l' | 'u' | 'f' | 'F' | 'A' | 'n' | 't' => {}
                        other => {
                            ctx.shell_error(&format!("declare: -{other}: invalid option"));
                            return 2;
                        }
                    }
                }
            }
            _ => names.push(a.clone()),
        }
    }
    if print || names.is_empty() {
        let mut text = String::new();
        let wanted = |n: &str| names.is_empty() || names.iter().any(|x| x == n);
        let vars: Vec<(String, String, bool)> =
            ctx.state().vars.iter().map(|(k, v)| (k.clone(), v.value.clone(), v.exported)).collect();
        let mut status = 0;
        for name in &names {
            if ctx.state().get(name).is_none() && !ctx.state().arrays.contains_key(name) {
                ctx.shell_error(&format!("declare: {name}: not found"));
                status = 1;
            }
        }
        for (k, v, x) in vars {
            if wanted(&k) {
                let flags = if x { "-x" } else { "--" };
                text.push_str(&format!("declare {flags} {k}=\"{}\"\n", v.replace('"', "\\\"")));
            }
        }
        let arrays: Vec<(String, Vec<String>)> =
            ctx.state().arrays.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        for (k, v) in arrays {
            if wanted(&k) {
                let items: Vec<String> =
                    v.iter().enumerate().map(|(i, s)| format!("[{i}]=\"{s}\"")).collect();
                text.push_str(&format!("declare -a {k}=({})\n", items.join(" ")));
            }
        }
        let _ = ctx.out(text);
        return status;
    }
    let in_function = !ctx.state().locals.is_empty() && !global;
    let mut status = 0;
    for arg in names {
        let (name, value) = match arg.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        if !super::export::valid_name(&name) {
            ctx.shell_error(&format!("declare: `{arg}': not a valid identifier"));
            status = 1;
            continue;
        }
        if ctx.state().readonly.contains(&name) && value.is_some() {
            ctx.shell_error(&format!("declare: {name}: readonly variable"));
            status = 1;
            continue;
        }
        if array {
            ctx.state().arrays.entry(name.clone()).or_default();
        }
        if in_function {
            ctx.state().local(&name, value.clone());
        } else if let Some(v) = value.clone() {
            ctx.state().set(&name, v);
        }
        if export {
            ctx.state().export(&name, None);
        }
        if readonly {
            ctx.state().readonly.insert(name);
        }
    }
    status
}
