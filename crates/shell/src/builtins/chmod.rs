//! `chmod`: changes permission bits (GNU coreutils' modes and messages).
//! The bits are metadata kept in the sandbox's file system: they never make
//! a read-only area writable, and the run acts as the files' owner.

use super::common::fs::join;
use super::common::quote::quote;
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "chmod",
    run,
    help: "Usage: chmod [OPTION]... MODE[,MODE]... FILE...\n\
  or:  chmod [OPTION]... OCTAL-MODE FILE...\n\
Change the mode of each FILE to MODE.\n\
\n\
  -c, --changes          like verbose but report only when a change is made\n\
  -f, --silent, --quiet  suppress most error messages\n\
  -v, --verbose          output a diagnostic for every file processed\n\
  -R, --recursive        change files and directories recursively\n\
\n\
Each MODE is of the form '[ugoa]*([-+=]([rwxXst]*|[ugo]))+|[-+=][0-7]+'.\n",
    help_flag: true,
};

/// The umask new files get (bash's default, 022).
pub(crate) const UMASK: u32 = 0o022;

/// Applies a GNU mode string (`755`, `u+x,go-w`, `a=r`, `+X`) to `mode`;
/// `None` when the string is not a mode.
pub(crate) fn apply_mode(spec: &str, mode: u32, is_dir: bool) -> Option<u32> {
    if !spec.is_empty() && spec.len() <= 8 && spec.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let m = u32::from_str_radix(spec, 8).ok()?;
        if m > 0o7777 {
            return None;
        }
        // GNU keeps a directory's set-id bits unless five digits are given.
        let keep = if is_dir && spec.len() < 5 { mode & 0o6000 } else { 0 };
        return Some(m | keep);
    }
    let mut mode = mode;
    for clause in spec.split(',') {
        let bytes = clause.as_bytes();
        let mut i = 0;
        let mut who = 0u32;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'u' => who |= 0o4700,
                b'g' => who |= 0o2070,
                b'o' => who |= 0o1007,
                b'a' => who |= 0o7777,
                _ => break,
            }
            i += 1;
        }
        bytes.get(i)?;
        while let Some(&op) = bytes.get(i) {
            if !matches!(op, b'+' | b'-' | b'=') {
                return None;
            }
            i += 1;
            let mut perm = 0u32;
            // A copy of another class's bits (`g=u`).
            if let Some(&c @ (b'u' | b'g' | b'o')) = bytes.get(i) {
                let bits = match c {
                    b'u' => (mode >> 6) & 7,
                    b'g' => (mode >> 3) & 7,
                    _ => mode & 7,
                };
                perm = bits * 0o111;
                i += 1;
            } else {
                while let Some(&c) = bytes.get(i) {
                    perm |= match c {
                        b'r' => 0o444,
                        b'w' => 0o222,
                        b'x' => 0o111,
                        b'X' if is_dir || mode & 0o111 != 0 => 0o111,
                        b'X' => 0,
                        b's' => 0o6000,
                        b't' => 0o1000,
                        _ => break,
                    };
                    i += 1;
                }
            }
            let (mask, umasked) = if who == 0 { (0o7777, true) } else { (who, false) };
            let mut bits = perm & mask;
            if umasked {
                bits &= !UMASK;
            }
            mode = match op {
                b'+' => mode | bits,
                b'-' => mode & !bits,
                _ => {
                    // `=` clears the class's bits first (a directory keeps
                    // its set-id bits unless they are named).
                    let clear =
                        if umasked { 0o7777 & !UMASK } else { mask } & !(if is_dir { 0o6000 } else { 0 });
                    (mode & !clear) | bits
                }
            };
        }
    }
    Some(mode)
}

struct Opts {
    recursive: bool,
    verbose: bool,
    changes: bool,
    quiet: bool,
}

fn try_help(ctx: &mut Ctx) -> i32 {
    ctx.err("Try 'chmod --help' for more information.\n");
    1
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut o = Opts { recursive: false, verbose: false, changes: false, quiet: false };
    let mut mode: Option<String> = None;
    let mut files = Vec::new();
    let mut only_operands = false;
    for a in args {
        if only_operands || a == "-" || !a.starts_with('-') {
            if mode.is_none() {
                mode = Some(a.clone());
            } else {
                files.push(a.clone());
            }
            continue;
        }
        match a.as_str() {
            "--" => only_operands = true,
            "--recursive" => o.recursive = true,
            "--verbose" => o.verbose = true,
            "--changes" => o.changes = true,
            "--silent" | "--quiet" => o.quiet = true,
            long if long.starts_with("--") => {
                ctx.err(format!("chmod: unrecognized option '{long}'\n"));
                return try_help(ctx);
            }
            // `-w`, `-x,g+r`: a mode, not options.
            m if m[1..].bytes().all(|b| b"rwxXstugoa+-=,0123456789".contains(&b))
                && m[1..].bytes().any(|b| b"rwxXst".contains(&b)) =>
            {
                if mode.is_none() {
                    mode = Some(m.to_string());
                } else {
                    files.push(m.to_string());
                }
            }
            flags => {
                for c in flags[1..].chars() {
                    match c {
                        'R' => o.recursive = true,
                        'v' => o.verbose = true,
                        'c' => o.changes = true,
                        'f' => o.quiet = true,
                        other => {
                            ctx.err(format!("chmod: invalid option -- '{other}'\n"));
                            return try_help(ctx);
                        }
                    }
                }
            }
        }
    }
    let Some(mode) = mode else {
        ctx.err("chmod: missing operand\n");
        return try_help(ctx);
    };
    if files.is_empty() {
        ctx.err(format!("chmod: missing operand after {}\n", quote(&mode)));
        return try_help(ctx);
    }
    if apply_mode(&mode, 0, false).is_none() {
        ctx.err(format!("chmod: invalid mode: {}\n", quote(&mode)));
        return try_help(ctx);
    }
    let mut status = 0;
    for f in &files {
        if !change(ctx, &o, &mode, f) {
            status = 1;
        }
    }
    status
}

fn change(ctx: &mut Ctx, o: &Opts, spec: &str, path: &str) -> bool {
    let meta = match ctx.sys().stat(path) {
        Ok(m) => m,
        Err(e) => {
            if !o.quiet {
                ctx.err(format!("chmod: cannot access {}: {}\n", quote(path), e.describe()));
            }
            return false;
        }
    };
    let is_dir = meta.kind == Kind::Dir;
    let new = apply_mode(spec, meta.mode, is_dir).unwrap_or(meta.mode);
    let mut ok = true;
    if let Err(e) = ctx.sys().chmod(path, new) {
        if !o.quiet {
            ctx.err(format!("chmod: changing permissions of {}: {}\n", quote(path), e.describe()));
        }
        ok = false;
    } else if o.verbose || (o.changes && new != meta.mode) {
        let old_s = super::common::fs::mode_string(&meta);
        let new_meta = crate::system::Meta { mode: new, ..meta };
        let new_s = super::common::fs::mode_string(&new_meta);
        let text = if new == meta.mode {
            format!("mode of {} retained as {:04o} ({})\n", quote(path), new, &new_s[1..])
        } else {
            format!(
                "mode of {} changed from {:04o} ({}) to {:04o} ({})\n",
                quote(path),
                meta.mode,
                &old_s[1..],
                new,
                &new_s[1..]
            )
        };
        let _ = ctx.out(text);
    }
    if o.recursive && is_dir {
        let entries = match ctx.sys().readdir(path) {
            Ok(e) => e,
            Err(_) => return ok,
        };
        for e in entries {
            ok &= change(ctx, o, spec, &join(path, &e.name));
        }
    }
    ok
}
