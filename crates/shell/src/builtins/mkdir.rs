//! `mkdir`: make directories.

use super::args::{self, HasArg, Spec};
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "mkdir",
    run,
    help: "Usage: mkdir [OPTION]... DIRECTORY...\n\
Create the DIRECTORY(ies), if they do not already exist.\n\
\n\
  -m, --mode=MODE   set file mode (as in chmod), not a=rwx - umask\n\
  -p, --parents     no error if existing, make parent directories as needed\n\
  -v, --verbose     print a message for each created directory\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "m:pv",
        long: &[("mode", 'm', HasArg::Yes), ("parents", 'p', HasArg::No), ("verbose", 'v', HasArg::No)],
        stop_at_operand: false,
    };
    let parsed = match args::parse("mkdir", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err("mkdir: missing operand\nTry 'mkdir --help' for more information.\n");
        return 1;
    }
    let parents = parsed.has('p');
    let mode = parsed.value('m').map(str::to_string);
    if let Some(m) = &mode {
        if super::chmod::apply_mode(m, 0o777, true).is_none() {
            ctx.err(format!("mkdir: invalid mode {}\n", quote(m)));
            return 1;
        }
    }
    let verbose = parsed.has('v');
    let mut status = 0;
    for op in &parsed.operands {
        let ok = if parents { make_parents(ctx, op, verbose) } else { make_one(ctx, op, verbose) };
        if !ok {
            status = 1;
        } else if let Some(m) = &mode {
            let bits = super::chmod::apply_mode(m, 0o777, true).unwrap_or(0o755);
            if let Err(e) = ctx.sys().chmod(op.trim_end_matches('/'), bits) {
                ctx.err(format!("mkdir: cannot set permissions {}: {}\n", quote(op), e.describe()));
                status = 1;
            }
        }
    }
    status
}

fn make_one(ctx: &mut Ctx, path: &str, verbose: bool) -> bool {
    match ctx.sys().mkdir(path, false) {
        Ok(()) => {
            if verbose {
                let _ = ctx.out(format!("mkdir: created directory {}\n", quote(path)));
            }
            true
        }
        Err(e) => {
            ctx.err(format!("mkdir: cannot create directory {}: {}\n", quote(path), e.describe()));
            false
        }
    }
}

/// `mkdir -p`: each missing prefix of `path` in turn, as the user wrote it.
fn make_parents(ctx: &mut Ctx, path: &str, verbose: bool) -> bool {
    let mut prefixes = Vec::new();
    let bytes = path.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'/' && i > 0 && bytes[i - 1] != b'/' {
            prefixes.push(&path[..i]);
        }
    }
    let trimmed = path.trim_end_matches('/');
    if !trimmed.is_empty() && prefixes.last() != Some(&trimmed) {
        prefixes.push(trimmed);
    }
    let last = prefixes.len().saturating_sub(1);
    for (i, prefix) in prefixes.iter().enumerate() {
        let base = prefix.rsplit('/').next().unwrap_or_default();
        if base == "." || base == ".." {
            continue;
        }
        match ctx.sys().stat(prefix) {
            Ok(m) if m.kind == Kind::Dir => continue,
            Ok(_) => {
                let why = if i == last { "File exists" } else { "Not a directory" };
                ctx.err(format!("mkdir: cannot create directory {}: {why}\n", quote(prefix)));
                return false;
            }
            Err(_) => {
                if !make_one(ctx, prefix, verbose) {
                    return false;
                }
            }
        }
    }
    true
}
