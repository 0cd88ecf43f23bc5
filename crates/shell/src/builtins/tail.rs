//! `tail`: the last lines or bytes of files (GNU coreutils semantics):
//! `-n N`, `-n +N`, `-c N`, `-c +N`, `-NUM`, `+NUM`, `-q`, `-v`. Following
//! (`-f`) is not supported: files do not grow while a command runs here.

use super::args;
use super::common::head_tail::{self, Amount};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "tail",
    run,
    help: "Usage: tail [OPTION]... [FILE]...\n\
Print the last 10 lines of each FILE to standard output.\n\
With more than one FILE, precede each with a header giving the file name.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -c, --bytes=[+]NUM       output the last NUM bytes; or use -c +NUM to\n\
                             output starting with byte NUM of each file\n\
  -n, --lines=[+]NUM       output the last NUM lines, instead of the last 10;\n\
                             or use -n +NUM to skip NUM-1 lines at the start\n\
  -NUM, +NUM               same as -n NUM, -n +NUM\n\
  -q, --quiet, --silent    never output headers giving file names\n\
  -v, --verbose            always output headers giving file names\n\
  -z, --zero-terminated    line delimiter is NUL, not newline\n\
\n\
Following files (-f, -F) is not supported.\n",
    help_flag: true,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    LastLines(u64),
    LastBytes(u64),
    /// From line N on (1-based).
    FromLine(u64),
    FromByte(u64),
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut args = args.to_vec();
    if let Some(first) = args.first() {
        let obsolete =
            first.strip_prefix('-').map(|n| ('-', n)).or_else(|| first.strip_prefix('+').map(|n| ('+', n)));
        if let Some((sign, num)) = obsolete {
            if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
                let value = if sign == '+' { format!("+{num}") } else { num.to_string() };
                args[0] = format!("--lines={value}");
            }
        }
    }
    if let Some(opt) = unsupported_follow(&args) {
        ctx.err(format!(
            "tail: {opt}: following files is not supported in the sandbox\nTry 'tail --help' for more information.\n"
        ));
        return 2;
    }
    let parsed = match args::parse("tail", &args, &head_tail::SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let opts = match head_tail::options(ctx, "tail", parsed, '+') {
        Ok(o) => o,
        Err(status) => return status,
    };
    let count = match opts.amount {
        None => Count::LastLines(10),
        Some(Amount { lines: true, signed: false, n }) => Count::LastLines(n),
        Some(Amount { lines: true, signed: true, n }) => Count::FromLine(n),
        Some(Amount { lines: false, signed: false, n }) => Count::LastBytes(n),
        Some(Amount { lines: false, signed: true, n }) => Count::FromByte(n),
    };
    let delim = opts.delim;
    head_tail::each_file(
        ctx,
        "tail",
        &opts,
        |ctx, path| ctx.read_input(path),
        |data| select(data, count, delim),
    )
}

/// `-f`, `-F` or `--follow` among the options, if any.
fn unsupported_follow(args: &[String]) -> Option<String> {
    let mut takes_value = false;
    for a in args {
        if takes_value {
            takes_value = false;
            continue;
        }
        if a == "--" {
            return None;
        }
        if a == "--follow" || a.starts_with("--follow=") || a == "--retry" {
            return Some(a.clone());
        }
        if a.len() > 1 && a.starts_with('-') && !a.starts_with("--") {
            for c in a.chars().skip(1) {
                match c {
                    'f' | 'F' => return Some(format!("-{c}")),
                    'n' | 'c' => {
                        // The rest of the cluster (or the next argument) is a value.
                        takes_value = a.ends_with(c);
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    None
}

/// The part of `data` that `tail` prints.
fn select(data: &[u8], count: Count, delim: u8) -> &[u8] {
    let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX).min(data.len());
    match count {
        Count::LastBytes(n) => &data[data.len() - clamp(n)..],
        Count::FromByte(n) => &data[clamp(n.saturating_sub(1))..],
        Count::FromLine(n) => {
            let skip = n.saturating_sub(1);
            if skip == 0 {
                return data;
            }
            let mut seen = 0u64;
            for (i, &b) in data.iter().enumerate() {
                if b == delim {
                    seen += 1;
                    if seen == skip {
                        return &data[i + 1..];
                    }
                }
            }
            &data[data.len()..]
        }
        Count::LastLines(n) => {
            if n == 0 {
                return &data[data.len()..];
            }
            // Count line ends from the back; an unterminated last line
            // counts as a line.
            let mut left = n;
            let mut i = data.len();
            if data.last() == Some(&delim) {
                i -= 1;
            }
            while i > 0 {
                if data[i - 1] == delim {
                    left -= 1;
                    if left == 0 {
                        return &data[i..];
                    }
                }
                i -= 1;
            }
            data
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_is_refused() {
        let v = |a: &[&str]| unsupported_follow(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(v(&["-f", "log"]), Some("-f".into()));
        assert_eq!(v(&["-n", "5", "-F"]), Some("-F".into()));
        assert_eq!(v(&["--follow=name"]), Some("--follow=name".into()));
        assert_eq!(v(&["-n", "-f"]), None);
        assert_eq!(v(&["-n5", "file"]), None);
        assert_eq!(v(&["--", "-f"]), None);
    }

    #[test]
    fn selections() {
        let d = b"1\n2\n3\n4\n5\n";
        assert_eq!(select(d, Count::LastLines(2), b'\n'), b"4\n5\n");
        assert_eq!(select(b"a\nb", Count::LastLines(1), b'\n'), b"b");
        assert_eq!(select(d, Count::FromLine(4), b'\n'), b"4\n5\n");
        assert_eq!(select(d, Count::FromLine(0), b'\n'), d);
        assert_eq!(select(d, Count::FromLine(9), b'\n'), b"");
        assert_eq!(select(d, Count::LastBytes(3), b'\n'), b"\n5\n");
        assert_eq!(select(d, Count::FromByte(8), b'\n'), b"\n5\n");
        assert_eq!(select(d, Count::LastLines(99), b'\n'), d);
        assert_eq!(select(b"", Count::LastLines(3), b'\n'), b"");
    }
}
