//! `jq`: jq 1.6's command line over the jaq interpreter (`jaq-core`,
//! `jaq-std`), with jq's own JSON reader and printer (numbers, escapes,
//! indentation, parse errors with jq's line and column) and a value type
//! ([`val::V`]) that follows jq where jaq chose otherwise: updating `null`
//! builds objects and arrays, assignments past the end of an array pad it,
//! floats index arrays, division by zero and non-string object keys are
//! errors, and errors read like jq's.
//!
//! Known differences from jq 1.6 that come from jaq: `%` binds tighter
//! than `*` and `/` (`a * b % c` is `a * (b % c)`); regular expressions are
//! Rust's (`regex`), not Oniguruma's, and `capture` leaves out groups that
//! did not match; integer literals and integer arithmetic are exact where
//! jq rounds to doubles; `catch` may see jaq's wording for errors raised by
//! its own built-ins (such as `ascii_downcase` on a number); `$__loc__`
//! always says line 1; `.5` is not a number literal; a constant `1 / 0` is a
//! runtime error rather than a compile error. jq 1.6's own bugs in `gsub`
//! with `^` and `.[] |= empty` are not reproduced (`error(null)` is
//! `empty`, as in jq 1.6), `input`
//! past the end says "No more inputs", `@base32` exists, and modules
//! (`import`, `include`, `-L`), `--stream` and colors are not available.

mod funs;
pub(crate) mod json;
mod reader;
mod val;

use std::cell::RefCell;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx as JqCtx, Vars};
use jaq_json::{Map, Val};
use jaq_std::input::RcIter;

use super::Builtin;
use crate::ctx::Ctx;
use funs::{Env, Jq};
use json::Style;
use reader::Reader;
use val::V;

pub const BUILTIN: Builtin = Builtin { name: "jq", run, help: HELP, help_flag: true };

const HELP: &str = "Usage:\tjq [OPTIONS] FILTER [FILE]...
\tjq [OPTIONS] --args FILTER [STRINGS]...
\tjq [OPTIONS] --jsonargs FILTER [JSON_TEXTS]...

Runs FILTER over the JSON texts in the FILEs (standard input by default).

  -c, --compact-output   compact instead of pretty-printed output
  -n, --null-input       use `null` as the single input value
  -e, --exit-status      set the exit status from the last output
  -s, --slurp            read all inputs into an array
  -r, --raw-output       output strings without quotes
  -j, --join-output      like -r, without newlines
  -a, --ascii-output     escape non-ASCII characters
  -R, --raw-input        read lines as strings, not JSON texts
  -S, --sort-keys        sort object keys on output
  -M, --monochrome-output  no colors (the default)
  -f, --from-file        read FILTER from the first file operand
      --tab              indent with tabs
      --indent N         indent with N spaces (0 to 7)
      --seq              write a record separator before each output
      --arg NAME VALUE   set $NAME to the string VALUE
      --argjson NAME JSON  set $NAME to the JSON value
      --slurpfile NAME FILE  set $NAME to an array of the JSON texts in FILE
      --rawfile NAME FILE    set $NAME to the contents of FILE
      --args             remaining operands are strings for $ARGS.positional
      --jsonargs         remaining operands are JSON texts for $ARGS.positional
  -V, --version          print the version

Not supported: -C (color), -L and modules, --stream, --run-tests.
";

const USAGE_TAIL: &str = "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n";

/// Parsed command line.
#[derive(Default)]
struct Opts {
    program: Option<String>,
    from_file: bool,
    files: Vec<String>,
    null_input: bool,
    raw_input: bool,
    slurp: bool,
    raw_output: bool,
    join_output: bool,
    ascii: bool,
    compact: bool,
    sort_keys: bool,
    tab: bool,
    indent: usize,
    seq: bool,
    exit_status: bool,
    named: Vec<(String, Val)>,
    positional: Vec<Val>,
}

enum ArgsMode {
    Files,
    Strings,
    Json,
}

/// Why option parsing stopped.
enum Stop {
    /// Message for stderr (with jq's usage tail), status 2.
    Usage(String),
    /// Message for stderr, status 2, no usage tail.
    Fatal(String),
    Help,
    Version,
}

fn usage(msg: impl std::fmt::Display) -> Stop {
    Stop::Usage(format!("jq: {msg}\n{USAGE_TAIL}"))
}

fn parse_args(ctx: &mut Ctx, args: &[String]) -> Result<Opts, Stop> {
    let mut o = Opts { indent: 2, ..Opts::default() };
    let mut mode = ArgsMode::Files;
    let mut operands_only = false;
    let mut i = 0;
    let take = |i: &mut usize, n: usize| -> Option<Vec<String>> {
        let got = args.get(*i..*i + n)?.to_vec();
        *i += n;
        Some(got)
    };
    while let Some(a) = args.get(i) {
        i += 1;
        // like jq, only `--…` and `-<letter>…` are options (`-1` is a program)
        let optish = a.starts_with("--")
            || (a.starts_with('-') && a[1..].starts_with(|c: char| c.is_ascii_alphabetic()));
        if operands_only || !optish {
            if o.program.is_none() {
                o.program = Some(a.clone());
                continue;
            }
            match mode {
                ArgsMode::Files => o.files.push(a.clone()),
                ArgsMode::Strings => o.positional.push(Val::from(a.clone())),
                ArgsMode::Json => match funs::parse_one(a.as_bytes()) {
                    Ok(v) => o.positional.push(v),
                    Err(_) => return Err(usage("Invalid JSON text passed to --jsonargs")),
                },
            }
            continue;
        }
        if a == "--" {
            operands_only = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long {
                "slurp" => o.slurp = true,
                "raw-output" => o.raw_output = true,
                "join-output" => {
                    o.raw_output = true;
                    o.join_output = true;
                }
                "ascii-output" => o.ascii = true,
                "compact-output" => o.compact = true,
                "monochrome-output" | "unbuffered" => {}
                "sort-keys" => o.sort_keys = true,
                "raw-input" => o.raw_input = true,
                "null-input" => o.null_input = true,
                "exit-status" => o.exit_status = true,
                "from-file" => o.from_file = true,
                "tab" => o.tab = true,
                "seq" => o.seq = true,
                "args" => mode = ArgsMode::Strings,
                "jsonargs" => mode = ArgsMode::Json,
                "help" => return Err(Stop::Help),
                "version" => return Err(Stop::Version),
                "indent" => {
                    let n = take(&mut i, 1).and_then(|v| v.first().and_then(|s| s.parse::<i64>().ok()));
                    match n {
                        Some(-1) => o.tab = true,
                        Some(n @ 0..=7) => o.indent = n as usize,
                        _ => return Err(usage("--indent takes a number between -1 and 7")),
                    }
                }
                "arg" => {
                    let Some(v) = take(&mut i, 2) else {
                        return Err(usage("--arg takes two parameters (e.g. --arg varname value)"));
                    };
                    o.named.push((v[0].clone(), Val::from(v[1].clone())));
                }
                "argjson" => {
                    let Some(v) = take(&mut i, 2) else {
                        return Err(usage("--argjson takes two parameters (e.g. --argjson varname text)"));
                    };
                    match funs::parse_one(v[1].as_bytes()) {
                        Ok(val) if !v[1].trim().is_empty() => o.named.push((v[0].clone(), val)),
                        _ => return Err(usage("invalid JSON text passed to --argjson")),
                    }
                }
                "slurpfile" | "rawfile" | "argfile" => {
                    let Some(v) = take(&mut i, 2) else {
                        return Err(usage(format!(
                            "--{long} takes two parameters (e.g. --{long} varname filename)"
                        )));
                    };
                    let data = match ctx.read_input(&v[1]) {
                        Ok(d) => d,
                        Err(e) => {
                            return Err(Stop::Fatal(format!(
                                "jq: Bad JSON in --{long} {} {}: Could not open {}: {}\n",
                                v[0],
                                v[1],
                                v[1],
                                e.describe()
                            )))
                        }
                    };
                    let val = if long == "rawfile" {
                        Val::from(String::from_utf8_lossy(&data).into_owned())
                    } else {
                        let mut p = json::Parser::new(&data);
                        let mut vals = Vec::new();
                        while let Some(r) = p.next_value() {
                            match r {
                                Ok((x, _)) => vals.push(x),
                                Err(e) => {
                                    return Err(Stop::Fatal(format!(
                                        "jq: Bad JSON in --{long} {} {}: {}\n",
                                        v[0],
                                        v[1],
                                        json::describe(&data, &e)
                                    )))
                                }
                            }
                        }
                        if long == "argfile" && vals.len() == 1 {
                            vals.pop().unwrap_or_default()
                        } else {
                            Val::Arr(vals.into())
                        }
                    };
                    o.named.push((v[0].clone(), val));
                }
                "color-output" => return Err(Stop::Fatal("jq: --color-output is not supported\n".into())),
                "stream" | "debug-dump-disasm" | "debug-trace" | "run-tests" => {
                    return Err(Stop::Fatal(format!("jq: --{long} is not supported\n")))
                }
                _ => return Err(usage(format!("Unknown option {a}"))),
            }
            continue;
        }
        for c in a.chars().skip(1) {
            match c {
                's' => o.slurp = true,
                'r' => o.raw_output = true,
                'j' => {
                    o.raw_output = true;
                    o.join_output = true;
                }
                'a' => o.ascii = true,
                'c' => o.compact = true,
                'M' => {}
                'S' => o.sort_keys = true,
                'R' => o.raw_input = true,
                'n' => o.null_input = true,
                'e' => o.exit_status = true,
                'f' => o.from_file = true,
                'h' => return Err(Stop::Help),
                'V' => return Err(Stop::Version),
                'C' => return Err(Stop::Fatal("jq: -C (color output) is not supported\n".into())),
                'L' => return Err(Stop::Fatal("jq: -L (module search paths) is not supported\n".into())),
                _ => return Err(usage(format!("Unknown option {a}"))),
            }
        }
    }
    Ok(o)
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut o = match parse_args(ctx, args) {
        Ok(o) => o,
        Err(Stop::Usage(msg) | Stop::Fatal(msg)) => {
            ctx.err(msg);
            return 2;
        }
        Err(Stop::Help) => {
            let _ = ctx.out(HELP);
            return 0;
        }
        Err(Stop::Version) => {
            let _ = ctx.out("jq-1.6\n");
            return 0;
        }
    };
    let program = match (o.program.take(), o.from_file) {
        (None, _) => ".".to_string(),
        (Some(p), false) => p,
        (Some(path), true) => match ctx.read_input(&path) {
            Ok(d) => String::from_utf8_lossy(&d).into_owned(),
            Err(e) => {
                ctx.err(format!("jq: error: Could not open {path}: {}\n", e.describe()));
                return 2;
            }
        },
    };

    // the inputs, concatenated
    let mut data = Vec::new();
    let mut files: Vec<(usize, Option<String>)> = Vec::new();
    let mut open_failed = false;
    let read_stdin = !o.null_input || program.contains("input");
    if o.files.is_empty() {
        if read_stdin {
            data = ctx.stdin_all();
        }
        files.push((0, None));
    } else {
        for path in &o.files {
            match ctx.read_input(path) {
                Ok(d) => {
                    files.push((data.len(), if path == "-" { None } else { Some(path.clone()) }));
                    data.extend_from_slice(&d);
                }
                Err(e) => {
                    ctx.err(format!("jq: error: Could not open file {path}: {}\n", e.describe()));
                    open_failed = true;
                }
            }
        }
        if files.is_empty() {
            files.push((0, None));
        }
    }

    let env_obj = {
        let mut m = Map::default();
        for (k, v) in ctx.state().environment() {
            m.insert(Val::from(k), Val::from(v));
        }
        Val::obj(m)
    };
    let now = ctx.sys().now_ms() as f64 / 1000.0;
    let style = Style {
        indent: if o.compact { 0 } else { o.indent },
        tab: o.tab && !o.compact,
        sort_keys: o.sort_keys,
        ascii: o.ascii,
    };
    // one shared buffer: strings without escapes point into it
    let whole = Val::utf8_str(data);
    let bytes = json::str_bytes(&whole).unwrap_or_default();
    let status = execute(ctx, &o, &program, bytes, &whole, files, env_obj, now, style);
    match status {
        Outcome::Status(s) => s,
        Outcome::Done { parse_error, last_input } => {
            if open_failed {
                2
            } else if parse_error {
                4
            } else {
                last_input
            }
        }
    }
}

enum Outcome {
    /// Stop with this status (compile error, `halt`, closed output).
    Status(i32),
    /// Ran to the end: whether the input was not JSON, and the status of
    /// the last input run (like jq 1.6, where only the last input counts).
    Done { parse_error: bool, last_input: i32 },
}

/// Translates jaq's wording of common errors to jq's.
fn jq_message(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("cannot index ") {
        if let Some((l, r)) = split_value(rest, " with ") {
            return match (parse_shown(l), parse_shown(r)) {
                (Some(lv), Some(Val::TStr(k))) => {
                    format!(
                        "Cannot index {} with string \"{}\"",
                        funs::kind(&lv),
                        String::from_utf8_lossy(&k)
                    )
                }
                (Some(lv), Some(rv)) => format!("Cannot index {} with {}", funs::kind(&lv), funs::kind(&rv)),
                _ => msg.to_string(),
            };
        }
    }
    if let Some(rest) = msg.strip_prefix("cannot use ") {
        if let Some((v, what)) = split_value(rest, " as ") {
            if let Some(val) = parse_shown(v) {
                return match what {
                    "iterable (array or object)" => {
                        format!("Cannot iterate over {} ({})", funs::kind(&val), funs::trunc(&val))
                    }
                    _ => format!("{} ({}) cannot be used as {what}", funs::kind(&val), funs::trunc(&val)),
                };
            }
        }
    }
    if let Some(rest) = msg.strip_prefix("cannot calculate ") {
        for (op, verb) in [
            (" + ", "added"),
            (" - ", "subtracted"),
            (" * ", "multiplied"),
            (" / ", "divided"),
            (" % ", "divided"),
        ] {
            if let Some((l, r)) = split_value(rest, op) {
                if let (Some(lv), Some(rv)) = (parse_shown(l), parse_shown(r)) {
                    let tail = if op == " % " { " because the divisor is zero" } else { "" };
                    return format!(
                        "{} ({}) and {} ({}) cannot be {verb}{tail}",
                        funs::kind(&lv),
                        funs::trunc(&lv),
                        funs::kind(&rv),
                        funs::trunc(&rv)
                    );
                }
            }
        }
    }
    if let Some(v) = msg.strip_suffix(" has no length") {
        if let Some(val) = parse_shown(v) {
            return funs::type_error(&val, "has no length");
        }
    }
    msg.to_string()
}

/// A value as jaq displays it in messages, read back.
fn parse_shown(s: &str) -> Option<Val> {
    match s {
        "NaN" => Some(Val::from(f64::NAN)),
        "Infinity" => Some(Val::from(f64::INFINITY)),
        "-Infinity" => Some(Val::from(f64::NEG_INFINITY)),
        _ => funs::parse_one(s.as_bytes()).ok(),
    }
}

/// Splits `VALUE SEP REST` where VALUE is a JSON-like text.
fn split_value<'s>(s: &'s str, sep: &str) -> Option<(&'s str, &'s str)> {
    let b = s.as_bytes();
    let end = match b.first()? {
        b'"' => {
            let mut i = 1;
            loop {
                match b.get(i)? {
                    b'"' => break i + 1,
                    b'\\' => i += 2,
                    _ => i += 1,
                }
            }
        }
        b'[' | b'{' => {
            let (mut depth, mut i, mut in_str) = (0i32, 0, false);
            loop {
                let c = *b.get(i)?;
                i += 1;
                if in_str {
                    match c {
                        b'\\' => i += 1,
                        b'"' => in_str = false,
                        _ => {}
                    }
                    continue;
                }
                match c {
                    b'"' => in_str = true,
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break i;
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => s.find(sep)?,
    };
    let rest = s.get(end..)?.strip_prefix(sep)?;
    Some((s.get(..end)?, rest))
}

/// The text jq prints for an error value.
fn error_text(v: &Val) -> String {
    match json::str_bytes(v) {
        Some(s) => format!(": {}", jq_message(&String::from_utf8_lossy(s))),
        None => format!(" (not a string): {}", String::from_utf8_lossy(&json::to_json(v))),
    }
}

/// Where `part` (a slice of `whole`) starts in it; 0 if it is not a slice.
fn offset_in(whole: &str, part: &str) -> usize {
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    if p >= w && p <= w + whole.len() {
        p - w
    } else {
        0
    }
}

/// Where the last token of a program starts (jq points there at its end).
fn last_token(program: &str) -> usize {
    let t = program.trim_end();
    let Some(last) = t.chars().last() else { return 0 };
    if last.is_alphanumeric() || last == '_' {
        t.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_').len()
    } else {
        t.len() - last.len_utf8()
    }
}

struct Inputs<'a>(&'a RefCell<Reader<'a>>);

impl Iterator for Inputs<'_> {
    type Item = Result<V, String>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.borrow_mut().next_value().map(|r| r.map(V))
    }
}

/// Parses and compiles a jq program against the builtins and the global
/// variables `names`; the error is jq's message (status 3).
pub(crate) fn compile<'a>(
    arena: &'a Arena,
    program: &'a str,
    names: &'a [String],
) -> Result<jaq_core::Filter<Jq>, String> {
    let loader = Loader::new(funs::defs());
    let modules = match loader.load(arena, File { code: program, path: () }) {
        Ok(m) => m,
        Err(errs) => {
            let mut msg = String::new();
            let mut n = 0;
            for (_, e) in errs {
                use jaq_core::load::Error;
                let found = |f: &str| {
                    let t = f.trim_start();
                    let Some(c) = t.chars().next() else { return "$end".to_string() };
                    if c.is_ascii_digit() {
                        "LITERAL".to_string()
                    } else if c.is_alphabetic() || c == '_' {
                        "IDENT".to_string()
                    } else if c == '"' {
                        "QQSTRING_START".to_string()
                    } else {
                        format!("'{c}'")
                    }
                };
                let syntax = |(exp, f): (&str, &str)| {
                    let at = if f.trim().is_empty() {
                        last_token(program)
                    } else {
                        offset_in(program, f.trim_start())
                    };
                    let _ = exp;
                    (format!("syntax error, unexpected {} (Unix shell quoting issues?)", found(f)), at)
                };
                let lines: Vec<(String, usize)> = match e {
                    Error::Io(v) => v.into_iter().map(|(p, e)| (format!("{p}: {e}"), 0)).collect(),
                    Error::Lex(v) => v.into_iter().map(|(exp, f)| syntax((exp.as_str(), f))).collect(),
                    Error::Parse(v) => v.into_iter().map(|(exp, f)| syntax((exp.as_str(), f))).collect(),
                };
                for (l, at) in lines {
                    n += 1;
                    msg.push_str(&format!(
                        "jq: error: {l} at <top-level>, line 1:\n{program}{}\n",
                        " ".repeat(at)
                    ));
                }
            }
            msg.push_str(&format!("jq: {n} compile error{}\n", if n == 1 { "" } else { "s" }));
            return Err(msg);
        }
    };
    Compiler::default()
        .with_funs(funs::all_natives())
        .with_global_vars(names.iter().map(String::as_str))
        .compile(modules)
        .map_err(|errs| {
            let mut msg = String::new();
            let mut n = 0;
            for (_, list) in errs {
                for (name, undef) in list {
                    n += 1;
                    let what = match undef {
                        jaq_core::compile::Undefined::Filter(arity) => format!("{name}/{arity}"),
                        _ => name.to_string(),
                    };
                    let at = offset_in(program, name);
                    msg.push_str(&format!(
                        "jq: error: {what} is not defined at <top-level>, line 1:\n{program}{}\n",
                        " ".repeat(at)
                    ));
                }
            }
            msg.push_str(&format!("jq: {n} compile error{}\n", if n == 1 { "" } else { "s" }));
            msg
        })
}

#[allow(clippy::too_many_arguments)]
fn execute(
    ctx: &mut Ctx,
    o: &Opts,
    program: &str,
    data: &[u8],
    whole: &Val,
    files: Vec<(usize, Option<String>)>,
    env_obj: Val,
    now: f64,
    style: Style,
) -> Outcome {
    let mut names: Vec<String> = vec!["$ENV".into(), "$__loc__".into(), "$ARGS".into()];
    names.extend(o.named.iter().map(|(n, _)| format!("${n}")));
    let arena = Arena::default();
    let filter = match compile(&arena, program, &names) {
        Ok(f) => f,
        Err(msg) => {
            ctx.err(msg);
            return Outcome::Status(3);
        }
    };

    // global variables, in the order of `names`
    let mut named = Map::default();
    for (k, v) in &o.named {
        named.insert(Val::from(k.clone()), v.clone());
    }
    let mut args_obj = Map::default();
    args_obj.insert(Val::from("positional".to_string()), Val::Arr(o.positional.clone().into()));
    args_obj.insert(Val::from("named".to_string()), Val::obj(named));
    let mut loc = Map::default();
    loc.insert(Val::from("file".to_string()), Val::from("<top-level>".to_string()));
    loc.insert(Val::from("line".to_string()), Val::from(1isize));
    let mut globals = vec![env_obj.clone(), Val::obj(loc), Val::obj(args_obj)];
    globals.extend(o.named.iter().map(|(_, v)| v.clone()));
    let vars = Vars::new(globals.into_iter().map(V));

    let reader = RefCell::new(Reader::new(data, whole.clone(), files, o.raw_input));
    let iter = RcIter::new(Inputs(&reader));
    let env = Env {
        lut: &filter.lut,
        inputs: &iter,
        reader: &reader,
        stderr: RefCell::new(Vec::new()),
        env: env_obj,
        now,
    };

    // the values the filter runs on
    let mut firsts: Vec<Val> = Vec::new();
    let mut parse_error = false;
    if o.null_input {
        firsts.push(Val::Null);
    } else if o.slurp {
        if o.raw_input {
            firsts.push(reader.borrow_mut().all_text());
        } else {
            let mut all = Vec::new();
            for r in &iter {
                match r {
                    Ok(v) => all.push(v.0),
                    Err(e) => {
                        ctx.err(format!("parse error: {e}\n"));
                        parse_error = true;
                    }
                }
            }
            if parse_error {
                return Outcome::Done { parse_error, last_input: 0 };
            }
            firsts.push(Val::Arr(all.into()));
        }
    }
    let mut pending = firsts.into_iter();
    let mut out = Vec::new();
    let mut last_input = 0;
    loop {
        let input = match pending.next() {
            Some(v) => v,
            None if o.null_input || o.slurp => break,
            None => match (&iter).next() {
                None => break,
                Some(Ok(v)) => v.0,
                Some(Err(e)) => {
                    ctx.err(format!("parse error: {e}\n"));
                    parse_error = true;
                    break;
                }
            },
        };
        let jctx = JqCtx::<Jq>::new(&env, vars.clone());
        let mut errors = false;
        let mut last = None;
        for r in filter.id.run((jctx, V(input))) {
            match r {
                Ok(V(v)) => {
                    last = Some(!matches!(v, Val::Null | Val::Bool(false)));
                    if o.seq {
                        out.push(0x1e);
                    }
                    match (&v, o.raw_output) {
                        (Val::TStr(s) | Val::BStr(s), true) if !o.ascii => out.extend_from_slice(s),
                        _ => json::write_val(&mut out, &v, &style, 0),
                    }
                    if !o.join_output {
                        out.push(b'\n');
                    }
                }
                Err(exn) => match exn.get_err() {
                    Ok(e) => {
                        let e = e.into_val().0;
                        errors = true;
                        let text = error_text(&e);
                        let at = reader.borrow_mut().location();
                        flush_err(ctx, &env);
                        ctx.err(format!("jq: error (at {at}){text}\n"));
                        // like jq, an error ends the run on this input
                        break;
                    }
                    Err(exn) => {
                        if let Ok(code) = exn.get_halt() {
                            let _ = ctx.out(&out);
                            flush_err(ctx, &env);
                            return Outcome::Status(code);
                        }
                    }
                },
            }
            flush_err(ctx, &env);
            if out.len() >= 1 << 16 {
                if ctx.out(&out).is_err() {
                    return Outcome::Status(if errors { 5 } else { 0 });
                }
                out.clear();
            }
        }
        last_input = match (errors, o.exit_status, last) {
            (true, _, _) => 5,
            (false, false, _) => 0,
            (false, true, None) => 4,
            (false, true, Some(truthy)) => i32::from(!truthy),
        };
    }
    if ctx.out(&out).is_err() {
        return Outcome::Status(last_input);
    }
    flush_err(ctx, &env);
    Outcome::Done { parse_error, last_input }
}

fn flush_err(ctx: &mut Ctx, env: &Env) {
    let msg = std::mem::take(&mut *env.stderr.borrow_mut());
    if !msg.is_empty() {
        ctx.err(msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_like_jq() {
        assert_eq!(jq_message("cannot index 1 with \"a\""), "Cannot index number with string \"a\"");
        assert_eq!(jq_message("cannot index {} with 0"), "Cannot index object with number");
        assert_eq!(
            jq_message("cannot use 5 as iterable (array or object)"),
            "Cannot iterate over number (5)"
        );
        assert_eq!(
            jq_message("cannot calculate {\"aaaaaaaaaaaa\":1} + 1"),
            "object ({\"aaaaaaaaa...) and number (1) cannot be added"
        );
        assert_eq!(jq_message("true has no length"), "boolean (true) has no length");
    }
}
