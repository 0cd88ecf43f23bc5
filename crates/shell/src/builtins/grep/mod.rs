//! `grep`: GNU grep over the sandbox's files (C locale, bytes).
//!
//! Patterns are POSIX basic (default) or extended (`-E`) regular
//! expressions translated to the `regex` crate (see `common/posix_regex.rs`), fixed
//! strings (`-F`), or the `regex` crate's own syntax (`-P`). Patterns
//! with back-references (`\(a\)\1`) or look-around (`-P 'a(?=b)'`) go to
//! the backtracking `fancy-regex` engine instead, line by line, with a step
//! limit per search: a pattern that exceeds it is an error (status 2), never
//! a hang. Everything else keeps the linear-time engine.
//!
//! Each file is searched as one buffer: the regex finds the next match and
//! the line around it is located afterwards, so lines that do not match
//! cost nothing beyond the regex scan (no per-line allocation or call).
//!
//! Options and the run here; patterns in `matcher`, searching files and
//! printing in `search`.

mod matcher;
mod search;

use matcher::*;

use super::args::{self, HasArg, Spec};
use super::common::bytes::{count_byte, memchr, memrchr};
use super::common::posix_regex::{self as posix, Dialect, Options as RxOptions, Syntax};
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::pattern::fnmatch;
use crate::system::Kind;
use regex::bytes::{CaptureLocations, Regex};

pub const BUILTIN: Builtin = Builtin { name: "grep", run, help: HELP, help_flag: true };
/// `egrep`: `grep -E`, as GNU's wrapper script runs it.
pub const EGREP: Builtin = Builtin { name: "egrep", run: run_egrep, help: HELP, help_flag: true };
/// `fgrep`: `grep -F`.
pub const FGREP: Builtin = Builtin { name: "fgrep", run: run_fgrep, help: HELP, help_flag: true };

fn run_egrep(ctx: &mut Ctx, args: &[String]) -> i32 {
    run(ctx, &[&["-E".to_string()], args].concat())
}

fn run_fgrep(ctx: &mut Ctx, args: &[String]) -> i32 {
    run(ctx, &[&["-F".to_string()], args].concat())
}

const HELP: &str = "\
Usage: grep [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE.
PATTERNS can contain multiple patterns separated by newlines.

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions (default)
  -P, --perl-regexp         PATTERNS use the Rust regex syntax (no look-around,
                            no back-references)
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, -y, --ignore-case     ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
  -a, --text                process binary files as if they were text
  -I                        binary files (with NUL bytes) never match
      --binary-files=TYPE   TYPE is 'binary', 'text', or 'without-match'
  -d, --directories=ACTION  ACTION is 'read', 'recurse', or 'skip'
  -D, --devices=ACTION      accepted (there are no devices)
  -U, --binary              accepted (no effect)
  -r, --recursive           search directories recursively
  -R, --dereference-recursive  same as -r (there are no symlinks)
      --include=GLOB        search only files that match GLOB (a file pattern)
      --exclude=GLOB        skip files that match GLOB
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN],
      --colour[=WHEN]       use markers to highlight the matching strings;
                            WHEN is 'always', 'never', or 'auto'

When FILE is '-', read standard input.  With no FILE, read '.' if
recursive, '-' otherwise.  With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.
Not supported: -z, -T, -V, --exclude-from.
";

const NO_IGNORE_CASE: char = '\u{1}';
const COLOR: char = '\u{2}';
const INCLUDE: char = '\u{3}';
const EXCLUDE: char = '\u{4}';
const EXCLUDE_DIR: char = '\u{5}';
const LABEL: char = '\u{6}';
const GROUP_SEP: char = '\u{7}';
const NO_GROUP_SEP: char = '\u{8}';
const LINE_BUFFERED: char = '\u{9}';
const BINARY_FILES: char = '\u{a}';

const SPEC: Spec = Spec {
    short: "EFGPiyvcnolLrRwxqshHe:f:A:B:C:m:baZId:D:U",
    long: &[
        ("extended-regexp", 'E', HasArg::No),
        ("fixed-strings", 'F', HasArg::No),
        ("basic-regexp", 'G', HasArg::No),
        ("perl-regexp", 'P', HasArg::No),
        ("ignore-case", 'i', HasArg::No),
        ("no-ignore-case", NO_IGNORE_CASE, HasArg::No),
        ("invert-match", 'v', HasArg::No),
        ("count", 'c', HasArg::No),
        ("line-number", 'n', HasArg::No),
        ("only-matching", 'o', HasArg::No),
        ("files-with-matches", 'l', HasArg::No),
        ("files-without-match", 'L', HasArg::No),
        ("recursive", 'r', HasArg::No),
        ("dereference-recursive", 'R', HasArg::No),
        ("word-regexp", 'w', HasArg::No),
        ("line-regexp", 'x', HasArg::No),
        ("quiet", 'q', HasArg::No),
        ("silent", 'q', HasArg::No),
        ("no-messages", 's', HasArg::No),
        ("no-filename", 'h', HasArg::No),
        ("with-filename", 'H', HasArg::No),
        ("regexp", 'e', HasArg::Yes),
        ("file", 'f', HasArg::Yes),
        ("after-context", 'A', HasArg::Yes),
        ("before-context", 'B', HasArg::Yes),
        ("context", 'C', HasArg::Yes),
        ("max-count", 'm', HasArg::Yes),
        ("byte-offset", 'b', HasArg::No),
        ("text", 'a', HasArg::No),
        ("null", 'Z', HasArg::No),
        ("color", COLOR, HasArg::Yes),
        ("colour", COLOR, HasArg::Yes),
        ("include", INCLUDE, HasArg::Yes),
        ("exclude", EXCLUDE, HasArg::Yes),
        ("exclude-dir", EXCLUDE_DIR, HasArg::Yes),
        ("label", LABEL, HasArg::Yes),
        ("group-separator", GROUP_SEP, HasArg::Yes),
        ("no-group-separator", NO_GROUP_SEP, HasArg::No),
        ("line-buffered", LINE_BUFFERED, HasArg::No),
        ("binary-files", BINARY_FILES, HasArg::Yes),
        ("directories", 'd', HasArg::Yes),
        ("devices", 'D', HasArg::Yes),
        ("binary", 'U', HasArg::No),
    ],
    stop_at_operand: false,
};

const TRY: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

/// GNU's default `GREP_COLORS`.
const C_MATCH: &[u8] = b"\x1b[01;31m\x1b[K";
const C_FILE: &[u8] = b"\x1b[35m\x1b[K";
const C_LINENO: &[u8] = b"\x1b[32m\x1b[K";
const C_SEP: &[u8] = b"\x1b[36m\x1b[K";
const C_END: &[u8] = b"\x1b[m\x1b[K";

/// Rewrites `-NUM` to `-C NUM` and a bare `--color` to `--color=auto`.
fn preprocess(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut takes_value = false;
    for (k, a) in args.iter().enumerate() {
        if a == "--" {
            out.extend(args[k..].iter().cloned());
            break;
        }
        if takes_value {
            takes_value = false;
            out.push(a.clone());
            continue;
        }
        if a == "--color" || a == "--colour" {
            out.push("--color=auto".to_string());
            continue;
        }
        if a.len() > 1
            && a.starts_with('-')
            && !a.starts_with("--")
            && a[1..].bytes().all(|b| b.is_ascii_digit())
        {
            out.push(format!("-C{}", &a[1..]));
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            if !long.contains('=')
                && [
                    "regexp",
                    "file",
                    "after-context",
                    "before-context",
                    "context",
                    "max-count",
                    "include",
                    "exclude",
                    "exclude-dir",
                    "label",
                    "group-separator",
                ]
                .iter()
                .any(|n| n.starts_with(long) && long.len() >= 2)
            {
                takes_value = true;
            }
        } else if a.len() > 1 && a.starts_with('-') {
            // A cluster ending in an option that takes a value.
            for (at, c) in a.char_indices().skip(1) {
                if "efABCm".contains(c) {
                    takes_value = at + c.len_utf8() == a.len();
                    break;
                }
            }
        }
        out.push(a.clone());
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Lines,
    Count,
    FilesWith,
    FilesWithout,
    Quiet,
}

struct Config {
    invert: bool,
    mode: Mode,
    only: bool,
    line_numbers: bool,
    byte_offset: bool,
    /// `-H`/`-h`, if given.
    with_name: Option<bool>,
    /// More than one operand: names are shown.
    multi: bool,
    null: bool,
    text: bool,
    /// `-I`: binary files never match.
    skip_binary: bool,
    /// `-d skip`: directory operands are ignored.
    skip_dirs: bool,
    before: usize,
    after: usize,
    /// A context option was given (even 0): groups are separated.
    context: bool,
    max: Option<u64>,
    color: bool,
    group_sep: Option<Vec<u8>>,
    no_messages: bool,
    recursive: bool,
    includes: Vec<String>,
    excludes: Vec<String>,
    exclude_dirs: Vec<String>,
    label: String,
}

struct Grep<'c> {
    cfg: &'c Config,
    m: &'c Matcher,
    out: Vec<u8>,
    matched: bool,
    error: bool,
    closed: bool,
    /// `-q` found a line: stop everything.
    done: bool,
    /// Some line was printed with context on (for group separators).
    printed_any: bool,
    /// File names are shown for the current file.
    name_on: bool,
    locs: CaptureLocations,
    spans: Vec<(usize, usize)>,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = preprocess(args);
    let p = match args::parse("grep", &args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU puts its usage line before the "Try" line.
            let msg = msg.replacen("\nTry ", "\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry ", 1);
            return usage_error(ctx, &msg);
        }
    };

    // Options whose last occurrence wins.
    let mut syntax = 'G';
    let mut icase = false;
    let mut mode = Mode::Lines;
    let mut with_name: Option<bool> = None;
    let (mut before, mut after): (Option<usize>, Option<usize>) = (None, None);
    let mut context: Option<usize> = None;
    let mut color = false;
    let mut text = false;
    let mut skip_binary = false;
    let mut directories = "read";
    let mut group_sep = Some(b"--".to_vec());
    let mut patterns: Vec<Vec<u8>> = Vec::new();
    let mut have_patterns = false;
    for (c, v) in &p.opts {
        let v = v.as_deref().unwrap_or_default();
        match *c {
            'E' | 'F' | 'G' | 'P' => syntax = *c,
            'i' | 'y' => icase = true,
            NO_IGNORE_CASE => icase = false,
            'c' if !matches!(mode, Mode::FilesWith | Mode::FilesWithout | Mode::Quiet) => mode = Mode::Count,
            'l' if mode != Mode::Quiet => mode = Mode::FilesWith,
            'L' if mode != Mode::Quiet => mode = Mode::FilesWithout,
            'q' => mode = Mode::Quiet,
            'h' => with_name = Some(false),
            'H' => with_name = Some(true),
            'A' | 'B' | 'C' => {
                let Some(n) = parse_context(v) else {
                    ctx.error("grep", format!("{v}: invalid context length argument"));
                    return 2;
                };
                match *c {
                    'A' => after = Some(n),
                    'B' => before = Some(n),
                    _ => context = Some(n),
                }
            }
            COLOR => match v {
                "always" | "yes" | "force" => color = true,
                "never" | "no" | "none" | "auto" | "tty" | "if-tty" => color = false,
                _ => {
                    ctx.error("grep", format!("invalid argument '{v}' for '--color'"));
                    ctx.err("Valid arguments are:\n  - 'always', 'yes', 'force'\n  - 'never', 'no', 'none'\n  - 'auto', 'tty', 'if-tty'\n");
                    ctx.err(TRY);
                    return 2;
                }
            },
            'a' => text = true,
            'I' => skip_binary = true,
            BINARY_FILES => match v {
                "binary" => (text, skip_binary) = (false, false),
                "text" => (text, skip_binary) = (true, false),
                "without-match" => (text, skip_binary) = (false, true),
                _ => {
                    ctx.error("grep", "unknown binary-files type");
                    return 2;
                }
            },
            'r' | 'R' => directories = "recurse",
            'd' | 'D' => {
                let valid: &[&str] = if *c == 'd' { &["read", "recurse", "skip"] } else { &["read", "skip"] };
                match valid.iter().find(|x| **x == v) {
                    Some(x) if *c == 'd' => directories = x,
                    Some(_) => {}
                    None => {
                        let long = if *c == 'd' { "--directories" } else { "--devices" };
                        ctx.error("grep", format!("invalid argument '{v}' for '{long}'"));
                        let list: String = valid.iter().map(|x| format!("  - '{x}'\n")).collect();
                        ctx.err(format!("Valid arguments are:\n{list}{TRY}"));
                        return 2;
                    }
                }
            }
            GROUP_SEP => group_sep = Some(v.as_bytes().to_vec()),
            NO_GROUP_SEP => group_sep = None,
            'e' => {
                have_patterns = true;
                patterns.extend(v.as_bytes().split(|&b| b == b'\n').map(<[u8]>::to_vec));
            }
            'f' => {
                have_patterns = true;
                match ctx.read_input(v) {
                    Ok(data) => {
                        // An empty file holds no pattern; "\n" holds the
                        // empty one.
                        if !data.is_empty() {
                            let data = data.strip_suffix(b"\n").unwrap_or(&data);
                            patterns.extend(data.split(|&b| b == b'\n').map(<[u8]>::to_vec));
                        }
                    }
                    Err(e) => {
                        ctx.file_error("grep", v, &e);
                        return 2;
                    }
                }
            }
            _ => {}
        }
    }
    let mut operands = p.operands.clone();
    if !have_patterns {
        if operands.is_empty() {
            ctx.err(TRY);
            return 2;
        }
        let pat = operands.remove(0);
        patterns.extend(pat.as_bytes().split(|&b| b == b'\n').map(<[u8]>::to_vec));
    }
    let max = match p.value('m') {
        None => None,
        Some(v) => match v.trim().parse::<i64>() {
            Ok(n) if n < 0 => None,
            Ok(n) => Some(n as u64),
            Err(_) => {
                ctx.error("grep", "invalid max count");
                return 2;
            }
        },
    };
    let invert = p.has('v');
    let anchor = if p.has('x') {
        Anchor::Line
    } else if p.has('w') {
        Anchor::Word
    } else {
        Anchor::None
    };

    let matcher = match compile(ctx, &patterns, syntax, icase, anchor, p.has('o') || color) {
        Some(m) => m,
        None => return 2,
    };
    if matcher.empty && !invert {
        return 1;
    }

    let recursive = directories == "recurse";
    let implicit_dot = recursive && operands.is_empty();
    if operands.is_empty() {
        operands.push(if recursive { ".".to_string() } else { "-".to_string() });
    }
    let cfg = Config {
        invert,
        mode,
        only: p.has('o'),
        line_numbers: p.has('n'),
        byte_offset: p.has('b'),
        with_name,
        multi: operands.len() > 1,
        null: p.has('Z'),
        text,
        skip_binary,
        skip_dirs: directories == "skip",
        context: before.is_some() || after.is_some() || context.is_some(),
        before: before.or(context).unwrap_or(0),
        after: after.or(context).unwrap_or(0),
        max,
        color,
        group_sep,
        no_messages: p.has('s'),
        recursive,
        includes: p.values(INCLUDE).iter().map(|s| s.to_string()).collect(),
        excludes: p.values(EXCLUDE).iter().map(|s| s.to_string()).collect(),
        exclude_dirs: p.values(EXCLUDE_DIR).iter().map(|s| s.to_string()).collect(),
        label: p.value(LABEL).unwrap_or("(standard input)").to_string(),
    };
    let mut g = Grep {
        cfg: &cfg,
        m: &matcher,
        out: Vec::new(),
        matched: false,
        error: false,
        closed: false,
        done: false,
        printed_any: false,
        name_on: false,
        locs: matcher.re.capture_locations(),
        spans: Vec::new(),
    };
    if cfg.max == Some(0) {
        return 1;
    }
    for op in &operands {
        if g.done || g.closed {
            break;
        }
        if implicit_dot {
            g.walk(ctx, ".", "");
        } else {
            g.operand(ctx, op);
        }
    }
    g.flush(ctx);
    if matcher.gave_up.get() {
        ctx.error(
            "grep",
            format!(
                "exceeded the backtracking limit ({} steps) on some line: the pattern is too complex",
                posix::BACKTRACK_LIMIT
            ),
        );
        return 2;
    }
    if g.matched && cfg.mode == Mode::Quiet {
        return 0;
    }
    if g.error {
        return 2;
    }
    if g.matched {
        0
    } else {
        1
    }
}

fn parse_context(v: &str) -> Option<usize> {
    let v = v.trim_start();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(v.parse::<usize>().unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::search::Scan;
    use super::*;

    fn matcher(p: &str, syntax: char, anchor: Anchor) -> Matcher {
        let opts = RxOptions {
            syntax: if syntax == 'E' { Syntax::Extended } else { Syntax::Basic },
            dialect: Dialect::Grep,
            icase: false,
        };
        let t = posix::translate(p.as_bytes(), &opts).unwrap();
        let body = match anchor {
            Anchor::None => t.pattern,
            Anchor::Line => format!("^(?:{})$", t.pattern),
            Anchor::Word => format!("(?:^|[^\\w\\n])({})(?:[^\\w\\n]|$)", t.pattern),
        };
        let re = posix::build(&format!("{}{}", posix::flags(&opts), body)).unwrap();
        Matcher {
            re,
            anchor,
            per_line: false,
            empty: false,
            longest: None,
            fold: false,
            slow: None,
            gave_up: Default::default(),
        }
    }

    fn lines(m: &Matcher, buf: &str, invert: bool) -> Vec<String> {
        let mut s = Scan { m, buf: buf.as_bytes(), pos: 0, next: None, fetched: false, invert };
        let mut out = Vec::new();
        while let Some((a, b)) = s.next() {
            out.push(buf[a..b].to_string());
        }
        out
    }

    #[test]
    fn scans_lines() {
        let m = matcher("b", 'G', Anchor::None);
        assert_eq!(lines(&m, "abc\nxyz\nb", false), vec!["abc", "b"]);
        assert_eq!(lines(&m, "abc\nxyz\nb", true), vec!["xyz"]);
        let m = matcher("x*", 'G', Anchor::None);
        assert_eq!(lines(&m, "a\n\nb\n", false), vec!["a", "", "b"]);
        let m = matcher("^$", 'G', Anchor::None);
        assert_eq!(lines(&m, "a\n\nb\n", false), vec![""]);
        assert_eq!(lines(&m, "a\n\nb\n", true), vec!["a", "b"]);
        let m = matcher("$", 'G', Anchor::None);
        assert_eq!(lines(&m, "a\nb", false), vec!["a", "b"]);
    }

    #[test]
    fn word_matches() {
        let m = matcher("ab", 'G', Anchor::Word);
        assert_eq!(lines(&m, "xab\nab-c\nabc", false), vec!["ab-c"]);
        let mut locs = m.re.capture_locations();
        let mut spans = Vec::new();
        let buf = b"ab abc ab_ xab ab-ab";
        m.matches_in_line(buf, 0, buf.len(), &mut locs, &mut spans);
        assert_eq!(spans, vec![(0, 2), (15, 17), (18, 20)]);
    }

    #[test]
    fn preprocesses_args() {
        let v = |a: &[&str]| preprocess(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(v(&["-2", "x"]), vec!["-C2", "x"]);
        assert_eq!(v(&["-e", "-2"]), vec!["-e", "-2"]);
        assert_eq!(v(&["--color", "x"]), vec!["--color=auto", "x"]);
    }
}
