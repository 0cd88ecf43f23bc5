//! `fold`: wrap lines to a width (GNU coreutils semantics in the C locale):
//! `-w WIDTH` (or `-WIDTH`), `-s` to break at blanks, `-b` to count bytes.

use super::args::{self, HasArg, Spec};
use super::common::lines::each_input;
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::FsError;

pub const BUILTIN: Builtin = Builtin {
    name: "fold",
    run,
    help: "Usage: fold [OPTION]... [FILE]...\n\
Wrap input lines in each FILE, writing to standard output.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -b, --bytes         count bytes rather than columns\n\
  -s, --spaces        break at spaces\n\
  -w, --width=WIDTH   use WIDTH columns instead of 80\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "bsw:",
    long: &[("bytes", 'b', HasArg::No), ("spaces", 's', HasArg::No), ("width", 'w', HasArg::Yes)],
    stop_at_operand: false,
};

fn adjust_column(column: usize, c: u8, bytes: bool) -> usize {
    if bytes {
        return column + 1;
    }
    match c {
        8 => column.saturating_sub(1),
        b'\r' => 0,
        b'\t' => column + 8 - column % 8,
        _ => column + 1,
    }
}

/// GNU fold's algorithm over a whole input.
fn fold(data: &[u8], width: usize, spaces: bool, bytes: bool, out: &mut Vec<u8>) {
    let mut line: Vec<u8> = Vec::new();
    let mut column = 0usize;
    for &c in data {
        if c == b'\n' {
            out.extend_from_slice(&line);
            out.push(b'\n');
            line.clear();
            column = 0;
            continue;
        }
        loop {
            column = adjust_column(column, c, bytes);
            if column <= width {
                line.push(c);
                break;
            }
            if spaces {
                if let Some(blank) = line.iter().rposition(|&b| b == b' ' || b == b'\t') {
                    let end = blank + 1;
                    out.extend_from_slice(&line[..end]);
                    out.push(b'\n');
                    line.drain(..end);
                    column = line.iter().fold(0, |col, &b| adjust_column(col, b, bytes));
                    continue;
                }
            }
            if line.is_empty() {
                line.push(c);
                break;
            }
            out.extend_from_slice(&line);
            out.push(b'\n');
            line.clear();
            column = 0;
        }
    }
    out.extend_from_slice(&line);
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut args = args.to_vec();
    // Obsolete `-WIDTH`.
    for a in args.iter_mut() {
        if a == "--" {
            break;
        }
        if let Some(n) = a.strip_prefix('-') {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                *a = format!("-w{n}");
            }
        }
    }
    let parsed = match args::parse("fold", &args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut width = 80usize;
    if let Some(w) = parsed.value('w') {
        let digits = w.strip_prefix('+').unwrap_or(w);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            ctx.error("fold", format!("invalid number of columns: '{w}'"));
            return 1;
        }
        match digits.parse::<usize>() {
            Ok(0) => {
                ctx.error("fold", format!("invalid number of columns: '{w}': Numerical result out of range"));
                return 1;
            }
            Ok(n) => width = n,
            Err(_) => {
                ctx.error(
                    "fold",
                    format!("invalid number of columns: '{w}': Value too large for defined data type"),
                );
                return 1;
            }
        }
    }
    let (spaces, bytes) = (parsed.has('s'), parsed.has('b'));
    let open_error = |ctx: &mut Ctx, path: &str, e: &FsError| ctx.file_error("fold", path, e);
    each_input(ctx, &parsed.operands, open_error, |ctx, data| {
        let mut out = Vec::with_capacity(data.len() + data.len() / 8);
        fold(data, width, spaces, bytes, &mut out);
        ctx.out(&out)
    })
}

#[cfg(test)]
mod tests {
    fn f(s: &str, w: usize, spaces: bool) -> String {
        let mut out = Vec::new();
        super::fold(s.as_bytes(), w, spaces, false, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn folding() {
        assert_eq!(f("abcdefghij\n", 3, false), "abc\ndef\nghi\nj\n");
        assert_eq!(f("hello world foo bar\n", 8, true), "hello \nworld \nfoo bar\n");
        assert_eq!(f("a\tb\tc\n", 10, false), "a\tb\n\tc\n");
        assert_eq!(f("abcdef", 4, false), "abcd\nef");
    }
}
