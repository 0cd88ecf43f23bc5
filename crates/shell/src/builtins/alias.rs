//! `alias` and `unalias`. Aliases are expanded (when `expand_aliases` is on,
//! as in bash scripts) by [`crate::alias`].

use super::Builtin;
use crate::ctx::Ctx;
use crate::expand::quote;

pub const ALIAS: Builtin = Builtin {
    name: "alias",
    run: alias,
    help: "Usage: alias [-p] [NAME[=VALUE]...]\nDefines or prints aliases.\n",
    help_flag: true,
};

pub const UNALIAS: Builtin = Builtin {
    name: "unalias",
    run: unalias,
    help: "Usage: unalias [-a] NAME...\nRemoves aliases.\n",
    help_flag: true,
};

fn line(name: &str, value: &str) -> String {
    format!("alias {name}={}\n", quote(value))
}

fn alias(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = args.strip_prefix(&["--".to_string()][..]).unwrap_or(args);
    let args: Vec<&String> = args.iter().filter(|a| *a != "-p").collect();
    if args.is_empty() {
        let text: String = ctx.state().aliases.iter().map(|(n, v)| line(n, v)).collect();
        let _ = ctx.out(text);
        return 0;
    }
    let mut status = 0;
    for arg in args {
        match arg.split_once('=') {
            Some((name, value)) if !name.is_empty() => {
                ctx.state().aliases.insert(name.to_string(), value.to_string());
            }
            _ => match ctx.state().aliases.get(arg.as_str()).cloned() {
                Some(value) => {
                    let _ = ctx.out(line(arg, &value));
                }
                None => {
                    ctx.shell_error(&format!("alias: {arg}: not found"));
                    status = 1;
                }
            },
        }
    }
    status
}

fn unalias(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = args.strip_prefix(&["--".to_string()][..]).unwrap_or(args);
    if args.first().is_some_and(|a| a == "-a") {
        ctx.state().aliases.clear();
        return 0;
    }
    if args.is_empty() {
        ctx.err("unalias: usage: unalias [-a] name [name ...]\n");
        return 2;
    }
    let mut status = 0;
    for name in args {
        if ctx.state().aliases.remove(name.as_str()).is_none() {
            ctx.shell_error(&format!("unalias: {name}: not found"));
            status = 1;
        }
    }
    status
}
