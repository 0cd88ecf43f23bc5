//! `rm`: remove files and directories.

use super::args::{self, HasArg, Spec};
use super::common::fs::{absolute, base_name, join, stat_path};
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::io::Closed;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "rm",
    run,
    help: "Usage: rm [OPTION]... [FILE]...\n\
Remove (unlink) the FILE(s).\n\
\n\
  -f, --force           ignore nonexistent files and arguments, never prompt\n\
  -r, -R, --recursive   remove directories and their contents recursively\n\
  -d, --dir             remove empty directories\n\
  -v, --verbose         explain what is being done\n\
      --preserve-root   do not remove '/' (the default)\n\
\n\
Not supported: -i, -I, --interactive, --no-preserve-root, --one-file-system.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "frRdv",
        long: &[
            ("force", 'f', HasArg::No),
            ("recursive", 'r', HasArg::No),
            ("dir", 'd', HasArg::No),
            ("verbose", 'v', HasArg::No),
            ("preserve-root", 'p', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("rm", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    let force = parsed.has('f');
    let recursive = parsed.has('r') || parsed.has('R');
    let dir_ok = parsed.has('d');
    let verbose = parsed.has('v');
    if parsed.operands.is_empty() {
        if force {
            return 0;
        }
        ctx.err("rm: missing operand\nTry 'rm --help' for more information.\n");
        return 1;
    }
    let cwd = ctx.sys().cwd();
    let mut status = 0;
    for op in &parsed.operands {
        let base = base_name(op);
        if (recursive || dir_ok) && (base == "." || base == "..") {
            ctx.err(format!("rm: refusing to remove '.' or '..' directory: skipping {}\n", quote(op)));
            status = 1;
            continue;
        }
        if recursive && absolute(&cwd, op) == "/" {
            ctx.err(format!(
                "rm: it is dangerous to operate recursively on {}\nrm: use --no-preserve-root to override this failsafe\n",
                quote(if op.starts_with('/') && op.trim_matches('/').is_empty() { "/" } else { op })
            ));
            status = 1;
            continue;
        }
        let meta = match stat_path(ctx.sys(), op) {
            Ok(m) => m,
            Err(e) => {
                if !(force && e.errno == "ENOENT") {
                    ctx.err(format!("rm: cannot remove {}: {}\n", quote(op), e.describe()));
                    status = 1;
                }
                continue;
            }
        };
        let result = match meta.kind {
            Kind::File => remove_one(ctx, op, false, verbose),
            Kind::Dir if recursive => {
                if verbose {
                    remove_tree(ctx, op)
                } else {
                    remove_one(ctx, op, true, false)
                }
            }
            Kind::Dir if dir_ok => remove_one(ctx, op, false, verbose),
            Kind::Dir => {
                ctx.err(format!("rm: cannot remove {}: Is a directory\n", quote(op)));
                Ok(false)
            }
        };
        match result {
            Ok(true) => {}
            Ok(false) => status = 1,
            Err(Closed) => return 1,
        }
    }
    status
}

/// Removes one path; prints the error or the `-v` line. `Ok(false)`: failed.
fn remove_one(ctx: &mut Ctx, path: &str, recursive: bool, verbose: bool) -> Result<bool, Closed> {
    let is_dir = matches!(ctx.sys().stat(path), Ok(m) if m.kind == Kind::Dir);
    match ctx.sys().remove(path, recursive) {
        Ok(()) => {
            if verbose {
                let what = if is_dir { "removed directory" } else { "removed" };
                ctx.out(format!("{what} {}\n", quote(path)))?;
            }
            Ok(true)
        }
        Err(e) => {
            ctx.err(format!("rm: cannot remove {}: {}\n", quote(path), e.describe()));
            Ok(false)
        }
    }
}

/// `rm -rv`: children first, one line per removed entry.
fn remove_tree(ctx: &mut Ctx, path: &str) -> Result<bool, Closed> {
    let entries = match ctx.sys().readdir(path) {
        Ok(e) => e,
        Err(e) => {
            ctx.err(format!("rm: cannot remove {}: {}\n", quote(path), e.describe()));
            return Ok(false);
        }
    };
    let mut ok = true;
    for e in entries {
        let child = join(path, &e.name);
        let done = match e.kind {
            Kind::Dir => remove_tree(ctx, &child)?,
            Kind::File => remove_one(ctx, &child, false, true)?,
        };
        ok &= done;
    }
    if ok {
        ok = remove_one(ctx, path, false, true)?;
    }
    Ok(ok)
}
