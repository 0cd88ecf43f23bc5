//! `which`: where each command is. On a real system it is a program that
//! searches `PATH` for files; here the commands that are programs elsewhere
//! (`cat`, `jq`, …) are builtins, so they print their own name, as
//! `command -v` does. Shell-only builtins, functions and aliases are not
//! found, as with the real `which`.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "which",
    run,
    help: "Usage: which [-a] NAME...\nPrints the command each NAME runs.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut all = false;
    let mut names = Vec::new();
    for a in args {
        match a.as_str() {
            "-a" => all = true,
            "-s" | "--" => {}
            _ => names.push(a),
        }
    }
    let mut status = 0;
    let mut text = String::new();
    for name in names {
        // A builtin runs before any file of that name.
        let builtin = !name.contains('/') && super::runnable(name);
        if builtin {
            text.push_str(&format!("{name}\n"));
        }
        if builtin && !all {
            continue;
        }
        let files = super::path_files(ctx, name, all);
        if files.is_empty() && !builtin {
            status = 1;
        }
        for f in files {
            text.push_str(&format!("{f}\n"));
        }
    }
    let _ = ctx.out(text);
    status
}
