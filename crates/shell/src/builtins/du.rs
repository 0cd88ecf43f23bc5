//! `du`: estimate file space usage.
//!
//! Usage is emulated as on ext4 with 4 KiB blocks (see `stat.rs`): a
//! directory takes 4 KiB, a file `ceil(size / 4096) * 4` KiB, an empty
//! file nothing. `-b`/`--apparent-size` count the bytes themselves (a
//! directory counting 4096).

use std::collections::BTreeSet;

use super::args::{self, HasArg, Spec};
use super::common::fs::{absolute, apparent_size, disk_kib, join, stat_path};
use super::common::quote::quote;
use super::common::size::human_size;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::io::Closed;
use crate::system::{Kind, Meta};

pub const BUILTIN: Builtin = Builtin {
    name: "du",
    run,
    help: "Usage: du [OPTION]... [FILE]...\n\
Summarize disk usage of each FILE, recursively for directories (default: .).\n\
Usage is that of an ext4 file system with 4 KiB blocks.\n\
\n\
  -a, --all             write counts for all files, not just directories\n\
      --apparent-size   print apparent sizes rather than disk usage\n\
  -B, --block-size=SIZE scale sizes by SIZE (e.g. 1K, 1M, 512)\n\
  -b, --bytes           equivalent to '--apparent-size --block-size=1'\n\
  -c, --total           produce a grand total\n\
  -d, --max-depth=N     print the total for a directory only if it is N or fewer\n\
                        levels below the command line argument\n\
  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)\n\
  -k                    like --block-size=1K\n\
  -m                    like --block-size=1M\n\
  -S, --separate-dirs   for directories do not include size of subdirectories\n\
  -s, --summarize       display only a total for each argument\n\
  -L, -P, -x            accepted (no links, one file system)\n",
    help_flag: true,
};

struct Opts {
    all: bool,
    apparent: bool,
    block: u64,
    human: bool,
    max_depth: Option<usize>,
    separate: bool,
    cwd: String,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "aB:bcd:hkmSsLPx",
        long: &[
            ("all", 'a', HasArg::No),
            ("apparent-size", 'A', HasArg::No),
            ("block-size", 'B', HasArg::Yes),
            ("bytes", 'b', HasArg::No),
            ("total", 'c', HasArg::No),
            ("max-depth", 'd', HasArg::Yes),
            ("human-readable", 'h', HasArg::No),
            ("separate-dirs", 'S', HasArg::No),
            ("summarize", 's', HasArg::No),
            ("dereference", 'L', HasArg::No),
            ("no-dereference", 'P', HasArg::No),
            ("one-file-system", 'x', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("du", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    let mut o = Opts {
        all: parsed.has('a'),
        apparent: parsed.has('A'),
        block: 1024,
        human: false,
        max_depth: None,
        separate: parsed.has('S'),
        cwd: ctx.sys().cwd(),
    };
    for (c, v) in &parsed.opts {
        match c {
            'b' => {
                o.apparent = true;
                o.block = 1;
                o.human = false;
            }
            'k' => {
                o.block = 1024;
                o.human = false;
            }
            'm' => {
                o.block = 1024 * 1024;
                o.human = false;
            }
            'h' => o.human = true,
            'B' => {
                let v = v.as_deref().unwrap_or_default();
                match parse_block(v) {
                    Some(b) => {
                        o.block = b;
                        o.human = false;
                    }
                    None => {
                        ctx.err(format!("du: invalid --block-size argument {}\n", quote(v)));
                        return 1;
                    }
                }
            }
            'd' => {
                let v = v.as_deref().unwrap_or_default();
                match v.parse::<usize>() {
                    Ok(n) => o.max_depth = Some(n),
                    Err(_) => {
                        ctx.err(format!(
                            "du: invalid maximum depth {}\nTry 'du --help' for more information.\n",
                            quote(v)
                        ));
                        return 1;
                    }
                }
            }
            _ => {}
        }
    }
    if parsed.has('s') {
        if o.all {
            ctx.err(
                "du: cannot both summarize and show all entries\nTry 'du --help' for more information.\n",
            );
            return 1;
        }
        if o.max_depth.is_some_and(|d| d != 0) {
            ctx.err(format!(
                "du: warning: summarizing conflicts with --max-depth={}\nTry 'du --help' for more information.\n",
                o.max_depth.unwrap_or(0)
            ));
            return 1;
        }
        o.max_depth = Some(0);
    }
    let operands = if parsed.operands.is_empty() { vec![".".to_string()] } else { parsed.operands.clone() };
    let mut seen = BTreeSet::new();
    let mut status = 0;
    let mut total = 0u64;
    for op in &operands {
        let meta = match stat_path(ctx.sys(), op) {
            Ok(m) => m,
            Err(e) => {
                ctx.err(format!("du: cannot access {}: {}\n", quote(op), e.describe()));
                status = 1;
                continue;
            }
        };
        match walk(ctx, &o, op, meta, 0, &mut seen) {
            Ok((size, _)) => total += size,
            Err(Closed) => return status,
        }
    }
    if parsed.has('c') {
        let _ = ctx.out(format!("{}\ttotal\n", show(&o, total)));
    }
    status
}

/// `1K`, `1M`, `512`, `KB` (1000), …: a block size in bytes.
fn parse_block(v: &str) -> Option<u64> {
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: u64 = if num.is_empty() { 1 } else { num.parse().ok()? };
    let mult: u64 = match unit {
        "" => 1,
        "K" | "k" | "KiB" => 1024,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        "T" | "TiB" => 1 << 40,
        "KB" | "kB" => 1000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        _ => return None,
    };
    let b = n.checked_mul(mult)?;
    (b > 0).then_some(b)
}

fn show(o: &Opts, bytes: u64) -> String {
    if o.human {
        human_size(bytes)
    } else {
        bytes.div_ceil(o.block).to_string()
    }
}

fn own_size(o: &Opts, meta: &Meta) -> u64 {
    if o.apparent {
        apparent_size(meta)
    } else {
        disk_kib(meta) * 1024
    }
}

/// Adds up `path`; prints the lines due. Returns (size for the parent's
/// total, size shown for `-S`).
fn walk(
    ctx: &mut Ctx,
    o: &Opts,
    path: &str,
    meta: Meta,
    depth: usize,
    seen: &mut BTreeSet<String>,
) -> Result<(u64, u64), Closed> {
    if !seen.insert(absolute(&o.cwd, path)) {
        return Ok((0, 0));
    }
    let mut size = own_size(o, &meta);
    let printable = o.max_depth.is_none_or(|m| depth <= m);
    if meta.kind == Kind::File {
        if depth == 0 || (o.all && printable) {
            ctx.out(format!("{}\t{path}\n", show(o, size)))?;
        }
        return Ok((size, size));
    }
    let mut shown = size;
    match ctx.sys().readdir(path) {
        Ok(entries) => {
            for e in entries {
                if ctx.interrupted() {
                    return Err(Closed);
                }
                let child = join(path, &e.name);
                let Ok(child_meta) = ctx.sys().stat(&child) else { continue };
                let (sub, _) = walk(ctx, o, &child, child_meta, depth + 1, seen)?;
                size += sub;
                if child_meta.kind == Kind::File {
                    shown += sub;
                }
            }
        }
        Err(e) => {
            ctx.err(format!("du: cannot read directory {}: {}\n", quote(path), e.describe()));
        }
    }
    if printable {
        let value = if o.separate { shown } else { size };
        ctx.out(format!("{}\t{path}\n", show(o, value)))?;
    }
    Ok((size, shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes() {
        assert_eq!(parse_block("1K"), Some(1024));
        assert_eq!(parse_block("M"), Some(1 << 20));
        assert_eq!(parse_block("512"), Some(512));
        assert_eq!(parse_block("0"), None);
        assert_eq!(parse_block("x"), None);
    }
}
