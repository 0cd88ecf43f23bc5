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

use std::collections::HashMap;

use super::common::bytes::memchr;
use super::common::posix_regex::{self as posix, Dialect, Options as RxOptions, Syntax};
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::{FsError, Kind, WriteMode};
use regex::bytes::{CaptureLocations, Regex};

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
            let (key, inline) = match long.split_once('=') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (long, None),
            };
            let exact = LONG.iter().find(|n| **n == key);
            let cands: Vec<&&str> = LONG.iter().filter(|n| n.starts_with(key)).collect();
            let name = match (exact, cands.as_slice()) {
                (Some(n), _) => *n,
                (None, [one]) => **one,
                (None, []) => return Err(bad_usage(ctx, &format!("unrecognized option '{arg}'"))),
                (None, _) => return Err(bad_usage(ctx, &format!("option '{arg}' is ambiguous"))),
            };
            let needs = matches!(name, "expression" | "file" | "line-length");
            let value = if needs {
                match inline {
                    Some(v) => Some(v),
                    None => match args.get(i) {
                        Some(v) => {
                            i += 1;
                            Some(v.clone())
                        }
                        None => {
                            return Err(bad_usage(ctx, &format!("option '--{name}' requires an argument")))
                        }
                    },
                }
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
                        let value = if k < bytes.len() {
                            arg[k..].to_string()
                        } else if let Some(v) = args.get(i) {
                            i += 1;
                            v.clone()
                        } else {
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

// ---------------------------------------------------------------------------
// The program

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rx {
    /// The empty regex: the last one used.
    Last,
    Idx(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Addr {
    Line(usize),
    Last,
    Re(Rx),
    Step(usize, usize),
    Zero,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Addr2 {
    Line(usize),
    Last,
    Re(Rx),
    Plus(usize),
    Tilde(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CaseOp {
    Upper,
    Lower,
    UpperOne,
    LowerOne,
    End,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Repl {
    Lit(Vec<u8>),
    Group(usize),
    Case(CaseOp),
}

#[derive(Debug)]
struct Subst {
    re: Rx,
    repl: Vec<Repl>,
    global: bool,
    nth: usize,
    print: bool,
    write: Option<usize>,
    needs_caps: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextKind {
    Append,
    Insert,
    Change,
}

#[derive(Debug)]
enum Op {
    /// `{`: the index of its `}`.
    Block(usize),
    EndBlock,
    Label,
    Subst(Box<Subst>),
    Translit(Box<[u8; 256]>),
    Text(TextKind, Vec<u8>),
    /// `b`, `t`, `T`: the target (a command index; `cmds.len()` is the end).
    Branch(u8, usize),
    Quit {
        silent: bool,
        code: i32,
    },
    List(Option<usize>),
    ReadFile(String),
    ReadLine(String),
    Write {
        file: usize,
        first_line: bool,
    },
    Simple(u8),
}

#[derive(Debug)]
struct Cmd {
    a1: Option<Addr>,
    a2: Option<Addr2>,
    negate: bool,
    op: Op,
}

/// A compiled regex: the regex, its group count, and its variants for
/// POSIX leftmost-longest matching.
struct SedRe {
    re: Regex,
    groups: usize,
    longest: Option<posix::Longest>,
}

struct Program {
    cmds: Vec<Cmd>,
    regexes: Vec<SedRe>,
    /// `w` files: their paths.
    wfiles: Vec<String>,
    /// Raw text of `a`, `i`, `c` commands (normalized at the end).
    raw_text: HashMap<usize, Vec<u8>>,
}

// ---------------------------------------------------------------------------
// Compiling

struct Compiler {
    prog: Program,
    extended: bool,
    blocks: Vec<usize>,
    labels: HashMap<Vec<u8>, usize>,
    jumps: Vec<(usize, Vec<u8>)>,
    /// A text command whose text continues in the next piece.
    pending: Option<usize>,
}

/// A cursor over one piece of script.
struct Cur<'a> {
    text: &'a [u8],
    pos: usize,
    src: &'a Source,
}

impl Cur<'_> {
    fn inchar(&mut self) -> Option<u8> {
        let c = self.text.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }
    fn savchar(&mut self, c: Option<u8>) {
        if c.is_some() && self.pos > 0 {
            self.pos -= 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }
    fn in_nonblank(&mut self) -> Option<u8> {
        loop {
            let c = self.inchar();
            if !matches!(c, Some(b' ' | b'\t')) {
                return c;
            }
        }
    }
    fn in_integer(&mut self, first: u8) -> usize {
        let mut n = usize::from(first - b'0');
        while let Some(c) = self.peek() {
            if !c.is_ascii_digit() {
                break;
            }
            self.pos += 1;
            n = n.saturating_mul(10).saturating_add(usize::from(c - b'0'));
        }
        n
    }
    fn error(&self, msg: &str) -> String {
        match self.src {
            Source::Expr(n) => format!("-e expression #{n}, char {}: {msg}", self.pos),
            Source::File(f) => {
                let upto = &self.text[..self.pos.min(self.text.len())];
                let upto = upto.strip_suffix(b"\n").unwrap_or(upto);
                let line = 1 + upto.iter().filter(|&&b| b == b'\n').count();
                format!("file {f} line {line}: {msg}")
            }
        }
    }
}

const UNTERMINATED_S: &str = "unterminated `s' command";
const UNTERMINATED_Y: &str = "unterminated `y' command";

impl Compiler {
    fn new(extended: bool) -> Self {
        Compiler {
            prog: Program {
                cmds: Vec::new(),
                regexes: Vec::new(),
                wfiles: Vec::new(),
                raw_text: HashMap::new(),
            },
            extended,
            blocks: Vec::new(),
            labels: HashMap::new(),
            jumps: Vec::new(),
            pending: None,
        }
    }

    fn compile_piece(&mut self, piece: &Piece) -> Result<(), String> {
        let mut c = Cur { text: &piece.text, pos: 0, src: &piece.src };
        if let Some(idx) = self.pending.take() {
            self.read_text(&mut c, idx, Some(b'\n'));
        }
        loop {
            let mut ch = c.inchar();
            while matches!(ch, Some(b';' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) {
                ch = c.inchar();
            }
            let Some(first) = ch else { break };
            let mut cmd = Cmd { a1: None, a2: None, negate: false, op: Op::Label };
            let mut ch = Some(first);
            if let Some(a1) = self.address(&mut c, first, true)? {
                cmd.a1 = Some(a1);
                ch = c.in_nonblank();
                if ch == Some(b',') {
                    let next = c.in_nonblank();
                    let a2 = match next {
                        Some(n) => self.address2(&mut c, n)?,
                        None => None,
                    };
                    match a2 {
                        Some(a2) => cmd.a2 = Some(a2),
                        None => return Err(c.error("unexpected `,'")),
                    }
                    ch = c.in_nonblank();
                }
                if cmd.a1 == Some(Addr::Zero) && !matches!(cmd.a2, Some(Addr2::Re(_))) {
                    return Err(c.error("invalid usage of line address 0"));
                }
            }
            if ch == Some(b'!') {
                cmd.negate = true;
                ch = c.in_nonblank();
                if ch == Some(b'!') {
                    return Err(c.error("multiple `!'s"));
                }
            }
            let Some(op) = ch else { return Err(c.error("missing command")) };
            let has_addr = cmd.a1.is_some();
            let idx = self.prog.cmds.len();
            cmd.op = match op {
                b'#' => {
                    if has_addr {
                        return Err(c.error("comments don't accept any addresses"));
                    }
                    while let Some(x) = c.inchar() {
                        if x == b'\n' {
                            break;
                        }
                    }
                    continue;
                }
                b':' => {
                    if has_addr {
                        return Err(c.error(": doesn't want any addresses"));
                    }
                    let label = read_label(&mut c, false);
                    if label.is_empty() {
                        return Err(c.error("\":\" lacks a label"));
                    }
                    self.labels.insert(label, idx);
                    Op::Label
                }
                b'{' => {
                    self.blocks.push(idx);
                    Op::Block(0)
                }
                b'}' => {
                    let Some(open) = self.blocks.pop() else { return Err(c.error("unexpected `}'")) };
                    if has_addr {
                        return Err(c.error("} doesn't want any addresses"));
                    }
                    if let Some(Cmd { op: Op::Block(end), .. }) = self.prog.cmds.get_mut(open) {
                        *end = idx;
                    }
                    end_of_cmd(&mut c)?;
                    Op::EndBlock
                }
                b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P' | b'x' | b'z'
                | b'F' => {
                    end_of_cmd(&mut c)?;
                    Op::Simple(op)
                }
                b'q' | b'Q' | b'l' | b'L' => {
                    if op == b'L' {
                        return Err(c.error("unknown command: `L'"));
                    }
                    if matches!(op, b'q' | b'Q') && cmd.a2.is_some() {
                        return Err(c.error("command only uses one address"));
                    }
                    let x = c.in_nonblank();
                    let n = match x {
                        Some(d) if d.is_ascii_digit() => Some(c.in_integer(d)),
                        other => {
                            c.savchar(other);
                            None
                        }
                    };
                    end_of_cmd(&mut c)?;
                    if op == b'l' {
                        Op::List(n)
                    } else {
                        Op::Quit {
                            silent: op == b'Q',
                            code: n.map_or(0, |n| n.min(i32::MAX as usize) as i32),
                        }
                    }
                }
                b'a' | b'i' | b'c' => {
                    let kind = match op {
                        b'a' => TextKind::Append,
                        b'i' => TextKind::Insert,
                        _ => TextKind::Change,
                    };
                    let x = c.in_nonblank();
                    let Some(x) = x else { return Err(c.error("expected \\ after `a', `c' or `i'")) };
                    self.prog.cmds.push(Cmd { op: Op::Text(kind, Vec::new()), ..cmd });
                    if x == b'\\' {
                        let lead = c.inchar();
                        match lead {
                            None => self.pending = Some(idx),
                            Some(l) => {
                                self.read_text(&mut c, idx, Some(l));
                            }
                        }
                    } else {
                        c.savchar(Some(x));
                        self.read_text(&mut c, idx, Some(b'\n'));
                    }
                    continue;
                }
                b'b' | b't' | b'T' => {
                    let label = read_label(&mut c, true);
                    if !label.is_empty() {
                        self.jumps.push((idx, label));
                    }
                    Op::Branch(op, usize::MAX)
                }
                b'r' | b'R' | b'w' | b'W' => {
                    let name = read_filename(&mut c);
                    if name.is_empty() {
                        return Err(c.error("missing filename in r/R/w/W commands"));
                    }
                    match op {
                        b'r' => Op::ReadFile(name),
                        b'R' => Op::ReadLine(name),
                        _ => Op::Write { file: self.wfile(name), first_line: op == b'W' },
                    }
                }
                b's' => self.subst(&mut c)?,
                b'y' => self.translit(&mut c)?,
                b'v' => {
                    let version = read_label(&mut c, false);
                    if newer_than_us(&version) {
                        return Err(c.error("expected newer version of sed"));
                    }
                    Op::Label
                }
                b'e' => return Err(c.error("the `e' command is not supported (no processes in the sandbox)")),
                other => {
                    let shown = String::from_utf8_lossy(&[other]).into_owned();
                    return Err(c.error(&format!("unknown command: `{shown}'")));
                }
            };
            self.prog.cmds.push(cmd);
        }
        Ok(())
    }

    fn wfile(&mut self, name: String) -> usize {
        if let Some(k) = self.prog.wfiles.iter().position(|f| *f == name) {
            return k;
        }
        self.prog.wfiles.push(name);
        self.prog.wfiles.len() - 1
    }

    /// Reads the text of `a`, `i`, `c` into the command's raw text. `lead`
    /// is the first character (a newline: none).
    fn read_text(&mut self, c: &mut Cur, idx: usize, lead: Option<u8>) {
        let raw = self.prog.raw_text.entry(idx).or_default();
        if let Some(l) = lead {
            if l != b'\n' {
                raw.push(l);
            }
        }
        loop {
            match c.inchar() {
                None => {
                    raw.push(b'\n');
                    return;
                }
                Some(b'\n') => {
                    raw.push(b'\n');
                    return;
                }
                Some(b'\\') => match c.inchar() {
                    None => {
                        raw.push(b'\n');
                        self.pending = Some(idx);
                        return;
                    }
                    Some(d) => {
                        raw.push(b'\\');
                        raw.push(d);
                    }
                },
                Some(x) => raw.push(x),
            }
        }
    }

    /// A first address starting with `ch`; `None` if `ch` starts none.
    fn address(&mut self, c: &mut Cur, ch: u8, _first: bool) -> Result<Option<Addr>, String> {
        match ch {
            b'/' | b'\\' => {
                let delim = if ch == b'\\' {
                    match c.inchar() {
                        Some(d) => d,
                        None => return Err(c.error("unterminated address regex")),
                    }
                } else {
                    b'/'
                };
                let Some(text) = match_slash(c, delim, true) else {
                    return Err(c.error("unterminated address regex"));
                };
                let (mut icase, mut multi) = (false, false);
                loop {
                    let f = c.in_nonblank();
                    match f {
                        Some(b'I') => icase = true,
                        Some(b'M') => multi = true,
                        other => {
                            c.savchar(other);
                            break;
                        }
                    }
                }
                Ok(Some(Addr::Re(self.regex(c, &text, icase, multi)?)))
            }
            b'0'..=b'9' => {
                let n = c.in_integer(ch);
                if c.peek() == Some(b'~') {
                    c.pos += 1;
                    let step = match c.peek() {
                        Some(d) if d.is_ascii_digit() => {
                            c.pos += 1;
                            c.in_integer(d)
                        }
                        _ => 0,
                    };
                    return Ok(Some(Addr::Step(n, step)));
                }
                Ok(Some(if n == 0 { Addr::Zero } else { Addr::Line(n) }))
            }
            b'$' => Ok(Some(Addr::Last)),
            _ => Ok(None),
        }
    }

    fn address2(&mut self, c: &mut Cur, ch: u8) -> Result<Option<Addr2>, String> {
        match ch {
            b'+' | b'~' => {
                let n = match c.peek() {
                    Some(d) if d.is_ascii_digit() => {
                        c.pos += 1;
                        c.in_integer(d)
                    }
                    _ => 0,
                };
                Ok(Some(if ch == b'+' { Addr2::Plus(n) } else { Addr2::Tilde(n) }))
            }
            _ => Ok(match self.address(c, ch, false)? {
                None => None,
                Some(Addr::Line(n)) => Some(Addr2::Line(n)),
                Some(Addr::Zero) => Some(Addr2::Line(0)),
                Some(Addr::Step(n, _)) => Some(Addr2::Line(n)),
                Some(Addr::Last) => Some(Addr2::Last),
                Some(Addr::Re(r)) => Some(Addr2::Re(r)),
            }),
        }
    }

    fn regex(&mut self, c: &Cur, text: &[u8], icase: bool, multiline: bool) -> Result<Rx, String> {
        if text.is_empty() {
            // GNU only complains when it runs (`char 0`).
            return Ok(Rx::Last);
        }
        let opts = RxOptions {
            syntax: if self.extended { Syntax::Extended } else { Syntax::Basic },
            dialect: Dialect::Sed { multiline },
            icase,
        };
        let (re, t) = posix::compile(text, &opts).map_err(|e| {
            let msg = e.message();
            if msg.starts_with("character class syntax is") {
                // GNU reports this one from its matcher: no location, status 4.
                format!("\u{0}{msg}")
            } else {
                c.error(&msg)
            }
        })?;
        let longest = posix::Longest::new(&t.pattern, &t.alts, &posix::flags(&opts), t.groups);
        self.prog.regexes.push(SedRe { re, groups: t.groups, longest });
        Ok(Rx::Idx(self.prog.regexes.len() - 1))
    }

    fn subst(&mut self, c: &mut Cur) -> Result<Op, String> {
        let Some(delim) = c.inchar() else { return Err(c.error(UNTERMINATED_S)) };
        if delim == b'\n' || delim == b'\\' {
            return Err(c.error(UNTERMINATED_S));
        }
        let Some(pattern) = match_slash(c, delim, true) else { return Err(c.error(UNTERMINATED_S)) };
        let Some(replacement) = match_slash(c, delim, false) else { return Err(c.error(UNTERMINATED_S)) };
        let (mut global, mut print, mut icase, mut multi) = (false, false, false, false);
        let mut nth: Option<usize> = None;
        let mut write = None;
        loop {
            let f = c.inchar();
            match f {
                Some(b'i' | b'I') => icase = true,
                Some(b'm' | b'M') => multi = true,
                Some(b'g') => {
                    if global {
                        return Err(c.error("multiple `g' options to `s' command"));
                    }
                    global = true;
                }
                Some(b'p') => {
                    if print {
                        return Err(c.error("multiple `p' options to `s' command"));
                    }
                    print = true;
                }
                Some(d @ b'0'..=b'9') => {
                    if nth.is_some() {
                        return Err(c.error("multiple number options to `s' command"));
                    }
                    let n = c.in_integer(d);
                    if n == 0 {
                        return Err(c.error("number option to `s' command may not be zero"));
                    }
                    nth = Some(n);
                }
                Some(b'w') => {
                    let name = read_filename(c);
                    if name.is_empty() {
                        return Err(c.error("missing filename in r/R/w/W commands"));
                    }
                    write = Some(self.wfile(name));
                    break;
                }
                Some(b'e') => {
                    return Err(c.error("the `e' flag of `s' is not supported (no processes in the sandbox)"))
                }
                Some(b'}' | b'#') => {
                    c.savchar(f);
                    break;
                }
                None | Some(b'\n' | b';') => break,
                Some(b' ' | b'\t' | b'\r') => {}
                Some(_) => return Err(c.error("unknown option to `s'")),
            }
        }
        let re = self.regex(c, &pattern, icase, multi)?;
        let (repl, max_ref) = parse_replacement(&replacement);
        if let Rx::Idx(k) = re {
            let groups = self.prog.regexes.get(k).map_or(0, |r| r.groups);
            if max_ref > groups {
                return Err(c.error(&format!("invalid reference \\{max_ref} on `s' command's RHS")));
            }
        }
        let needs_caps = repl.iter().any(|r| matches!(r, Repl::Group(n) if *n > 0));
        Ok(Op::Subst(Box::new(Subst { re, repl, global, nth: nth.unwrap_or(1), print, write, needs_caps })))
    }

    fn translit(&mut self, c: &mut Cur) -> Result<Op, String> {
        let Some(delim) = c.inchar() else { return Err(c.error(UNTERMINATED_Y)) };
        let Some(from) = match_slash(c, delim, false) else { return Err(c.error(UNTERMINATED_Y)) };
        let Some(to) = match_slash(c, delim, false) else { return Err(c.error(UNTERMINATED_Y)) };
        let from = y_unescape(&from);
        let to = y_unescape(&to);
        if from.len() != to.len() {
            return Err(c.error("strings for `y' command are different lengths"));
        }
        let mut map = [0u8; 256];
        for (k, m) in map.iter_mut().enumerate() {
            *m = k as u8;
        }
        for (&f, &t) in from.iter().zip(to.iter()) {
            map[f as usize] = t;
        }
        end_of_cmd(c)?;
        Ok(Op::Translit(Box::new(map)))
    }

    fn finish(mut self) -> Result<Program, String> {
        if !self.blocks.is_empty() {
            return Err("-e expression #1, char 0: unmatched `{'".to_string());
        }
        for (idx, label) in std::mem::take(&mut self.jumps) {
            let Some(&target) = self.labels.get(&label) else {
                return Err(format!(
                    "\u{0}can't find label for jump to `{}'",
                    String::from_utf8_lossy(&label)
                ));
            };
            if let Some(Cmd { op: Op::Branch(_, t), .. }) = self.prog.cmds.get_mut(idx) {
                *t = target;
            }
        }
        let end = self.prog.cmds.len();
        for cmd in &mut self.prog.cmds {
            if let Op::Branch(_, t) = &mut cmd.op {
                if *t == usize::MAX {
                    *t = end;
                }
            }
        }
        let raw = std::mem::take(&mut self.prog.raw_text);
        for (idx, text) in raw {
            if let Some(Cmd { op: Op::Text(_, t), .. }) = self.prog.cmds.get_mut(idx) {
                *t = normalize_text(&text);
            }
        }
        Ok(self.prog)
    }
}

/// Whether `v VERSION` asks for a sed newer than the GNU sed 4.9 this one
/// follows.
fn newer_than_us(version: &[u8]) -> bool {
    let text = String::from_utf8_lossy(version);
    if text.is_empty() {
        return false;
    }
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    let want = (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    want > (4, 9, 0)
}

/// After a command: blanks, then the end of the line, `;`, `}` or `#`.
fn end_of_cmd(c: &mut Cur) -> Result<(), String> {
    let ch = c.in_nonblank();
    match ch {
        None | Some(b'\n' | b';') => Ok(()),
        Some(b'}' | b'#') => {
            c.savchar(ch);
            Ok(())
        }
        Some(_) => Err(c.error("extra characters after command")),
    }
}

fn read_label(c: &mut Cur, branch: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ch = c.in_nonblank();
    while let Some(x) = ch {
        if x == b'\n' || x == b';' || x.is_ascii_whitespace() {
            break;
        }
        if x == b'}' && branch {
            c.savchar(ch);
            break;
        }
        out.push(x);
        ch = c.inchar();
    }
    out
}

fn read_filename(c: &mut Cur) -> String {
    let mut out = Vec::new();
    let mut ch = c.in_nonblank();
    while let Some(x) = ch {
        if x == b'\n' {
            break;
        }
        out.push(x);
        ch = c.inchar();
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads up to the unescaped delimiter (GNU `match_slash`): `\delim`
/// becomes the delimiter, `\` and a newline a newline; in a regex, bracket
/// expressions are copied whole (a delimiter inside is literal). `None` if
/// the text ends first.
fn match_slash(c: &mut Cur, delim: u8, regex: bool) -> Option<Vec<u8>> {
    let mut b = Vec::new();
    loop {
        let ch = c.inchar()?;
        if ch == b'\n' {
            c.savchar(Some(ch));
            return None;
        }
        if ch == delim {
            return Some(b);
        }
        if ch == b'\\' {
            let d = c.inchar()?;
            if d == delim {
                if !regex && d == b'&' {
                    b.push(b'\\');
                }
                b.push(d);
            } else if d == b'\n' {
                b.push(b'\n');
            } else {
                b.push(b'\\');
                b.push(d);
            }
            continue;
        }
        if regex && ch == b'[' {
            b.push(ch);
            copy_bracket(c, &mut b)?;
            continue;
        }
        b.push(ch);
    }
}

/// Copies the rest of a bracket expression (after `[`) up to its `]`.
fn copy_bracket(c: &mut Cur, b: &mut Vec<u8>) -> Option<()> {
    let mut first = true;
    if c.peek() == Some(b'^') {
        b.push(b'^');
        c.pos += 1;
    }
    loop {
        let ch = c.inchar()?;
        if ch == b'\n' {
            c.savchar(Some(ch));
            return None;
        }
        b.push(ch);
        if ch == b']' && !first {
            return Some(());
        }
        first = false;
        if ch == b'[' && matches!(c.peek(), Some(b':' | b'.' | b'=')) {
            let kind = c.inchar()?;
            b.push(kind);
            loop {
                let x = c.inchar()?;
                if x == b'\n' {
                    c.savchar(Some(x));
                    return None;
                }
                b.push(x);
                if x == kind && c.peek() == Some(b']') {
                    c.pos += 1;
                    b.push(b']');
                    break;
                }
            }
        }
    }
}

/// Parses a replacement; returns its parts and the highest `\N` used.
fn parse_replacement(raw: &[u8]) -> (Vec<Repl>, usize) {
    let mut parts = Vec::new();
    let mut lit = Vec::new();
    let mut max_ref = 0;
    let mut i = 0;
    let flush = |lit: &mut Vec<u8>, parts: &mut Vec<Repl>| {
        if !lit.is_empty() {
            parts.push(Repl::Lit(std::mem::take(lit)));
        }
    };
    while i < raw.len() {
        let ch = raw[i];
        if ch == b'&' {
            flush(&mut lit, &mut parts);
            parts.push(Repl::Group(0));
            i += 1;
            continue;
        }
        if ch != b'\\' || i + 1 >= raw.len() {
            lit.push(ch);
            i += 1;
            continue;
        }
        let d = raw[i + 1];
        match d {
            b'0'..=b'9' => {
                flush(&mut lit, &mut parts);
                let n = usize::from(d - b'0');
                max_ref = max_ref.max(n);
                parts.push(Repl::Group(n));
                i += 2;
            }
            b'L' | b'U' | b'l' | b'u' | b'E' => {
                flush(&mut lit, &mut parts);
                parts.push(Repl::Case(match d {
                    b'L' => CaseOp::Lower,
                    b'U' => CaseOp::Upper,
                    b'l' => CaseOp::LowerOne,
                    b'u' => CaseOp::UpperOne,
                    _ => CaseOp::End,
                }));
                i += 2;
            }
            b'\n' => {
                lit.push(b'\n');
                i += 2;
            }
            _ => match posix::sed_escape(raw, i) {
                Some((b, next)) => {
                    lit.push(b);
                    i = next;
                }
                None => {
                    lit.push(d);
                    i += 2;
                }
            },
        }
    }
    flush(&mut lit, &mut parts);
    (parts, max_ref)
}

fn y_unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() {
            if raw[i + 1] == b'\\' {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if let Some((b, next)) = posix::sed_escape(raw, i) {
                out.push(b);
                i = next;
                continue;
            }
            out.push(raw[i + 1]);
            i += 2;
            continue;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

/// The text of `a`, `i`, `c`: `\` before a character removes its special
/// meaning; `\n`, `\t`... are escapes.
fn normalize_text(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() {
            if let Some((b, next)) = posix::sed_escape(raw, i) {
                out.push(b);
                i = next;
                continue;
            }
            out.push(raw[i + 1]);
            i += 2;
            continue;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

fn compile(pieces: &[Piece], extended: bool) -> Result<Program, String> {
    let mut comp = Compiler::new(extended);
    for piece in pieces {
        comp.compile_piece(piece)?;
    }
    comp.finish()
}

// ---------------------------------------------------------------------------
// Running

/// The input stream: files opened one after the other, lazily.
struct Input {
    files: Vec<String>,
    next_file: usize,
    /// Current file's name, data and read position.
    cur: Option<(String, Vec<u8>)>,
    pos: usize,
    sep: u8,
}

enum Fatal {
    /// `read error on X: Is a directory` (status 4).
    Dir(String),
}

impl Input {
    fn new(files: Vec<String>, sep: u8) -> Self {
        Input { files, next_file: 0, cur: None, pos: 0, sep }
    }

    /// Makes sure the current file has data left, opening the next files as
    /// needed. False at the end of the input.
    fn fill(&mut self, ctx: &mut Ctx, status: &mut i32) -> Result<bool, Fatal> {
        loop {
            if let Some((_, data)) = &self.cur {
                if self.pos < data.len() {
                    return Ok(true);
                }
            }
            let Some(name) = self.files.get(self.next_file).cloned() else { return Ok(false) };
            self.next_file += 1;
            match ctx.read_input(&name) {
                Ok(data) => {
                    self.cur = Some((name, data));
                    self.pos = 0;
                }
                Err(e) if e.errno == "EISDIR" => return Err(Fatal::Dir(name)),
                Err(e) => {
                    ctx.error("sed", format!("can't read {name}: {}", e.describe()));
                    *status = 2;
                }
            }
        }
    }

    /// The next line into `into`; whether it ended with the separator.
    fn read(&mut self, ctx: &mut Ctx, status: &mut i32, into: &mut Vec<u8>) -> Result<Option<bool>, Fatal> {
        if !self.fill(ctx, status)? {
            return Ok(None);
        }
        let Some((_, data)) = &self.cur else { return Ok(None) };
        let rest = &data[self.pos..];
        let end =
            if self.sep == b'\n' { memchr(b'\n', rest) } else { rest.iter().position(|&b| b == self.sep) };
        let (line, chomped, used) = match end {
            Some(k) => (&rest[..k], true, k + 1),
            None => (rest, false, rest.len()),
        };
        into.clear();
        into.extend_from_slice(line);
        self.pos += used;
        Ok(Some(chomped))
    }

    fn is_last(&mut self, ctx: &mut Ctx, status: &mut i32) -> Result<bool, Fatal> {
        Ok(!self.fill(ctx, status)?)
    }

    fn name(&self) -> &str {
        match &self.cur {
            Some((n, _)) => n,
            None => "-",
        }
    }
}

enum Flow {
    /// End of the script: autoprint.
    End,
    /// `d`: no autoprint.
    Delete,
    /// `D` with a newline: restart without reading.
    Restart,
    Quit {
        code: i32,
        autoprint: bool,
    },
}

enum Pending {
    Text(usize),
    File(String),
    Line(String),
}

#[derive(Clone, Copy, Default)]
struct Range {
    active: bool,
    end: usize,
}

struct Sed<'p> {
    prog: &'p Program,
    quiet: bool,
    line_len: usize,
    sep: u8,
    ps: Vec<u8>,
    hs: Vec<u8>,
    scratch: Vec<u8>,
    chomped: bool,
    lineno: usize,
    tflag: bool,
    append: Vec<Pending>,
    out: Vec<u8>,
    /// Writing to a file (`-i`): never flushed to stdout.
    to_file: bool,
    missing_newline: bool,
    ranges: Vec<Range>,
    last_re: Option<usize>,
    status: i32,
    quit: Option<i32>,
    closed: bool,
    locs: Vec<Option<CaptureLocations>>,
    /// Group spans of the current match (reused).
    spans: Vec<Option<(usize, usize)>>,
    /// `R` files: contents and read position.
    rfiles: HashMap<String, (Vec<u8>, usize)>,
    /// Output for `w` files, written at the end.
    wbufs: Vec<Vec<u8>>,
}

impl<'p> Sed<'p> {
    fn new(prog: &'p Program, opts: &Opts) -> Self {
        let ranges = prog.cmds.iter().map(|c| Range { active: c.a1 == Some(Addr::Zero), end: 0 }).collect();
        Sed {
            prog,
            quiet: opts.quiet,
            line_len: opts.line_len,
            sep: if opts.null_data { 0 } else { b'\n' },
            ps: Vec::new(),
            hs: Vec::new(),
            scratch: Vec::new(),
            chomped: true,
            lineno: 0,
            tflag: false,
            append: Vec::new(),
            out: Vec::new(),
            to_file: false,
            missing_newline: false,
            ranges,
            last_re: None,
            status: 0,
            quit: None,
            closed: false,
            locs: prog.regexes.iter().map(|_| None).collect(),
            spans: Vec::new(),
            rfiles: HashMap::new(),
            wbufs: prog.wfiles.iter().map(|_| Vec::new()).collect(),
        }
    }

    fn flush(&mut self, ctx: &mut Ctx) {
        if self.to_file || self.out.is_empty() {
            return;
        }
        if !self.closed && ctx.out(&self.out).is_err() {
            self.closed = true;
        }
        self.out.clear();
    }

    fn maybe_flush(&mut self, ctx: &mut Ctx) {
        if self.out.len() >= 64 * 1024 {
            self.flush(ctx);
        }
    }

    fn output_missing_newline(&mut self) {
        if self.missing_newline {
            self.out.push(self.sep);
            self.missing_newline = false;
        }
    }

    fn emit_text(&mut self, text: &[u8]) {
        self.output_missing_newline();
        self.out.extend_from_slice(text);
    }

    fn emit_ps(&mut self, upto_newline: bool) {
        self.output_missing_newline();
        let end = if upto_newline {
            self.ps.iter().position(|&b| b == b'\n').unwrap_or(self.ps.len())
        } else {
            self.ps.len()
        };
        self.out.extend_from_slice(&self.ps[..end]);
        if self.chomped || upto_newline && end < self.ps.len() {
            self.out.push(self.sep);
        } else {
            self.missing_newline = true;
        }
    }

    fn dump_append(&mut self, ctx: &mut Ctx) {
        for item in std::mem::take(&mut self.append) {
            match item {
                Pending::Text(idx) => {
                    if let Some(Cmd { op: Op::Text(_, t), .. }) = self.prog.cmds.get(idx) {
                        self.emit_text(t);
                    }
                }
                Pending::File(name) => {
                    let data = if name == "/dev/stdin" { Ok(ctx.stdin_all()) } else { ctx.read_input(&name) };
                    if let Ok(data) = data {
                        self.emit_text(&data);
                    }
                }
                Pending::Line(name) => {
                    if !self.rfiles.contains_key(&name) {
                        let data = if name == "/dev/stdin" {
                            ctx.stdin_all()
                        } else {
                            ctx.read_input(&name).unwrap_or_default()
                        };
                        self.rfiles.insert(name.clone(), (data, 0));
                    }
                    let mut line = Vec::new();
                    if let Some((data, pos)) = self.rfiles.get_mut(&name) {
                        if *pos < data.len() {
                            let rest = &data[*pos..];
                            let k = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |k| k + 1);
                            line.extend_from_slice(&rest[..k]);
                            *pos += k;
                            if line.last() != Some(&b'\n') {
                                line.push(b'\n');
                            }
                        }
                    }
                    if !line.is_empty() {
                        self.emit_text(&line);
                    }
                }
            }
        }
    }

    fn regex(&mut self, rx: Rx) -> Option<usize> {
        match rx {
            Rx::Idx(k) => {
                self.last_re = Some(k);
                Some(k)
            }
            Rx::Last => self.last_re,
        }
    }

    fn re_matches(&mut self, rx: Rx) -> Result<bool, String> {
        let Some(k) = self.regex(rx) else { return Err("no previous regular expression".to_string()) };
        Ok(self.prog.regexes.get(k).is_some_and(|r| r.re.is_match(&self.ps)))
    }

    fn match_one(&mut self, a: &Addr, input: &mut Input, ctx: &mut Ctx) -> Result<bool, StopErr> {
        Ok(match a {
            Addr::Line(n) => self.lineno == *n,
            Addr::Zero => false,
            Addr::Last => input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)?,
            Addr::Re(rx) => self.re_matches(*rx).map_err(StopErr::Msg)?,
            Addr::Step(first, step) => {
                if *step == 0 {
                    self.lineno == *first
                } else {
                    self.lineno >= *first && (self.lineno - first).is_multiple_of(*step)
                }
            }
        })
    }

    /// Whether command `k` applies to the current line (updating its range).
    fn selected(&mut self, k: usize, input: &mut Input, ctx: &mut Ctx) -> Result<bool, StopErr> {
        let prog = self.prog;
        let Some(cmd) = prog.cmds.get(k) else { return Ok(false) };
        let hit = match (&cmd.a1, &cmd.a2) {
            (None, _) => true,
            (Some(a1), None) => self.match_one(a1, input, ctx)?,
            (Some(a1), Some(a2)) => {
                let st = self.ranges[k];
                if st.active {
                    match a2 {
                        Addr2::Re(rx) => {
                            if self.re_matches(*rx).map_err(StopErr::Msg)? {
                                self.ranges[k].active = false;
                            }
                            true
                        }
                        Addr2::Last => {
                            if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                                self.ranges[k].active = false;
                            }
                            true
                        }
                        _ => {
                            if self.lineno >= st.end {
                                self.ranges[k].active = false;
                            }
                            self.lineno <= st.end
                        }
                    }
                } else if self.match_one(a1, input, ctx)? {
                    let l = self.lineno;
                    let end = match a2 {
                        Addr2::Line(n) => Some(*n),
                        Addr2::Plus(n) => Some(l + n),
                        Addr2::Tilde(n) => Some(if *n == 0 { l } else { (l / n + 1) * n }),
                        Addr2::Re(_) => None,
                        Addr2::Last => {
                            if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                                Some(l)
                            } else {
                                None
                            }
                        }
                    };
                    match end {
                        Some(e) if e <= l => {}
                        Some(e) => self.ranges[k] = Range { active: true, end: e },
                        None => self.ranges[k] = Range { active: true, end: 0 },
                    }
                    true
                } else {
                    false
                }
            }
        };
        Ok(hit != cmd.negate)
    }

    /// Reads the next line into the pattern space (appending with `N`).
    fn next_line(&mut self, ctx: &mut Ctx, input: &mut Input, append: bool) -> Result<bool, StopErr> {
        let mut line = std::mem::take(&mut self.scratch);
        let got = input.read(ctx, &mut self.status, &mut line).map_err(StopErr::Fatal)?;
        let result = match got {
            None => false,
            Some(chomped) => {
                if append {
                    self.ps.push(b'\n');
                    self.ps.extend_from_slice(&line);
                } else {
                    std::mem::swap(&mut self.ps, &mut line);
                }
                self.chomped = chomped;
                self.lineno += 1;
                self.tflag = false;
                true
            }
        };
        self.scratch = line;
        Ok(result)
    }

    fn execute(&mut self, ctx: &mut Ctx, input: &mut Input) -> Result<Flow, StopErr> {
        let prog = self.prog;
        let mut pc = 0;
        let mut jumps = 0u32;
        while let Some(cmd) = prog.cmds.get(pc) {
            if self.ps.len() > SPACE_LIMIT || self.hs.len() > SPACE_LIMIT {
                return Err(StopErr::Memory);
            }
            if !self.selected(pc, input, ctx)? {
                pc = match cmd.op {
                    Op::Block(end) => end + 1,
                    _ => pc + 1,
                };
                continue;
            }
            pc += 1;
            match &cmd.op {
                Op::Block(_) | Op::EndBlock | Op::Label => {}
                Op::Subst(s) => {
                    if self.substitute(s)? {
                        self.tflag = true;
                        if s.print {
                            self.emit_ps(false);
                        }
                        if let Some(w) = s.write {
                            self.write_file(ctx, w, false);
                        }
                    }
                }
                Op::Translit(map) => {
                    for b in self.ps.iter_mut() {
                        *b = map[*b as usize];
                    }
                }
                Op::Text(kind, text) => match kind {
                    TextKind::Append => self.append.push(Pending::Text(pc - 1)),
                    TextKind::Insert => self.emit_text(text),
                    TextKind::Change => {
                        let k = pc - 1;
                        let in_range = cmd.a2.is_some() && self.ranges[k].active;
                        if !in_range {
                            self.emit_text(text);
                        }
                        return Ok(Flow::Delete);
                    }
                },
                Op::Branch(kind, target) => {
                    let jump = match kind {
                        b't' => std::mem::replace(&mut self.tflag, false),
                        b'T' => !std::mem::replace(&mut self.tflag, false),
                        _ => true,
                    };
                    if jump {
                        pc = *target;
                        jumps = jumps.wrapping_add(1);
                        if jumps.is_multiple_of(4096) && ctx.interrupted() {
                            return Ok(Flow::Quit { code: self.status, autoprint: false });
                        }
                    }
                }
                Op::Quit { silent, code } => return Ok(Flow::Quit { code: *code, autoprint: !silent }),
                Op::List(n) => self.list(n.unwrap_or(self.line_len)),
                Op::ReadFile(name) => self.append.push(Pending::File(name.clone())),
                Op::ReadLine(name) => self.append.push(Pending::Line(name.clone())),
                Op::Write { file, first_line } => self.write_file(ctx, *file, *first_line),
                Op::Simple(c) => match c {
                    b'=' => {
                        self.output_missing_newline();
                        self.out.extend_from_slice(format!("{}\n", self.lineno).as_bytes());
                    }
                    b'd' => return Ok(Flow::Delete),
                    b'D' => match self.ps.iter().position(|&b| b == b'\n') {
                        None => return Ok(Flow::Delete),
                        Some(k) => {
                            self.ps.drain(..=k);
                            return Ok(Flow::Restart);
                        }
                    },
                    b'g' => self.ps.clone_from(&self.hs),
                    b'G' => {
                        self.ps.push(b'\n');
                        self.ps.extend_from_slice(&self.hs);
                    }
                    b'h' => self.hs.clone_from(&self.ps),
                    b'H' => {
                        self.hs.push(b'\n');
                        self.hs.extend_from_slice(&self.ps);
                    }
                    b'x' => std::mem::swap(&mut self.ps, &mut self.hs),
                    b'z' => self.ps.clear(),
                    b'F' => {
                        self.output_missing_newline();
                        let name = input.name().to_string();
                        self.out.extend_from_slice(name.as_bytes());
                        self.out.push(b'\n');
                    }
                    b'p' => self.emit_ps(false),
                    b'P' => self.emit_ps(true),
                    b'n' => {
                        if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                            return Ok(Flow::End);
                        }
                        if !self.quiet {
                            self.emit_ps(false);
                        }
                        self.dump_append(ctx);
                        self.next_line(ctx, input, false)?;
                    }
                    b'N' => {
                        if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                            return Ok(Flow::End);
                        }
                        self.dump_append(ctx);
                        self.next_line(ctx, input, true)?;
                    }
                    _ => {}
                },
            }
        }
        Ok(Flow::End)
    }

    fn write_file(&mut self, ctx: &mut Ctx, file: usize, first_line: bool) {
        let end = if first_line {
            self.ps.iter().position(|&b| b == b'\n').unwrap_or(self.ps.len())
        } else {
            self.ps.len()
        };
        let name = self.prog.wfiles.get(file).map(String::as_str).unwrap_or_default();
        match name {
            "/dev/stdout" if self.to_file => {
                // `-i`: the real standard output, not the file.
                let mut line = self.ps[..end].to_vec();
                line.push(self.sep);
                if ctx.out(line).is_err() {
                    self.closed = true;
                }
            }
            "/dev/stdout" => {
                self.output_missing_newline();
                self.out.extend_from_slice(&self.ps[..end]);
                self.out.push(self.sep);
            }
            "/dev/stderr" => {
                let mut line = self.ps[..end].to_vec();
                line.push(self.sep);
                ctx.err(line);
            }
            _ => {
                if let Some(buf) = self.wbufs.get_mut(file) {
                    buf.extend_from_slice(&self.ps[..end]);
                    buf.push(self.sep);
                }
            }
        }
    }

    fn list(&mut self, width: usize) {
        self.output_missing_newline();
        let mut line_width = 0usize;
        let mut obuf = [0u8; 4];
        for k in 0..self.ps.len() {
            let b = self.ps[k];
            let n = match b {
                b'\\' => {
                    obuf[..2].copy_from_slice(b"\\\\");
                    2
                }
                0x07 | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b => {
                    let e = match b {
                        0x07 => b'a',
                        0x08 => b'b',
                        0x0c => b'f',
                        b'\n' => b'n',
                        b'\r' => b'r',
                        b'\t' => b't',
                        _ => b'v',
                    };
                    obuf[0] = b'\\';
                    obuf[1] = e;
                    2
                }
                0x20..=0x7e => {
                    obuf[0] = b;
                    1
                }
                _ => {
                    obuf[0] = b'\\';
                    obuf[1] = b'0' + (b >> 6);
                    obuf[2] = b'0' + ((b >> 3) & 7);
                    obuf[3] = b'0' + (b & 7);
                    4
                }
            };
            if width > 0 && line_width + n > width - 1 {
                self.out.extend_from_slice(b"\\\n");
                line_width = 0;
            }
            self.out.extend_from_slice(&obuf[..n]);
            line_width += n;
        }
        self.out.extend_from_slice(b"$\n");
    }

    fn substitute(&mut self, s: &Subst) -> Result<bool, StopErr> {
        let Some(k) = self.regex(s.re) else {
            return Err(StopErr::Msg("no previous regular expression".to_string()));
        };
        let Some(entry) = self.prog.regexes.get(k) else { return Ok(false) };
        let re = &entry.re;
        let mut locs = match self.locs.get_mut(k).and_then(Option::take) {
            Some(l) => l,
            None => re.capture_locations(),
        };
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        spans.resize(entry.groups + 1, None);
        let ps = std::mem::take(&mut self.ps);
        let mut result = std::mem::take(&mut self.scratch);
        result.clear();
        let mut count = 0usize;
        let mut at = 0usize;
        let mut copied = 0usize;
        let mut last_end: Option<usize> = None;
        let mut did = false;
        while at <= ps.len() {
            let (ms, mut me) = if s.needs_caps {
                match re.captures_read_at(&mut locs, &ps, at) {
                    Some(m) => (m.start(), m.end()),
                    None => break,
                }
            } else {
                match re.find_at(&ps, at) {
                    Some(m) => (m.start(), m.end()),
                    None => break,
                }
            };
            let mut variant = None;
            if let Some(long) = &entry.longest {
                let (e, v) = long.extend(&ps, ms, me, ps.len());
                if v.is_some() {
                    me = e;
                    variant = v;
                }
            }
            if ms == me && last_end == Some(ms) {
                at = ms + 1;
                continue;
            }
            count += 1;
            if count >= s.nth {
                result.extend_from_slice(&ps[copied..ms]);
                if s.needs_caps {
                    match (variant, &entry.longest) {
                        (Some(v), Some(long)) => long.groups(v, &ps, ms, ps.len(), &mut spans),
                        _ => {
                            for (n, slot) in spans.iter_mut().enumerate() {
                                *slot = locs.get(n);
                            }
                        }
                    }
                }
                append_replacement(&mut result, &s.repl, &ps, ms, me, &spans);
                copied = me;
                did = true;
                if !s.global {
                    break;
                }
            }
            last_end = Some(me);
            at = if me > ms { me } else { me + 1 };
        }
        if let Some(slot) = self.locs.get_mut(k) {
            *slot = Some(locs);
        }
        self.spans = spans;
        if did {
            result.extend_from_slice(&ps[copied..]);
            self.ps = result;
            self.scratch = ps;
        } else {
            self.ps = ps;
            self.scratch = result;
        }
        Ok(did)
    }
}

enum StopErr {
    Fatal(Fatal),
    Msg(String),
    /// The pattern or hold space outgrew [`SPACE_LIMIT`].
    Memory,
}

/// The most the pattern or hold space may hold (GNU grows until memory runs
/// out; the sandbox stops earlier).
const SPACE_LIMIT: usize = 64 * 1024 * 1024;

fn append_replacement(
    out: &mut Vec<u8>,
    repl: &[Repl],
    ps: &[u8],
    ms: usize,
    me: usize,
    spans: &[Option<(usize, usize)>],
) {
    let mut mode: Option<CaseOp> = None;
    let mut one: Option<CaseOp> = None;
    let put = |out: &mut Vec<u8>, bytes: &[u8], mode: Option<CaseOp>, one: &mut Option<CaseOp>| {
        for &b in bytes {
            let b = match one.take() {
                Some(CaseOp::UpperOne) => b.to_ascii_uppercase(),
                Some(CaseOp::LowerOne) => b.to_ascii_lowercase(),
                _ => match mode {
                    Some(CaseOp::Upper) => b.to_ascii_uppercase(),
                    Some(CaseOp::Lower) => b.to_ascii_lowercase(),
                    _ => b,
                },
            };
            out.push(b);
        }
    };
    for part in repl {
        match part {
            Repl::Lit(bytes) => {
                if mode.is_none() && one.is_none() {
                    out.extend_from_slice(bytes);
                } else {
                    put(out, bytes, mode, &mut one);
                }
            }
            Repl::Group(n) => {
                let span = if *n == 0 { Some((ms, me)) } else { spans.get(*n).copied().flatten() };
                if let Some((a, b)) = span {
                    let bytes = &ps[a..b];
                    if mode.is_none() && one.is_none() {
                        out.extend_from_slice(bytes);
                    } else {
                        put(out, bytes, mode, &mut one);
                    }
                }
            }
            Repl::Case(op) => match op {
                CaseOp::Upper | CaseOp::Lower => {
                    // A pending `\u`/`\l` is dropped, as GNU does.
                    mode = Some(*op);
                    one = None;
                }
                CaseOp::UpperOne | CaseOp::LowerOne => one = Some(*op),
                CaseOp::End => {
                    mode = None;
                    one = None;
                }
            },
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

impl Sed<'_> {
    /// Runs the script over one input stream. `Some(status)` when the run
    /// must stop (`q`, a fatal error or closed output).
    fn process(&mut self, ctx: &mut Ctx, input: &mut Input) -> Option<i32> {
        let mut restart = false;
        loop {
            if !restart {
                match self.next_line(ctx, input, false) {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => return Some(self.fatal(ctx, e)),
                }
            }
            restart = false;
            let flow = match self.execute(ctx, input) {
                Ok(f) => f,
                Err(e) => return Some(self.fatal(ctx, e)),
            };
            match flow {
                Flow::End => {
                    if !self.quiet {
                        self.emit_ps(false);
                    }
                }
                Flow::Delete => {}
                Flow::Restart => restart = true,
                Flow::Quit { code, autoprint } => {
                    if autoprint {
                        if !self.quiet {
                            self.emit_ps(false);
                        }
                        self.dump_append(ctx);
                    }
                    self.quit = Some(code);
                    return Some(code);
                }
            }
            self.dump_append(ctx);
            self.maybe_flush(ctx);
            if self.closed || ctx.interrupted() {
                return Some(self.status);
            }
        }
    }

    fn fatal(&mut self, ctx: &mut Ctx, e: StopErr) -> i32 {
        self.flush(ctx);
        match e {
            StopErr::Fatal(Fatal::Dir(name)) => {
                ctx.error("sed", format!("read error on {name}: Is a directory"));
                4
            }
            StopErr::Msg(m) => {
                ctx.error("sed", format!("-e expression #1, char 0: {m}"));
                1
            }
            StopErr::Memory => {
                ctx.error("sed", "couldn't re-allocate memory");
                4
            }
        }
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
