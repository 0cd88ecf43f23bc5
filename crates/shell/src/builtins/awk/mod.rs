//! `awk`: a POSIX awk interpreter behaving like mawk (this machine's awk):
//! lexer (`lexer`), parser and array/scalar analysis (`parser`, `analyze`),
//! tree-walking evaluator (`interp`), values and conversions (`value`),
//! printf formatting (`format`) and EREs over the `regex` crate (`regex`).
//!
//! Differences from mawk, by design:
//! - `for (k in a)` visits keys in insertion order (mawk's order comes from
//!   its hash tables).
//! - Commands cannot be run: `system()`, `cmd | getline` and `print | cmd`
//!   are errors (status 2) naming what is not supported.
//! - `rand()` has its own generator (mawk seeds from the clock anyway).
//! - Regular expressions are POSIX EREs translated to the `regex` crate
//!   (leftmost-first); where the match's extent matters (`match`, `sub`,
//!   `gsub`, `split`, FS, RS) and the expression has an alternation, a
//!   longer match (POSIX's leftmost-longest) is looked for up to 256 bytes
//!   further.
//! - A parameter used only in `length(p)` may be passed an array (mawk
//!   reports a type error); `awk` without a program prints the usage and
//!   exits 2 (mawk exits 0).
//! - Recursion is bounded: at most 1000 nested function calls, and at most
//!   2500 statements and expressions executing inside each other (about 600
//!   levels of a simple recursive function; mawk's own limit is about 500),
//!   which keeps within the sandbox's 1 MiB stack. Strings are limited to
//!   64 MiB, field numbers to 1,000,000.

mod analyze;
mod format;
mod interp;
mod lexer;
mod parser;
mod regex;
mod value;

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin { name: "awk", run, help: HELP, help_flag: true };

const HELP: &str = "\
Usage: awk [-F fs] [-v var=value] [--] 'program' [file ...]
   or: awk [-F fs] [-v var=value] -f progfile [--] [file ...]
Scan each input file (or standard input) for lines matching the patterns
of the program and run their actions. A POSIX awk, compatible with mawk.

  -F fs          set the field separator FS (a character, or a regular
                 expression; escapes like '\\t' are processed)
  -v var=value   assign a variable before the program starts
  -f progfile    read the program from a file (may be repeated)
  -W version     print version information (also -W usage, -W random=N)
  --             end of options

Operands of the form var=value are assignments done when reached.
Not supported in the sandbox: system(), cmd | getline, print | cmd.
";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut i = 0;
    let mut assigns: Vec<(String, String)> = Vec::new();
    let mut progfiles: Vec<String> = Vec::new();
    let mut seed: Option<f64> = None;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        let opt = a.as_bytes().get(1).copied().unwrap_or(b'-');
        let attached = &a[2..];
        if !matches!(opt, b'F' | b'v' | b'f' | b'W') {
            ctx.error("awk", format!("not an option: {a}"));
            return 2;
        }
        let value = if attached.is_empty() {
            i += 1;
            match args.get(i) {
                Some(v) => v.clone(),
                None => {
                    ctx.error("awk", format!("option -{} lacks argument", opt as char));
                    return 2;
                }
            }
        } else {
            attached.to_string()
        };
        i += 1;
        match opt {
            b'F' => assigns.push(("FS".to_string(), value)),
            b'v' => match interp::split_assignment(value.as_bytes()) {
                Some(pair) => assigns.push(pair),
                None => {
                    ctx.error("awk", format!("improper assignment: -v {value}"));
                    return 2;
                }
            },
            b'f' => progfiles.push(value),
            _ => {
                let (word, arg) = match value.split_once('=') {
                    Some((w, a)) => (w, Some(a)),
                    None => (value.as_str(), None),
                };
                let is = |full: &str| !word.is_empty() && full.starts_with(word);
                if is("version") {
                    let _ = ctx.out("awk (cordon) 1.0, compatible with mawk 1.3.4\n");
                    return 0;
                } else if is("usage") || is("help") {
                    let _ = ctx.out(HELP);
                    return 0;
                } else if is("random") {
                    seed = arg.map(|a| value::str_to_num(a.as_bytes()));
                } else if is("interactive") || is("posix_space") || is("sprintf") {
                    // Nothing to do here: output is unbuffered for the
                    // shell anyway, and sprintf has no fixed buffer.
                } else {
                    ctx.error("awk", format!("vacuous option: -W {value}"));
                }
            }
        }
    }
    let (source, file_name) = if progfiles.is_empty() {
        match args.get(i) {
            Some(p) => {
                i += 1;
                (p.as_bytes().to_vec(), None)
            }
            None => {
                ctx.err(HELP);
                return 2;
            }
        }
    } else {
        let mut src = Vec::new();
        for f in &progfiles {
            match ctx.read_input(f) {
                Ok(text) => {
                    src.extend_from_slice(&text);
                    if !text.ends_with(b"\n") {
                        src.push(b'\n');
                    }
                }
                Err(e) => {
                    ctx.error("awk", format!("cannot open {f} ({})", e.describe()));
                    return 2;
                }
            }
        }
        (src, progfiles.last().cloned())
    };
    let mut source = source;
    source.push(b'\n');
    let prefix = match &file_name {
        Some(f) => format!("awk: {f}: "),
        None => "awk: ".to_string(),
    };
    let toks = match lexer::lex(&source) {
        Ok(t) => t,
        Err(e) => {
            if e.bare_line {
                ctx.err(format!("awk: {}: {}\n", e.line, e.message));
            } else {
                ctx.err(format!("{prefix}line {}: {}\n", e.line, e.message));
            }
            return 2;
        }
    };
    let prog = match parser::parse(toks) {
        Ok(p) => p,
        Err(parser::ParseError(lines)) => {
            for (line, msg) in lines {
                ctx.err(format!("{prefix}line {line}: {msg}\n"));
            }
            return 2;
        }
    };
    let mut argv = vec!["awk".to_string()];
    argv.extend(args.iter().skip(i).cloned());
    let mut rt = interp::Runtime::new(&prog, ctx, &argv);
    if let Some(s) = seed {
        rt.seed(s);
    }
    rt.run(&assigns)
}
