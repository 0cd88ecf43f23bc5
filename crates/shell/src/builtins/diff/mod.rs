//! `diff`: compare files line by line, like GNU diffutils: normal and
//! unified output, `-q`, `-s`, `-r` over directories, and the
//! white-space/case options. The line matching lives in [`engine`]: Myers'
//! algorithm in linear space with GNU's choices among equal edit scripts,
//! and a work budget past which the rest is reported as changed wholesale.

mod engine;

use std::collections::HashMap;

use super::args::{self, HasArg, Spec};
use super::common::time::full_time;
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "diff",
    run,
    help: "Usage: diff [OPTION]... FILES
Compare FILES line by line.

      --normal                  output a normal diff (the default)
  -q, --brief                   report only when files differ
  -s, --report-identical-files  report when two files are the same
  -u, -U NUM, --unified[=NUM]   output NUM (default 3) lines of unified context
  -r, --recursive               recursively compare any subdirectories found
  -N, --new-file                treat absent files as empty
  -i, --ignore-case             ignore case differences in file contents
  -b, --ignore-space-change     ignore changes in the amount of white space
  -w, --ignore-all-space        ignore all white space
  -Z, --ignore-trailing-space   ignore white space at line end
      --strip-trailing-cr       strip trailing carriage return on input
  -a, --text                    treat all files as text
      --label LABEL             use LABEL instead of file name and timestamp
      --help                    display this help and exit

FILES are 'FILE1 FILE2' or 'DIR1 DIR2' or 'DIR FILE' or 'FILE DIR'.
If a FILE is '-', read standard input.
Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.
Not supported: context (-c) and side-by-side (-y) output, ed scripts (-e).
",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "uU:qsrNibwZa",
    long: &[
        ("normal", 'n', HasArg::No),
        ("brief", 'q', HasArg::No),
        ("report-identical-files", 's', HasArg::No),
        ("unified", 'U', HasArg::Yes),
        ("recursive", 'r', HasArg::No),
        ("new-file", 'N', HasArg::No),
        ("ignore-case", 'i', HasArg::No),
        ("ignore-space-change", 'b', HasArg::No),
        ("ignore-all-space", 'w', HasArg::No),
        ("ignore-trailing-space", 'Z', HasArg::No),
        ("strip-trailing-cr", 'C', HasArg::No),
        ("text", 'a', HasArg::No),
        ("label", 'L', HasArg::Yes),
    ],
    stop_at_operand: false,
};

struct Opts {
    unified: Option<usize>,
    brief: bool,
    identical: bool,
    recursive: bool,
    new_file: bool,
    ignore_case: bool,
    space_change: bool,
    all_space: bool,
    trailing_space: bool,
    strip_cr: bool,
    text: bool,
    labels: Vec<String>,
    /// The options as given, for `diff -r a/f b/f` lines.
    switches: String,
}

fn usage(ctx: &mut Ctx, msg: &str) -> i32 {
    ctx.err(format!("diff: {msg}\ndiff: Try 'diff --help' for more information.\n"));
    2
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args: Vec<String> =
        args.iter().map(|a| if a == "--unified" { "-u".to_string() } else { a.clone() }).collect();
    let p = match args::parse("diff", &args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU diff prefixes its "Try" line with the program name
            let msg = msg.replace("\nTry 'diff", "\ndiff: Try 'diff");
            ctx.err(msg);
            return 2;
        }
    };
    let mut unified = None;
    for (opt, val) in &p.opts {
        match opt {
            'u' => unified = Some(3),
            'U' => match val.as_deref().unwrap_or_default().parse::<usize>() {
                Ok(n) => unified = Some(n),
                Err(_) => {
                    let v = val.as_deref().unwrap_or_default();
                    return usage(ctx, &format!("invalid context length '{v}'"));
                }
            },
            'n' => unified = None,
            _ => {}
        }
    }
    let switches: Vec<&str> =
        args.iter().map(String::as_str).filter(|a| !p.operands.iter().any(|o| o == a)).collect();
    let o = Opts {
        unified,
        brief: p.has('q'),
        identical: p.has('s'),
        recursive: p.has('r'),
        new_file: p.has('N'),
        ignore_case: p.has('i'),
        space_change: p.has('b'),
        all_space: p.has('w'),
        trailing_space: p.has('Z'),
        strip_cr: p.has('C'),
        text: p.has('a'),
        labels: p.values('L').into_iter().map(str::to_string).collect(),
        switches: switches.join(" "),
    };
    match p.operands.as_slice() {
        [] => usage(ctx, "missing operand after 'diff'"),
        [a] => usage(ctx, &format!("missing operand after '{a}'")),
        [a, b] => {
            let (a, b) = (a.clone(), b.clone());
            compare_paths(ctx, &o, &a, &b, true)
        }
        [_, _, extra, ..] => usage(ctx, &format!("extra operand '{extra}'")),
    }
}

fn kind_of(ctx: &mut Ctx, path: &str) -> Option<Kind> {
    if path == "-" {
        return Some(Kind::File);
    }
    ctx.sys().stat(path).ok().map(|m| m.kind)
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

fn basename(path: &str) -> &str {
    path.trim_end_matches('/').rsplit('/').next().unwrap_or(path)
}

fn compare_paths(ctx: &mut Ctx, o: &Opts, a: &str, b: &str, top: bool) -> i32 {
    let (ka, kb) = (kind_of(ctx, a), kind_of(ctx, b));
    match (ka, kb) {
        (Some(Kind::Dir), Some(Kind::Dir)) => compare_dirs(ctx, o, a, b),
        (Some(Kind::Dir), Some(Kind::File)) if top => {
            let a2 = join(a, basename(b));
            compare_files(ctx, o, &a2, b, false)
        }
        (Some(Kind::File), Some(Kind::Dir)) if top => {
            let b2 = join(b, basename(a));
            compare_files(ctx, o, a, &b2, false)
        }
        _ => compare_files(ctx, o, a, b, !top),
    }
}

fn compare_dirs(ctx: &mut Ctx, o: &Opts, a: &str, b: &str) -> i32 {
    let list = |ctx: &mut Ctx, d: &str| -> Result<Vec<(String, Kind)>, i32> {
        match ctx.sys().readdir(d) {
            Ok(v) => Ok(v.into_iter().map(|e| (e.name, e.kind)).collect()),
            // with -N, a directory missing on one side is an empty one
            Err(e) if o.new_file && e.errno == "ENOENT" => Ok(Vec::new()),
            Err(e) => {
                ctx.file_error("diff", d, &e);
                Err(2)
            }
        }
    };
    let ea = match list(ctx, a) {
        Ok(v) => v,
        Err(s) => return s,
    };
    let eb = match list(ctx, b) {
        Ok(v) => v,
        Err(s) => return s,
    };
    let mut names: Vec<&String> = ea.iter().map(|(n, _)| n).chain(eb.iter().map(|(n, _)| n)).collect();
    names.sort_by(|x, y| x.as_bytes().cmp(y.as_bytes()));
    names.dedup();
    let mut status = 0;
    for name in names {
        let ka = ea.iter().find(|(n, _)| n == name).map(|(_, k)| *k);
        let kb = eb.iter().find(|(n, _)| n == name).map(|(_, k)| *k);
        let (pa, pb) = (join(a, name), join(b, name));
        let s = match (ka, kb) {
            (Some(Kind::Dir), Some(Kind::Dir)) => {
                if o.recursive {
                    compare_dirs(ctx, o, &pa, &pb)
                } else {
                    if ctx.out(format!("Common subdirectories: {pa} and {pb}\n")).is_err() {
                        return 2;
                    }
                    0
                }
            }
            (Some(Kind::File), Some(Kind::File)) => compare_files(ctx, o, &pa, &pb, true),
            (Some(ka), Some(_)) => {
                let (da, db) = if ka == Kind::Dir {
                    ("directory", "regular file")
                } else {
                    ("regular file", "directory")
                };
                if ctx.out(format!("File {pa} is a {da} while file {pb} is a {db}\n")).is_err() {
                    return 2;
                }
                1
            }
            (Some(Kind::File), None) | (None, Some(Kind::File)) if o.new_file => {
                compare_files(ctx, o, &pa, &pb, true)
            }
            (Some(Kind::Dir), None) | (None, Some(Kind::Dir)) if o.new_file && o.recursive => {
                compare_dirs(ctx, o, &pa, &pb)
            }
            (Some(_), None) => {
                if ctx.out(format!("Only in {a}: {name}\n")).is_err() {
                    return 2;
                }
                1
            }
            (None, Some(_)) => {
                if ctx.out(format!("Only in {b}: {name}\n")).is_err() {
                    return 2;
                }
                1
            }
            (None, None) => 0,
        };
        status = status.max(s);
    }
    status
}

/// One side of a comparison.
struct Side {
    name: String,
    data: Vec<u8>,
    mtime_ms: u64,
}

fn load(ctx: &mut Ctx, o: &Opts, path: &str, in_dir: bool) -> Result<Side, i32> {
    let mtime_ms = if path == "-" {
        ctx.sys().now_ms()
    } else {
        match ctx.sys().stat(path) {
            Ok(m) => m.mtime_ms,
            Err(e) if in_dir && o.new_file && e.errno == "ENOENT" => {
                return Ok(Side { name: path.to_string(), data: Vec::new(), mtime_ms: 0 })
            }
            Err(_) => 0,
        }
    };
    match ctx.read_input(path) {
        Ok(data) => Ok(Side { name: path.to_string(), data, mtime_ms }),
        Err(e) => {
            ctx.file_error("diff", path, &e);
            Err(2)
        }
    }
}

fn compare_files(ctx: &mut Ctx, o: &Opts, a: &str, b: &str, in_dir: bool) -> i32 {
    let sa = match load(ctx, o, a, in_dir) {
        Ok(s) => s,
        Err(s) => return s,
    };
    let sb = match load(ctx, o, b, in_dir) {
        Ok(s) => s,
        Err(s) => return s,
    };
    if sa.data == sb.data {
        if o.identical && ctx.out(format!("Files {a} and {b} are identical\n")).is_err() {
            return 2;
        }
        return 0;
    }
    let binary = |d: &[u8]| d.get(..d.len().min(32 * 1024)).unwrap_or_default().contains(&0);
    if !o.text && (binary(&sa.data) || binary(&sb.data)) {
        let msg = if o.brief {
            format!("Files {a} and {b} differ\n")
        } else {
            format!("Binary files {a} and {b} differ\n")
        };
        if ctx.out(msg).is_err() {
            return 2;
        }
        return 1;
    }
    let la = split_lines(&sa.data);
    let lb = split_lines(&sb.data);
    let changes = diff_lines(&la, &lb, o);
    if changes.is_empty() {
        if o.identical && ctx.out(format!("Files {a} and {b} are identical\n")).is_err() {
            return 2;
        }
        return 0;
    }
    if o.brief {
        if ctx.out(format!("Files {a} and {b} differ\n")).is_err() {
            return 2;
        }
        return 1;
    }
    let mut out = Vec::new();
    if in_dir {
        out.extend_from_slice(
            format!("diff {}{}{a} {b}\n", o.switches, if o.switches.is_empty() { "" } else { " " })
                .as_bytes(),
        );
    }
    match o.unified {
        Some(ctx_lines) => {
            let label = |i: usize, s: &Side| match o.labels.get(i) {
                Some(l) => l.clone(),
                None => format!("{}\t{}", s.name, full_time(s.mtime_ms)),
            };
            out.extend_from_slice(format!("--- {}\n+++ {}\n", label(0, &sa), label(1, &sb)).as_bytes());
            unified(&mut out, &la, &lb, &changes, ctx_lines);
        }
        None => normal(&mut out, &la, &lb, &changes),
    }
    if ctx.out(out).is_err() {
        return 2;
    }
    1
}

/// Lines with their newline (the last may have none).
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(data.len() / 32 + 1);
    let mut start = 0;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            out.push(&data[start..=i]);
            start = i + 1;
        }
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

fn normalize(line: &[u8], o: &Opts) -> Vec<u8> {
    let (body, nl) = match line.strip_suffix(b"\n") {
        Some(b) => (b, true),
        None => (line, false),
    };
    let body = if o.strip_cr { body.strip_suffix(b"\r").unwrap_or(body) } else { body };
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c);
    let mut out = Vec::with_capacity(body.len() + 1);
    if o.all_space {
        out.extend(body.iter().copied().filter(|&b| !is_space(b)));
    } else if o.space_change {
        let mut in_space = false;
        for &b in body {
            if is_space(b) {
                in_space = true;
            } else {
                if in_space {
                    out.push(b' ');
                }
                in_space = false;
                out.push(b);
            }
        }
    } else if o.trailing_space {
        let end = body.iter().rposition(|&b| !is_space(b)).map_or(0, |p| p + 1);
        out.extend_from_slice(&body[..end]);
    } else {
        out.extend_from_slice(body);
    }
    if o.ignore_case {
        out.make_ascii_lowercase();
    }
    if nl {
        out.push(b'\n');
    }
    out
}

/// A run of changed lines: `a_len` lines of A from `a`, replaced by
/// `b_len` lines of B from `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    a: usize,
    a_len: usize,
    b: usize,
    b_len: usize,
}

fn diff_lines(la: &[&[u8]], lb: &[&[u8]], o: &Opts) -> Vec<Change> {
    let plain = !(o.ignore_case || o.all_space || o.space_change || o.trailing_space || o.strip_cr);
    let mut ids: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut id_of = |l: &[u8]| -> u32 {
        let key = if plain { l.to_vec() } else { normalize(l, o) };
        let next = ids.len() as u32;
        *ids.entry(key).or_insert(next)
    };
    let a: Vec<u32> = la.iter().map(|l| id_of(l)).collect();
    let b: Vec<u32> = lb.iter().map(|l| id_of(l)).collect();
    let horizon = o.unified.unwrap_or(0);
    let (changed_a, changed_b) = engine::compare(&a, &b, ids.len(), horizon);
    // collect runs
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && !changed_a[i] && !changed_b[j] {
            i += 1;
            j += 1;
            continue;
        }
        let (si, sj) = (i, j);
        while i < a.len() && changed_a[i] {
            i += 1;
        }
        while j < b.len() && changed_b[j] {
            j += 1;
        }
        if i == si && j == sj {
            // misaligned (should not happen): consume the rest
            i = a.len();
            j = b.len();
        }
        out.push(Change { a: si, a_len: i - si, b: sj, b_len: j - sj });
    }
    out
}

fn range(start: usize, len: usize) -> String {
    if len == 1 {
        format!("{}", start + 1)
    } else {
        format!("{},{}", start + 1, start + len)
    }
}

fn push_line(out: &mut Vec<u8>, prefix: &[u8], line: &[u8]) {
    out.extend_from_slice(prefix);
    out.extend_from_slice(line);
    if !line.ends_with(b"\n") {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

fn normal(out: &mut Vec<u8>, la: &[&[u8]], lb: &[&[u8]], changes: &[Change]) {
    for c in changes {
        let head = match (c.a_len, c.b_len) {
            (0, _) => format!("{}a{}\n", c.a, range(c.b, c.b_len)),
            (_, 0) => format!("{}d{}\n", range(c.a, c.a_len), c.b),
            _ => format!("{}c{}\n", range(c.a, c.a_len), range(c.b, c.b_len)),
        };
        out.extend_from_slice(head.as_bytes());
        for l in &la[c.a..c.a + c.a_len] {
            push_line(out, b"< ", l);
        }
        if c.a_len > 0 && c.b_len > 0 {
            out.extend_from_slice(b"---\n");
        }
        for l in &lb[c.b..c.b + c.b_len] {
            push_line(out, b"> ", l);
        }
    }
}

fn unified_range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{}", start + 1, len),
    }
}

fn unified(out: &mut Vec<u8>, la: &[&[u8]], lb: &[&[u8]], changes: &[Change], ctx: usize) {
    let mut i = 0;
    while i < changes.len() {
        // group changes whose gaps are small enough to share context
        let mut j = i;
        while j + 1 < changes.len() {
            let gap = changes[j + 1].a - (changes[j].a + changes[j].a_len);
            if gap > 2 * ctx {
                break;
            }
            j += 1;
        }
        let first = changes[i];
        let last = changes[j];
        let a_start = first.a.saturating_sub(ctx);
        let b_start = first.b.saturating_sub(first.a - a_start);
        let a_end = (last.a + last.a_len + ctx).min(la.len());
        let b_end = (last.b + last.b_len + (a_end - (last.a + last.a_len))).min(lb.len());
        out.extend_from_slice(
            format!(
                "@@ -{} +{} @@\n",
                unified_range(a_start, a_end - a_start),
                unified_range(b_start, b_end - b_start)
            )
            .as_bytes(),
        );
        let mut pa = a_start;
        for c in &changes[i..=j] {
            for l in &la[pa..c.a] {
                push_line(out, b" ", l);
            }
            for l in &la[c.a..c.a + c.a_len] {
                push_line(out, b"-", l);
            }
            for l in &lb[c.b..c.b + c.b_len] {
                push_line(out, b"+", l);
            }
            pa = c.a + c.a_len;
        }
        for l in &la[pa..a_end] {
            push_line(out, b" ", l);
        }
        i = j + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Opts {
        Opts {
            unified: None,
            brief: false,
            identical: false,
            recursive: false,
            new_file: false,
            ignore_case: false,
            space_change: false,
            all_space: false,
            trailing_space: false,
            strip_cr: false,
            text: false,
            labels: Vec::new(),
            switches: String::new(),
        }
    }

    fn normal_of(a: &str, b: &str) -> String {
        let la = split_lines(a.as_bytes());
        let lb = split_lines(b.as_bytes());
        let ch = diff_lines(&la, &lb, &opts());
        let mut out = Vec::new();
        normal(&mut out, &la, &lb, &ch);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn normal_format() {
        assert_eq!(normal_of("a\nb\nc\n", "a\nB\nc\nk\n"), "2c2\n< b\n---\n> B\n3a4\n> k\n");
        assert_eq!(normal_of("a", "a\n"), "1c1\n< a\n\\ No newline at end of file\n---\n> a\n");
        assert_eq!(normal_of("a\nb\n", "a\nb\nb\n"), "2a3\n> b\n");
        assert_eq!(normal_of("x\na\nb\nx\na\nb\n", "x\na\nb\n"), "4,6d3\n< x\n< a\n< b\n");
        assert_eq!(normal_of("", "a\n"), "0a1\n> a\n");
    }

    #[test]
    fn minimal_on_random_inputs() {
        // compare edit counts with a quadratic LCS on small inputs
        let mut seed = 12345u64;
        let mut rnd = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..500 {
            let a: Vec<u32> = (0..rnd(14)).map(|_| rnd(4) as u32).collect();
            let b: Vec<u32> = (0..rnd(14)).map(|_| rnd(4) as u32).collect();
            let (ca, cb) = engine::compare(&a, &b, 4, rnd(4) as usize);
            // the unchanged lines must match up
            let ka: Vec<u32> = a.iter().zip(&ca).filter(|(_, c)| !**c).map(|(x, _)| *x).collect();
            let kb: Vec<u32> = b.iter().zip(&cb).filter(|(_, c)| !**c).map(|(x, _)| *x).collect();
            assert_eq!(ka, kb, "{a:?} {b:?}");
        }
    }
}
