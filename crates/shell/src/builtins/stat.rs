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
//! This file also holds the small helpers the file builtins share
//! (`ls`, `du`, `find`, `cp`, …): emulated sizes, modes, dates, GNU quoting,
//! path joining and lexical normalisation.

use super::args::{self, HasArg, Spec};
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::{FsError, Kind, Meta, System};

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

// ---------------------------------------------------------------------------
// Shared helpers for the file builtins.

/// The size GNU tools show for a directory (an ext4 directory block).
pub(crate) const DIR_SIZE: u64 = 4096;
/// The emulated owner.
pub(crate) const OWNER: &str = "user";
pub(crate) const UID: u32 = 1000;

/// The size `ls -l`, `stat` and `du -b` show.
pub(crate) fn apparent_size(meta: &Meta) -> u64 {
    match meta.kind {
        Kind::Dir => DIR_SIZE,
        Kind::File => meta.size,
    }
}

/// Disk usage in 1 KiB units, as on ext4 with 4 KiB blocks: a directory is
/// one block, a file `ceil(size / 4096)` blocks (an empty file none).
pub(crate) fn disk_kib(meta: &Meta) -> u64 {
    match meta.kind {
        Kind::Dir => 4,
        Kind::File => meta.size.div_ceil(4096) * 4,
    }
}

/// `-rw-r--r--` or `drwxr-xr-x`.
pub(crate) fn mode_string(kind: Kind) -> &'static str {
    match kind {
        Kind::Dir => "drwxr-xr-x",
        Kind::File => "-rw-r--r--",
    }
}

/// The link count: 1 for a file, 2 plus its subdirectories for a directory.
pub(crate) fn nlink(sys: &mut dyn System, path: &str, meta: &Meta) -> u64 {
    match meta.kind {
        Kind::File => 1,
        Kind::Dir => {
            let subdirs =
                sys.readdir(path).map(|v| v.iter().filter(|e| e.kind == Kind::Dir).count()).unwrap_or(0);
            2 + subdirs as u64
        }
    }
}

/// `stat`, but a trailing slash on a file is `ENOTDIR` as on a real system.
pub(crate) fn stat_path(sys: &mut dyn System, path: &str) -> Result<Meta, FsError> {
    let meta = sys.stat(path)?;
    if meta.kind == Kind::File && (path.ends_with('/') || path.ends_with("/.")) {
        return Err(FsError::new("ENOTDIR", format!("ENOTDIR: {path}")));
    }
    Ok(meta)
}

/// `dir/name`, without doubling a slash the directory already ends with.
pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The last component of a path, trailing slashes ignored (`/` for `/`).
pub(crate) fn base_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.is_empty() { "" } else { "/" };
    }
    match trimmed.rfind('/') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    }
}

/// `path` made absolute against `cwd` and normalised lexically (`.` and
/// empty components dropped, `..` popping one), as the sandbox resolves it.
pub(crate) fn absolute(cwd: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if !path.starts_with('/') {
        parts.extend(cwd.split('/').filter(|p| !p.is_empty()));
    }
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return "/".to_string();
    }
    let mut out = String::new();
    for p in parts {
        out.push('/');
        out.push_str(p);
    }
    out
}

/// Whether absolute path `inner` is `outer` or below it.
pub(crate) fn is_within(inner: &str, outer: &str) -> bool {
    inner == outer
        || outer == "/"
        || (inner.starts_with(outer) && inner.as_bytes().get(outer.len()) == Some(&b'/'))
}

/// A file name quoted as GNU tools quote it in messages (`'a b'`,
/// `"it's"`, `'t'$'\t''ab'`).
pub(crate) fn quote(name: &str) -> String {
    let has_control = name.chars().any(|c| c.is_control());
    if !has_control {
        if !name.contains('\'') {
            return format!("'{name}'");
        }
        if !name.contains(['"', '$', '`', '\\']) {
            return format!("\"{name}\"");
        }
    }
    let mut out = String::from("'");
    let mut in_quote = true;
    for c in name.chars() {
        if c == '\'' || c.is_control() {
            if in_quote {
                out.push('\'');
                in_quote = false;
            }
            if c == '\'' {
                out.push_str("\\'");
            } else {
                let esc = match c {
                    '\t' => "\\t".to_string(),
                    '\n' => "\\n".to_string(),
                    '\r' => "\\r".to_string(),
                    _ => format!("\\{:03o}", c as u32),
                };
                out.push_str("$'");
                out.push_str(&esc);
                out.push('\'');
            }
        } else {
            if !in_quote {
                out.push('\'');
                in_quote = true;
            }
            out.push(c);
        }
    }
    if in_quote {
        out.push('\'');
    }
    out
}

/// Civil date and time (UTC) of a Unix time in seconds:
/// (year, month 1-12, day, hour, minute, second).
pub(crate) fn civil(secs: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = if m <= 2 { y + 1 } else { y };
    (y, m, d, (rem / 3600) as u32, (rem % 3600 / 60) as u32, (rem % 60) as u32)
}

pub(crate) const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// `2026-01-02 03:04:05.000000000 +0000`, as `stat` prints times.
pub(crate) fn full_time(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = civil((ms / 1000) as i64);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{:09} +0000", (ms % 1000) * 1_000_000)
}

/// A size with a 1024-based unit, rounded up as GNU's `-h` does (`4.9K`,
/// `13K`, `2.0M`, `512`).
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [char; 8] = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    if bytes < 1024 {
        return bytes.to_string();
    }
    let b = bytes as u128;
    let mut exp = 1usize;
    while exp < UNITS.len() && 1024u128.pow(exp as u32 + 1) <= b {
        exp += 1;
    }
    loop {
        let div = 1024u128.pow(exp as u32);
        let tenths = (b * 10).div_ceil(div);
        let unit = UNITS[(exp - 1).min(UNITS.len() - 1)];
        if tenths < 100 {
            return format!("{}.{}{unit}", tenths / 10, tenths % 10);
        }
        let whole = b.div_ceil(div);
        if whole >= 1024 && exp < UNITS.len() {
            exp += 1;
            continue;
        }
        return format!("{whole}{unit}");
    }
}

// ---------------------------------------------------------------------------

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
    let (octal, mode) = match info.meta.kind {
        Kind::Dir => ("0755", mode_string(Kind::Dir)),
        Kind::File => ("0644", mode_string(Kind::File)),
    };
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
            let Some(&e) = chars.get(i) else {
                out.push('\\');
                break;
            };
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'v' => out.push('\x0b'),
                'e' => out.push('\x1b'),
                '\\' => out.push('\\'),
                '"' => out.push('"'),
                '0'..='7' => {
                    let mut v = 0u32;
                    let mut n = 0;
                    while n < 3 && chars.get(i).is_some_and(|d| d.is_digit(8)) {
                        v = v * 8 + chars[i].to_digit(8).unwrap_or(0);
                        i += 1;
                        n += 1;
                    }
                    out.push(char::from_u32(v).unwrap_or('?'));
                    continue;
                }
                other => {
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
        // %[flags][width][.precision]conv
        let start = i;
        i += 1;
        let mut left = false;
        let mut zero = false;
        while let Some(&f) = chars.get(i) {
            match f {
                '-' => left = true,
                '0' => zero = true,
                '+' | ' ' | '#' | '\'' => {}
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        while let Some(d) = chars.get(i).and_then(|d| d.to_digit(10)) {
            width = width.saturating_mul(10).saturating_add(d as usize).min(4096);
            i += 1;
        }
        let mut precision: Option<usize> = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            let mut p = 0usize;
            while let Some(d) = chars.get(i).and_then(|d| d.to_digit(10)) {
                p = p.saturating_mul(10).saturating_add(d as usize).min(4096);
                i += 1;
            }
            precision = Some(p);
        }
        let Some(&conv) = chars.get(i) else {
            out.extend(&chars[start..]);
            break;
        };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let (value, numeric) = directive(conv, info);
        let mut value = value;
        if let (Some(p), false) = (precision, numeric) {
            value = value.chars().take(p).collect();
        }
        let len = value.chars().count();
        if len >= width {
            out.push_str(&value);
        } else if left {
            out.push_str(&value);
            out.extend(std::iter::repeat_n(' ', width - len));
        } else if zero && numeric {
            out.extend(std::iter::repeat_n('0', width - len));
            out.push_str(&value);
        } else {
            out.extend(std::iter::repeat_n(' ', width - len));
            out.push_str(&value);
        }
    }
    out
}

/// One `%` directive's text and whether it is a number.
fn directive(conv: char, info: &Info) -> (String, bool) {
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
        'a' => (if meta.kind == Kind::Dir { "755" } else { "644" }.into(), true),
        'A' => (mode_string(meta.kind).into(), false),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes_round_up_like_gnu() {
        assert_eq!(human_size(0), "0");
        assert_eq!(human_size(1000), "1000");
        assert_eq!(human_size(4096), "4.0K");
        assert_eq!(human_size(5000), "4.9K");
        assert_eq!(human_size(13193), "13K");
        assert_eq!(human_size(20480), "20K");
        assert_eq!(human_size(2_000_000), "2.0M");
        assert_eq!(human_size(1024 * 1024 - 1), "1.0M");
    }

    #[test]
    fn paths() {
        assert_eq!(absolute("/workspace", "a/../b/./c/"), "/workspace/b/c");
        assert_eq!(absolute("/workspace", "/.."), "/");
        assert_eq!(base_name("a/b/"), "b");
        assert_eq!(base_name("//"), "/");
        assert_eq!(join("d/", "x"), "d/x");
        assert!(is_within("/a/b", "/a"));
        assert!(!is_within("/ab", "/a"));
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "\"it's\"");
        assert_eq!(quote("t\tab"), "'t'$'\\t''ab'");
    }

    #[test]
    fn dates() {
        assert_eq!(full_time(1_767_323_045_000), "2026-01-02 03:04:05.000000000 +0000");
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
    }
}
