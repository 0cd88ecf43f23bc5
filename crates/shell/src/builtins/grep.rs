//! `grep`: GNU grep over the sandbox's files (C locale, bytes).
//!
//! Patterns are POSIX basic (default) or extended (`-E`) regular
//! expressions translated to the `regex` crate (see `common/posix_regex.rs`), fixed
//! strings (`-F`), or the `regex` crate's own syntax (`-P`, which has no
//! look-around and no back-references). Back-references in BRE/ERE
//! patterns are not supported (a clear error, status 2).
//!
//! Each file is searched as one buffer: the regex finds the next match and
//! the line around it is located afterwards, so lines that do not match
//! cost nothing beyond the regex scan (no per-line allocation or call).

use super::args::{self, HasArg, Spec};
use super::common::bytes::{count_byte, memchr, memrchr};
use super::common::posix_regex::{self as posix, Dialect, Options as RxOptions, Syntax};
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::pattern::fnmatch;
use crate::system::Kind;
use regex::bytes::{CaptureLocations, Regex};

pub const BUILTIN: Builtin = Builtin { name: "grep", run, help: HELP, help_flag: true };

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
enum Anchor {
    None,
    Word,
    Line,
}

/// The compiled patterns.
struct Matcher {
    re: Regex,
    anchor: Anchor,
    /// Search line by line (`-P`, whose classes may match a newline).
    per_line: bool,
    /// No pattern at all: nothing matches.
    empty: bool,
    /// For `-o` and colors: POSIX leftmost-longest matches.
    longest: Option<posix::Longest>,
    /// `-i` with literal patterns only: the patterns are lower-cased and
    /// the text is lower-cased before searching (much faster than a
    /// case-insensitive regex where there is no SIMD).
    fold: bool,
}

impl Matcher {
    /// The first line at or after `pos` (a line start) that matches:
    /// `(start, end)` with `end` at its newline or the buffer's end.
    fn find_line(&self, buf: &[u8], pos: usize) -> Option<(usize, usize)> {
        if pos >= buf.len() || self.empty {
            return None;
        }
        if self.per_line {
            let mut ls = pos;
            while ls < buf.len() {
                let le = line_end(buf, ls);
                if self.re.is_match(&buf[ls..le]) {
                    return Some((ls, le));
                }
                ls = le + 1;
            }
            return None;
        }
        // Any position inside the first match is enough to find its line,
        // and the end of the shortest match is the cheapest to get. A match
        // never contains a newline, so its end lies in its line (an empty
        // match at a line start is at that start).
        let e = self.re.shortest_match_at(buf, pos)?;
        if e >= buf.len() && buf[buf.len() - 1] == b'\n' {
            return None;
        }
        let ls = match memrchr(b'\n', &buf[pos..e]) {
            Some(k) => pos + k + 1,
            None => pos,
        };
        Some((ls, line_end(buf, e)))
    }

    /// The matches (non-empty ones are printed by `-o`) inside the line
    /// `buf[ls..le]`, in order.
    fn matches_in_line(
        &self,
        buf: &[u8],
        ls: usize,
        le: usize,
        locs: &mut CaptureLocations,
        out: &mut Vec<(usize, usize)>,
    ) {
        out.clear();
        // `-P` searches the line alone (its classes may match a newline).
        let (hay, base) = if self.per_line { (&buf[ls..le], ls) } else { (buf, 0) };
        let (first, last) = (ls - base, le - base);
        let mut at = first;
        while at <= last {
            let (s, e) = if self.anchor == Anchor::Word {
                if self.re.captures_read_at(locs, hay, at).is_none() {
                    break;
                }
                match locs.get(1) {
                    Some(se) => se,
                    None => break,
                }
            } else {
                match self.re.find_at(hay, at) {
                    Some(m) => match &self.longest {
                        Some(l) if m.start() <= last => {
                            (m.start(), l.extend(hay, m.start(), m.end(), last).0)
                        }
                        _ => (m.start(), m.end()),
                    },
                    None => break,
                }
            };
            if s > last {
                break;
            }
            out.push((base + s, base + e));
            at = if e > s { e } else { e + 1 };
            if self.anchor == Anchor::Line {
                break;
            }
        }
    }
}

fn line_end(buf: &[u8], from: usize) -> usize {
    match memchr(b'\n', &buf[from..]) {
        Some(k) => from + k,
        None => buf.len(),
    }
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

/// Compiles the patterns into one matcher; prints errors and returns `None`
/// on a bad pattern.
/// The branch spans of each alternation of a translated pattern.
type Alts = Vec<Vec<(usize, usize)>>;

fn compile(
    ctx: &mut Ctx,
    patterns: &[Vec<u8>],
    syntax: char,
    icase: bool,
    anchor: Anchor,
    longest: bool,
) -> Option<Matcher> {
    let specials: &[u8] = match syntax {
        'F' => b"",
        'G' => b"\\.[]*^$",
        'E' => b"\\.[]*^$+?(){}|",
        _ => b"\\.[]*^$+?(){}|",
    };
    let fold = icase && syntax != 'P' && patterns.iter().all(|p| !p.iter().any(|b| specials.contains(b)));
    let lowered: Vec<Vec<u8>>;
    let (patterns, icase) = if fold {
        lowered = patterns.iter().map(|p| p.to_ascii_lowercase()).collect();
        (&lowered[..], false)
    } else {
        (patterns, icase)
    };
    let opts = RxOptions {
        syntax: if syntax == 'E' { Syntax::Extended } else { Syntax::Basic },
        dialect: Dialect::Grep,
        icase,
    };
    // Each pattern's translation and its alternations.
    let mut parts: Vec<(String, Alts)> = Vec::with_capacity(patterns.len());
    let mut failed = false;
    if syntax == 'F' {
        // Longest strings first: then the leftmost-first match is the
        // leftmost-longest one POSIX wants.
        let mut sorted: Vec<&Vec<u8>> = patterns.iter().collect();
        sorted.sort_by_key(|p| std::cmp::Reverse(p.len()));
        parts.extend(sorted.into_iter().map(|p| (posix::literal(p), Vec::new())));
    }
    for pat in patterns {
        match syntax {
            'F' => {}
            'P' => parts.push((String::from_utf8_lossy(pat).into_owned(), Vec::new())),
            _ => match posix::translate(pat, &opts) {
                Ok(t) => {
                    for w in &t.warnings {
                        ctx.error("grep", w);
                    }
                    parts.push((t.pattern, t.alts));
                }
                Err(e) => {
                    ctx.error("grep", e.message());
                    failed = true;
                }
            },
        }
    }
    if failed {
        return None;
    }
    let empty = parts.is_empty();
    let (alt, alts) = if parts.len() == 1 {
        parts.pop().unwrap_or_default()
    } else if empty {
        ("[a&&b]".to_string(), Vec::new())
    } else {
        // `(?:p1)|(?:p2)|...`: a top-level alternation of its own.
        let mut joined = String::new();
        let mut alts = Vec::new();
        let mut top = Vec::new();
        for (k, (p, inner)) in parts.iter().enumerate() {
            if k > 0 {
                joined.push('|');
            }
            let at = joined.len();
            joined.push_str("(?:");
            let base = joined.len();
            joined.push_str(p);
            joined.push(')');
            top.push((at, joined.len()));
            alts.extend(
                inner.iter().map(|a| a.iter().map(|&(x, y)| (x + base, y + base)).collect::<Vec<_>>()),
            );
        }
        alts.push(top);
        (joined, alts)
    };
    let flags = posix::flags(&opts);
    let body = match anchor {
        Anchor::None => alt.clone(),
        Anchor::Line => format!("^(?:{alt})$"),
        Anchor::Word => format!("(?:^|[^\\w\\n])({alt})(?:[^\\w\\n]|$)"),
    };
    let full = format!("{flags}{body}");
    match posix::build(&full) {
        Ok(re) => {
            let longest = if longest && anchor == Anchor::None && !matches!(syntax, 'F' | 'P') {
                posix::Longest::new(&alt, &alts, &flags, 0)
            } else {
                None
            };
            Some(Matcher { re, anchor, per_line: syntax == 'P', empty, longest, fold })
        }
        Err(e) => {
            if syntax == 'P' {
                let detail = match &e {
                    posix::RxError::Invalid(m) => {
                        let last = m.lines().last().unwrap_or_default().trim();
                        let last = last.strip_suffix(')').unwrap_or(last);
                        last.strip_prefix("error: ").unwrap_or(last).to_string()
                    }
                    posix::RxError::Backref => String::new(),
                };
                ctx.error(
                    "grep",
                    format!("-P supports the Rust regex syntax only (no look-around, \\K or back-references): {detail}"),
                );
            } else {
                ctx.error("grep", e.message());
            }
            None
        }
    }
}

fn join_path(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// GNU's `--include`/`--exclude` test: the glob matches the whole name or a
/// suffix that starts right after a `/`.
fn glob_matches(glob: &str, path: &str) -> bool {
    if fnmatch(glob, path) {
        return true;
    }
    path.char_indices().filter(|&(_, c)| c == '/').any(|(k, _)| fnmatch(glob, &path[k + 1..]))
}

impl Grep<'_> {
    fn flush(&mut self, ctx: &mut Ctx) {
        if !self.out.is_empty() && !self.closed && ctx.out(&self.out).is_err() {
            self.closed = true;
        }
        self.out.clear();
    }

    fn maybe_flush(&mut self, ctx: &mut Ctx) {
        if self.out.len() >= 64 * 1024 {
            self.flush(ctx);
        }
    }

    fn file_skipped(&self, path: &str) -> bool {
        let c = self.cfg;
        if c.excludes.iter().any(|g| glob_matches(g, path)) {
            return true;
        }
        !c.includes.is_empty() && !c.includes.iter().any(|g| glob_matches(g, path))
    }

    fn complain(&mut self, ctx: &mut Ctx, path: &str, err: &crate::system::FsError) {
        self.error = true;
        if !self.cfg.no_messages {
            self.flush(ctx);
            ctx.file_error("grep", path, err);
        }
    }

    fn operand(&mut self, ctx: &mut Ctx, op: &str) {
        if op == "-" {
            let data = ctx.stdin_all();
            let name = self.cfg.label.clone();
            self.name_on = self.cfg.with_name.unwrap_or(self.cfg.multi);
            self.search(ctx, &name, &data);
            return;
        }
        match ctx.sys().stat(op) {
            Err(e) => self.complain(ctx, op, &e),
            Ok(meta) if meta.kind == Kind::Dir => {
                if self.cfg.skip_dirs {
                    return;
                }
                if self.cfg.recursive {
                    if self.cfg.exclude_dirs.iter().any(|g| glob_matches(g, op)) {
                        return;
                    }
                    self.walk(ctx, op, op);
                } else {
                    self.error = true;
                    if !self.cfg.no_messages {
                        self.flush(ctx);
                        ctx.error("grep", format!("{op}: Is a directory"));
                    }
                }
            }
            Ok(_) => {
                if self.file_skipped(op) {
                    return;
                }
                self.name_on = self.cfg.with_name.unwrap_or(self.cfg.multi);
                self.file(ctx, op, op);
            }
        }
    }

    fn file(&mut self, ctx: &mut Ctx, path: &str, shown: &str) {
        match ctx.sys().read(path) {
            Ok(data) => self.search(ctx, shown, &data),
            Err(e) => self.complain(ctx, shown, &e),
        }
    }

    /// Searches the directory `path`, naming its files under `shown`.
    fn walk(&mut self, ctx: &mut Ctx, path: &str, shown: &str) {
        let entries = match ctx.sys().readdir(path) {
            Ok(e) => e,
            Err(e) => {
                self.complain(ctx, if shown.is_empty() { "." } else { shown }, &e);
                return;
            }
        };
        for entry in entries {
            if self.done || self.closed || ctx.interrupted() {
                return;
            }
            let child = join_path(path, &entry.name);
            let child_shown = join_path(shown, &entry.name);
            match entry.kind {
                Kind::Dir => {
                    if self.cfg.exclude_dirs.iter().any(|g| glob_matches(g, &entry.name)) {
                        continue;
                    }
                    self.walk(ctx, &child, &child_shown);
                }
                Kind::File => {
                    if self.file_skipped(&child_shown) {
                        continue;
                    }
                    self.name_on = self.cfg.with_name.unwrap_or(true);
                    self.file(ctx, &child, &child_shown);
                }
            }
        }
    }

    fn name_prefix(&mut self, name: &str, sep: u8) {
        if !self.name_on {
            return;
        }
        if self.cfg.color {
            self.out.extend_from_slice(C_FILE);
            self.out.extend_from_slice(name.as_bytes());
            self.out.extend_from_slice(C_END);
        } else {
            self.out.extend_from_slice(name.as_bytes());
        }
        if self.cfg.null {
            self.out.push(0);
        } else {
            self.sep(sep);
        }
    }

    fn sep(&mut self, sep: u8) {
        if self.cfg.color {
            self.out.extend_from_slice(C_SEP);
            self.out.push(sep);
            self.out.extend_from_slice(C_END);
        } else {
            self.out.push(sep);
        }
    }

    fn number(&mut self, n: usize, sep: u8, color: &[u8]) {
        if self.cfg.color {
            self.out.extend_from_slice(color);
            self.out.extend_from_slice(n.to_string().as_bytes());
            self.out.extend_from_slice(C_END);
        } else {
            self.out.extend_from_slice(n.to_string().as_bytes());
        }
        self.sep(sep);
    }

    /// Prints one line (selected: `sep` is `:`, context: `-`).
    /// `buf` is what was searched, `text` what is printed (they differ
    /// only by case folding and NUL bytes, never by position).
    fn print_line(
        &mut self,
        name: &str,
        (buf, text): (&[u8], &[u8]),
        ls: usize,
        le: usize,
        lineno: usize,
        sep: u8,
    ) {
        self.name_prefix(name, sep);
        if self.cfg.line_numbers {
            self.number(lineno, sep, C_LINENO);
        }
        if self.cfg.byte_offset {
            self.number(ls, sep, C_LINENO);
        }
        if self.cfg.color && sep == b':' && !self.cfg.invert {
            self.m.matches_in_line(buf, ls, le, &mut self.locs, &mut self.spans);
            let mut at = ls;
            let spans = std::mem::take(&mut self.spans);
            for &(s, e) in &spans {
                if e <= s || s < at {
                    continue;
                }
                self.out.extend_from_slice(&text[at..s]);
                self.out.extend_from_slice(C_MATCH);
                self.out.extend_from_slice(&text[s..e.min(le)]);
                self.out.extend_from_slice(C_END);
                at = e.min(le);
            }
            self.spans = spans;
            self.out.extend_from_slice(&text[at..le]);
        } else {
            self.out.extend_from_slice(&text[ls..le]);
        }
        self.out.push(b'\n');
    }

    fn group_separator(&mut self) {
        if let Some(sep) = &self.cfg.group_sep {
            if self.cfg.color {
                self.out.extend_from_slice(C_SEP);
                self.out.extend_from_slice(sep);
                self.out.extend_from_slice(C_END);
            } else {
                self.out.extend_from_slice(sep);
            }
            self.out.push(b'\n');
        }
    }

    /// Searches one file's contents.
    fn search(&mut self, ctx: &mut Ctx, name: &str, data: &[u8]) {
        let binary = !self.cfg.text && data.contains(&0);
        let fold = self.m.fold;
        let converted;
        let buf: &[u8] = if binary || fold {
            // GNU treats NUL bytes of a binary file as line ends; `fold`
            // matches literal patterns against lower-cased text.
            converted = data
                .iter()
                .map(|&b| {
                    if b == 0 && binary {
                        b'\n'
                    } else if fold {
                        b.to_ascii_lowercase()
                    } else {
                        b
                    }
                })
                .collect::<Vec<u8>>();
            &converted
        } else {
            data
        };
        let cfg = self.cfg;
        if binary && cfg.skip_binary {
            match cfg.mode {
                Mode::Count => {
                    self.name_prefix(name, b':');
                    self.out.extend_from_slice(b"0\n");
                }
                Mode::FilesWithout => self.name_only(name),
                _ => {}
            }
            return;
        }
        let mut scan = Scan { m: self.m, buf, pos: 0, next: None, invert: cfg.invert, fetched: false };
        let mut count: u64 = 0;
        // Line-number cursor.
        let (mut cpos, mut cline) = (0usize, 1usize);
        let mut lineno_at = |pos: usize| -> usize {
            if pos >= cpos {
                cline += count_byte(b'\n', &buf[cpos..pos]);
            } else {
                cline -= count_byte(b'\n', &buf[pos..cpos]);
            }
            cpos = pos;
            cline
        };
        // Context state.
        let context = cfg.mode == Mode::Lines && !cfg.only && cfg.context;
        let mut last_end = 0usize;
        let mut first_group = true;
        let mut after_left = 0usize;

        while let Some((ls, le)) = scan.next() {
            count += 1;
            self.matched = true;
            match cfg.mode {
                Mode::Quiet => {
                    self.done = true;
                    return;
                }
                Mode::FilesWith => {
                    self.name_only(name);
                    self.maybe_flush(ctx);
                    return;
                }
                Mode::FilesWithout => return,
                Mode::Count => {}
                Mode::Lines => {
                    if binary {
                        self.flush(ctx);
                        ctx.error("grep", format!("{name}: binary file matches"));
                        return;
                    }
                    if cfg.only {
                        if !cfg.invert {
                            let lineno = if cfg.line_numbers { lineno_at(ls) } else { 0 };
                            self.print_only(name, buf, data, ls, le, lineno);
                        }
                    } else if context {
                        // Trailing context of the previous line.
                        while after_left > 0 && last_end < ls {
                            let e = line_end(buf, last_end);
                            let n = if cfg.line_numbers { lineno_at(last_end) } else { 0 };
                            self.print_line(name, (buf, data), last_end, e, n, b'-');
                            last_end = e + 1;
                            after_left -= 1;
                        }
                        // Leading context.
                        let mut b = ls;
                        for _ in 0..cfg.before {
                            if b <= last_end {
                                break;
                            }
                            b = match buf[last_end..b - 1].iter().rposition(|&x| x == b'\n') {
                                Some(k) => last_end + k + 1,
                                None => last_end,
                            };
                        }
                        if self.printed_any && (first_group || b > last_end) {
                            self.group_separator();
                        }
                        first_group = false;
                        while b < ls {
                            let e = line_end(buf, b);
                            let n = if cfg.line_numbers { lineno_at(b) } else { 0 };
                            self.print_line(name, (buf, data), b, e, n, b'-');
                            b = e + 1;
                        }
                        let n = if cfg.line_numbers { lineno_at(ls) } else { 0 };
                        self.print_line(name, (buf, data), ls, le, n, b':');
                        self.printed_any = true;
                        last_end = le + 1;
                        after_left = cfg.after;
                    } else {
                        let n = if cfg.line_numbers { lineno_at(ls) } else { 0 };
                        self.print_line(name, (buf, data), ls, le, n, b':');
                    }
                    self.maybe_flush(ctx);
                    if self.closed {
                        return;
                    }
                }
            }
            if cfg.max.is_some_and(|m| count >= m) {
                break;
            }
        }
        if context {
            while after_left > 0 && last_end < buf.len() {
                let e = line_end(buf, last_end);
                let n = if cfg.line_numbers { lineno_at(last_end) } else { 0 };
                self.print_line(name, (buf, data), last_end, e, n, b'-');
                last_end = e + 1;
                after_left -= 1;
            }
        }
        match cfg.mode {
            Mode::Count => {
                self.name_prefix(name, b':');
                self.out.extend_from_slice(count.to_string().as_bytes());
                self.out.push(b'\n');
            }
            Mode::FilesWithout if count == 0 => self.name_only(name),
            _ => {}
        }
        self.maybe_flush(ctx);
    }

    fn name_only(&mut self, name: &str) {
        if self.cfg.color {
            self.out.extend_from_slice(C_FILE);
            self.out.extend_from_slice(name.as_bytes());
            self.out.extend_from_slice(C_END);
        } else {
            self.out.extend_from_slice(name.as_bytes());
        }
        self.out.push(if self.cfg.null { 0 } else { b'\n' });
    }

    fn print_only(&mut self, name: &str, buf: &[u8], text: &[u8], ls: usize, le: usize, lineno: usize) {
        self.m.matches_in_line(buf, ls, le, &mut self.locs, &mut self.spans);
        let spans = std::mem::take(&mut self.spans);
        for &(s, e) in &spans {
            let e = e.min(le);
            if e <= s {
                continue;
            }
            self.name_prefix(name, b':');
            if self.cfg.line_numbers {
                self.number(lineno, b':', C_LINENO);
            }
            if self.cfg.byte_offset {
                self.number(s, b':', C_LINENO);
            }
            if self.cfg.color {
                self.out.extend_from_slice(C_MATCH);
                self.out.extend_from_slice(&text[s..e]);
                self.out.extend_from_slice(C_END);
            } else {
                self.out.extend_from_slice(&text[s..e]);
            }
            self.out.push(b'\n');
        }
        self.spans = spans;
    }
}

/// The selected lines of a buffer, in order.
struct Scan<'a> {
    m: &'a Matcher,
    buf: &'a [u8],
    /// Start of the next line to consider.
    pos: usize,
    /// The next matching line at or after `pos` (for `-v`).
    next: Option<(usize, usize)>,
    fetched: bool,
    invert: bool,
}

impl Scan<'_> {
    fn next(&mut self) -> Option<(usize, usize)> {
        let buf = self.buf;
        if !self.invert {
            let (ls, le) = self.m.find_line(buf, self.pos)?;
            self.pos = le + 1;
            return Some((ls, le));
        }
        loop {
            if self.pos >= buf.len() {
                return None;
            }
            if !self.fetched || self.next.is_some_and(|(ls, _)| ls < self.pos) {
                self.next = self.m.find_line(buf, self.pos);
                self.fetched = true;
            }
            match self.next {
                Some((ls, le)) if ls == self.pos => {
                    self.pos = le + 1;
                    self.fetched = false;
                }
                _ => {
                    let ls = self.pos;
                    let le = line_end(buf, ls);
                    self.pos = le + 1;
                    return Some((ls, le));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
        Matcher { re, anchor, per_line: false, empty: false, longest: None, fold: false }
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
