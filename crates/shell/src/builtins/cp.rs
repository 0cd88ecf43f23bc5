//! `cp`: copy files and directories.
//!
//! The copy gets the current time as its modification time: `-p`/`-a`
//! cannot preserve timestamps (the file system has no call to set one);
//! they keep the permission bits, which a new copy otherwise gets from its
//! source under the umask. There are no owners or links to preserve.

use super::args::{self, HasArg, Spec};
use super::common::fs::{absolute, base_name, is_within, join, stat_path};
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::{Kind, WriteMode};

pub const BUILTIN: Builtin = Builtin {
    name: "cp",
    run,
    help: "Usage: cp [OPTION]... SOURCE DEST\n\
  or:  cp [OPTION]... SOURCE... DIRECTORY\n\
  or:  cp [OPTION]... -t DIRECTORY SOURCE...\n\
Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.\n\
\n\
  -a, --archive                same as -R (timestamps are not preserved)\n\
  -f, --force                  accepted (nothing is ever write-protected)\n\
  -n, --no-clobber             do not overwrite an existing file\n\
  -p, --preserve               accepted; timestamps are not preserved\n\
  -r, -R, --recursive          copy directories recursively\n\
  -t, --target-directory=DIR   copy all SOURCE arguments into DIR\n\
  -T, --no-target-directory    treat DEST as a normal file\n\
  -u, --update                 copy only when SOURCE is newer than DEST or DEST is missing\n\
  -v, --verbose                explain what is being done\n\
  -L, -P, -d                   accepted (the file system has no links)\n\
\n\
Not supported: -i/--interactive, -l/--link, -s/--symbolic-link, --backup,\n\
--parents, --reflink, --sparse.\n",
    help_flag: true,
};

struct Opts {
    recursive: bool,
    no_clobber: bool,
    update: bool,
    verbose: bool,
    /// `-p`/`-a`: the copy keeps the source's permission bits.
    preserve: bool,
    cwd: String,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "afnprRt:TuvLPd",
        long: &[
            ("archive", 'a', HasArg::No),
            ("force", 'f', HasArg::No),
            ("no-clobber", 'n', HasArg::No),
            ("preserve", 'p', HasArg::No),
            ("recursive", 'r', HasArg::No),
            ("target-directory", 't', HasArg::Yes),
            ("no-target-directory", 'T', HasArg::No),
            ("update", 'u', HasArg::No),
            ("verbose", 'v', HasArg::No),
            ("dereference", 'L', HasArg::No),
            ("no-dereference", 'P', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("cp", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    let o = Opts {
        recursive: parsed.has('r') || parsed.has('R') || parsed.has('a'),
        no_clobber: parsed.has('n'),
        preserve: parsed.has('p') || parsed.has('a'),
        update: parsed.has('u'),
        verbose: parsed.has('v'),
        cwd: ctx.sys().cwd(),
    };
    let plan = match plan_targets(ctx, "cp", &parsed.operands, parsed.value('t'), parsed.has('T')) {
        Ok(p) => p,
        Err(status) => return status,
    };
    let mut status = 0;
    for (src, dst) in plan {
        if copy(ctx, &src, &dst, &o).is_err() {
            status = 1;
        }
        if ctx.interrupted() {
            break;
        }
    }
    status
}

/// Works out (source, destination) pairs the way `cp` and `mv` do: into
/// a directory when the last operand (or `-t`) is one, else one pair.
/// On a usage problem prints the message and returns the status.
pub(crate) fn plan_targets(
    ctx: &mut Ctx,
    name: &str,
    operands: &[String],
    target_dir: Option<&str>,
    no_target_dir: bool,
) -> Result<Vec<(String, String)>, i32> {
    let try_help = format!("Try '{name} --help' for more information.\n");
    if let Some(dir) = target_dir {
        if operands.is_empty() {
            ctx.err(format!("{name}: missing file operand\n{try_help}"));
            return Err(1);
        }
        match ctx.sys().stat(dir) {
            Ok(m) if m.kind == Kind::Dir => {}
            Ok(_) => {
                ctx.err(format!("{name}: target directory {}: Not a directory\n", quote(dir)));
                return Err(1);
            }
            Err(e) => {
                ctx.err(format!("{name}: target directory {}: {}\n", quote(dir), e.describe()));
                return Err(1);
            }
        }
        return Ok(operands.iter().map(|s| (s.clone(), join(dir, base_name(s)))).collect());
    }
    match operands {
        [] => {
            ctx.err(format!("{name}: missing file operand\n{try_help}"));
            Err(1)
        }
        [only] => {
            ctx.err(format!("{name}: missing destination file operand after {}\n{try_help}", quote(only)));
            Err(1)
        }
        [src, dst] if no_target_dir => Ok(vec![(src.clone(), dst.clone())]),
        [_, _, extra, ..] if no_target_dir => {
            ctx.err(format!("{name}: extra operand {}\n{try_help}", quote(extra)));
            Err(1)
        }
        [sources @ .., target] => {
            let is_dir = matches!(ctx.sys().stat(target), Ok(m) if m.kind == Kind::Dir);
            if is_dir {
                return Ok(sources.iter().map(|s| (s.clone(), join(target, base_name(s)))).collect());
            }
            if sources.len() > 1 {
                let why = match stat_path(ctx.sys(), target) {
                    Ok(_) => "Not a directory",
                    Err(e) => e.describe(),
                };
                ctx.err(format!("{name}: target {}: {why}\n", quote(target)));
                return Err(1);
            }
            Ok(vec![(sources[0].clone(), target.clone())])
        }
    }
}

/// Copies `src` to `dst`; errors are printed and reported as `Err(())`.
fn copy(ctx: &mut Ctx, src: &str, dst: &str, o: &Opts) -> Result<(), ()> {
    let meta = match stat_path(ctx.sys(), src) {
        Ok(m) => m,
        // `cp /dev/null f` makes an empty file.
        Err(_) if src == "/dev/null" => {
            crate::system::Meta { kind: Kind::File, size: 0, mtime_ms: 0, mode: 0o666 }
        }
        Err(e) => {
            ctx.err(format!("cp: cannot stat {}: {}\n", quote(src), e.describe()));
            return Err(());
        }
    };
    let abs_src = absolute(&o.cwd, src);
    let abs_dst = absolute(&o.cwd, dst);
    let dst_meta = match stat_path(ctx.sys(), dst) {
        Ok(m) => Some(m),
        Err(e) if e.errno == "ENOTDIR" => {
            ctx.err(format!("cp: cannot stat {}: {}\n", quote(dst), e.describe()));
            return Err(());
        }
        Err(_) => None,
    };
    if meta.kind == Kind::Dir {
        if !o.recursive {
            ctx.err(format!("cp: -r not specified; omitting directory {}\n", quote(src)));
            return Err(());
        }
        if is_within(&abs_dst, &abs_src) {
            ctx.err(format!("cp: cannot copy a directory, {}, into itself, {}\n", quote(src), quote(dst)));
            return Err(());
        }
        match dst_meta {
            Some(m) if m.kind == Kind::File => {
                ctx.err(format!(
                    "cp: cannot overwrite non-directory {} with directory {}\n",
                    quote(dst),
                    quote(src)
                ));
                return Err(());
            }
            Some(_) => {}
            None => {
                if let Err(e) = ctx.sys().mkdir(dst, false) {
                    ctx.err(format!("cp: cannot create directory {}: {}\n", quote(dst), e.describe()));
                    return Err(());
                }
                if o.verbose && ctx.out(format!("{} -> {}\n", quote(src), quote(dst))).is_err() {
                    return Err(());
                }
            }
        }
        let entries = match ctx.sys().readdir(src) {
            Ok(e) => e,
            Err(e) => {
                ctx.err(format!("cp: cannot access {}: {}\n", quote(src), e.describe()));
                return Err(());
            }
        };
        let mut result = Ok(());
        for e in entries {
            if copy(ctx, &join(src, &e.name), &join(dst, &e.name), o).is_err() {
                result = Err(());
            }
            if ctx.interrupted() {
                return Err(());
            }
        }
        return result;
    }
    if abs_src == abs_dst {
        ctx.err(format!("cp: {} and {} are the same file\n", quote(src), quote(dst)));
        return Err(());
    }
    if dst_meta.is_none() && dst.ends_with('/') {
        ctx.err(format!("cp: cannot create regular file {}: Not a directory\n", quote(dst)));
        return Err(());
    }
    if let Some(m) = dst_meta {
        if m.kind == Kind::Dir {
            ctx.err(format!("cp: cannot overwrite directory {} with non-directory\n", quote(dst)));
            return Err(());
        }
        if o.no_clobber || (o.update && m.mtime_ms >= meta.mtime_ms) {
            return Ok(());
        }
    }
    let data = match ctx.special_input(src).unwrap_or_else(|| ctx.sys().read(src)) {
        Ok(d) => d,
        Err(e) => {
            ctx.err(format!("cp: cannot open {} for reading: {}\n", quote(src), e.describe()));
            return Err(());
        }
    };
    if let Err(e) = ctx.sys().write(dst, &data, WriteMode::Truncate) {
        ctx.err(format!("cp: cannot create regular file {}: {}\n", quote(dst), e.describe()));
        return Err(());
    }
    // A new copy gets the source's bits under the umask; an existing
    // target keeps its own unless `-p`.
    let umask = ctx.state().umask.unwrap_or(super::chmod::UMASK);
    let mode = if o.preserve { Some(meta.mode) } else { dst_meta.is_none().then_some(meta.mode & !umask) };
    if let Some(mode) = mode {
        let _ = ctx.sys().chmod(dst, mode & 0o7777);
    }
    if o.verbose && ctx.out(format!("{} -> {}\n", quote(src), quote(dst))).is_err() {
        return Err(());
    }
    Ok(())
}
