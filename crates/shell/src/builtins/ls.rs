//! `ls`: list directory contents like GNU ls with its output going to a
//! pipe (one name per line unless `-C`, `-x`, `-m` or `-l` say otherwise).
//!
//! Long listings show the emulated metadata of `stat.rs`: `-rw-r--r--` files
//! and `drwxr-xr-x` directories owned by `user`, 4 KiB blocks, the
//! modification time as `Mon DD HH:MM` (or `Mon DD  YYYY` when older than
//! six months or in the future).

use super::args::{self, HasArg, Spec};
use super::common::fs::{apparent_size, disk_kib, join, mode_string, nlink, stat_path, OWNER, UID};
use super::common::quote::quote;
use super::common::size::human_size;
use super::common::time::{civil, MONTHS};
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::io::Closed;
use crate::system::{Kind, Meta};

pub const BUILTIN: Builtin = Builtin {
    name: "ls",
    run,
    help: "Usage: ls [OPTION]... [FILE]...\n\
List information about the FILEs (the current directory by default),\n\
sorted by name in byte order.\n\
\n\
  -a, --all                  do not ignore entries starting with .\n\
  -A, --almost-all           do not list implied . and ..\n\
  -C                         list entries by columns\n\
  -d, --directory            list directories themselves, not their contents\n\
  -F, --classify             append / to directories\n\
  -g                         like -l, but do not list owner\n\
      --group-directories-first  list directories before files\n\
  -h, --human-readable       with -l and -s, print sizes like 1K 234M 2G\n\
  -l                         use a long listing format\n\
  -L, --dereference          accepted (the file system has no links)\n\
  -m                         fill width with a comma separated list of entries\n\
  -n, --numeric-uid-gid      like -l, but list numeric user and group IDs\n\
  -o                         like -l, but do not list group information\n\
  -p                         append / indicator to directories\n\
  -r, --reverse              reverse order while sorting\n\
  -R, --recursive            list subdirectories recursively\n\
  -s, --size                 print the allocated size of each file, in blocks\n\
  -S                         sort by file size, largest first\n\
      --sort=WORD            sort by WORD instead of name: none (-U), size (-S),\n\
                             time (-t); extension, version and width are not supported\n\
  -t                         sort by modification time, newest first\n\
  -U                         do not sort; list entries in directory order\n\
  -w, --width=COLS           set output width to COLS (default 80 or $COLUMNS)\n\
  -x                         list entries by lines instead of by columns\n\
  -1                         list one file per line (the default: output is not a terminal)\n\
      --color[=WHEN]         accepted; output is never colored\n\
\n\
Exit status: 0 if OK, 1 if a subdirectory could not be read, 2 if a\n\
command-line argument could not be accessed.\n",
    help_flag: true,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    OnePerLine,
    Long,
    Columns,
    Across,
    Commas,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SortBy {
    Name,
    Time,
    Size,
    None,
}

struct Opts {
    all: bool,
    almost_all: bool,
    directory: bool,
    classify: bool,
    human: bool,
    recursive: bool,
    reverse: bool,
    size: bool,
    sort: SortBy,
    format: Format,
    show_owner: bool,
    show_group: bool,
    numeric: bool,
    dirs_first: bool,
    width: usize,
    now_ms: u64,
}

struct Entry {
    /// What is printed.
    name: String,
    /// Where it is.
    path: String,
    meta: Meta,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "aACdFghlLmnopRrsStUw:x1",
        long: &[
            ("all", 'a', HasArg::No),
            ("almost-all", 'A', HasArg::No),
            ("directory", 'd', HasArg::No),
            ("classify", 'F', HasArg::No),
            ("human-readable", 'h', HasArg::No),
            ("dereference", 'L', HasArg::No),
            ("numeric-uid-gid", 'n', HasArg::No),
            ("reverse", 'r', HasArg::No),
            ("recursive", 'R', HasArg::No),
            ("size", 's', HasArg::No),
            ("width", 'w', HasArg::Yes),
            ("group-directories-first", 'G', HasArg::No),
            ("sort", 'O', HasArg::Yes),
        ],
        stop_at_operand: false,
    };
    // `--color` takes an optional value, which the shared parser has no
    // notion of: drop it here (output is never a terminal, so never colored).
    let mut filtered = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        if args[..i].iter().any(|x| x == "--") {
            filtered.push(a.clone());
            continue;
        }
        match a.as_str() {
            "--color" | "--colour" => continue,
            _ if a.starts_with("--color=") || a.starts_with("--colour=") => {
                let v = a.split_once('=').map(|(_, v)| v).unwrap_or_default();
                if !matches!(
                    v,
                    "never" | "no" | "none" | "auto" | "tty" | "if-tty" | "always" | "yes" | "force"
                ) {
                    ctx.err(format!(
                        "ls: invalid argument '{v}' for '--color'\nValid arguments are:\n  - 'always', 'yes', 'force'\n  - 'never', 'no', 'none'\n  - 'auto', 'tty', 'if-tty'\nTry 'ls --help' for more information.\n"
                    ));
                    return 1;
                }
                continue;
            }
            _ => filtered.push(a.clone()),
        }
    }
    let parsed = match args::parse("ls", &filtered, &SPEC) {
        Ok(p) => p,
        Err(msg) => return usage_error(ctx, &msg),
    };
    let columns_env = ctx.state().get("COLUMNS").and_then(|c| c.parse::<usize>().ok()).filter(|&c| c > 0);
    let mut o = Opts {
        all: false,
        almost_all: false,
        directory: false,
        classify: false,
        human: false,
        recursive: false,
        reverse: false,
        size: false,
        sort: SortBy::Name,
        format: Format::OnePerLine,
        show_owner: true,
        show_group: true,
        numeric: false,
        dirs_first: false,
        width: columns_env.unwrap_or(80),
        now_ms: ctx.sys().now_ms(),
    };
    for (c, v) in &parsed.opts {
        match c {
            'a' => {
                o.all = true;
                o.almost_all = false;
            }
            'A' => {
                o.almost_all = true;
                o.all = false;
            }
            'C' => o.format = Format::Columns,
            'd' => o.directory = true,
            'F' | 'p' => o.classify = true,
            'g' => {
                o.format = Format::Long;
                o.show_owner = false;
            }
            'o' => {
                o.format = Format::Long;
                o.show_group = false;
            }
            'n' => {
                o.format = Format::Long;
                o.numeric = true;
            }
            'h' => o.human = true,
            'l' => o.format = Format::Long,
            'm' => o.format = Format::Commas,
            'R' => o.recursive = true,
            'r' => o.reverse = true,
            's' => o.size = true,
            'S' => o.sort = SortBy::Size,
            't' => o.sort = SortBy::Time,
            'U' => o.sort = SortBy::None,
            'x' => o.format = Format::Across,
            // -1 does not override -l (GNU), but -C/-x/-m do.
            '1' if o.format != Format::Long => o.format = Format::OnePerLine,
            'G' => o.dirs_first = true,
            'O' => {
                let v = v.as_deref().unwrap_or_default();
                o.sort = match v {
                    "none" => SortBy::None,
                    "size" => SortBy::Size,
                    "time" => SortBy::Time,
                    "extension" | "version" | "width" => {
                        ctx.err(format!("ls: --sort={v} is not supported\n"));
                        return 2;
                    }
                    _ => {
                        ctx.err(format!(
                            "ls: invalid argument {} for '--sort'\nValid arguments are:\n  - 'none'\n  - 'time'\n  - 'size'\n  - 'extension'\n  - 'version'\n  - 'width'\nTry 'ls --help' for more information.\n",
                            quote(v)
                        ));
                        return 1;
                    }
                };
            }
            'w' => {
                let v = v.as_deref().unwrap_or_default();
                match v.parse::<usize>() {
                    Ok(w) => o.width = if w == 0 { usize::MAX } else { w },
                    Err(_) => {
                        ctx.err(format!("ls: invalid line width: {}\n", quote(v)));
                        return 2;
                    }
                }
            }
            _ => {}
        }
    }
    let operands = if parsed.operands.is_empty() { vec![".".to_string()] } else { parsed.operands.clone() };
    let show_headers = operands.len() > 1 || o.recursive;
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for op in &operands {
        match stat_path(ctx.sys(), op) {
            Ok(meta) => {
                let entry = Entry { name: op.clone(), path: op.clone(), meta };
                if meta.kind == Kind::Dir && !o.directory {
                    dirs.push(entry);
                } else {
                    files.push(entry);
                }
            }
            Err(e) => {
                ctx.err(format!("ls: cannot access {}: {}\n", quote(op), e.describe()));
                status = 2;
            }
        }
    }
    sort_entries(&mut files, &o);
    sort_entries(&mut dirs, &o);
    let mut printed = false;
    if !files.is_empty() {
        if print_block(ctx, &files, &o, false).is_err() {
            return status;
        }
        printed = true;
    }
    for dir in &dirs {
        match list_dir(ctx, &dir.path, &o, show_headers, &mut printed) {
            Ok(s) => status = status.max(s),
            Err(Closed) => return status,
        }
    }
    status
}

fn sort_entries(entries: &mut [Entry], o: &Opts) {
    match o.sort {
        SortBy::Name => entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes())),
        SortBy::Time => entries.sort_by(|a, b| {
            b.meta.mtime_ms.cmp(&a.meta.mtime_ms).then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
        }),
        SortBy::Size => entries.sort_by(|a, b| {
            apparent_size(&b.meta)
                .cmp(&apparent_size(&a.meta))
                .then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
        }),
        SortBy::None => {}
    }
    if o.reverse && o.sort != SortBy::None {
        entries.reverse();
    }
    if o.dirs_first {
        // Stable: keeps the chosen order within each group.
        entries.sort_by_key(|e| e.meta.kind != Kind::Dir);
    }
}

/// Lists one directory (and, with `-R`, those below it). Returns the status.
fn list_dir(ctx: &mut Ctx, path: &str, o: &Opts, header: bool, printed: &mut bool) -> Result<i32, Closed> {
    let listing = match ctx.sys().readdir(path) {
        Ok(l) => l,
        Err(e) => {
            ctx.err(format!("ls: cannot open directory {}: {}\n", quote(path), e.describe()));
            return Ok(2);
        }
    };
    if *printed {
        ctx.out("\n")?;
    }
    *printed = true;
    if header {
        ctx.out(format!("{path}:\n"))?;
    }
    let mut entries = Vec::with_capacity(listing.len() + 2);
    if o.all {
        for dot in [".", ".."] {
            let p = join(path, dot);
            if let Ok(meta) = ctx.sys().stat(&p) {
                entries.push(Entry { name: dot.to_string(), path: p, meta });
            }
        }
    }
    let need_meta = o.format == Format::Long || o.size || o.sort == SortBy::Time || o.sort == SortBy::Size;
    for e in listing {
        if e.name.starts_with('.') && !o.all && !o.almost_all {
            continue;
        }
        let p = join(path, &e.name);
        let meta = if need_meta {
            match ctx.sys().stat(&p) {
                Ok(m) => m,
                Err(_) => Meta { kind: e.kind, size: 0, mtime_ms: 0, mode: 0 },
            }
        } else {
            Meta { kind: e.kind, size: 0, mtime_ms: 0, mode: 0 }
        };
        entries.push(Entry { name: e.name, path: p, meta });
    }
    sort_entries(&mut entries, o);
    print_block(ctx, &entries, o, true)?;
    let mut status = 0;
    if o.recursive {
        for e in &entries {
            if e.meta.kind == Kind::Dir && e.name != "." && e.name != ".." {
                status = status.max(list_dir(ctx, &e.path, o, true, printed)?);
            }
        }
    }
    Ok(status)
}

fn display_name(e: &Entry, o: &Opts) -> String {
    if o.classify && e.meta.kind == Kind::Dir {
        format!("{}/", e.name)
    } else {
        e.name.clone()
    }
}

fn blocks_text(e: &Entry, o: &Opts) -> String {
    let kib = disk_kib(&e.meta);
    if o.human {
        human_size(kib * 1024)
    } else {
        kib.to_string()
    }
}

/// Prints a group of entries in the chosen format; `is_dir` adds the
/// `total` line of a directory listing.
fn print_block(ctx: &mut Ctx, entries: &[Entry], o: &Opts, is_dir: bool) -> Result<(), Closed> {
    if is_dir && (o.format == Format::Long || o.size) {
        let total: u64 = entries.iter().map(|e| disk_kib(&e.meta)).sum();
        let t = if o.human { human_size(total * 1024) } else { total.to_string() };
        ctx.out(format!("total {t}\n"))?;
    }
    if entries.is_empty() {
        return Ok(());
    }
    let block_width =
        if o.size { entries.iter().map(|e| blocks_text(e, o).len()).max().unwrap_or(0) } else { 0 };
    let prefix = |e: &Entry| -> String {
        if o.size {
            format!("{:>block_width$} ", blocks_text(e, o))
        } else {
            String::new()
        }
    };
    match o.format {
        Format::Long => print_long(ctx, entries, o, &prefix),
        Format::OnePerLine => {
            let mut buf = String::new();
            for e in entries {
                buf.push_str(&prefix(e));
                buf.push_str(&display_name(e, o));
                buf.push('\n');
            }
            ctx.out(buf)
        }
        Format::Commas => {
            let mut buf = String::new();
            let mut pos = 0usize;
            for (i, e) in entries.iter().enumerate() {
                let name = format!("{}{}", prefix(e), display_name(e, o));
                let len = name.chars().count();
                if i > 0 {
                    if pos + len + 2 < o.width {
                        buf.push_str(", ");
                        pos += 2;
                    } else {
                        buf.push_str(",\n");
                        pos = 0;
                    }
                }
                buf.push_str(&name);
                pos += len;
            }
            buf.push('\n');
            ctx.out(buf)
        }
        Format::Columns | Format::Across => {
            let names: Vec<String> =
                entries.iter().map(|e| format!("{}{}", prefix(e), display_name(e, o))).collect();
            ctx.out(columns(&names, o.width, o.format == Format::Columns))
        }
    }
}

/// GNU ls's multi-column layout: the most columns that fit in `width`,
/// columns two spaces apart at least, padded with tabs (8 wide) and spaces.
fn columns(names: &[String], width: usize, by_columns: bool) -> String {
    const MIN_COLUMN_WIDTH: usize = 3;
    let n = names.len();
    let lens: Vec<usize> = names.iter().map(|s| s.chars().count()).collect();
    let max_idx = (width / MIN_COLUMN_WIDTH + usize::from(!width.is_multiple_of(MIN_COLUMN_WIDTH))).max(1);
    let max_cols = max_idx.min(n).max(1);
    let mut infos: Vec<(bool, usize, Vec<usize>)> =
        (0..max_cols).map(|i| (true, (i + 1) * MIN_COLUMN_WIDTH, vec![MIN_COLUMN_WIDTH; i + 1])).collect();
    for (filesno, &len) in lens.iter().enumerate() {
        for (i, info) in infos.iter_mut().enumerate() {
            if !info.0 {
                continue;
            }
            let idx = if by_columns { filesno / n.div_ceil(i + 1) } else { filesno % (i + 1) };
            let real = len + if idx == i { 0 } else { 2 };
            if let Some(slot) = info.2.get_mut(idx) {
                if *slot < real {
                    info.1 += real - *slot;
                    *slot = real;
                    info.0 = info.1 < width;
                }
            }
        }
    }
    let mut cols = max_cols;
    while cols > 1 && !infos[cols - 1].0 {
        cols -= 1;
    }
    let widths = &infos[cols - 1].2;
    let mut out = String::new();
    let indent = |out: &mut String, mut from: usize, to: usize| {
        while from < to {
            if to / 8 > (from + 1) / 8 {
                out.push('\t');
                from += 8 - from % 8;
            } else {
                out.push(' ');
                from += 1;
            }
        }
    };
    if by_columns {
        let rows = n.div_ceil(cols);
        for row in 0..rows {
            let mut col = 0;
            let mut idx = row;
            let mut pos = 0;
            loop {
                out.push_str(&names[idx]);
                let max_len = widths.get(col).copied().unwrap_or(0);
                col += 1;
                idx += rows;
                if idx >= n {
                    break;
                }
                indent(&mut out, pos + lens[idx - rows], pos + max_len);
                pos += max_len;
            }
            out.push('\n');
        }
    } else {
        let mut pos = 0;
        out.push_str(&names[0]);
        let mut prev_len = lens[0];
        let mut prev_max = widths.first().copied().unwrap_or(0);
        for i in 1..n {
            let col = i % cols;
            if col == 0 {
                out.push('\n');
                pos = 0;
            } else {
                indent(&mut out, pos + prev_len, pos + prev_max);
                pos += prev_max;
            }
            out.push_str(&names[i]);
            prev_len = lens[i];
            prev_max = widths.get(col).copied().unwrap_or(0);
        }
        out.push('\n');
    }
    out
}

fn print_long(
    ctx: &mut Ctx,
    entries: &[Entry],
    o: &Opts,
    prefix: &dyn Fn(&Entry) -> String,
) -> Result<(), Closed> {
    let owner = if o.numeric { UID.to_string() } else { OWNER.to_string() };
    let rows: Vec<(String, String, String, String, String)> = entries
        .iter()
        .map(|e| {
            let links = nlink(ctx.sys(), &e.path, &e.meta).to_string();
            let size =
                if o.human { human_size(apparent_size(&e.meta)) } else { apparent_size(&e.meta).to_string() };
            (prefix(e), links, size, date(e.meta.mtime_ms, o.now_ms), display_name(e, o))
        })
        .collect();
    let lw = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let sw = rows.iter().map(|r| r.2.len()).max().unwrap_or(0);
    let mut buf = String::new();
    for (e, (pre, links, size, date, name)) in entries.iter().zip(rows) {
        buf.push_str(&pre);
        buf.push_str(&mode_string(&e.meta));
        buf.push_str(&format!(" {links:>lw$} "));
        if o.show_owner {
            buf.push_str(&owner);
            buf.push(' ');
        }
        if o.show_group {
            buf.push_str(&owner);
            buf.push(' ');
        }
        buf.push_str(&format!("{size:>sw$} {date} {name}\n"));
    }
    ctx.out(buf)
}

/// `Mon DD HH:MM` for the last six months, `Mon DD  YYYY` otherwise.
fn date(mtime_ms: u64, now_ms: u64) -> String {
    const SIX_MONTHS_MS: u64 = 31_556_952_000 / 2;
    let (y, mo, d, h, mi, _) = civil((mtime_ms / 1000) as i64);
    let month = MONTHS[(mo as usize).saturating_sub(1).min(11)];
    let recent = mtime_ms <= now_ms.saturating_add(1000) && now_ms.saturating_sub(mtime_ms) < SIX_MONTHS_MS;
    if recent {
        format!("{month} {d:>2} {h:02}:{mi:02}")
    } else {
        format!("{month} {d:>2}  {y}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_layout_matches_gnu() {
        let names: Vec<String> = ["a", "bb", "ccc", "d"].iter().map(|s| s.to_string()).collect();
        assert_eq!(columns(&names, 80, true), "a  bb  ccc  d\n");
    }

    #[test]
    fn dates() {
        let now = 1_767_323_045_000;
        assert_eq!(date(now, now), "Jan  2 03:04");
        assert_eq!(date(0, now), "Jan  1  1970");
    }
}
