//! `cd`: changes the working directory (shared with JavaScript's
//! `process.cwd()`), keeping `PWD` and `OLDPWD` (exported, as bash does).
//! A relative name is also looked up in the directories of `CDPATH`.

use super::Builtin;
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "cd",
    run,
    help: "Usage: cd [-L|-P] [DIR]\nChanges the working directory to DIR (default $HOME; `-` is $OLDPWD).\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        match first.as_str() {
            "--" => {
                rest = tail;
                break;
            }
            s if s.len() > 1 && s.starts_with('-') && s[1..].chars().all(|c| "LPe@".contains(c)) => {
                rest = tail
            }
            s if s.len() > 1 && s.starts_with('-') => {
                let c = s.chars().nth(1).unwrap_or('-');
                ctx.shell_error(&format!(
                    "cd: -{c}: invalid option\ncd: usage: cd [-L|[-P [-e]] [-@]] [dir]"
                ));
                return 2;
            }
            _ => break,
        }
    }
    if rest.len() > 1 {
        ctx.shell_error("cd: too many arguments");
        return 1;
    }
    let (target, mut print) = match rest.first() {
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
        Some(a) => (a.clone(), false),
    };
    let old = match ctx.state().get("PWD") {
        Some(pwd) if !pwd.is_empty() => pwd.to_string(),
        _ => ctx.sys().cwd(),
    };
    let mut result = None;
    if !target.starts_with('/')
        && !target.starts_with("./")
        && !target.starts_with("../")
        && target != "."
        && target != ".."
    {
        let cdpath = ctx.state().get("CDPATH").unwrap_or_default().to_string();
        for dir in cdpath.split(':').filter(|_| !cdpath.is_empty()) {
            let candidate = if dir.is_empty() {
                target.clone()
            } else {
                format!("{}/{target}", dir.trim_end_matches('/'))
            };
            if is_dir(ctx, &candidate) && dotdots_exist(ctx, &candidate) {
                if let Ok(new) = ctx.sys().chdir(&candidate) {
                    print |= !dir.is_empty();
                    result = Some(Ok(new));
                    break;
                }
            }
        }
    }
    let result = match result {
        Some(r) => r,
        None if !dotdots_exist(ctx, &target) => Err(crate::system::FsError::new("ENOENT", target.clone())),
        None => ctx.sys().chdir(&target),
    };
    match result {
        Ok(new) => {
            ctx.state().export("OLDPWD", Some(old));
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

fn is_dir(ctx: &mut Ctx, path: &str) -> bool {
    ctx.sys().stat(path).is_ok_and(|m| m.kind == Kind::Dir)
}

/// Whether each directory a `..` in `path` steps out of exists: bash checks
/// them (`cd missing/..` fails) where plain name resolution would not.
fn dotdots_exist(ctx: &mut Ctx, path: &str) -> bool {
    let mut prefix = String::new();
    for (i, part) in path.split('/').enumerate() {
        if part == ".." && i > 0 && !prefix.is_empty() && !is_dir(ctx, &prefix) {
            return false;
        }
        if i > 0 {
            prefix.push('/');
        }
        prefix.push_str(part);
    }
    true
}
