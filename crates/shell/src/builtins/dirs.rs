//! `pushd`, `popd` and `dirs`: bash's directory stack. Entry 0 is the
//! working directory; the rest live in the shell's state.

use super::Builtin;
use crate::ctx::Ctx;

pub const DIRS: Builtin = Builtin {
    name: "dirs",
    run: dirs,
    help: "Usage: dirs [-clpv] [+N] [-N]\nPrints the directory stack.\n",
    help_flag: true,
};

pub const PUSHD: Builtin = Builtin {
    name: "pushd",
    run: pushd,
    help: "Usage: pushd [-n] [+N | -N | DIR]\nAdds a directory to the top of the stack and changes to it.\n",
    help_flag: true,
};

pub const POPD: Builtin = Builtin {
    name: "popd",
    run: popd,
    help: "Usage: popd [-n] [+N | -N]\nRemoves a directory from the stack and changes to the new top.\n",
    help_flag: true,
};

/// The whole stack, working directory first.
fn stack(ctx: &mut Ctx) -> Vec<String> {
    let mut all = vec![ctx.sys().cwd()];
    all.extend(ctx.state().dir_stack.iter().cloned());
    all
}

fn tilde(ctx: &mut Ctx, dir: &str) -> String {
    let home = ctx.state().get("HOME").unwrap_or_default().to_string();
    if home.is_empty() || home == "/" {
        return dir.to_string();
    }
    match dir.strip_prefix(&home) {
        Some("") => "~".to_string(),
        Some(rest) if rest.starts_with('/') => format!("~{rest}"),
        _ => dir.to_string(),
    }
}

/// `+N` / `-N` as an index into a stack of `len` entries.
fn index(arg: &str, len: usize) -> Option<Option<usize>> {
    let (from_end, digits) = match arg.as_bytes().first() {
        Some(b'+') => (false, &arg[1..]),
        Some(b'-') => (true, &arg[1..]),
        _ => return None,
    };
    let n: usize = digits.parse().ok()?;
    Some(if from_end { len.checked_sub(n + 1) } else { (n < len).then_some(n) })
}

fn print(ctx: &mut Ctx, long: bool, lines: bool, numbered: bool, only: Option<usize>) {
    let all = stack(ctx);
    let shown: Vec<String> = all.iter().map(|d| if long { d.clone() } else { tilde(ctx, d) }).collect();
    let text = match only {
        Some(i) => format!("{}\n", shown.get(i).cloned().unwrap_or_default()),
        None if numbered => shown.iter().enumerate().map(|(i, d)| format!("{i:2}  {d}\n")).collect(),
        None if lines => shown.iter().map(|d| format!("{d}\n")).collect(),
        None => format!("{}\n", shown.join(" ")),
    };
    let _ = ctx.out(text);
}

fn chdir(ctx: &mut Ctx, builtin: &str, dir: &str) -> bool {
    let old = ctx.sys().cwd();
    match ctx.sys().chdir(dir) {
        Ok(new) => {
            ctx.state().set("OLDPWD", old);
            ctx.state().set("PWD", new);
            true
        }
        Err(e) => {
            ctx.shell_error(&format!("{builtin}: {dir}: {}", e.describe()));
            false
        }
    }
}

fn range_error(ctx: &mut Ctx, builtin: &str, arg: &str) -> i32 {
    ctx.shell_error(&format!("{builtin}: {}: directory stack index out of range", &arg[1..]));
    1
}

fn dirs(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut long, mut lines, mut numbered, mut only) = (false, false, false, None);
    for a in args {
        if let Some(i) = index(a, stack(ctx).len()) {
            match i {
                Some(i) => only = Some(i),
                None => return range_error(ctx, "dirs", a),
            }
            continue;
        }
        match a.as_str() {
            "-c" => {
                ctx.state().dir_stack.clear();
                return 0;
            }
            "-l" => long = true,
            "-p" => lines = true,
            "-v" => (lines, numbered) = (true, true),
            _ => {
                ctx.shell_error(&format!("dirs: {a}: invalid option"));
                ctx.err("dirs: usage: dirs [-clpv] [+N] [-N]\n");
                return 2;
            }
        }
    }
    print(ctx, long, lines, numbered, only);
    0
}

/// The arguments after a leading `--`; `Err(status)` after reporting a
/// word like `-z` (not `-N`) or, for `pushd`, more than one argument.
fn operands<'a>(ctx: &mut Ctx, builtin: &str, args: &'a [String]) -> Result<&'a [String], i32> {
    let args = match args.first() {
        Some(first) if first == "--" => &args[1..],
        _ => args,
    };
    if let Some(a) = args.first().filter(|a| a.starts_with('-') && a.len() > 1) {
        if !a[1..].bytes().all(|b| b.is_ascii_digit()) {
            ctx.shell_error(&format!("{builtin}: {a}: invalid number"));
            let usage = if builtin == "pushd" { "[-n] [+N | -N | dir]" } else { "[-n] [+N | -N]" };
            ctx.err(format!("{builtin}: usage: {builtin} {usage}\n"));
            return Err(2);
        }
    }
    if builtin == "pushd" && args.len() > 1 {
        ctx.shell_error("pushd: too many arguments");
        return Err(1);
    }
    Ok(args)
}

fn pushd(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = match operands(ctx, "pushd", args) {
        Ok(args) => args,
        Err(status) => return status,
    };
    let mut all = stack(ctx);
    match args.first() {
        None => {
            if all.len() < 2 {
                ctx.shell_error("pushd: no other directory");
                return 1;
            }
            all.swap(0, 1);
        }
        Some(a) => match index(a, all.len()) {
            Some(Some(n)) => all.rotate_left(n),
            Some(None) => return range_error(ctx, "pushd", a),
            None => {
                let old = all[0].clone();
                if !chdir(ctx, "pushd", a) {
                    return 1;
                }
                ctx.state().dir_stack.insert(0, old);
                print(ctx, false, false, false, None);
                return 0;
            }
        },
    }
    if !chdir(ctx, "pushd", &all[0]) {
        return 1;
    }
    ctx.state().dir_stack = all[1..].to_vec();
    print(ctx, false, false, false, None);
    0
}

fn popd(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = match operands(ctx, "popd", args) {
        Ok(args) => args,
        Err(status) => return status,
    };
    let mut all = stack(ctx);
    if all.len() < 2 {
        ctx.shell_error("popd: directory stack empty");
        return 1;
    }
    let n = match args.first() {
        None => 0,
        Some(a) => match index(a, all.len()) {
            Some(Some(n)) => n,
            Some(None) => return range_error(ctx, "popd", a),
            None => {
                ctx.shell_error(&format!("popd: {a}: invalid argument"));
                ctx.err("popd: usage: popd [-n] [+N | -N]\n");
                return 2;
            }
        },
    };
    all.remove(n);
    if n == 0 && !chdir(ctx, "popd", &all[0]) {
        return 1;
    }
    ctx.state().dir_stack = all[1..].to_vec();
    print(ctx, false, false, false, None);
    0
}
