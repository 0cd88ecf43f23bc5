//! `cat`: concatenate files, optionally numbering lines and showing
//! invisible characters (GNU coreutils semantics, C locale).

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "cat",
    run,
    help: "Usage: cat [OPTION]... [FILE]...\n\
Concatenate FILE(s) to standard output. With no FILE, or when FILE is -, read standard input.\n\
\n\
  -A, --show-all           equivalent to -vET\n\
  -b, --number-nonblank    number nonempty output lines, overrides -n\n\
  -e                       equivalent to -vE\n\
  -E, --show-ends          display $ at end of each line\n\
  -n, --number             number all output lines\n\
  -s, --squeeze-blank      suppress repeated empty output lines\n\
  -t                       equivalent to -vT\n\
  -T, --show-tabs          display TAB characters as ^I\n\
  -u                       (ignored)\n\
  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "AbeEnstTuv",
    long: &[
        ("show-all", 'A', HasArg::No),
        ("number-nonblank", 'b', HasArg::No),
        ("show-ends", 'E', HasArg::No),
        ("number", 'n', HasArg::No),
        ("squeeze-blank", 's', HasArg::No),
        ("show-tabs", 'T', HasArg::No),
        ("show-nonprinting", 'v', HasArg::No),
    ],
    stop_at_operand: false,
};

/// What to do to each line.
#[derive(Debug, Default, Clone, Copy)]
struct Opts {
    number: bool,
    nonblank: bool,
    squeeze: bool,
    ends: bool,
    tabs: bool,
    nonprinting: bool,
}

impl Opts {
    fn plain(&self) -> bool {
        !(self.number || self.nonblank || self.squeeze || self.ends || self.tabs || self.nonprinting)
    }
}

/// State carried from one file to the next (GNU numbers across files).
#[derive(Debug)]
struct State {
    line: u64,
    at_line_start: bool,
    /// Consecutive empty lines seen (for `-s`).
    blanks: u32,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("cat", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut o = Opts::default();
    for (c, _) in &parsed.opts {
        match c {
            'A' => {
                o.nonprinting = true;
                o.ends = true;
                o.tabs = true;
            }
            'b' => o.nonblank = true,
            'e' => {
                o.nonprinting = true;
                o.ends = true;
            }
            'E' => o.ends = true,
            'n' => o.number = true,
            's' => o.squeeze = true,
            't' => {
                o.nonprinting = true;
                o.tabs = true;
            }
            'T' => o.tabs = true,
            'v' => o.nonprinting = true,
            _ => {}
        }
    }
    if o.nonblank {
        o.number = false;
    }
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands };
    let mut status = 0;
    let mut state = State { line: 0, at_line_start: true, blanks: 0 };
    for path in &operands {
        let data = match ctx.read_input(path) {
            Ok(d) => d,
            Err(e) => {
                ctx.file_error("cat", path, &e);
                status = 1;
                continue;
            }
        };
        if o.plain() {
            if ctx.out(&data).is_err() {
                return status;
            }
            continue;
        }
        let mut out = Vec::with_capacity(data.len() + data.len() / 4);
        format(&o, &mut state, &data, &mut out);
        if ctx.out(&out).is_err() {
            return status;
        }
    }
    status
}

/// Appends the `-v` rendering of `b` (not for `\n`).
pub(crate) fn push_visible(out: &mut Vec<u8>, b: u8, tabs: bool) {
    let mut c = b;
    if c >= 128 {
        out.extend_from_slice(b"M-");
        c -= 128;
    }
    if c == b'\t' && b < 128 && !tabs {
        out.push(b'\t');
    } else if c < 32 {
        out.push(b'^');
        out.push(c + 64);
    } else if c == 127 {
        out.extend_from_slice(b"^?");
    } else {
        out.push(c);
    }
}

fn format(o: &Opts, st: &mut State, data: &[u8], out: &mut Vec<u8>) {
    for line in data.split_inclusive(|&b| b == b'\n') {
        let (body, nl) = match line.split_last() {
            Some((b'\n', body)) => (body, true),
            _ => (line, false),
        };
        if st.at_line_start {
            let empty = body.is_empty() && nl;
            if empty {
                st.blanks += 1;
                if o.squeeze && st.blanks > 1 {
                    continue;
                }
            } else {
                st.blanks = 0;
            }
            if o.number || (o.nonblank && !empty) {
                st.line += 1;
                out.extend_from_slice(format!("{:>6}\t", st.line).as_bytes());
            }
        }
        if o.nonprinting || o.tabs {
            for &b in body {
                if o.nonprinting {
                    push_visible(out, b, o.tabs);
                } else if b == b'\t' {
                    out.extend_from_slice(b"^I");
                } else {
                    out.push(b);
                }
            }
        } else {
            out.extend_from_slice(body);
        }
        if nl {
            if o.ends {
                out.push(b'$');
            }
            out.push(b'\n');
        }
        st.at_line_start = nl;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(o: Opts, data: &[u8]) -> Vec<u8> {
        let mut st = State { line: 0, at_line_start: true, blanks: 0 };
        let mut out = Vec::new();
        format(&o, &mut st, data, &mut out);
        out
    }

    #[test]
    fn numbering_and_squeeze() {
        let o = Opts { number: true, squeeze: true, ..Opts::default() };
        assert_eq!(fmt(o, b"a\n\n\n\nb"), b"     1\ta\n     2\t\n     3\tb".to_vec());
        let o = Opts { nonblank: true, ..Opts::default() };
        assert_eq!(fmt(o, b"a\n\nb\n"), b"     1\ta\n\n     2\tb\n".to_vec());
    }

    #[test]
    fn show_all() {
        let o = Opts { nonprinting: true, ends: true, tabs: true, ..Opts::default() };
        assert_eq!(fmt(o, b"\t\x01\x80\xff\x7f\n"), b"^I^AM-^@M-^?^?$\n".to_vec());
    }
}
