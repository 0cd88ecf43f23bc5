//! `rev`: reverse the bytes of each line (util-linux semantics in the C
//! locale).

use super::args::{self, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "rev",
    run,
    help: "Usage: rev [options] [file ...]\n\
Reverse lines characterwise.\n\
\n\
  -0, --zero     zero termination (use NUL as line delimiter)\n",
    help_flag: true,
};

const SPEC: Spec = Spec { short: "0", long: &[("zero", '0', args::HasArg::No)], stop_at_operand: false };

/// Appends `data` with each line's bytes reversed (the delimiter stays).
fn reverse_lines(data: &[u8], delim: u8, out: &mut Vec<u8>) {
    for line in data.split_inclusive(|&b| b == delim) {
        let (body, end) = match line.split_last() {
            Some((&d, body)) if d == delim => (body, true),
            _ => (line, false),
        };
        out.extend(body.iter().rev());
        if end {
            out.push(delim);
        }
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("rev", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let delim = if parsed.has('0') { 0 } else { b'\n' };
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands };
    let mut status = 0;
    for path in &operands {
        let data = match ctx.read_input(path) {
            Ok(d) => d,
            Err(e) => {
                if e.errno == "EISDIR" {
                    ctx.err(format!("rev: {path}: 0: {}\n", e.describe()));
                } else {
                    ctx.err(format!("rev: cannot open {path}: {}\n", e.describe()));
                }
                status = 1;
                continue;
            }
        };
        let mut out = Vec::with_capacity(data.len());
        reverse_lines(&data, delim, &mut out);
        if ctx.out(&out).is_err() {
            return status;
        }
    }
    status
}

#[cfg(test)]
mod tests {
    #[test]
    fn reverses() {
        let mut out = Vec::new();
        super::reverse_lines(b"abc\nde", b'\n', &mut out);
        assert_eq!(out, b"cba\ned");
    }
}
