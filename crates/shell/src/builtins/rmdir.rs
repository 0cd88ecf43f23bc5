//! `rmdir`: remove empty directories.

use super::args::{self, HasArg, Spec};
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::{FsError, Kind};

pub const BUILTIN: Builtin = Builtin {
    name: "rmdir",
    run,
    help: "Usage: rmdir [OPTION]... DIRECTORY...\n\
Remove the DIRECTORY(ies), if they are empty.\n\
\n\
      --ignore-fail-on-non-empty  ignore failures due to a directory being non-empty\n\
  -p, --parents     remove DIRECTORY and its ancestors; e.g., 'rmdir -p a/b' is\n\
                    similar to 'rmdir a/b a'\n\
  -v, --verbose     output a diagnostic for every directory processed\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "pv",
        long: &[
            ("parents", 'p', HasArg::No),
            ("verbose", 'v', HasArg::No),
            ("ignore-fail-on-non-empty", 'i', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("rmdir", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err("rmdir: missing operand\nTry 'rmdir --help' for more information.\n");
        return 1;
    }
    let parents = parsed.has('p');
    let verbose = parsed.has('v');
    let ignore_non_empty = parsed.has('i');
    let mut status = 0;
    for op in &parsed.operands {
        let mut path = op.trim_end_matches('/').to_string();
        if path.is_empty() {
            path = op.clone();
        }
        let mut first = true;
        loop {
            if verbose && ctx.out(format!("rmdir: removing directory, {}\n", quote(&path))).is_err() {
                return status;
            }
            if let Err(e) = remove_dir(ctx, &path) {
                if !(ignore_non_empty && e.errno == "ENOTEMPTY") {
                    let what = if first { "failed to remove" } else { "failed to remove directory" };
                    ctx.err(format!("rmdir: {what} {}: {}\n", quote(&path), e.describe()));
                    status = 1;
                }
                break;
            }
            first = false;
            if !parents {
                break;
            }
            match path.rfind('/') {
                Some(i) => {
                    let parent = path[..i].trim_end_matches('/');
                    if parent.is_empty() {
                        break;
                    }
                    path = parent.to_string();
                }
                None => break,
            }
        }
    }
    status
}

fn remove_dir(ctx: &mut Ctx, path: &str) -> Result<(), FsError> {
    let meta = ctx.sys().stat(path)?;
    if meta.kind != Kind::Dir {
        return Err(FsError::new("ENOTDIR", path));
    }
    ctx.sys().remove(path, false)
}
