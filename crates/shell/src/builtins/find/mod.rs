//! `find`: walk directory trees and evaluate an expression on each entry,
//! like GNU find. Directories are read in name order (GNU uses the order
//! the directory stores, which is unspecified).
//!
//! Sizes, modes and owners are the emulated ones of `common/fs.rs` (a directory
//! is 4096 bytes, files are `644`, directories `755`, the owner `user`).
//!
//! Options and the run here; the expression in `parse`, the walk in
//! `eval`, `-printf` in `printf`.

mod eval;
mod parse;
mod printf;

use eval::*;
use parse::*;
use printf::*;

use regex::Regex;

use super::args::{self, Spec};
use super::common::fs::{
    apparent_size, base_name, disk_kib, join, mode_string, nlink, stat_path, OWNER, UID,
};
use super::common::printf_format::{directive, escape, pad};
use super::common::time::{civil, MONTHS};
use super::{runnable, usage_error, Builtin};
use crate::ctx::Ctx;
use crate::pattern::fnmatch;
use crate::system::{Kind, Meta};

pub const BUILTIN: Builtin = Builtin {
    name: "find",
    run,
    help: "Usage: find [-H] [-L] [-P] [path...] [expression]\n\
Search for files in a directory hierarchy (default path: the current directory;\n\
default expression: -print). Entries are visited in name order.\n\
\n\
Operators: ( EXPR )  ! EXPR  -not EXPR  EXPR -a EXPR  EXPR -and EXPR\n\
           EXPR -o EXPR  EXPR -or EXPR  EXPR , EXPR\n\
Options:   -maxdepth LEVELS  -mindepth LEVELS  -depth  -d  -regextype TYPE\n\
           (-xdev -mount -noleaf -nowarn -warn -follow are accepted)\n\
Tests:     -name PATTERN  -iname PATTERN  -path PATTERN  -ipath PATTERN\n\
           -wholename PATTERN  -regex PATTERN  -iregex PATTERN\n\
           -type [fd]  -size [+-]N[bcwkMG]  -empty  -newer FILE\n\
           -mtime [+-]N  -mmin [+-]N  -perm [-/]MODE  -user NAME  -group NAME\n\
           -true  -false\n\
Actions:   -print  -print0  -printf FORMAT  -exec COMMAND ;  -exec COMMAND {} +\n\
           -delete  -prune  -quit\n\
\n\
Not supported: -execdir, -ok, -okdir, -ls, -fprint*, -samefile, -inum, -links,\n\
-newerXY, -atime/-ctime (all times are the modification time).\n",
    help_flag: true,
};

struct Entry<'a> {
    path: &'a str,
    start: &'a str,
    depth: usize,
    meta: Meta,
}

struct Walker {
    maxdepth: Option<usize>,
    mindepth: usize,
    depth_first: bool,
    newer: Vec<u64>,
    now_ms: u64,
    /// Pending `-exec … {} +` arguments, per `-exec`.
    batches: Vec<(Vec<String>, Vec<String>, usize)>,
    status: i32,
    quit: bool,
    prune: bool,
}

/// Bytes of arguments one `-exec … +` run takes before it is flushed.
const BATCH_BYTES: usize = 128 * 1024;

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    // Leading -H/-L/-P (and -D/-O debugging options) come before paths.
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => {
                ctx.err("find: debug options (-D) are not supported\n");
                return 1;
            }
            s if s.starts_with("-O") => i += 1,
            "--" => {
                i += 1;
                break;
            }
            "--help" => {
                let _ = ctx.out(BUILTIN.help);
                return 0;
            }
            "--version" => {
                let _ = ctx.out("find (cordon) 4.9.0\n");
                return 0;
            }
            _ => break,
        }
    }
    // Reject unknown options in the GNU way only for leading `--x`.
    if let Some(a) = args.get(i) {
        if a.starts_with("--") && a.len() > 2 {
            let parsed = args::parse("find", std::slice::from_ref(a), &Spec::new(""));
            if let Err(msg) = parsed {
                return usage_error(ctx, &msg);
            }
        }
    }
    let rest = &args[i.min(args.len())..];
    let npaths = rest
        .iter()
        .position(|a| (a.starts_with('-') && a != "-") || a == "(" || a == "!")
        .unwrap_or(rest.len());
    let mut paths: Vec<String> = rest[..npaths].to_vec();
    if paths.is_empty() {
        paths.push(".".into());
    }
    let tokens = &rest[npaths..];
    let now_ms = ctx.sys().now_ms();
    let mut p = Parser {
        tokens,
        pos: 0,
        maxdepth: None,
        mindepth: 0,
        depth_first: false,
        regex_type: "emacs".into(),
        has_action: false,
        batches: 0,
        newer: Vec::new(),
        hint: None,
    };
    let expr = if tokens.is_empty() {
        p.has_action = true;
        Ok(Expr::Print)
    } else {
        p.parse_comma().and_then(|e| {
            if p.pos < tokens.len() {
                let t = &tokens[p.pos];
                if t == ")" {
                    Err("you have too many ')'".to_string())
                } else {
                    Err(format!("unexpected extra predicate '{t}'"))
                }
            } else {
                Ok(e)
            }
        })
    };
    let mut expr = match expr {
        Ok(e) => e,
        Err(msg) => {
            ctx.err(format!("find: {msg}\n"));
            if let Some((pred, word)) = &p.hint {
                if ctx.sys().stat(word).is_ok() {
                    ctx.err(format!("find: possible unquoted pattern after predicate `{pred}'?\n"));
                }
            }
            return 1;
        }
    };
    if !p.has_action {
        expr = Expr::And(Box::new(expr), Box::new(Expr::Print));
    }
    let mut newer = Vec::new();
    for f in &p.newer {
        match ctx.sys().stat(f) {
            Ok(m) => newer.push(m.mtime_ms),
            Err(e) => {
                ctx.err(format!("find: {}: {}\n", find_quote(f), e.describe()));
                return 1;
            }
        }
    }
    let mut w = Walker {
        maxdepth: p.maxdepth,
        mindepth: p.mindepth,
        depth_first: p.depth_first,
        newer,
        now_ms,
        batches: Vec::new(),
        status: 0,
        quit: false,
        prune: false,
    };
    fill_batches(&expr, &mut w.batches);
    for path in &paths {
        if w.quit {
            break;
        }
        match stat_path(ctx.sys(), path) {
            Ok(meta) => visit(ctx, &expr, &mut w, path, path, 0, meta),
            Err(e) => {
                ctx.err(format!("find: {}: {}\n", find_quote(path), e.describe()));
                w.status = 1;
            }
        }
    }
    for id in 0..w.batches.len() {
        flush(ctx, &mut w, id);
    }
    w.status
}

fn fill_batches(e: &Expr, out: &mut Vec<(Vec<String>, Vec<String>, usize)>) {
    match e {
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
            fill_batches(a, out);
            fill_batches(b, out);
        }
        Expr::Not(a) => fill_batches(a, out),
        Expr::Exec(argv, Some(id)) => {
            while out.len() <= *id {
                out.push((Vec::new(), Vec::new(), 0));
            }
            out[*id].0 = argv.clone();
        }
        _ => {}
    }
}

fn flush(ctx: &mut Ctx, w: &mut Walker, id: usize) {
    let Some((cmd, pending, bytes)) = w.batches.get_mut(id) else { return };
    if pending.is_empty() {
        return;
    }
    let mut argv = cmd.clone();
    argv.append(pending);
    *bytes = 0;
    if !runnable(&argv[0]) {
        ctx.err(format!("find: {}: No such file or directory\n", find_quote(&argv[0])));
        w.status = 1;
        return;
    }
    if ctx.exec(&argv, None) != 0 {
        w.status = 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emacs_regex_translation() {
        assert_eq!(translate_regex(r".*\.\(js\|ts\)", "emacs"), r".*\.(js|ts)");
        assert_eq!(translate_regex("a(b)|c", "emacs"), r"a\(b\)\|c");
        assert_eq!(translate_regex("(a|b)+", "posix-extended"), "(a|b)+");
        assert!(Regex::new(&translate_regex(r"[]a]\+x", "posix-basic")).is_ok());
    }

    #[test]
    fn times() {
        assert_eq!(time_part(1_767_323_045_123, 'F'), "2026-01-02");
        assert_eq!(time_part(1_767_323_045_123, '@'), "1767323045.1230000000");
        assert_eq!(ctime(1_767_323_045_000), "Fri Jan  2 03:04:05.0000000000 2026");
    }
}
