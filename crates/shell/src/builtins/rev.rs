//! `rev`: reverse the bytes of each line (util-linux semantics in the C
//! locale).

use super::args::{self, Spec};
use super::common::lines::{each_input_read, lines};
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::FsError;

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
    for line in lines(data, delim) {
        out.extend(line.body.iter().rev());
        if line.terminated {
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
    let open_error = |ctx: &mut Ctx, path: &str, e: &FsError| {
        if e.errno == "EISDIR" {
            ctx.err(format!("rev: {path}: 0: {}\n", e.describe()));
        } else {
            ctx.err(format!("rev: cannot open {path}: {}\n", e.describe()));
        }
    };
    let filter = |ctx: &mut Ctx, data: &[u8]| {
        let mut out = Vec::with_capacity(data.len());
        reverse_lines(data, delim, &mut out);
        ctx.out(&out)
    };
    // util-linux rev reads standard input only without operands: `-` is a
    // file name.
    let dash_is_a_file = !parsed.operands.is_empty();
    let read = |ctx: &mut Ctx, path: &str| {
        if path == "-" && dash_is_a_file {
            ctx.sys().read(path)
        } else {
            ctx.read_input(path)
        }
    };
    each_input_read(ctx, &parsed.operands, read, open_error, filter)
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
