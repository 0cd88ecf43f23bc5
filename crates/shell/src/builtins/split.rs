//! `split`: split a file into pieces (`xaa`, `xab`, …).

use super::args::{self, HasArg, Spec};
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "split",
    run,
    help: "Usage: split [OPTION]... [FILE [PREFIX]]\n\
Output pieces of FILE to PREFIXaa, PREFIXab, ...;\n\
default size is 1000 lines, and default PREFIX is 'x'.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -a, --suffix-length=N   generate suffixes of length N (default 2)\n\
      --additional-suffix=SUFFIX  append an additional SUFFIX to file names\n\
  -b, --bytes=SIZE        put SIZE bytes per output file\n\
  -C, --line-bytes=SIZE   put at most SIZE bytes of records per output file\n\
  -d                      use numeric suffixes starting at 0, not alphabetic\n\
      --numeric-suffixes[=FROM]  same as -d, but allow setting the start value\n\
  -x                      use hex suffixes starting at 0, not alphabetic\n\
      --hex-suffixes[=FROM]  same as -x, but allow setting the start value\n\
  -e, --elide-empty-files  do not generate empty output files with '-n'\n\
  -l, --lines=NUMBER      put NUMBER lines per output file\n\
  -n, --number=CHUNKS     generate CHUNKS output files: N or l/N\n\
      --verbose           print a diagnostic just before each output file is opened\n\
\n\
SIZE may have a multiplier suffix: K 1024, KB 1000, M 1024*1024, MB 1000*1000,\n\
and so on for G, T.\n",
    help_flag: true,
};

enum Mode {
    Lines(u64),
    Bytes(u64),
    LineBytes(u64),
    Chunks(u64, bool),
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "a:b:C:dxel:n:",
        long: &[
            ("suffix-length", 'a', HasArg::Yes),
            ("additional-suffix", 'A', HasArg::Yes),
            ("bytes", 'b', HasArg::Yes),
            ("line-bytes", 'C', HasArg::Yes),
            ("elide-empty-files", 'e', HasArg::No),
            ("lines", 'l', HasArg::Yes),
            ("number", 'n', HasArg::Yes),
            ("verbose", 'v', HasArg::No),
        ],
        stop_at_operand: false,
    };
    // --numeric-suffixes[=FROM] and --hex-suffixes[=FROM] take optional values.
    let mut from: u64 = 0;
    let mut alphabet: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let mut rest_args = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        if args[..i].iter().any(|x| x == "--") {
            rest_args.push(a.clone());
            continue;
        }
        let (key, val) = match a.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (a.as_str(), None),
        };
        let numeric = key.len() > 3 && "--numeric-suffixes".starts_with(key);
        let hex = key.len() > 3 && "--hex-suffixes".starts_with(key);
        if numeric || hex {
            alphabet = if numeric { b"0123456789" } else { b"0123456789abcdef" };
            if let Some(v) = val {
                match v.parse::<u64>() {
                    Ok(n) => from = n,
                    Err(_) => {
                        ctx.err(format!("split: invalid start value for numerical suffix: {}\n", quote(v)));
                        return 1;
                    }
                }
            }
            continue;
        }
        rest_args.push(a.clone());
    }
    let parsed = match args::parse("split", &rest_args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    let mut mode: Option<Mode> = None;
    let mut suffix_len: Option<usize> = None;
    for (c, v) in &parsed.opts {
        let v = v.clone().unwrap_or_default();
        let new_mode = match c {
            'd' => {
                alphabet = b"0123456789";
                None
            }
            'x' => {
                alphabet = b"0123456789abcdef";
                None
            }
            'a' => {
                match v.parse::<usize>() {
                    // -a 0 means the default, growing length.
                    Ok(n) => suffix_len = (n > 0).then_some(n),
                    Err(_) => {
                        ctx.err(format!("split: invalid suffix length: {}\n", quote(&v)));
                        return 1;
                    }
                }
                None
            }
            'l' => match v.parse::<u64>() {
                Ok(0) => return invalid(ctx, "lines", &v, true),
                Ok(n) => Some(Mode::Lines(n)),
                Err(_) => return invalid(ctx, "lines", &v, false),
            },
            'b' | 'C' => {
                let what = "bytes";
                match parse_size(&v) {
                    Some(0) => return invalid(ctx, what, &v, true),
                    Some(n) if *c == 'b' => Some(Mode::Bytes(n)),
                    Some(n) => Some(Mode::LineBytes(n)),
                    None => return invalid(ctx, what, &v, false),
                }
            }
            'n' => {
                let (by_lines, num) = match v.strip_prefix("l/") {
                    Some(n) => (true, n),
                    None => (false, v.as_str()),
                };
                match num.parse::<u64>() {
                    Ok(0) => return invalid(ctx, "chunks", &v, true),
                    Ok(n) => Some(Mode::Chunks(n, by_lines)),
                    Err(_) => return invalid(ctx, "chunks", &v, false),
                }
            }
            _ => None,
        };
        if let Some(m) = new_mode {
            if mode.is_some() {
                ctx.err(
                    "split: cannot split in more than one way\nTry 'split --help' for more information.\n",
                );
                return 1;
            }
            mode = Some(m);
        }
    }
    let mode = mode.unwrap_or(Mode::Lines(1000));
    let elide = parsed.has('e');
    let verbose = parsed.has('v');
    let additional = parsed.value('A').unwrap_or_default().to_string();
    let (input, prefix) = match parsed.operands.as_slice() {
        [] => ("-".to_string(), "x".to_string()),
        [f] => (f.clone(), "x".to_string()),
        [f, p] => (f.clone(), p.clone()),
        [_, _, extra, ..] => {
            ctx.err(format!(
                "split: extra operand {}\nTry 'split --help' for more information.\n",
                quote(extra)
            ));
            return 1;
        }
    };
    let data = match ctx.read_input(&input) {
        Ok(d) => d,
        Err(e) => {
            ctx.err(format!("split: cannot open {} for reading: {}\n", quote(&input), e.describe()));
            return 1;
        }
    };
    let pieces = cut(&data, &mode, elide);
    let namer =
        Namer { alphabet, len: suffix_len.unwrap_or(2), widen: suffix_len.is_none() && from == 0, from };
    for (k, piece) in pieces.iter().enumerate() {
        let Some(suffix) = namer.name(k as u64) else {
            ctx.err("split: output file suffixes exhausted\n");
            return 1;
        };
        let name = format!("{prefix}{suffix}{additional}");
        if verbose && ctx.out(format!("creating file {}\n", quote(&name))).is_err() {
            return 1;
        }
        if let Err(e) = ctx.sys().write(&name, piece, WriteMode::Truncate) {
            ctx.err(format!("split: {}: {}\n", quote(&name), e.describe()));
            return 1;
        }
    }
    0
}

fn invalid(ctx: &mut Ctx, what: &str, v: &str, range: bool) -> i32 {
    let tail = if range { ": Numerical result out of range" } else { "" };
    ctx.err(format!("split: invalid number of {what}: {}{tail}\n", quote(v)));
    1
}

/// `10`, `2K` (1024), `2KB` (1000), `1M`, `b` (512), …
fn parse_size(v: &str) -> Option<u64> {
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    if num.is_empty() {
        return None;
    }
    let n: u64 = num.parse().ok()?;
    let mult: u64 = match unit {
        "" => 1,
        "b" => 512,
        "K" | "k" | "KiB" => 1 << 10,
        "KB" | "kB" => 1000,
        "M" | "MiB" => 1 << 20,
        "MB" => 1_000_000,
        "G" | "GiB" => 1 << 30,
        "GB" => 1_000_000_000,
        "T" | "TiB" => 1 << 40,
        "TB" => 1_000_000_000_000,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// The pieces of `data`, in order.
fn cut<'a>(data: &'a [u8], mode: &Mode, elide: bool) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    match *mode {
        Mode::Lines(n) => {
            let mut start = 0;
            let mut lines = 0u64;
            for (i, &b) in data.iter().enumerate() {
                if b == b'\n' {
                    lines += 1;
                    if lines == n {
                        out.push(&data[start..=i]);
                        start = i + 1;
                        lines = 0;
                    }
                }
            }
            if start < data.len() {
                out.push(&data[start..]);
            }
        }
        Mode::Bytes(n) => {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            out.extend(data.chunks(n));
        }
        Mode::LineBytes(n) => {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            let mut start = 0;
            while start < data.len() {
                let limit = (start + n).min(data.len());
                // The last line end within the limit, else a cut at the limit.
                let window = &data[start..limit];
                let end = if limit == data.len() {
                    limit
                } else {
                    match window.iter().rposition(|&b| b == b'\n') {
                        Some(p) => start + p + 1,
                        None => limit,
                    }
                };
                out.push(&data[start..end]);
                start = end;
            }
        }
        Mode::Chunks(n, by_lines) => {
            let size = data.len() as u64;
            let chunk = size / n;
            let mut start = 0usize;
            for k in 1..=n {
                let mut end =
                    if k == n { data.len() } else { usize::try_from(k * chunk).unwrap_or(data.len()) };
                if by_lines && end > start && end < data.len() {
                    end = match data[end - 1..].iter().position(|&b| b == b'\n') {
                        Some(p) => end - 1 + p + 1,
                        None => data.len(),
                    };
                }
                let end = end.max(start).min(data.len());
                let piece = &data[start..end];
                if !(elide && piece.is_empty()) {
                    out.push(piece);
                }
                start = end;
            }
        }
    }
    out
}

struct Namer<'a> {
    alphabet: &'a [u8],
    len: usize,
    widen: bool,
    from: u64,
}

impl Namer<'_> {
    /// The suffix of the `k`th file; `None` when suffixes are exhausted.
    /// Without `-a`, suffixes grow like GNU's: `yz` is followed by `zaaa`.
    fn name(&self, k: u64) -> Option<String> {
        let base = self.alphabet.len() as u128;
        let mut k = k as u128 + self.from as u128;
        let mut len = self.len.max(1);
        let mut lead = String::new();
        if self.widen {
            loop {
                let cap = (base - 1) * base.checked_pow(len as u32 - 1)?;
                if k < cap {
                    break;
                }
                k -= cap;
                lead.push(*self.alphabet.last()? as char);
                len += 1;
                if len > 64 {
                    return None;
                }
            }
        } else if k >= base.checked_pow(len as u32)? {
            return None;
        }
        let mut digits = vec![self.alphabet[0]; len];
        for slot in digits.iter_mut().rev() {
            *slot = self.alphabet[(k % base) as usize];
            k /= base;
        }
        Some(lead + &String::from_utf8_lossy(&digits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_widen_like_gnu() {
        let n = Namer { alphabet: b"abcdefghijklmnopqrstuvwxyz", len: 2, widen: true, from: 0 };
        assert_eq!(n.name(0).as_deref(), Some("aa"));
        assert_eq!(n.name(649).as_deref(), Some("yz"));
        assert_eq!(n.name(650).as_deref(), Some("zaaa"));
        let d = Namer { alphabet: b"0123456789", len: 2, widen: true, from: 0 };
        assert_eq!(d.name(89).as_deref(), Some("89"));
        assert_eq!(d.name(90).as_deref(), Some("9000"));
        let fixed = Namer { alphabet: b"abcdefghijklmnopqrstuvwxyz", len: 1, widen: false, from: 0 };
        assert_eq!(fixed.name(25).as_deref(), Some("z"));
        assert_eq!(fixed.name(26), None);
    }

    #[test]
    fn line_bytes() {
        let pieces = cut(b"1\n2\n3\n4\n5\n", &Mode::LineBytes(5), false);
        assert_eq!(pieces, vec![&b"1\n2\n"[..], b"3\n4\n", b"5\n"]);
    }
}
