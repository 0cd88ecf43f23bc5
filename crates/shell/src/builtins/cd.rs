//! `cd`: changes the working directory (shared with JavaScript's
//! `process.cwd()`), keeping `PWD` and `OLDPWD`.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "cd",
    run,
    help: "Usage: cd [DIR]\nChanges the working directory to DIR (default $HOME; `-` is $OLDPWD).\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args: Vec<&String> = args.iter().filter(|a| *a != "-L" && *a != "-P").collect();
    if args.len() > 1 {
        ctx.shell_error("cd: too many arguments");
        return 1;
    }
    let (target, print) = match args.first() {
        None => match ctx.state().get("HOME") {
            Some(home) => (home.to_string(), false),
            None => {
                ctx.shell_error("cd: HOME not set");
                return 1;
            }
        },
        Some(a) if a.as_str() == "-" => match ctx.state().get("OLDPWD") {
            Some(old) => (old.to_string(), true),
            None => {
                ctx.shell_error("cd: OLDPWD not set");
                return 1;
            }
        },
        Some(a) => ((*a).clone(), false),
    };
    let old = ctx.sys().cwd();
    match ctx.sys().chdir(&target) {
        Ok(new) => {
            ctx.state().set("OLDPWD", old);
            ctx.state().set("PWD", new.clone());
            if print {
                let _ = ctx.out(format!("{new}\n"));
            }
            0
        }
        Err(e) => {
            ctx.shell_error(&format!("cd: {target}: {}", e.describe()));
            1
        }
    }
}
