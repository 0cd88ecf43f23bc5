//! `type`: says whether a name is a function, a builtin or unknown.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "type",
    run,
    help: "Usage: type [-t] NAME...\nDescribes how each NAME would be run.\n",
    help_flag: true,
};

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done", "in",
    "function", "{", "}", "!", "[[", "]]", "time",
];

/// How `name` would run: its kind (`type -t`) and `type`'s sentence.
pub(crate) fn describe(ctx: &mut Ctx, name: &str) -> Option<(&'static str, String)> {
    if KEYWORDS.contains(&name) {
        Some(("keyword", format!("{name} is a shell keyword")))
    } else if ctx.state().functions.contains_key(name) {
        Some(("function", format!("{name} is a function")))
    } else if super::find(name).is_some() {
        Some(("builtin", format!("{name} is a shell builtin")))
    } else {
        None
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut short = false;
    let mut path_only = false;
    let mut names = Vec::new();
    for a in args {
        match a.strip_prefix('-') {
            Some(flags)
                if names.is_empty() && !flags.is_empty() && flags.chars().all(|c| "atpPf".contains(c)) =>
            {
                short |= flags.contains('t');
                path_only |= flags.contains('p') || flags.contains('P');
            }
            _ => names.push(a),
        }
    }
    let mut status = 0;
    for name in names {
        match describe(ctx, name) {
            // `-p` prints the file a name would run: there are none.
            Some(_) if path_only => {}
            Some((k, long)) => {
                let _ = ctx.out(format!("{}\n", if short { k.to_string() } else { long }));
            }
            None => {
                if !short && !path_only {
                    ctx.shell_error(&format!("type: {name}: not found"));
                }
                status = 1;
            }
        }
    }
    status
}
