//! `xargs`: build and run command lines from standard input, like GNU
//! xargs. Commands are builtins run through the interpreter (shell
//! functions are not visible to xargs, as with a real xargs); commands run
//! one after the other (`-P` is accepted and ignored).

use super::args::{self, HasArg, Spec};
use super::{runnable, usage_error, Builtin};
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "xargs",
    run,
    help: "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\n\
Run COMMAND with arguments INITIAL-ARGS and more arguments read from input\n\
(default command: echo).\n\
\n\
  -0, --null                   items are separated by a null, not whitespace;\n\
                               disables quote and backslash processing\n\
  -a, --arg-file=FILE          read arguments from FILE, not standard input\n\
  -d, --delimiter=CHARACTER    items in input stream are separated by CHARACTER\n\
  -E END                       set logical EOF string\n\
  -e, --eof[=END]              equivalent to -E END if END is specified\n\
  -I R                         replace R in INITIAL-ARGS with names read from\n\
                               standard input, one per line\n\
  -i, --replace[=R]            same as -I R; R defaults to {}\n\
  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank input lines per\n\
                               command line\n\
  -l[MAX-LINES]                similar to -L but defaults to at most one\n\
  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per command line\n\
  -P, --max-procs=MAX-PROCS    accepted; commands always run one at a time\n\
  -r, --no-run-if-empty        if there are no arguments, then do not run COMMAND\n\
  -s, --max-chars=MAX-CHARS    limit length of command line to MAX-CHARS\n\
  -t, --verbose                print commands before executing them\n\
  -x, --exit                   exit if the size (see -s) is exceeded\n\
\n\
Not supported: -p/--interactive, -o/--open-tty, --process-slot-var, --show-limits.\n\
\n\
Exit status: 123 if any invocation exited with status 1-125, 124 if one exited\n\
with 255, 127 if COMMAND was not found, 1 for other errors.\n",
    help_flag: true,
};

/// The most bytes of one command line (GNU's usual buffer, less room for
/// the environment).
const DEFAULT_MAX_CHARS: usize = 131_072 - 2048;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Blank-separated items with quotes and backslashes.
    Words,
    /// Items end at this byte, taken literally.
    Delim(u8),
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "0a:d:E:I:L:n:P:rs:tx",
        long: &[
            ("null", '0', HasArg::No),
            ("arg-file", 'a', HasArg::Yes),
            ("delimiter", 'd', HasArg::Yes),
            ("max-lines", 'L', HasArg::Yes),
            ("max-args", 'n', HasArg::Yes),
            ("max-procs", 'P', HasArg::Yes),
            ("no-run-if-empty", 'r', HasArg::No),
            ("max-chars", 's', HasArg::Yes),
            ("verbose", 't', HasArg::No),
            ("exit", 'x', HasArg::No),
        ],
        stop_at_operand: true,
    };
    // Options whose value is optional (-i[R], -e[END], -l[N], --replace[=R],
    // --eof[=END]) are rewritten into their mandatory-value forms first.
    let mut rewritten: Vec<String> = Vec::with_capacity(args.len());
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" || !a.starts_with('-') || a == "-" {
            rewritten.extend(args[i - 1..].iter().cloned());
            break;
        }
        if let Some(v) = a.strip_prefix("--replace") {
            rewritten.push("-I".into());
            rewritten.push(v.strip_prefix('=').unwrap_or("{}").to_string());
        } else if let Some(v) = a.strip_prefix("--eof") {
            if let Some(v) = v.strip_prefix('=') {
                rewritten.push("-E".into());
                rewritten.push(v.to_string());
            }
        } else if let Some(v) = a.strip_prefix("-i") {
            rewritten.push("-I".into());
            rewritten.push(if v.is_empty() { "{}".into() } else { v.to_string() });
        } else if let Some(v) = a.strip_prefix("-e") {
            if !v.is_empty() {
                rewritten.push("-E".into());
                rewritten.push(v.to_string());
            }
        } else if let Some(v) = a.strip_prefix("-l") {
            rewritten.push("-L".into());
            rewritten.push(if v.is_empty() { "1".into() } else { v.to_string() });
        } else {
            rewritten.push(a.clone());
            // Keep a separate value of a value-taking short option with it.
            let takes = a.len() == 2
                && matches!(a.as_bytes()[1], b'a' | b'd' | b'E' | b'I' | b'L' | b'n' | b'P' | b's');
            let long_takes = a.starts_with("--")
                && !a.contains('=')
                && ["--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars"]
                    .iter()
                    .any(|l| l.starts_with(a.as_str()) && a.len() > 3);
            if takes || long_takes {
                if let Some(v) = args.get(i) {
                    rewritten.push(v.clone());
                    i += 1;
                }
            }
        }
    }
    let parsed = match args::parse("xargs", &rewritten, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx, &msg);
            return 1;
        }
    };
    let mut mode = Mode::Words;
    let mut replace: Option<String> = None;
    let mut max_args: Option<usize> = None;
    let mut max_lines: Option<usize> = None;
    let mut max_chars = DEFAULT_MAX_CHARS;
    let mut eof: Option<String> = None;
    let mut arg_file: Option<String> = None;
    for (c, v) in &parsed.opts {
        let v = v.clone().unwrap_or_default();
        match c {
            '0' => mode = Mode::Delim(0),
            'd' => match parse_delim(&v) {
                Some(b) => mode = Mode::Delim(b),
                None => {
                    ctx.err(format!(
                        "xargs: invalid input delimiter specification {v}: the delimiter must be either a single character or an escape sequence starting with \\.\n"
                    ));
                    return 1;
                }
            },
            'E' => eof = if v.is_empty() { None } else { Some(v) },
            'I' => {
                replace = Some(v);
                max_args = None;
                max_lines = None;
            }
            'L' | 'n' | 's' | 'P' => {
                let opt = match c {
                    'L' => "-L",
                    'n' => "-n",
                    's' => "-s",
                    _ => "-P",
                };
                let n = match v.trim().parse::<usize>() {
                    Ok(n) => n,
                    Err(_) => {
                        ctx.err(format!("xargs: invalid number \"{v}\" for {opt} option\nTry 'xargs --help' for more information.\n"));
                        return 1;
                    }
                };
                if n == 0 && *c != 'P' {
                    ctx.err(format!(
                        "xargs: value {v} for {opt} option should be >= 1\nTry 'xargs --help' for more information.\n"
                    ));
                    return 1;
                }
                match c {
                    'L' => {
                        max_lines = Some(n);
                        max_args = None;
                        replace = None;
                    }
                    'n' => {
                        max_args = Some(n);
                        max_lines = None;
                    }
                    's' => max_chars = n,
                    _ => {}
                }
            }
            'a' => arg_file = Some(v),
            _ => {}
        }
    }
    let no_run_if_empty = parsed.has('r');
    let verbose = parsed.has('t');
    let exit_on_size = parsed.has('x');
    let command: Vec<String> =
        if parsed.operands.is_empty() { vec!["echo".to_string()] } else { parsed.operands.clone() };

    let (input, from_stdin) = match &arg_file {
        Some(path) => match ctx.read_input(path) {
            Ok(d) => (d, path == "-"),
            Err(e) => {
                ctx.err(format!("xargs: {path}: {}\n", e.describe()));
                return 1;
            }
        },
        None => (ctx.stdin_all(), true),
    };

    // Split the input into items, grouped by line for -L and -I.
    let (lines, input_error) = match mode {
        Mode::Delim(d) => (split_delim(&input, d), None),
        Mode::Words => split_words(&input, replace.is_some(), eof.as_deref()),
    };

    let cmd_name = command[0].clone();
    let mut x = Runner { verbose, from_stdin, any_failed: false, cmd_name };
    let command_len: usize = command.iter().map(|a| a.len() + 1).sum();
    let mut status = 0;
    let mut ran = false;

    if let Some(r) = &replace {
        for line in &lines {
            let item: String = line.join(" ");
            let argv: Vec<String> = command.iter().map(|a| a.replace(r.as_str(), &item)).collect();
            if let Some(s) = x.exec(ctx, &argv) {
                return s;
            }
        }
    } else {
        let mut batch: Vec<String> = Vec::new();
        let mut batch_len = command_len;
        let mut batch_lines = 0usize;
        let flush = |ctx: &mut Ctx, x: &mut Runner, batch: &mut Vec<String>| -> Option<i32> {
            let mut argv = command.clone();
            argv.append(batch);
            x.exec(ctx, &argv)
        };
        for line in &lines {
            for item in line {
                let len = item.len() + 1;
                if command_len + len > max_chars {
                    if !batch.is_empty() {
                        if let Some(s) = flush(ctx, &mut x, &mut batch) {
                            return s;
                        }
                    }
                    ctx.err("xargs: argument line too long\n");
                    return 1;
                }
                if !batch.is_empty() && batch_len + len > max_chars {
                    if exit_on_size {
                        ctx.err("xargs: argument list too long\n");
                        return 1;
                    }
                    ran = true;
                    if let Some(s) = flush(ctx, &mut x, &mut batch) {
                        return s;
                    }
                    batch_len = command_len;
                    batch_lines = 0;
                }
                batch.push(item.clone());
                batch_len += len;
                if max_args.is_some_and(|n| batch.len() >= n) {
                    ran = true;
                    if let Some(s) = flush(ctx, &mut x, &mut batch) {
                        return s;
                    }
                    batch_len = command_len;
                    batch_lines = 0;
                }
            }
            if max_lines.is_some() && !line.is_empty() {
                batch_lines += 1;
                if max_lines.is_some_and(|n| batch_lines >= n) && !batch.is_empty() {
                    ran = true;
                    if let Some(s) = flush(ctx, &mut x, &mut batch) {
                        return s;
                    }
                    batch_len = command_len;
                    batch_lines = 0;
                }
            }
        }
        if !batch.is_empty() || (!ran && !no_run_if_empty) {
            if let Some(s) = flush(ctx, &mut x, &mut batch) {
                return s;
            }
        }
    }
    if let Some(msg) = input_error {
        ctx.err(format!("xargs: {msg}\n"));
        status = 1;
    }
    if x.any_failed {
        status = 123;
    }
    status
}

struct Runner {
    verbose: bool,
    from_stdin: bool,
    any_failed: bool,
    cmd_name: String,
}

impl Runner {
    /// Runs one command line. `Some(status)`: xargs must stop with it.
    fn exec(&mut self, ctx: &mut Ctx, argv: &[String]) -> Option<i32> {
        if ctx.interrupted() {
            return Some(1);
        }
        if self.verbose {
            let line: Vec<String> = argv.iter().map(|a| shell_quote(a)).collect();
            ctx.err(format!("{}\n", line.join(" ")));
        }
        if !runnable(&self.cmd_name) {
            ctx.err(format!("xargs: {}: No such file or directory\n", self.cmd_name));
            return Some(127);
        }
        // The command's input is empty when xargs itself read standard input.
        let stdin = if self.from_stdin { Some(Vec::new()) } else { None };
        let status = ctx.exec(argv, stdin);
        match status {
            0 => None,
            255 => {
                ctx.err(format!("xargs: {}: exited with status 255; aborting\n", self.cmd_name));
                Some(124)
            }
            1..=125 => {
                self.any_failed = true;
                None
            }
            s => Some(s),
        }
    }
}

/// How GNU xargs -t shows an argument: bare when safe, else in quotes.
fn shell_quote(a: &str) -> String {
    if !a.is_empty() && a.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-./,:=+@%^".contains(&b)) {
        return a.to_string();
    }
    if !a.contains('\'') {
        return format!("'{a}'");
    }
    if !a.contains(['"', '$', '`', '\\']) {
        return format!("\"{a}\"");
    }
    format!("'{}'", a.replace('\'', "'\\''"))
}

/// The byte a `-d` argument names: one character or an escape.
fn parse_delim(v: &str) -> Option<u8> {
    let b = v.as_bytes();
    match b {
        [c] => Some(*c),
        [b'\\', rest @ ..] => match rest {
            [b'n'] => Some(b'\n'),
            [b't'] => Some(b'\t'),
            [b'r'] => Some(b'\r'),
            [b'a'] => Some(7),
            [b'b'] => Some(8),
            [b'f'] => Some(12),
            [b'v'] => Some(11),
            [b'\\'] => Some(b'\\'),
            [b'x', hex @ ..] if !hex.is_empty() => {
                u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
            }
            oct if !oct.is_empty() && oct.iter().all(|c| (b'0'..=b'7').contains(c)) => {
                u32::from_str_radix(std::str::from_utf8(oct).ok()?, 8).ok().and_then(|n| u8::try_from(n).ok())
            }
            _ => None,
        },
        _ => None,
    }
}

/// `-0` / `-d`: every item literally; a final delimiter ends the last one.
fn split_delim(input: &[u8], d: u8) -> Vec<Vec<String>> {
    if input.is_empty() {
        return Vec::new();
    }
    let body = input.strip_suffix(&[d]).unwrap_or(input);
    body.split(|&b| b == d).map(|item| vec![String::from_utf8_lossy(item).into_owned()]).collect()
}

/// The default input syntax: items separated by blanks and newlines, with
/// `'…'`, `"…"` and backslash quoting. Returns the items line by line, and
/// an error message when a quote is left open. With `whole_lines` (for
/// `-I`) each line is one item: leading blanks dropped, inner ones kept.
fn split_words(input: &[u8], whole_lines: bool, eof: Option<&str>) -> (Vec<Vec<String>>, Option<String>) {
    let mut lines: Vec<Vec<String>> = Vec::new();
    let mut line: Vec<String> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut have = false;
    let mut i = 0;
    let mut error = None;
    let finish_item = |cur: &mut Vec<u8>, have: &mut bool, line: &mut Vec<String>| -> bool {
        if !*have {
            return false;
        }
        let item = String::from_utf8_lossy(cur).into_owned();
        cur.clear();
        *have = false;
        if eof.is_some_and(|e| e == item) {
            return true;
        }
        line.push(item);
        false
    };
    'outer: while i < input.len() {
        let c = input[i];
        i += 1;
        match c {
            b'\n' => {
                if whole_lines {
                    // Trailing blanks stay in the item; an empty line is skipped.
                    if finish_item(&mut cur, &mut have, &mut line) {
                        break 'outer;
                    }
                } else if finish_item(&mut cur, &mut have, &mut line) {
                    break 'outer;
                }
                // A line ending in a blank continues on the next one (-L).
                let continued =
                    !whole_lines && i >= 2 && matches!(input[i - 2], b' ' | b'\t') && !line.is_empty();
                if !continued && !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
            }
            b' ' | b'\t' if !(whole_lines && have) => {
                if !whole_lines && finish_item(&mut cur, &mut have, &mut line) {
                    break 'outer;
                }
            }
            b'\'' | b'"' => {
                have = true;
                loop {
                    let Some(&q) = input.get(i) else {
                        error = Some(unmatched(c));
                        break 'outer;
                    };
                    i += 1;
                    if q == c {
                        break;
                    }
                    if q == b'\n' {
                        error = Some(unmatched(c));
                        break 'outer;
                    }
                    cur.push(q);
                }
            }
            b'\\' => {
                have = true;
                if let Some(&n) = input.get(i) {
                    cur.push(n);
                    i += 1;
                }
            }
            _ => {
                have = true;
                cur.push(c);
            }
        }
    }
    if error.is_none() {
        finish_item(&mut cur, &mut have, &mut line);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    (lines, error)
}

fn unmatched(q: u8) -> String {
    let which = if q == b'\'' { "single" } else { "double" };
    format!("unmatched {which} quote; by default quotes are special to xargs unless you use the -0 option")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Vec<String>> {
        split_words(s.as_bytes(), false, None).0
    }

    #[test]
    fn quoting_like_gnu() {
        assert_eq!(words("a b\nc\n"), vec![vec!["a", "b"], vec!["c"]]);
        assert_eq!(words("'a b' \"c\"d e\\ f\n"), vec![vec!["a b", "cd", "e f"]]);
        assert_eq!(words("'' x"), vec![vec!["", "x"]]);
        let (items, err) = split_words(b"a \"b\n", false, None);
        assert_eq!(items, vec![vec!["a"]]);
        assert!(err.is_some());
    }

    #[test]
    fn whole_lines_keep_inner_blanks() {
        let (items, _) = split_words(b"  a  \n\n  \n\"b c\"  d\n", true, None);
        assert_eq!(items, vec![vec!["a  "], vec!["b c  d"]]);
    }

    #[test]
    fn delimiters() {
        assert_eq!(parse_delim("\\n"), Some(b'\n'));
        assert_eq!(parse_delim(","), Some(b','));
        assert_eq!(parse_delim("\\x41"), Some(b'A'));
        assert_eq!(parse_delim("\\0"), Some(0));
        assert_eq!(parse_delim("ab"), None);
        assert_eq!(split_delim(b"a\0\0b\0", 0), vec![vec!["a"], vec![""], vec!["b"]]);
    }

    #[test]
    fn eof_string_stops_input() {
        let (items, _) = split_words(b"a\nb\nc\n", false, Some("b"));
        assert_eq!(items, vec![vec!["a"]]);
    }
}
