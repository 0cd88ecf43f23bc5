//! `sed`: GNU sed over the sandbox's files (C locale, bytes).
//!
//! Scripts come from `-e`, `-f` or the first operand. Regular expressions
//! are POSIX basic (default) or extended (`-E`/`-r`), translated to the
//! `regex` crate by `common/posix_regex.rs`; back-references inside a regular
//! expression (`/\(a\)\1/`) are not supported (an error, status 1), while
//! `\1`..`\9` in a replacement are.
//!
//! Commands: `s y d D p P n N g G h H x b t T : { } ! = l q Q a i c r R w W
//! z F #` and `v`; not `e` (no processes in the sandbox).
//!
//! Options and files here; the program's types in `program`, compiling in
//! `compile` (with `scan` for the pieces of a command), the input stream in
//! `input`, running in `exec`.

use std::collections::HashMap;

use super::args;
use super::common::bytes::memchr;
use super::common::posix_regex::{self as posix, Dialect, Options as RxOptions, Syntax};
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::{FsError, Kind, WriteMode};
use regex::bytes::{CaptureLocations, Regex};

mod compile;
mod exec;
mod input;
mod program;
mod scan;

use compile::*;
use exec::*;
use input::*;
use program::*;
use scan::*;

pub const BUILTIN: Builtin = Builtin { name: "sed", run, help: HELP, help_flag: true };

const HELP: &str = "\
Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
  -s, --separate
                 consider files as separate rather than as a single
                 continuous long stream.
  -u, --unbuffered
                 accepted (output is not buffered differently)
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

Not supported: --debug, --posix, --sandbox, the `e' command and the `e'
flag of `s', and back-references inside regular expressions.
";

// ---------------------------------------------------------------------------
// Options

enum Source {
    Expr(usize),
    File(String),
}

struct Piece {
    src: Source,
    text: Vec<u8>,
}

struct Opts {
    quiet: bool,
    extended: bool,
    separate: bool,
    in_place: Option<String>,
    line_len: usize,
    null_data: bool,
    pieces: Vec<Piece>,
    operands: Vec<String>,
}

fn bad_usage(ctx: &mut Ctx, msg: &str) -> i32 {
    ctx.error("sed", msg);
    ctx.err(HELP);
    1
}

/// Parses the command line (GNU getopt rules, with `-i`'s optional suffix).
/// `Err(status)` after printing a message.
fn parse_args(ctx: &mut Ctx, args: &[String]) -> Result<Opts, i32> {
    let mut o = Opts {
        quiet: false,
        extended: false,
        separate: false,
        in_place: None,
        line_len: 70,
        null_data: false,
        pieces: Vec::new(),
        operands: Vec::new(),
    };
    let mut exprs = 0;
    let mut i = 0;
    const LONG: &[&str] = &[
        "expression",
        "file",
        "quiet",
        "silent",
        "regexp-extended",
        "separate",
        "in-place",
        "line-length",
        "null-data",
        "zero-terminated",
        "unbuffered",
        "follow-symlinks",
        "help",
    ];
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            o.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (key, inline) = args::split_long(long);
            let name = match args::match_long(LONG, key, |n| *n).as_slice() {
                [one] => **one,
                [] => return Err(bad_usage(ctx, &format!("unrecognized option '{arg}'"))),
                _ => return Err(bad_usage(ctx, &format!("option '{arg}' is ambiguous"))),
            };
            let needs = matches!(name, "expression" | "file" | "line-length");
            let value = if needs {
                let Some(value) = args::required_value(inline, args, &mut i) else {
                    return Err(bad_usage(ctx, &format!("option '--{name}' requires an argument")));
                };
                Some(value)
            } else {
                if inline.is_some() && name != "in-place" {
                    return Err(bad_usage(ctx, &format!("option '--{name}' doesn't allow an argument")));
                }
                inline
            };
            match name {
                "expression" => {
                    exprs += 1;
                    o.pieces.push(Piece {
                        src: Source::Expr(exprs),
                        text: value.unwrap_or_default().into_bytes(),
                    });
                }
                "file" => o.pieces.push(script_file(ctx, &value.unwrap_or_default())?),
                "quiet" | "silent" => o.quiet = true,
                "regexp-extended" => o.extended = true,
                "separate" => o.separate = true,
                "in-place" => o.in_place = Some(value.unwrap_or_default()),
                "line-length" => o.line_len = line_length(ctx, &value.unwrap_or_default())?,
                "null-data" | "zero-terminated" => o.null_data = true,
                "help" => {
                    let _ = ctx.out(HELP);
                    return Err(0);
                }
                _ => {}
            }
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            let bytes = arg.as_bytes();
            let mut k = 1;
            while k < bytes.len() {
                let c = bytes[k];
                k += 1;
                match c {
                    b'n' => o.quiet = true,
                    b'r' | b'E' => o.extended = true,
                    b's' => o.separate = true,
                    b'u' => {}
                    b'z' => o.null_data = true,
                    b'i' => {
                        o.in_place = Some(arg[k..].to_string());
                        break;
                    }
                    b'e' | b'f' | b'l' => {
                        let attached = (k < bytes.len()).then(|| arg[k..].to_string());
                        let Some(value) = args::required_value(attached, args, &mut i) else {
                            return Err(bad_usage(
                                ctx,
                                &format!("option requires an argument -- '{}'", c as char),
                            ));
                        };
                        match c {
                            b'e' => {
                                exprs += 1;
                                o.pieces.push(Piece { src: Source::Expr(exprs), text: value.into_bytes() });
                            }
                            b'f' => o.pieces.push(script_file(ctx, &value)?),
                            _ => o.line_len = line_length(ctx, &value)?,
                        }
                        break;
                    }
                    _ => {
                        let ch = arg[k - 1..].chars().next().unwrap_or('?');
                        return Err(bad_usage(ctx, &format!("invalid option -- '{ch}'")));
                    }
                }
            }
            continue;
        }
        o.operands.push(arg.clone());
    }
    if o.pieces.is_empty() {
        if o.operands.is_empty() {
            ctx.err(HELP);
            return Err(1);
        }
        let script = o.operands.remove(0);
        o.pieces.push(Piece { src: Source::Expr(1), text: script.into_bytes() });
    }
    Ok(o)
}

fn script_file(ctx: &mut Ctx, path: &str) -> Result<Piece, i32> {
    match ctx.read_input(path) {
        Ok(mut text) => {
            if text.last() == Some(&b'\n') {
                text.pop();
            }
            Ok(Piece { src: Source::File(path.to_string()), text })
        }
        Err(e) => {
            ctx.error("sed", format!("couldn't open file {path}: {}", e.describe()));
            Err(4)
        }
    }
}

fn line_length(ctx: &mut Ctx, v: &str) -> Result<usize, i32> {
    match v.trim().parse::<usize>() {
        Ok(n) => Ok(n),
        Err(_) => {
            ctx.error("sed", format!("invalid line length: {v}"));
            Err(1)
        }
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let opts = match parse_args(ctx, args) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let mut quiet = opts.quiet;
    if let Some(first) = opts.pieces.first() {
        let t = &first.text;
        if t.starts_with(b"#n") && (t.len() == 2 || t[2] == b'\n') {
            quiet = true;
        }
    }
    let prog = match compile(&opts.pieces, opts.extended) {
        Ok(p) => p,
        Err(msg) => {
            if let Some(m) = msg.strip_prefix('\u{0}') {
                ctx.error("sed", m);
                return 4;
            }
            ctx.error("sed", msg);
            return 1;
        }
    };
    // `w` files are created (emptied) before anything runs.
    for name in &prog.wfiles {
        if name == "/dev/stdout" || name == "/dev/stderr" {
            continue;
        }
        if let Err(e) = ctx.sys().write(name, b"", WriteMode::Truncate) {
            ctx.error("sed", format!("couldn't open file {name}: {}", e.describe()));
            return 4;
        }
    }
    let mut sed = Sed::new(&prog, &opts);
    sed.quiet = quiet;
    let files = if opts.operands.is_empty() { vec!["-".to_string()] } else { opts.operands.clone() };
    let sep = sed.sep;

    let status = if let Some(suffix) = &opts.in_place {
        in_place(ctx, &mut sed, &files, suffix)
    } else if opts.separate {
        let mut st = None;
        for f in &files {
            let mut input = Input::new(vec![f.clone()], sep);
            sed.lineno = 0;
            if let Some(s) = sed.process(ctx, &mut input) {
                st = Some(s);
                break;
            }
        }
        st
    } else {
        let mut input = Input::new(files, sep);
        sed.process(ctx, &mut input)
    };
    sed.flush(ctx);
    for (k, name) in prog.wfiles.iter().enumerate() {
        if let Some(buf) = sed.wbufs.get(k) {
            if !buf.is_empty() {
                let _ = ctx.sys().write(name, buf, WriteMode::Append);
            }
        }
    }
    status.unwrap_or(sed.quit.unwrap_or(sed.status))
}

fn in_place(ctx: &mut Ctx, sed: &mut Sed, files: &[String], suffix: &str) -> Option<i32> {
    for f in files {
        let meta = ctx.sys().stat(f);
        match meta {
            Err(e) => {
                ctx.error("sed", format!("can't read {f}: {}", e.describe()));
                sed.status = 2;
                continue;
            }
            Ok(m) if m.kind == Kind::Dir || f == "-" => {
                ctx.error("sed", format!("couldn't edit {f}: not a regular file"));
                return Some(4);
            }
            Ok(_) => {}
        }
        let original = match ctx.sys().read(f) {
            Ok(d) => d,
            Err(e) => {
                ctx.error("sed", format!("can't read {f}: {}", e.describe()));
                sed.status = 2;
                continue;
            }
        };
        sed.flush(ctx);
        sed.to_file = true;
        sed.lineno = 0;
        sed.missing_newline = false;
        let mut input = Input::new(vec![f.clone()], sed.sep);
        let stop = sed.process(ctx, &mut input);
        sed.to_file = false;
        let data = std::mem::take(&mut sed.out);
        if !suffix.is_empty() {
            let backup = backup_name(f, suffix);
            if let Err(e) = ctx.sys().write(&backup, &original, WriteMode::Truncate) {
                return Some(write_failed(ctx, &backup, &e));
            }
        }
        if let Err(e) = ctx.sys().write(f, &data, WriteMode::Truncate) {
            return Some(write_failed(ctx, f, &e));
        }
        if stop.is_some() || sed.quit.is_some() {
            return stop;
        }
    }
    None
}

fn write_failed(ctx: &mut Ctx, path: &str, e: &FsError) -> i32 {
    ctx.error("sed", format!("couldn't edit {path}: {}", e.describe()));
    4
}

/// `-i SUFFIX`: a `*` in the suffix stands for the file's base name.
fn backup_name(path: &str, suffix: &str) -> String {
    if !suffix.contains('*') {
        return format!("{path}{suffix}");
    }
    let (dir, base) = match path.rfind('/') {
        Some(k) => (&path[..=k], &path[k + 1..]),
        None => ("", path),
    };
    let name = suffix.replace('*', base);
    if name.contains('/') {
        name
    } else {
        format!("{dir}{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog(script: &str) -> Result<Program, String> {
        compile(&[Piece { src: Source::Expr(1), text: script.as_bytes().to_vec() }], false)
    }

    fn err(script: &str) -> String {
        match prog(script) {
            Ok(_) => String::new(),
            Err(e) => e,
        }
    }

    #[test]
    fn parse_errors_match_gnu() {
        assert_eq!(err("s/a"), "-e expression #1, char 3: unterminated `s' command");
        assert_eq!(err("s/a/b"), "-e expression #1, char 5: unterminated `s' command");
        assert_eq!(err("s/a/b/x"), "-e expression #1, char 7: unknown option to `s'");
        assert_eq!(err("k"), "-e expression #1, char 1: unknown command: `k'");
        assert_eq!(err("/a"), "-e expression #1, char 2: unterminated address regex");
        assert_eq!(err("/a/"), "-e expression #1, char 3: missing command");
        assert_eq!(err("p;}"), "-e expression #1, char 3: unexpected `}'");
        assert_eq!(err("{p"), "-e expression #1, char 0: unmatched `{'");
        assert_eq!(err("s/\\(a/b/"), "-e expression #1, char 8: Unmatched ( or \\(");
        assert_eq!(err("s/a/\\1/"), "-e expression #1, char 7: invalid reference \\1 on `s' command's RHS");
        assert_eq!(err("1,2q"), "-e expression #1, char 4: command only uses one address");
        assert_eq!(err(": "), "-e expression #1, char 2: \":\" lacks a label");
        assert_eq!(err("y/ab/c/"), "-e expression #1, char 7: strings for `y' command are different lengths");
        assert_eq!(err("y/a"), "-e expression #1, char 3: unterminated `y' command");
        assert_eq!(err("s/a/b/0"), "-e expression #1, char 7: number option to `s' command may not be zero");
        assert_eq!(err("s/a/b/gg"), "-e expression #1, char 8: multiple `g' options to `s' command");
        assert_eq!(err("pq"), "-e expression #1, char 2: extra characters after command");
        assert_eq!(err("0p"), "-e expression #1, char 2: invalid usage of line address 0");
        assert_eq!(err("0,5p"), "-e expression #1, char 4: invalid usage of line address 0");
        assert_eq!(err("a"), "-e expression #1, char 1: expected \\ after `a', `c' or `i'");
        assert_eq!(err("3!!p"), "-e expression #1, char 3: multiple `!'s");
        assert_eq!(err("1,p"), "-e expression #1, char 3: unexpected `,'");
        assert_eq!(err(",p"), "-e expression #1, char 1: unknown command: `,'");
        assert_eq!(err("\\%a"), "-e expression #1, char 3: unterminated address regex");
        assert_eq!(err("ss"), "-e expression #1, char 2: unterminated `s' command");
        assert_eq!(err("1#c"), "-e expression #1, char 2: comments don't accept any addresses");
        assert_eq!(err("}"), "-e expression #1, char 1: unexpected `}'");
        assert_eq!(err("p x"), "-e expression #1, char 3: extra characters after command");
        assert_eq!(err("s/[/X/"), "-e expression #1, char 6: unterminated `s' command");
        assert_eq!(err("s/a/b/pp"), "-e expression #1, char 8: multiple `p' options to `s' command");
        assert_eq!(err("b foo"), "\u{0}can't find label for jump to `foo'");
        assert_eq!(err("s/[/]/X/;/a/I,/b/Mp;1~0p;$!N;:a;ba"), "");
    }

    #[test]
    fn replacement_parts() {
        let (parts, max) = parse_replacement(b"[&]\\1\\n\\U\\&");
        assert_eq!(max, 1);
        assert_eq!(
            parts,
            vec![
                Repl::Lit(b"[".to_vec()),
                Repl::Group(0),
                Repl::Lit(b"]".to_vec()),
                Repl::Group(1),
                Repl::Lit(b"\n".to_vec()),
                Repl::Case(CaseOp::Upper),
                Repl::Lit(b"&".to_vec()),
            ]
        );
    }

    #[test]
    fn text_normalization() {
        assert_eq!(normalize_text(b"foo\\nbar\\\\\n"), b"foo\nbar\\\n".to_vec());
        assert_eq!(normalize_text(b"a\\\nb\n"), b"a\nb\n".to_vec());
    }
}
