//! `command`: runs a builtin or file skipping functions; `-v`/`-V` say
//! what a name is; `-p` is accepted (the sandbox has one `PATH`).

use super::type_::{lookup, Found};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "command",
    run,
    help: "Usage: command [-pVv] NAME [ARG]...\nRuns NAME ignoring shell functions; -v prints how NAME would be found.\n",
    help_flag: true,
};

/// The `PATH` of `command -p` (the sandbox's default).
const DEFAULT_PATH: &str = "/usr/bin:/bin";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut short, mut verbose, mut default_path) = (false, false, false);
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        match first.strip_prefix('-') {
            Some("-") => {
                rest = tail;
                break;
            }
            Some(flags) if !flags.is_empty() && flags.chars().all(|c| "pvV".contains(c)) => {
                short |= flags.contains('v');
                verbose |= flags.contains('V');
                default_path |= flags.contains('p');
                rest = tail;
            }
            Some(flags) if !flags.is_empty() => {
                let c = flags.chars().next().unwrap_or('-');
                ctx.shell_error(&format!(
                    "command: -{c}: invalid option\ncommand: usage: command [-pVv] command [arg ...]"
                ));
                return 2;
            }
            _ => break,
        }
    }
    if !short && !verbose {
        if rest.is_empty() {
            return 0;
        }
        let io = ctx.io.clone();
        if !default_path {
            return ctx.interp.exec_builtin_or_file(rest, &io);
        }
        // `-p`: looks files up on the default `PATH` instead of `$PATH`.
        let saved = ctx.state().vars.get("PATH").cloned();
        ctx.state()
            .vars
            .insert("PATH".into(), crate::state::Var { value: DEFAULT_PATH.into(), exported: true });
        let status = ctx.interp.exec_builtin_or_file(rest, &io);
        match saved {
            Some(var) => ctx.state().vars.insert("PATH".into(), var),
            None => ctx.state().vars.remove("PATH"),
        };
        return status;
    }
    // bash succeeds when any name is found.
    let mut any = false;
    for name in rest {
        let found = lookup(ctx, name, false, true);
        match found.first() {
            Some(f) if verbose => {
                let _ = ctx.out(f.describe(name));
            }
            Some(Found::Alias(value)) => {
                let _ = ctx.out(format!("alias {name}={}\n", crate::expand::quote(value)));
            }
            Some(Found::File(path)) => {
                let _ = ctx.out(format!("{path}\n"));
            }
            Some(_) => {
                let _ = ctx.out(format!("{name}\n"));
            }
            None => {
                if verbose {
                    ctx.shell_error(&format!("command: {name}: not found"));
                }
                continue;
            }
        }
        any = true;
    }
    i32::from(!any)
}
