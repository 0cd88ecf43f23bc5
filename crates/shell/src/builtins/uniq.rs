//! `uniq`: collapse adjacent equal lines (GNU coreutils semantics): `-c`,
//! `-d`, `-D`/`--all-repeated[=METHOD]`, `-u`, `-i`, `-f N`, `-s N`, `-w N`,
//! `-z`, and an optional output file operand.

use super::args::{self, HasArg, Spec};
use super::common::lines::records;
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "uniq",
    run,
    help: "Usage: uniq [OPTION]... [INPUT [OUTPUT]]\n\
Filter adjacent matching lines from INPUT (or standard input),\n\
writing to OUTPUT (or standard output).\n\
\n\
  -c, --count           prefix lines by the number of occurrences\n\
  -d, --repeated        only print duplicate lines, one for each group\n\
  -D                    print all duplicate lines\n\
      --all-repeated[=METHOD]  like -D, but allow separating groups\n\
                          with an empty line; METHOD={none(default),prepend,separate}\n\
  -f, --skip-fields=N   avoid comparing the first N fields\n\
  -i, --ignore-case     ignore differences in case when comparing\n\
  -s, --skip-chars=N    avoid comparing the first N characters\n\
  -u, --unique          only print unique lines\n\
  -z, --zero-terminated  line delimiter is NUL, not newline\n\
  -w, --check-chars=N   compare no more than N characters in lines\n\
\n\
A field is a run of blanks (usually spaces and/or TABs), then non-blank\n\
characters. Fields are skipped before chars.\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "cdDf:is:uw:z",
    long: &[
        ("count", 'c', HasArg::No),
        ("repeated", 'd', HasArg::No),
        ("skip-fields", 'f', HasArg::Yes),
        ("ignore-case", 'i', HasArg::No),
        ("skip-chars", 's', HasArg::Yes),
        ("unique", 'u', HasArg::No),
        ("check-chars", 'w', HasArg::Yes),
        ("zero-terminated", 'z', HasArg::No),
        // Handled before parsing (its value is optional).
        ("all-repeated", 'A', HasArg::Yes),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delimit {
    None,
    Prepend,
    Separate,
}

#[derive(Debug, Clone, Copy)]
struct Opts {
    skip_fields: usize,
    skip_chars: usize,
    check_chars: usize,
    ignore_case: bool,
}

/// The part of a line that is compared.
fn compared<'a>(line: &'a [u8], o: &Opts) -> &'a [u8] {
    let mut i = 0;
    for _ in 0..o.skip_fields {
        if i >= line.len() {
            break;
        }
        while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
        while i < line.len() && !(line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
    }
    i = i.saturating_add(o.skip_chars).min(line.len());
    let end = i.saturating_add(o.check_chars).min(line.len());
    &line[i..end]
}

fn same(a: &[u8], b: &[u8], o: &Opts) -> bool {
    let (a, b) = (compared(a, o), compared(b, o));
    if o.ignore_case {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// Appends `n` like `printf("%7d ")` without allocating.
fn push_count(out: &mut Vec<u8>, n: usize) {
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut v = n;
    loop {
        digits[len] = b'0' + (v % 10) as u8;
        len += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for _ in len..7 {
        out.push(b' ');
    }
    out.extend(digits[..len].iter().rev());
    out.push(b' ');
}

fn parse_count(ctx: &mut Ctx, v: &str, what: &str) -> Option<usize> {
    let ok = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    if !ok {
        ctx.error("uniq", format!("{v}: invalid number of {what}"));
        return None;
    }
    Some(v.parse::<usize>().unwrap_or(usize::MAX))
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut delimit: Option<Delimit> = None;
    let mut rest = Vec::with_capacity(args.len());
    let mut after_dashdash = false;
    for a in args {
        if !after_dashdash && a == "--" {
            after_dashdash = true;
        }
        if !after_dashdash && a.len() > 3 && "--all-repeated".starts_with(a.as_str()) {
            delimit = Some(Delimit::None);
            continue;
        }
        if let Some((name, method)) = a.split_once('=').filter(|_| !after_dashdash) {
            if name.len() > 3 && "--all-repeated".starts_with(name) {
                delimit = Some(match method {
                    "none" => Delimit::None,
                    "prepend" => Delimit::Prepend,
                    "separate" => Delimit::Separate,
                    _ => {
                        ctx.err(format!(
                            "uniq: invalid argument '{method}' for '--all-repeated'\n\
Valid arguments are:\n  - 'none'\n  - 'prepend'\n  - 'separate'\n\
Try 'uniq --help' for more information.\n"
                        ));
                        return 1;
                    }
                });
                continue;
            }
        }
        rest.push(a.clone());
    }
    let parsed = match args::parse("uniq", &rest, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut o = Opts { skip_fields: 0, skip_chars: 0, check_chars: usize::MAX, ignore_case: false };
    let (mut count, mut repeated, mut unique) = (false, false, false);
    let mut delim = b'\n';
    for (c, v) in &parsed.opts {
        let v = v.as_deref().unwrap_or_default();
        match c {
            'c' => count = true,
            'd' => repeated = true,
            'D' => delimit = Some(delimit.unwrap_or(Delimit::None)),
            'f' => match parse_count(ctx, v, "fields to skip") {
                Some(n) => o.skip_fields = n,
                None => return 1,
            },
            's' => match parse_count(ctx, v, "bytes to skip") {
                Some(n) => o.skip_chars = n,
                None => return 1,
            },
            'w' => match parse_count(ctx, v, "bytes to compare") {
                Some(n) => o.check_chars = n,
                None => return 1,
            },
            'i' => o.ignore_case = true,
            'u' => unique = true,
            'z' => delim = 0,
            _ => {}
        }
    }
    if parsed.operands.len() > 2 {
        ctx.err(format!(
            "uniq: extra operand '{}'\nTry 'uniq --help' for more information.\n",
            parsed.operands[2]
        ));
        return 1;
    }
    if count && delimit.is_some() {
        ctx.err(
            "uniq: printing all duplicated lines and repeat counts is meaningless\n\
Try 'uniq --help' for more information.\n",
        );
        return 1;
    }
    let input = parsed.operands.first().cloned().unwrap_or_else(|| "-".to_string());
    let data = match ctx.read_input(&input) {
        Ok(d) => d,
        Err(e) => {
            if e.errno == "EISDIR" {
                ctx.err(format!("uniq: error reading '{input}'\n"));
            } else {
                ctx.file_error("uniq", &input, &e);
            }
            return 1;
        }
    };
    let lines: Vec<&[u8]> = records(&data, delim).collect();
    let mut out = Vec::with_capacity(data.len() + 16);
    let mut i = 0;
    let mut first_group = true;
    while i < lines.len() {
        let mut j = i + 1;
        while j < lines.len() && same(lines[i], lines[j], &o) {
            j += 1;
        }
        let n = j - i;
        // GNU's three switches: -d clears "unique", -u clears "first
        // repeated", -D clears "unique" and sets "later repeated".
        let output_unique = !repeated && delimit.is_none();
        let output_first_repeated = !unique;
        if let Some(method) = delimit {
            if n > 1 {
                let sep = match method {
                    Delimit::Prepend => true,
                    Delimit::Separate => !first_group,
                    Delimit::None => false,
                };
                if sep {
                    out.push(delim);
                }
                first_group = false;
                let from = if output_first_repeated { i } else { i + 1 };
                for line in &lines[from..j] {
                    out.extend_from_slice(line);
                    out.push(delim);
                }
            }
        } else if (n > 1 && output_first_repeated) || (n == 1 && output_unique) {
            if count {
                push_count(&mut out, n);
            }
            out.extend_from_slice(lines[i]);
            out.push(delim);
        }
        i = j;
    }
    match parsed.operands.get(1) {
        Some(path) if path != "-" => {
            if let Err(e) = ctx.sys().write(path, &out, WriteMode::Truncate) {
                ctx.file_error("uniq", path, &e);
                return 1;
            }
        }
        _ => {
            let _ = ctx.out(&out);
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let mut out = Vec::new();
        push_count(&mut out, 42);
        push_count(&mut out, 12345678);
        assert_eq!(out, b"     42 12345678 ");
    }

    #[test]
    fn skipping() {
        let o = Opts { skip_fields: 1, skip_chars: 0, check_chars: usize::MAX, ignore_case: false };
        assert_eq!(compared(b"x a", &o), b" a");
        let o = Opts { skip_fields: 0, skip_chars: 1, check_chars: 1, ignore_case: false };
        assert_eq!(compared(b"xab", &o), b"a");
        let o = Opts { skip_fields: 0, skip_chars: 0, check_chars: usize::MAX, ignore_case: true };
        assert!(same(b"Ab", b"aB", &o));
    }
}
