//! `tac`: concatenate files with their records in reverse order (GNU
//! coreutils semantics): `-s SEP` (a plain string, not a regex) and `-b`.

use super::args::{self, HasArg, Spec};
use super::common::lines::each_input;
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::FsError;

pub const BUILTIN: Builtin = Builtin {
    name: "tac",
    run,
    help: "Usage: tac [OPTION]... [FILE]...\n\
Write each FILE to standard output, last line first.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -b, --before             attach the separator before instead of after\n\
  -s, --separator=STRING   use STRING as the separator instead of newline\n\
\n\
Regular-expression separators (-r) are not supported.\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "bs:",
    long: &[("before", 'b', HasArg::No), ("separator", 's', HasArg::Yes)],
    stop_at_operand: false,
};

/// Splits `data` into records that keep their separator (after them, or
/// before them with `before`) and appends them in reverse order.
fn reverse_records(data: &[u8], sep: &[u8], before: bool, out: &mut Vec<u8>) {
    let mut starts = Vec::new();
    // Separator positions, non-overlapping, left to right.
    let mut i = 0;
    while i + sep.len() <= data.len() {
        if &data[i..i + sep.len()] == sep {
            starts.push(i);
            i += sep.len();
        } else {
            i += 1;
        }
    }
    let mut records: Vec<&[u8]> = Vec::with_capacity(starts.len() + 1);
    let mut prev = 0;
    for &s in &starts {
        let cut = if before { s } else { s + sep.len() };
        if cut > prev || !before {
            records.push(&data[prev..cut]);
        }
        prev = cut;
    }
    if prev < data.len() {
        records.push(&data[prev..]);
    }
    for r in records.iter().rev() {
        out.extend_from_slice(r);
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("tac", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let sep = parsed.value('s').map_or_else(|| b"\n".to_vec(), |s| s.as_bytes().to_vec());
    if sep.is_empty() {
        ctx.error("tac", "separator cannot be empty");
        return 1;
    }
    let before = parsed.has('b');
    let open_error = |ctx: &mut Ctx, path: &str, e: &FsError| {
        if e.errno == "EISDIR" {
            ctx.err(format!("tac: {path}: read error: Invalid argument\n"));
        } else {
            ctx.err(format!("tac: failed to open '{path}' for reading: {}\n", e.describe()));
        }
    };
    each_input(ctx, &parsed.operands, open_error, |ctx, data| {
        let mut out = Vec::with_capacity(data.len());
        reverse_records(data, &sep, before, &mut out);
        ctx.out(&out)
    })
}

#[cfg(test)]
mod tests {
    fn tac(data: &[u8], sep: &[u8], before: bool) -> Vec<u8> {
        let mut out = Vec::new();
        super::reverse_records(data, sep, before, &mut out);
        out
    }

    #[test]
    fn records() {
        assert_eq!(tac(b"a\nb\nc", b"\n", false), b"cb\na\n");
        assert_eq!(tac(b"a,b,c,", b",", false), b"c,b,a,");
        assert_eq!(tac(b"a,b,c,", b",", true), b",,c,ba");
        assert_eq!(tac(b"", b"\n", false), b"");
    }
}
