//! `builtin NAME [ARG]...`: runs the shell builtin NAME, skipping any
//! function of that name.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "builtin",
    run,
    help: "Usage: builtin [SHELL-BUILTIN [ARG ...]]\nRuns SHELL-BUILTIN ignoring functions of that name.\n",
    help_flag: true,
};

/// Builtins of bash that are also programs on a real system.
const ALSO_PROGRAMS: &[&str] =
    &["[", "command", "echo", "false", "kill", "printf", "pwd", "test", "true", "umask"];

/// Whether `name` is one of bash's builtins (not a program bash would run
/// from a file, like `ls`).
pub(crate) fn is_shell_builtin(name: &str) -> bool {
    super::find(name).is_some() && (!super::runnable(name) || ALSO_PROGRAMS.contains(&name))
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = match args.first() {
        Some(a) if a == "--" => &args[1..],
        _ => args,
    };
    let Some(name) = args.first() else { return 0 };
    match super::find(name) {
        Some(b) if is_shell_builtin(name) => super::run(b, ctx, &args[1..]),
        _ => {
            ctx.shell_error(&format!("builtin: {name}: not a shell builtin"));
            1
        }
    }
}
