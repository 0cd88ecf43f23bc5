//! `head`: the first lines or bytes of files (GNU coreutils semantics):
//! `-n N`, `-c N`, `-NUM`, negative counts (all but the last N), `-q`, `-v`.

use super::args;
use super::common::head_tail::{self, Amount};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "head",
    run,
    help: "Usage: head [OPTION]... [FILE]...\n\
Print the first 10 lines of each FILE to standard output.\n\
With more than one FILE, precede each with a header giving the file name.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -c, --bytes=[-]NUM       print the first NUM bytes of each file;\n\
                             with the leading '-', print all but the last NUM bytes\n\
  -n, --lines=[-]NUM       print the first NUM lines instead of the first 10;\n\
                             with the leading '-', print all but the last NUM lines\n\
  -NUM                     same as -n NUM\n\
  -q, --quiet, --silent    never print headers giving file names\n\
  -v, --verbose            always print headers giving file names\n\
  -z, --zero-terminated    line delimiter is NUL, not newline\n\
\n\
NUM may have a multiplier suffix: b 512, kB 1000, K 1024, MB 1000*1000, M 1024*1024, and so on.\n",
    help_flag: true,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    Lines(u64),
    Bytes(u64),
    /// All but the last N lines.
    AllButLines(u64),
    AllButBytes(u64),
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    // The obsolete `-NUM` form, only as the first argument.
    let mut args = args.to_vec();
    if let Some(first) = args.first() {
        if let Some(num) = first.strip_prefix('-') {
            if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
                let n = num.to_string();
                args[0] = format!("-n{n}");
            }
        }
    }
    let parsed = match args::parse("head", &args, &head_tail::SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let opts = match head_tail::options(ctx, "head", parsed, '-') {
        Ok(o) => o,
        Err(status) => return status,
    };
    let count = match opts.amount {
        None => Count::Lines(10),
        Some(Amount { lines: true, signed: false, n }) => Count::Lines(n),
        Some(Amount { lines: true, signed: true, n }) => Count::AllButLines(n),
        Some(Amount { lines: false, signed: false, n }) => Count::Bytes(n),
        Some(Amount { lines: false, signed: true, n }) => Count::AllButBytes(n),
    };
    let delim = opts.delim;
    let read = |ctx: &mut Ctx, path: &str| {
        if path != "-" {
            return ctx.read_input(path);
        }
        Ok(match count {
            // Read only what is needed, leaving the rest of standard
            // input to the next reader (like GNU head on a seekable file).
            Count::Lines(n) => {
                let mut buf = Vec::new();
                for _ in 0..n {
                    match ctx.stdin_until(delim) {
                        Some(line) => buf.extend_from_slice(&line),
                        None => break,
                    }
                }
                buf
            }
            Count::Bytes(n) => {
                let take = usize::try_from(n).unwrap_or(usize::MAX);
                ctx.io.stdin.borrow_mut().read_bytes(take)
            }
            _ => ctx.stdin_all(),
        })
    };
    head_tail::each_file(ctx, "head", &opts, read, |data| select(data, count, delim))
}

/// The part of `data` that `head` prints.
fn select(data: &[u8], count: Count, delim: u8) -> &[u8] {
    let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX).min(data.len());
    match count {
        Count::Bytes(n) => &data[..clamp(n)],
        Count::AllButBytes(n) => &data[..data.len() - clamp(n)],
        Count::Lines(n) => {
            let mut seen = 0u64;
            if n == 0 {
                return &data[..0];
            }
            for (i, &b) in data.iter().enumerate() {
                if b == delim {
                    seen += 1;
                    if seen == n {
                        return &data[..=i];
                    }
                }
            }
            data
        }
        Count::AllButLines(n) => {
            if n == 0 {
                return data;
            }
            // Walk back over n line ends; an unterminated last line counts.
            let mut end = data.len();
            let mut left = n;
            let mut i = data.len();
            if data.last().is_some_and(|&b| b != delim) {
                // The unterminated last line is one of the lines dropped.
                left -= 1;
                while i > 0 && data[i - 1] != delim {
                    i -= 1;
                }
                end = i;
            }
            while left > 0 && end > 0 {
                // data[end - 1] is a delimiter: drop the line it ends.
                i = end - 1;
                while i > 0 && data[i - 1] != delim {
                    i -= 1;
                }
                end = i;
                left -= 1;
            }
            &data[..end]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections() {
        let d = b"1\n2\n3\n4\n5\n";
        assert_eq!(select(d, Count::Lines(2), b'\n'), b"1\n2\n");
        assert_eq!(select(d, Count::AllButLines(2), b'\n'), b"1\n2\n3\n");
        assert_eq!(select(b"a\nb", Count::AllButLines(1), b'\n'), b"a\n");
        assert_eq!(select(b"a\nb", Count::AllButLines(5), b'\n'), b"");
        assert_eq!(select(d, Count::AllButBytes(3), b'\n'), b"1\n2\n3\n4");
        assert_eq!(select(d, Count::Bytes(100), b'\n'), d);
        assert_eq!(select(d, Count::Lines(0), b'\n'), b"");
    }
}
