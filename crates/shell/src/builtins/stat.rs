//! `stat`: file metadata, with GNU's default layout and `-c`/`--printf`
//! formats.
//!
//! The sandbox file system keeps only a kind, a size and a modification
//! time, so the rest is emulated the way an ext4 file system with a 4 KiB
//! block would show it to its owner: files `-rw-r--r--`, directories
//! `drwxr-xr-x` of 4096 bytes, owner `user` (uid 1000), blocks of 4 KiB,
//! one link per file and `2 + subdirectories` per directory, and every
//! timestamp equal to the modification time.
//!
//! The emulation itself (sizes, modes, owner, links) is in `common::fs`,
//! shared with `ls`, `du` and `find`.

use super::args::{self, HasArg, Spec};
use super::common::fs::{apparent_size, disk_kib, mode_string, nlink, stat_path, OWNER, UID};
use super::common::printf_format::{directive, escape, pad};
use super::common::quote::quote;
use super::common::time::full_time;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::{Kind, Meta};

pub const BUILTIN: Builtin = Builtin {
    name: "stat",
    run,
    help: "Usage: stat [OPTION]... FILE...\n\
Display file status.\n\
\n\
  -L, --dereference     accepted (the file system has no links)\n\
  -c, --format=FORMAT   use FORMAT instead of the default; print a newline after each use\n\
      --printf=FORMAT   like --format, but interpret backslash escapes and print no newline\n\
  -t, --terse           print the information in terse form\n\
\n\
Format sequences: %a %A %b %B %d %D %f %F %g %G %h %i %m %n %N %o %s %t %T %u %U\n\
%w %W %x %X %y %Y %z %Z %%. The sandbox keeps only the type, size and\n\
modification time: modes, owner (user, uid 1000) and block counts are those of\n\
an ext4 file system with 4 KiB blocks, and every timestamp is the modification time.\n\
--file-system (-f) is not supported.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "Lc:t",
        long: &[
            ("dereference", 'L', HasArg::No),
            ("format", 'c', HasArg::Yes),
            ("printf", 'p', HasArg::Yes),
            ("terse", 't', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("stat", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err("stat: missing operand\nTry 'stat --help' for more information.\n");
        return 1;
    }
    // The last of -c / --printf / -t wins.
    let mut mode: Option<(char, String)> = None;
    for (c, v) in &parsed.opts {
        match c {
            'c' | 'p' => mode = Some((*c, v.clone().unwrap_or_default())),
            't' => mode = Some(('t', String::new())),
            _ => {}
        }
    }
    let mut status = 0;
    for path in &parsed.operands {
        let meta = match stat_path(ctx.sys(), path) {
            Ok(m) => m,
            Err(e) => {
                ctx.err(format!("stat: cannot statx {}: {}\n", quote(path), e.describe()));
                status = 1;
                continue;
            }
        };
        let links = nlink(ctx.sys(), path, &meta);
        let info = Info { name: path, meta, links };
        let text = match &mode {
            Some(('c', f)) => {
                let mut s = format_info(f, &info, false);
                s.push('\n');
                s
            }
            Some(('p', f)) => format_info(f, &info, true),
            Some(_) => format_info(TERSE, &info, false) + "\n",
            None => default_text(&info),
        };
        if ctx.out(text).is_err() {
            return status;
        }
    }
    status
}

const TERSE: &str = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o";

struct Info<'a> {
    name: &'a str,
    meta: Meta,
    links: u64,
}

/// An inode number for display: stable per path, never 0.
fn inode(name: &str) -> u64 {
    let mut h: u64 = 1_469_598_103_934_665_603;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    h % 100_000_000 + 1
}

fn default_text(info: &Info) -> String {
    let size = apparent_size(&info.meta);
    let blocks = disk_kib(&info.meta) * 2;
    let kind = type_name(&info.meta);
    let t = full_time(info.meta.mtime_ms);
    let (octal, mode) = (format!("{:04o}", info.meta.mode), mode_string(&info.meta));
    format!(
        "  File: {}\n  Size: {size:<10}\tBlocks: {blocks:<10} IO Block: 4096   {kind}\n\
Device: 0,0\tInode: {:<11} Links: {}\n\
Access: ({octal}/{mode})  Uid: ({UID:>5}/{OWNER:>8})   Gid: ({UID:>5}/{OWNER:>8})\n\
Access: {t}\nModify: {t}\nChange: {t}\n Birth: {t}\n",
        info.name,
        inode(info.name),
        info.links
    )
}

fn type_name(meta: &Meta) -> &'static str {
    match meta.kind {
        Kind::Dir => "directory",
        Kind::File if meta.size == 0 => "regular empty file",
        Kind::File => "regular file",
    }
}

/// Expands a `-c`/`--printf` format for one file.
fn format_info(fmt: &str, info: &Info, escapes: bool) -> String {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && escapes {
            i += 1;
            if let Some((e, next)) = escape(&chars, i) {
                out.push(e);
                i = next;
                continue;
            }
            match chars.get(i) {
                None => {
                    out.push('\\');
                    break;
                }
                Some('e') => out.push('\x1b'),
                Some('"') => out.push('"'),
                Some(&other) => {
                    out.push('\\');
                    out.push(other);
                }
            }
            i += 1;
            continue;
        }
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        let (d, at) = directive(&chars, i + 1, "-0+ #'");
        i = at;
        let Some(&conv) = chars.get(i) else {
            out.extend(&chars[start..]);
            break;
        };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let (mut value, numeric) = field(conv, info);
        if let (Some(p), false) = (d.precision, numeric) {
            value = value.chars().take(p).collect();
        }
        pad(&mut out, &value, d.width, d.left, d.zero && numeric);
    }
    out
}

/// One `%` directive's text and whether it is a number.
fn field(conv: char, info: &Info) -> (String, bool) {
    let meta = &info.meta;
    let secs = (meta.mtime_ms / 1000).to_string();
    match conv {
        'n' => (info.name.to_string(), false),
        'N' => (quote(info.name), false),
        's' => (apparent_size(meta).to_string(), true),
        'b' => ((disk_kib(meta) * 2).to_string(), true),
        'B' => ("512".into(), true),
        'o' => ("4096".into(), true),
        'F' => (type_name(meta).into(), false),
        'a' => (format!("{:o}", meta.mode), true),
        'A' => (mode_string(meta), false),
        'f' => (if meta.kind == Kind::Dir { "41ed" } else { "81a4" }.into(), false),
        'u' | 'g' => (UID.to_string(), true),
        'U' | 'G' => (OWNER.into(), false),
        'h' => (info.links.to_string(), true),
        'i' => (inode(info.name).to_string(), true),
        'd' | 't' | 'T' => ("0".into(), true),
        'D' => ("0".into(), false),
        'm' => ("/".into(), false),
        'X' | 'Y' | 'Z' | 'W' => (secs, true),
        'x' | 'y' | 'z' | 'w' => (full_time(meta.mtime_ms), false),
        _ => ("?".into(), false),
    }
}
