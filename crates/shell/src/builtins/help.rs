//! `help`: the usage of the shell's commands (the builtins' own `--help`
//! texts, not bash's).

use super::{Builtin, REGISTRY};
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "help",
    run,
    help: "Usage: help [-dms] [pattern ...]\nPrints the usage of each command whose name matches PATTERN, or lists the commands.\n  -d, -s  only the first line of each\n  -m      accepted and ignored\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, argv: &[String]) -> i32 {
    let mut short = false;
    let mut rest = argv;
    while let Some(first) = rest.first() {
        if first == "--" {
            rest = &rest[1..];
            break;
        }
        if !first.starts_with('-') || first.len() < 2 {
            break;
        }
        for c in first.chars().skip(1) {
            match c {
                'd' | 's' => short = true,
                'm' => {}
                _ => {
                    ctx.shell_error(&format!("help: -{c}: invalid option"));
                    ctx.err("help: usage: help [-dms] [pattern ...]\n");
                    return 2;
                }
            }
        }
        rest = &rest[1..];
    }
    let mut text = String::new();
    if rest.is_empty() {
        text.push_str("These shell commands are defined internally.  Type `help name' to find out more about the function `name'.\n\n");
        for b in REGISTRY {
            text.push_str(&format!(" {}\n", b.name));
        }
    }
    for pattern in rest {
        let matches: Vec<&Builtin> =
            REGISTRY.iter().filter(|b| crate::pattern::fnmatch(pattern, b.name)).collect();
        if matches.is_empty() {
            let _ = ctx.out(&text);
            ctx.shell_error(&format!(
                "help: no help topics match `{pattern}'.  Try `help help' or `man -k {pattern}' or `info {pattern}'."
            ));
            return 1;
        }
        for b in matches {
            let usage = b.help.strip_prefix("Usage: ").unwrap_or(b.help);
            if short {
                text.push_str(&format!("{}: {}\n", b.name, usage.lines().next().unwrap_or_default()));
            } else {
                text.push_str(&format!("{}: {usage}", b.name));
            }
        }
    }
    if ctx.out(&text).is_err() {
        ctx.write_failed("help");
        return 1;
    }
    0
}
