//! `find`: walk directory trees and evaluate an expression on each entry,
//! like GNU find. Directories are read in name order (GNU uses the order
//! the directory stores, which is unspecified).
//!
//! Sizes, modes and owners are the emulated ones of `common/fs.rs` (a directory
//! is 4096 bytes, files are `644`, directories `755`, the owner `user`).

use regex::Regex;

use super::args::{self, Spec};
use super::common::fs::{
    apparent_size, base_name, disk_kib, join, mode_string, nlink, stat_path, OWNER, UID,
};
use super::common::printf_format::{directive, escape, pad};
use super::common::time::{civil, MONTHS};
use super::xargs::runnable;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::pattern::fnmatch;
use crate::system::{Kind, Meta};

pub const BUILTIN: Builtin = Builtin {
    name: "find",
    run,
    help: "Usage: find [-H] [-L] [-P] [path...] [expression]\n\
Search for files in a directory hierarchy (default path: the current directory;\n\
default expression: -print). Entries are visited in name order.\n\
\n\
Operators: ( EXPR )  ! EXPR  -not EXPR  EXPR -a EXPR  EXPR -and EXPR\n\
           EXPR -o EXPR  EXPR -or EXPR  EXPR , EXPR\n\
Options:   -maxdepth LEVELS  -mindepth LEVELS  -depth  -d  -regextype TYPE\n\
           (-xdev -mount -noleaf -nowarn -warn -follow are accepted)\n\
Tests:     -name PATTERN  -iname PATTERN  -path PATTERN  -ipath PATTERN\n\
           -wholename PATTERN  -regex PATTERN  -iregex PATTERN\n\
           -type [fd]  -size [+-]N[bcwkMG]  -empty  -newer FILE\n\
           -mtime [+-]N  -mmin [+-]N  -perm [-/]MODE  -user NAME  -group NAME\n\
           -true  -false\n\
Actions:   -print  -print0  -printf FORMAT  -exec COMMAND ;  -exec COMMAND {} +\n\
           -delete  -prune  -quit\n\
\n\
Not supported: -execdir, -ok, -okdir, -ls, -fprint*, -samefile, -inum, -links,\n\
-newerXY, -atime/-ctime (all times are the modification time).\n",
    help_flag: true,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Less,
    Equal,
    Greater,
}

impl Cmp {
    fn test(self, value: u64, n: u64) -> bool {
        match self {
            Cmp::Less => value < n,
            Cmp::Equal => value == n,
            Cmp::Greater => value > n,
        }
    }
}

#[derive(Debug)]
enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    True,
    False,
    Name(String, bool),
    Path(String, bool),
    Regex(Regex),
    Type(Vec<char>),
    Size(Cmp, u64, u64),
    Empty,
    Newer(usize),
    Age(Cmp, u64, u64),
    Perm(char, u32),
    Owner(String),
    Print,
    Print0,
    Printf(Vec<char>),
    Exec(Vec<String>, Option<usize>),
    Delete,
    Prune,
    Quit,
}

/// A parse failure: the message (without the `find: ` prefix).
type ParseResult<T> = Result<T, String>;

struct Parser<'a> {
    tokens: &'a [String],
    pos: usize,
    maxdepth: Option<usize>,
    mindepth: usize,
    depth_first: bool,
    regex_type: String,
    has_action: bool,
    batches: usize,
    newer: Vec<String>,
    /// (predicate, word) for the "possible unquoted pattern" hint.
    hint: Option<(String, String)>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(|s| s.as_str())
    }

    fn arg(&mut self, pred: &str) -> ParseResult<String> {
        match self.tokens.get(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(v.clone())
            }
            None => Err(format!("missing argument to `{pred}'")),
        }
    }

    fn parse_comma(&mut self) -> ParseResult<Expr> {
        let mut left = self.parse_or()?;
        while self.peek() == Some(",") {
            self.pos += 1;
            if self.peek().is_none() {
                return Err("invalid expression; expected expression after ','".into());
            }
            let right = self.parse_or()?;
            left = Expr::Comma(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_or(&mut self) -> ParseResult<Expr> {
        let mut left = self.parse_and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            let op = self.peek().unwrap_or_default().to_string();
            self.pos += 1;
            if matches!(self.peek(), None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")) {
                return Err(format!(
                    "invalid expression; you have used a binary operator '{op}' with nothing after it."
                ));
            }
            let right = self.parse_and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_and(&mut self) -> ParseResult<Expr> {
        let mut left = self.parse_unary()?;
        loop {
            match self.peek() {
                None | Some(")" | "-o" | "-or" | ",") => break,
                Some("-a" | "-and") => {
                    let op = self.peek().unwrap_or_default().to_string();
                    self.pos += 1;
                    if matches!(self.peek(), None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")) {
                        return Err(format!(
                            "invalid expression; you have used a binary operator '{op}' with nothing after it."
                        ));
                    }
                }
                Some(_) => {}
            }
            let right = self.parse_unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_unary(&mut self) -> ParseResult<Expr> {
        match self.peek() {
            None => Err("invalid expression".into()),
            Some(op @ ("!" | "-not")) => {
                let op = op.to_string();
                self.pos += 1;
                if matches!(self.peek(), None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")) {
                    return Err(format!("expected an expression after '{op}'"));
                }
                Ok(Expr::Not(Box::new(self.parse_unary()?)))
            }
            Some("(") => {
                self.pos += 1;
                if self.peek() == Some(")") {
                    return Err("invalid expression; empty parentheses are not allowed.".into());
                }
                let inner = self.parse_comma()?;
                if self.peek() != Some(")") {
                    return Err(
                        "invalid expression; I was expecting to find a ')' somewhere but did not see one."
                            .into(),
                    );
                }
                self.pos += 1;
                Ok(inner)
            }
            Some(")") => Err("you have too many ')'".into()),
            Some(op @ ("-o" | "-or" | "-a" | "-and" | ",")) => Err(format!(
                "invalid expression; you have used a binary operator '{op}' with nothing before it."
            )),
            Some(_) => self.parse_primary(),
        }
    }

    fn parse_primary(&mut self) -> ParseResult<Expr> {
        let tok = self.tokens.get(self.pos).cloned().unwrap_or_default();
        self.pos += 1;
        if !tok.starts_with('-') || tok == "-" {
            // `-name *.txt` expanded by the shell: the predicate is two back
            // (the hint is given when the stray word is an existing file).
            if let Some(prev) = self.pos.checked_sub(3).and_then(|i| self.tokens.get(i)) {
                if matches!(
                    prev.as_str(),
                    "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename"
                ) {
                    self.hint = Some((prev.clone(), tok.clone()));
                }
            }
            return Err(format!("paths must precede expression: `{tok}'"));
        }
        let e = match tok.as_str() {
            "-name" => Expr::Name(self.arg(&tok)?, false),
            "-iname" => Expr::Name(self.arg(&tok)?.to_ascii_lowercase(), true),
            "-path" | "-wholename" => Expr::Path(self.arg(&tok)?, false),
            "-ipath" | "-iwholename" => Expr::Path(self.arg(&tok)?.to_ascii_lowercase(), true),
            "-regex" | "-iregex" => {
                let pat = self.arg(&tok)?;
                let translated = translate_regex(&pat, &self.regex_type);
                let full = format!("{}^(?:{translated})$", if tok == "-iregex" { "(?i)" } else { "" });
                match Regex::new(&full) {
                    Ok(re) => Expr::Regex(re),
                    Err(_) => return Err(format!("Invalid regular expression: {pat}")),
                }
            }
            "-regextype" => {
                let t = self.arg(&tok)?;
                if !matches!(
                    t.as_str(),
                    "findutils-default"
                        | "emacs"
                        | "posix-basic"
                        | "posix-extended"
                        | "posix-egrep"
                        | "egrep"
                        | "grep"
                        | "sed"
                        | "awk"
                        | "gnu-awk"
                        | "posix-awk"
                        | "posix-minimal-basic"
                ) {
                    return Err(format!("Unknown regular expression type {}; valid types are findutils-default, awk, egrep, ed, emacs, gnu-awk, grep, posix-awk, awk, posix-basic, posix-egrep, posix-extended, posix-minimal-basic, sed.", find_quote(&t)));
                }
                self.regex_type = t;
                Expr::True
            }
            "-type" | "-xtype" => {
                let v = self.arg(&tok)?;
                let mut kinds = Vec::new();
                for part in v.split(',') {
                    let mut chars = part.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c @ ('f' | 'd' | 'l' | 'b' | 'c' | 'p' | 's' | 'D')), None) => kinds.push(c),
                        _ if part.is_empty() => {
                            return Err(format!("Last file type in list argument to {tok} is empty"))
                        }
                        _ if part.chars().count() > 1 => {
                            return Err(format!("Must separate multiple arguments to {tok} using: ','"))
                        }
                        _ => return Err(format!("Unknown argument to {tok}: {part}")),
                    }
                }
                Expr::Type(kinds)
            }
            "-size" => {
                let v = self.arg(&tok)?;
                let (cmp, rest) = split_cmp(&v);
                let (digits, unit) = match rest.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
                    Some((i, _)) => (&rest[..i], &rest[i..]),
                    None => (rest, ""),
                };
                let unit_bytes = match unit {
                    "" | "b" => 512,
                    "c" => 1,
                    "w" => 2,
                    "k" => 1024,
                    "M" => 1024 * 1024,
                    "G" => 1024 * 1024 * 1024,
                    u => return Err(format!("invalid -size type `{}'", u.chars().next().unwrap_or(' '))),
                };
                let n = digits.parse::<u64>().map_err(|_| format!("invalid argument `{v}' to `-size'"))?;
                Expr::Size(cmp, n, unit_bytes)
            }
            "-empty" => Expr::Empty,
            "-newer" => {
                let f = self.arg(&tok)?;
                self.newer.push(f);
                Expr::Newer(self.newer.len() - 1)
            }
            "-mtime" | "-mmin" => {
                let v = self.arg(&tok)?;
                let (cmp, rest) = split_cmp(&v);
                let n = rest.parse::<u64>().map_err(|_| format!("invalid argument `{v}' to `{tok}'"))?;
                Expr::Age(cmp, n, if tok == "-mtime" { 86_400_000 } else { 60_000 })
            }
            "-perm" => {
                let v = self.arg(&tok)?;
                let (kind, digits) = match v.chars().next() {
                    Some(c @ ('-' | '/')) => (c, &v[1..]),
                    _ => ('=', v.as_str()),
                };
                match u32::from_str_radix(digits, 8) {
                    Ok(m) if !digits.is_empty() => Expr::Perm(kind, m),
                    _ => return Err(format!("invalid mode {}", find_quote(&v))),
                }
            }
            "-user" | "-group" | "-uid" | "-gid" => Expr::Owner(self.arg(&tok)?),
            "-true" => Expr::True,
            "-false" => Expr::False,
            "-print" => {
                self.has_action = true;
                Expr::Print
            }
            "-print0" => {
                self.has_action = true;
                Expr::Print0
            }
            "-printf" => {
                self.has_action = true;
                Expr::Printf(self.arg(&tok)?.chars().collect())
            }
            "-exec" => {
                self.has_action = true;
                let mut argv = Vec::new();
                loop {
                    let Some(t) = self.tokens.get(self.pos) else {
                        return Err(format!("missing argument to `{tok}'"));
                    };
                    self.pos += 1;
                    if t == ";" {
                        break;
                    }
                    if t == "+" && argv.last().is_some_and(|a: &String| a == "{}") {
                        argv.pop();
                        if argv.iter().any(|a: &String| a.contains("{}")) {
                            return Err("Only one instance of {} is supported with -exec ... +".into());
                        }
                        if argv.is_empty() {
                            return Err(format!("missing argument to `{tok}'"));
                        }
                        let id = self.batches;
                        self.batches += 1;
                        return Ok(Expr::Exec(argv, Some(id)));
                    }
                    argv.push(t.clone());
                }
                if argv.is_empty() {
                    return Err(format!("missing argument to `{tok}'"));
                }
                Expr::Exec(argv, None)
            }
            "-delete" => {
                self.has_action = true;
                self.depth_first = true;
                Expr::Delete
            }
            "-prune" => Expr::Prune,
            "-quit" => Expr::Quit,
            "-maxdepth" | "-mindepth" => {
                let v = self.arg(&tok)?;
                let n = v.parse::<usize>().map_err(|_| {
                    format!(
                        "Expected a positive decimal integer argument to {tok}, but got {}",
                        find_quote(&v)
                    )
                })?;
                if tok == "-maxdepth" {
                    self.maxdepth = Some(n);
                } else {
                    self.mindepth = n;
                }
                Expr::True
            }
            "-depth" | "-d" => {
                self.depth_first = true;
                Expr::True
            }
            "-xdev"
            | "-mount"
            | "-noleaf"
            | "-nowarn"
            | "-warn"
            | "-follow"
            | "-ignore_readdir_race"
            | "-noignore_readdir_race"
            | "-daystart" => Expr::True,
            _ => return Err(format!("unknown predicate `{tok}'")),
        };
        Ok(e)
    }
}

fn split_cmp(v: &str) -> (Cmp, &str) {
    if let Some(r) = v.strip_prefix('+') {
        (Cmp::Greater, r)
    } else if let Some(r) = v.strip_prefix('-') {
        (Cmp::Less, r)
    } else {
        (Cmp::Equal, v)
    }
}

/// Quotes a name as find's messages do: `'it\'s'`.
fn find_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "\\'"))
}

/// Turns an emacs-style (find's default) or basic regular expression into
/// the `regex` crate's syntax; extended ones pass through.
fn translate_regex(pat: &str, kind: &str) -> String {
    let extended =
        matches!(kind, "posix-extended" | "posix-egrep" | "egrep" | "awk" | "gnu-awk" | "posix-awk");
    if extended {
        return pat.to_string();
    }
    let basic = matches!(kind, "posix-basic" | "grep" | "sed" | "posix-minimal-basic");
    let mut out = String::new();
    let mut chars = pat.chars().peekable();
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        if in_bracket {
            if c == ']' {
                in_bracket = false;
            }
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
            continue;
        }
        match c {
            '[' => {
                in_bracket = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '|' | '{' | '}')) => out.push(n),
                Some(n @ ('+' | '?')) if basic => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '+' | '?' if basic => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

struct Entry<'a> {
    path: &'a str,
    start: &'a str,
    depth: usize,
    meta: Meta,
}

struct Walker {
    maxdepth: Option<usize>,
    mindepth: usize,
    depth_first: bool,
    newer: Vec<u64>,
    now_ms: u64,
    /// Pending `-exec … {} +` arguments, per `-exec`.
    batches: Vec<(Vec<String>, Vec<String>, usize)>,
    status: i32,
    quit: bool,
    prune: bool,
}

/// Bytes of arguments one `-exec … +` run takes before it is flushed.
const BATCH_BYTES: usize = 128 * 1024;

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    // Leading -H/-L/-P (and -D/-O debugging options) come before paths.
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => {
                ctx.err("find: debug options (-D) are not supported\n");
                return 1;
            }
            s if s.starts_with("-O") => i += 1,
            "--" => {
                i += 1;
                break;
            }
            "--help" => {
                let _ = ctx.out(BUILTIN.help);
                return 0;
            }
            "--version" => {
                let _ = ctx.out("find (cordon) 4.9.0\n");
                return 0;
            }
            _ => break,
        }
    }
    // Reject unknown options in the GNU way only for leading `--x`.
    if let Some(a) = args.get(i) {
        if a.starts_with("--") && a.len() > 2 {
            let parsed = args::parse("find", std::slice::from_ref(a), &Spec::new(""));
            if let Err(msg) = parsed {
                return usage_error(ctx, &msg);
            }
        }
    }
    let rest = &args[i.min(args.len())..];
    let npaths = rest
        .iter()
        .position(|a| (a.starts_with('-') && a != "-") || a == "(" || a == "!")
        .unwrap_or(rest.len());
    let mut paths: Vec<String> = rest[..npaths].to_vec();
    if paths.is_empty() {
        paths.push(".".into());
    }
    let tokens = &rest[npaths..];
    let now_ms = ctx.sys().now_ms();
    let mut p = Parser {
        tokens,
        pos: 0,
        maxdepth: None,
        mindepth: 0,
        depth_first: false,
        regex_type: "emacs".into(),
        has_action: false,
        batches: 0,
        newer: Vec::new(),
        hint: None,
    };
    let expr = if tokens.is_empty() {
        p.has_action = true;
        Ok(Expr::Print)
    } else {
        p.parse_comma().and_then(|e| {
            if p.pos < tokens.len() {
                let t = &tokens[p.pos];
                if t == ")" {
                    Err("you have too many ')'".to_string())
                } else {
                    Err(format!("unexpected extra predicate '{t}'"))
                }
            } else {
                Ok(e)
            }
        })
    };
    let mut expr = match expr {
        Ok(e) => e,
        Err(msg) => {
            ctx.err(format!("find: {msg}\n"));
            if let Some((pred, word)) = &p.hint {
                if ctx.sys().stat(word).is_ok() {
                    ctx.err(format!("find: possible unquoted pattern after predicate `{pred}'?\n"));
                }
            }
            return 1;
        }
    };
    if !p.has_action {
        expr = Expr::And(Box::new(expr), Box::new(Expr::Print));
    }
    let mut newer = Vec::new();
    for f in &p.newer {
        match ctx.sys().stat(f) {
            Ok(m) => newer.push(m.mtime_ms),
            Err(e) => {
                ctx.err(format!("find: {}: {}\n", find_quote(f), e.describe()));
                return 1;
            }
        }
    }
    let mut w = Walker {
        maxdepth: p.maxdepth,
        mindepth: p.mindepth,
        depth_first: p.depth_first,
        newer,
        now_ms,
        batches: Vec::new(),
        status: 0,
        quit: false,
        prune: false,
    };
    fill_batches(&expr, &mut w.batches);
    for path in &paths {
        if w.quit {
            break;
        }
        match stat_path(ctx.sys(), path) {
            Ok(meta) => visit(ctx, &expr, &mut w, path, path, 0, meta),
            Err(e) => {
                ctx.err(format!("find: {}: {}\n", find_quote(path), e.describe()));
                w.status = 1;
            }
        }
    }
    for id in 0..w.batches.len() {
        flush(ctx, &mut w, id);
    }
    w.status
}

fn fill_batches(e: &Expr, out: &mut Vec<(Vec<String>, Vec<String>, usize)>) {
    match e {
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
            fill_batches(a, out);
            fill_batches(b, out);
        }
        Expr::Not(a) => fill_batches(a, out),
        Expr::Exec(argv, Some(id)) => {
            while out.len() <= *id {
                out.push((Vec::new(), Vec::new(), 0));
            }
            out[*id].0 = argv.clone();
        }
        _ => {}
    }
}

fn flush(ctx: &mut Ctx, w: &mut Walker, id: usize) {
    let Some((cmd, pending, bytes)) = w.batches.get_mut(id) else { return };
    if pending.is_empty() {
        return;
    }
    let mut argv = cmd.clone();
    argv.append(pending);
    *bytes = 0;
    if !runnable(&argv[0]) {
        ctx.err(format!("find: {}: No such file or directory\n", find_quote(&argv[0])));
        w.status = 1;
        return;
    }
    if ctx.exec(&argv, None) != 0 {
        w.status = 1;
    }
}

fn visit(ctx: &mut Ctx, expr: &Expr, w: &mut Walker, path: &str, start: &str, depth: usize, meta: Meta) {
    if ctx.interrupted() {
        w.quit = true;
    }
    if w.quit {
        return;
    }
    let in_range = w.maxdepth.is_none_or(|m| depth <= m);
    if !in_range {
        return;
    }
    let entry = Entry { path, start, depth, meta };
    w.prune = false;
    if !w.depth_first && depth >= w.mindepth {
        eval(ctx, expr, w, &entry);
    }
    let descend =
        meta.kind == Kind::Dir && (w.depth_first || !w.prune) && w.maxdepth.is_none_or(|m| depth < m);
    if descend && !w.quit {
        match ctx.sys().readdir(path) {
            Ok(entries) => {
                for e in entries {
                    if w.quit {
                        break;
                    }
                    let child = join(path, &e.name);
                    let child_meta = match ctx.sys().stat(&child) {
                        Ok(m) => m,
                        Err(_) => continue,
                    };
                    visit(ctx, expr, w, &child, start, depth + 1, child_meta);
                }
            }
            Err(e) => {
                ctx.err(format!("find: {}: {}\n", find_quote(path), e.describe()));
                w.status = 1;
            }
        }
    }
    if w.depth_first && depth >= w.mindepth && !w.quit {
        // The entry may have changed (a -delete below it).
        let meta = ctx.sys().stat(path).unwrap_or(meta);
        let entry = Entry { path, start, depth, meta };
        eval(ctx, expr, w, &entry);
    }
}

fn eval(ctx: &mut Ctx, e: &Expr, w: &mut Walker, f: &Entry) -> bool {
    if w.quit {
        return false;
    }
    match e {
        Expr::And(a, b) => eval(ctx, a, w, f) && eval(ctx, b, w, f),
        Expr::Or(a, b) => eval(ctx, a, w, f) || eval(ctx, b, w, f),
        Expr::Comma(a, b) => {
            eval(ctx, a, w, f);
            eval(ctx, b, w, f)
        }
        Expr::Not(a) => !eval(ctx, a, w, f),
        Expr::True => true,
        Expr::False => false,
        Expr::Name(pat, ci) => {
            let name = entry_name(f);
            if *ci {
                fnmatch(pat, &name.to_ascii_lowercase())
            } else {
                fnmatch(pat, name)
            }
        }
        Expr::Path(pat, ci) => {
            if *ci {
                fnmatch(pat, &f.path.to_ascii_lowercase())
            } else {
                fnmatch(pat, f.path)
            }
        }
        Expr::Regex(re) => re.is_match(f.path),
        Expr::Type(kinds) => kinds.iter().any(|k| match k {
            'f' => f.meta.kind == Kind::File,
            'd' => f.meta.kind == Kind::Dir,
            _ => false,
        }),
        Expr::Size(cmp, n, unit) => cmp.test(apparent_size(&f.meta).div_ceil(*unit), *n),
        Expr::Empty => match f.meta.kind {
            Kind::File => f.meta.size == 0,
            Kind::Dir => ctx.sys().readdir(f.path).map(|v| v.is_empty()).unwrap_or(false),
        },
        Expr::Newer(slot) => w.newer.get(*slot).is_some_and(|&t| f.meta.mtime_ms > t),
        Expr::Age(cmp, n, unit) => {
            let age = w.now_ms.saturating_sub(f.meta.mtime_ms);
            if *unit == 60_000 {
                // -mmin rounds the age up to whole minutes.
                cmp.test(age.div_ceil(*unit), *n)
            } else {
                cmp.test(age / unit, *n)
            }
        }
        Expr::Perm(kind, m) => {
            let mode = if f.meta.kind == Kind::Dir { 0o755 } else { 0o644 };
            match kind {
                '-' => mode & m == *m,
                '/' => *m == 0 || mode & m != 0,
                _ => mode == *m,
            }
        }
        Expr::Owner(name) => name == OWNER || name == &UID.to_string(),
        Expr::Print => output(ctx, w, format!("{}\n", f.path)),
        Expr::Print0 => output(ctx, w, format!("{}\0", f.path)),
        Expr::Printf(fmt) => {
            let text = printf(ctx, fmt, f);
            output(ctx, w, text)
        }
        Expr::Exec(argv, None) => {
            let argv: Vec<String> = argv.iter().map(|a| a.replace("{}", f.path)).collect();
            if !runnable(&argv[0]) {
                ctx.err(format!("find: {}: No such file or directory\n", find_quote(&argv[0])));
                return false;
            }
            ctx.exec(&argv, None) == 0
        }
        Expr::Exec(_, Some(id)) => {
            let full = match w.batches.get_mut(*id) {
                Some((_, pending, bytes)) => {
                    pending.push(f.path.to_string());
                    *bytes += f.path.len() + 1;
                    *bytes >= BATCH_BYTES
                }
                None => false,
            };
            if full {
                flush(ctx, w, *id);
            }
            true
        }
        Expr::Delete => {
            let base = base_name(f.path);
            if base == "." || base == ".." {
                return true;
            }
            match ctx.sys().remove(f.path, false) {
                Ok(()) => true,
                Err(e) => {
                    ctx.err(format!("find: cannot delete {}: {}\n", find_quote(f.path), e.describe()));
                    w.status = 1;
                    false
                }
            }
        }
        Expr::Prune => {
            w.prune = true;
            true
        }
        Expr::Quit => {
            w.quit = true;
            true
        }
    }
}

fn output(ctx: &mut Ctx, w: &mut Walker, text: String) -> bool {
    if ctx.out(text).is_err() {
        w.quit = true;
    }
    true
}

/// The name `-name` matches: the last component (a start point keeps its
/// name; `/` stays `/`).
fn entry_name<'a>(f: &Entry<'a>) -> &'a str {
    base_name(f.path)
}

fn printf(ctx: &mut Ctx, fmt: &[char], f: &Entry) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c == '\\' {
            i += 1;
            if let Some((e, next)) = escape(fmt, i) {
                out.push(e);
                i = next;
                continue;
            }
            match fmt.get(i) {
                Some('c') => return out,
                Some(other) => {
                    out.push('\\');
                    out.push(*other);
                }
                None => out.push('\\'),
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
        let (d, at) = directive(fmt, i + 1, "-+ #0");
        i = at;
        let Some(&conv) = fmt.get(i) else {
            out.extend(&fmt[start..]);
            break;
        };
        i += 1;
        let value = match conv {
            '%' => "%".to_string(),
            'p' => f.path.to_string(),
            'f' => base_name(f.path).to_string(),
            'h' => match f.path.trim_end_matches('/').rfind('/') {
                Some(0) => "/".to_string(),
                Some(k) => f.path[..k].to_string(),
                None => ".".to_string(),
            },
            'P' => {
                let rest = f.path.strip_prefix(f.start).unwrap_or(f.path);
                rest.trim_start_matches('/').to_string()
            }
            'H' => f.start.to_string(),
            's' => apparent_size(&f.meta).to_string(),
            'd' => f.depth.to_string(),
            'y' | 'Y' => if f.meta.kind == Kind::Dir { "d" } else { "f" }.to_string(),
            'm' => if f.meta.kind == Kind::Dir { "755" } else { "644" }.to_string(),
            'M' => mode_string(f.meta.kind).to_string(),
            'k' => disk_kib(&f.meta).to_string(),
            'b' => (disk_kib(&f.meta) * 2).to_string(),
            'n' => nlink(ctx.sys(), f.path, &f.meta).to_string(),
            'u' | 'g' => OWNER.to_string(),
            'U' | 'G' => UID.to_string(),
            'i' => "0".to_string(),
            'l' => String::new(),
            'a' | 'c' | 't' => ctime(f.meta.mtime_ms),
            'A' | 'C' | 'T' => {
                let k = fmt.get(i).copied().unwrap_or('@');
                i += 1;
                time_part(f.meta.mtime_ms, k)
            }
            _ => {
                // GNU warns and prints the directive as it was.
                fmt[start..i].iter().collect()
            }
        };
        pad(&mut out, &value, d.width, d.left, false);
    }
    out
}

const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];

fn frac(ms: u64) -> String {
    format!("{:03}0000000", ms % 1000)
}

/// `Sat Nov 21 09:18:05.3700000000 2026`, as `%t` prints.
fn ctime(ms: u64) -> String {
    let secs = (ms / 1000) as i64;
    let (y, mo, d, h, mi, s) = civil(secs);
    let wd = DAYS[(secs.div_euclid(86_400).rem_euclid(7)) as usize];
    let month = MONTHS[(mo as usize).saturating_sub(1).min(11)];
    format!("{wd} {month} {d:>2} {h:02}:{mi:02}:{s:02}.{} {y}", frac(ms))
}

fn time_part(ms: u64, k: char) -> String {
    let secs = (ms / 1000) as i64;
    let (y, mo, d, h, mi, s) = civil(secs);
    match k {
        '@' => format!("{secs}.{}", frac(ms)),
        'Y' => format!("{y:04}"),
        'm' => format!("{mo:02}"),
        'd' => format!("{d:02}"),
        'e' => format!("{d:>2}"),
        'H' => format!("{h:02}"),
        'M' => format!("{mi:02}"),
        'S' => format!("{s:02}.{}", frac(ms)),
        'T' => format!("{h:02}:{mi:02}:{s:02}.{}", frac(ms)),
        'F' => format!("{y:04}-{mo:02}-{d:02}"),
        'D' => format!("{mo:02}/{d:02}/{:02}", y.rem_euclid(100)),
        'y' => format!("{:02}", y.rem_euclid(100)),
        'b' | 'h' => MONTHS[(mo as usize).saturating_sub(1).min(11)].to_string(),
        'a' => DAYS[(secs.div_euclid(86_400).rem_euclid(7)) as usize].to_string(),
        's' => secs.to_string(),
        'k' => format!("{h:>2}"),
        'R' => format!("{h:02}:{mi:02}"),
        '+' => format!("{y:04}-{mo:02}-{d:02}+{h:02}:{mi:02}:{s:02}.{}", frac(ms)),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emacs_regex_translation() {
        assert_eq!(translate_regex(r".*\.\(js\|ts\)", "emacs"), r".*\.(js|ts)");
        assert_eq!(translate_regex("a(b)|c", "emacs"), r"a\(b\)\|c");
        assert_eq!(translate_regex("(a|b)+", "posix-extended"), "(a|b)+");
        assert!(Regex::new(&translate_regex(r"[]a]\+x", "posix-basic")).is_ok());
    }

    #[test]
    fn times() {
        assert_eq!(time_part(1_767_323_045_123, 'F'), "2026-01-02");
        assert_eq!(time_part(1_767_323_045_123, '@'), "1767323045.1230000000");
        assert_eq!(ctime(1_767_323_045_000), "Fri Jan  2 03:04:05.0000000000 2026");
    }
}
