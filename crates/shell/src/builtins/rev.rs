//! `rev`: reverse the bytes of each line (util-linux semantics in the C
//! locale).

use super::args::{self, Spec};
use super::common::lines::{each_input, lines};
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
    if !parsed.operands.iter().any(|p| p == "-") {
        return each_input(ctx, &parsed.operands, open_error, filter);
    }
    // util-linux rev reads standard input only without operands: `-` is a
    // file name.
    let mut status = 0;
    for path in &parsed.operands {
        if path != "-" {
            status |= each_input(ctx, std::slice::from_ref(path), open_error, filter);
            continue;
        }
        match ctx.sys().read(path) {
            Ok(data) => {
                if filter(ctx, &data).is_err() {
                    break;
                }
            }
            Err(e) => {
                open_error(ctx, path, &e);
                status = 1;
            }
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
