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

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let short = args.first().is_some_and(|a| a == "-t");
    let mut status = 0;
    for name in args.iter().filter(|a| !a.starts_with('-')) {
        let kind = if KEYWORDS.contains(&name.as_str()) {
            Some(("keyword", format!("{name} is a shell keyword")))
        } else if ctx.state().functions.contains_key(name) {
            Some(("function", format!("{name} is a function")))
        } else if super::find(name).is_some() {
            Some(("builtin", format!("{name} is a shell builtin")))
        } else {
            None
        };
        match kind {
            Some((k, long)) => {
                let _ = ctx.out(format!("{}\n", if short { k.to_string() } else { long }));
            }
            None => {
                if !short {
                    ctx.shell_error(&format!("type: {name}: not found"));
                }
                status = 1;
            }
        }
    }
    status
}
