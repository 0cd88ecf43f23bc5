//! `head`: the first lines or bytes of files (GNU coreutils semantics):
//! `-n N`, `-c N`, `-NUM`, negative counts (all but the last N), `-q`, `-v`.

use super::args::{self, HasArg, Spec};
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

const SPEC: Spec = Spec {
    short: "c:n:qvz",
    long: &[
        ("bytes", 'c', HasArg::Yes),
        ("lines", 'n', HasArg::Yes),
        ("quiet", 'q', HasArg::No),
        ("silent", 'q', HasArg::No),
        ("verbose", 'v', HasArg::No),
        ("zero-terminated", 'z', HasArg::No),
    ],
    stop_at_operand: false,
};

/// Parses a count like GNU's `xstrtoumax` with the size suffixes: digits
/// then an optional `b`, `K`/`k`, `M`, `G`, `T`, `P`, `E`, `Z`, `Y`
/// (1024-based, or 1000-based with a trailing `B`, `iB` being 1024-based).
/// Saturates on overflow. `None` when not a number.
pub(crate) fn parse_size(s: &str) -> Option<u64> {
    let digits_end = s.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return None;
    }
    let mut n: u64 = 0;
    for b in s.bytes().take(digits_end) {
        n = n.saturating_mul(10).saturating_add(u64::from(b - b'0'));
    }
    let suffix = &s[digits_end..];
    if suffix.is_empty() {
        return Some(n);
    }
    let mut chars = suffix.chars();
    let unit = chars.next()?;
    let rest = chars.as_str();
    if unit == 'b' {
        return if rest.is_empty() { Some(n.saturating_mul(512)) } else { None };
    }
    let power = match unit {
        'k' | 'K' => 1,
        'm' | 'M' => 2,
        'g' | 'G' => 3,
        't' | 'T' => 4,
        'p' | 'P' => 5,
        'e' | 'E' => 6,
        'z' | 'Z' => 7,
        'y' | 'Y' => 8,
        'R' => 9,
        'Q' => 10,
        _ => return None,
    };
    let base: u64 = match rest {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return None,
    };
    let mut mult: u64 = 1;
    for _ in 0..power {
        mult = mult.saturating_mul(base);
    }
    Some(n.saturating_mul(mult))
}

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
    let parsed = match args::parse("head", &args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut count = Count::Lines(10);
    let mut headers: Option<bool> = None;
    let mut delim = b'\n';
    for (c, v) in &parsed.opts {
        match (c, v) {
            ('n' | 'c', Some(v)) => {
                let (neg, digits) = match v.strip_prefix('-') {
                    Some(d) => (true, d),
                    None => (false, v.strip_prefix('+').unwrap_or(v)),
                };
                let Some(n) = parse_size(digits) else {
                    let what = if *c == 'n' { "lines" } else { "bytes" };
                    ctx.error("head", format!("invalid number of {what}: '{v}'"));
                    return 1;
                };
                count = match (c, neg) {
                    ('n', false) => Count::Lines(n),
                    ('n', true) => Count::AllButLines(n),
                    (_, false) => Count::Bytes(n),
                    (_, true) => Count::AllButBytes(n),
                };
            }
            ('q', _) => headers = Some(false),
            ('v', _) => headers = Some(true),
            ('z', _) => delim = 0,
            _ => {}
        }
    }
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands };
    let show_headers = headers.unwrap_or(operands.len() > 1);
    let mut status = 0;
    let mut first = true;
    for path in &operands {
        let data = if path == "-" {
            match count {
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
            }
        } else {
            match ctx.read_input(path) {
                Ok(d) => d,
                Err(e) => {
                    if e.errno == "EISDIR" {
                        ctx.err(format!("head: error reading '{path}': {}\n", e.describe()));
                    } else {
                        ctx.err(format!("head: cannot open '{path}' for reading: {}\n", e.describe()));
                    }
                    status = 1;
                    continue;
                }
            }
        };
        if show_headers {
            let name = if path == "-" { "standard input" } else { path.as_str() };
            let sep = if first { "" } else { "\n" };
            if ctx.out(format!("{sep}==> {name} <==\n")).is_err() {
                return status;
            }
        }
        first = false;
        if ctx.out(select(&data, count, delim)).is_err() {
            return status;
        }
    }
    status
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
    fn sizes() {
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("1kB"), Some(1000));
        assert_eq!(parse_size("2b"), Some(1024));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("2x"), None);
        assert_eq!(parse_size(""), None);
    }

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
