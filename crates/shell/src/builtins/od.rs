//! `od`: dump files in octal and other formats, like GNU coreutils (integer
//! and character types; floating-point types are not supported).

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "od",
    run,
    help: "Usage: od [OPTION]... [FILE]...
Write an unambiguous representation, octal bytes by default,
of FILE to standard output.  With more than one FILE argument,
concatenate them in the listed order to form the input.

With no FILE, or when FILE is -, read standard input.

  -A, --address-radix=RADIX   output format for file offsets; RADIX is one
                                of [doxn], for Decimal, Octal, Hex or None
  -j, --skip-bytes=BYTES      skip BYTES input bytes first
  -N, --read-bytes=BYTES      limit dump to BYTES input bytes
  -t, --format=TYPE           select output format or formats
  -v, --output-duplicates     do not use * to mark line suppression
  -w[BYTES], --width[=BYTES]  output BYTES bytes per output line;
                                32 is implied when BYTES is not specified
      --help                  display this help and exit

Traditional format specifications may be intermixed; they accumulate:
  -a   same as -t a,  select named characters, ignoring high-order bit
  -b   same as -t o1, select octal bytes
  -c   same as -t c,  select printable characters or backslash escapes
  -d   same as -t u2, select unsigned decimal 2-byte units
  -i   same as -t dI, select decimal ints
  -l   same as -t dL, select decimal longs
  -o   same as -t o2, select octal 2-byte units
  -s   same as -t d2, select decimal 2-byte units
  -x   same as -t x2, select hexadecimal 2-byte units

TYPE is made up of one or more of these specifications:
  a          named character, ignoring high-order bit
  c          printable character or backslash escape
  d[SIZE]    signed decimal, SIZE bytes per integer
  o[SIZE]    octal, SIZE bytes per integer
  u[SIZE]    unsigned decimal, SIZE bytes per integer
  x[SIZE]    hexadecimal, SIZE bytes per integer
  z          (after any type) show printable characters at the line end

SIZE is a number (1, 2, 4 or 8) or one of C, S, I, L.
Floating-point types (f) are not supported.
",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "A:j:N:t:vw:abcdilosx",
    long: &[
        ("address-radix", 'A', HasArg::Yes),
        ("skip-bytes", 'j', HasArg::Yes),
        ("read-bytes", 'N', HasArg::Yes),
        ("format", 't', HasArg::Yes),
        ("output-duplicates", 'v', HasArg::No),
        ("width", 'w', HasArg::Yes),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Named,
    Char,
    Signed,
    Unsigned,
    Octal,
    Hex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Format {
    kind: Kind,
    size: usize,
    /// `z` suffix: show the printable characters after the line.
    text: bool,
}

impl Format {
    fn field_width(self) -> usize {
        match (self.kind, self.size) {
            (Kind::Named | Kind::Char, _) => 3,
            (Kind::Signed, 1) => 4,
            (Kind::Signed, 2) => 6,
            (Kind::Signed, 4) => 11,
            (Kind::Signed, _) => 20,
            (Kind::Unsigned, 1) => 3,
            (Kind::Unsigned, 2) => 5,
            (Kind::Unsigned, 4) => 10,
            (Kind::Unsigned, _) => 20,
            (Kind::Octal, 1) => 3,
            (Kind::Octal, 2) => 6,
            (Kind::Octal, 4) => 11,
            (Kind::Octal, _) => 22,
            (Kind::Hex, s) => s * 2,
        }
    }

    fn item(self, bytes: &[u8]) -> String {
        let mut v: u64 = 0;
        for (i, &b) in bytes.iter().enumerate().take(8) {
            v |= u64::from(b) << (8 * i);
        }
        let w = self.size;
        match self.kind {
            Kind::Named => named(bytes.first().copied().unwrap_or(0)),
            Kind::Char => char_escape(bytes.first().copied().unwrap_or(0)),
            Kind::Signed => {
                let shift = 64 - 8 * w as u32;
                let s = ((v << shift) as i64) >> shift;
                s.to_string()
            }
            Kind::Unsigned => v.to_string(),
            Kind::Octal => format!("{v:0width$o}", width = self.field_width()),
            Kind::Hex => format!("{v:0width$x}", width = self.field_width()),
        }
    }
}

fn named(b: u8) -> String {
    const NAMES: [&str; 33] = [
        "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr", "so",
        "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs",
        "rs", "us", "sp",
    ];
    let c = b & 0x7f;
    match c {
        0x7f => "del".to_string(),
        c if usize::from(c) < NAMES.len() => NAMES[usize::from(c)].to_string(),
        c => (c as char).to_string(),
    }
}

fn char_escape(b: u8) -> String {
    match b {
        0 => "\\0".into(),
        7 => "\\a".into(),
        8 => "\\b".into(),
        12 => "\\f".into(),
        b'\n' => "\\n".into(),
        b'\r' => "\\r".into(),
        b'\t' => "\\t".into(),
        11 => "\\v".into(),
        32..=126 => (b as char).to_string(),
        _ => format!("{b:03o}"),
    }
}

/// Parses one `-t` argument into formats.
fn parse_type(s: &str) -> Result<Vec<Format>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        i += 1;
        let kind = match c {
            b'a' => Kind::Named,
            b'c' => Kind::Char,
            b'd' => Kind::Signed,
            b'u' => Kind::Unsigned,
            b'o' => Kind::Octal,
            b'x' => Kind::Hex,
            b'f' => return Err(format!("od: floating-point type string '{s}' is not supported\n")),
            other => return Err(format!("od: invalid character '{}' in type string '{s}'\n", other as char)),
        };
        let z = |i: &mut usize| {
            let z = b.get(*i) == Some(&b'z');
            if z {
                *i += 1;
            }
            z
        };
        if matches!(kind, Kind::Named | Kind::Char) {
            let text = z(&mut i);
            out.push(Format { kind, size: 1, text });
            continue;
        }
        let size = match b.get(i) {
            Some(b'C') => {
                i += 1;
                1
            }
            Some(b'S') => {
                i += 1;
                2
            }
            Some(b'I') => {
                i += 1;
                4
            }
            Some(b'L') => {
                i += 1;
                8
            }
            Some(d) if d.is_ascii_digit() => {
                let start = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                let n: usize = s[start..i].parse().unwrap_or(0);
                if !matches!(n, 1 | 2 | 4 | 8) {
                    return Err(format!(
                        "od: invalid type string '{s}';\nthis system doesn't provide a {n}-byte integral type\n"
                    ));
                }
                n
            }
            _ => 4,
        };
        let text = z(&mut i);
        out.push(Format { kind, size, text });
    }
    Ok(out)
}

/// Byte counts: decimal, `0x` hex, leading-`0` octal, with b/k/m suffixes.
fn parse_count(s: &str) -> Option<u64> {
    let (body, mult) = match s.as_bytes().last() {
        Some(b'b') if !s.starts_with("0x") => (&s[..s.len() - 1], 512),
        Some(b'k' | b'K') => (&s[..s.len() - 1], 1024),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 1024 * 1024),
        _ => (s, 1),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse().ok()?
    };
    v.checked_mul(mult)
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    // `-w` takes an optional value: alone it means 32
    let args: Vec<String> = args
        .iter()
        .map(|a| match a.as_str() {
            "-w" => "-w32".to_string(),
            "--width" => "--width=32".to_string(),
            _ => a.clone(),
        })
        .collect();
    let p = match args::parse("od", &args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut formats = Vec::new();
    let mut radix = 'o';
    let mut skip = 0u64;
    let mut limit: Option<u64> = None;
    let mut width = 16usize;
    for (opt, val) in &p.opts {
        let val = val.as_deref().unwrap_or_default();
        let traditional = match opt {
            'a' => Some("a"),
            'b' => Some("o1"),
            'c' => Some("c"),
            'd' => Some("u2"),
            'i' => Some("d4"),
            'l' => Some("d8"),
            'o' => Some("o2"),
            's' => Some("d2"),
            'x' => Some("x2"),
            _ => None,
        };
        let ty = match (opt, traditional) {
            (_, Some(t)) => Some(t),
            ('t', None) => Some(val),
            _ => None,
        };
        if let Some(t) = ty {
            match parse_type(t) {
                Ok(f) => formats.extend(f),
                Err(msg) => {
                    ctx.err(msg);
                    return 1;
                }
            }
            continue;
        }
        match opt {
            'A' => {
                radix = match val {
                    "d" | "o" | "x" | "n" => val.chars().next().unwrap_or('o'),
                    _ => {
                        ctx.err(format!(
                            "od: invalid output address radix '{val}'; it must be one character from [doxn]\n"
                        ));
                        return 1;
                    }
                }
            }
            'j' | 'N' | 'w' => {
                let Some(n) = parse_count(val) else {
                    let what = match opt {
                        'j' => "skip argument",
                        'N' => "limit argument",
                        _ => "-w argument",
                    };
                    ctx.err(format!("od: invalid {what} '{val}'\n"));
                    return 1;
                };
                match opt {
                    'j' => skip = n,
                    'N' => limit = Some(n),
                    _ => {
                        if n == 0 {
                            ctx.err(format!("od: invalid -w argument '{val}'\n"));
                            return 1;
                        }
                        width = usize::try_from(n).unwrap_or(16);
                    }
                }
            }
            _ => {}
        }
    }
    if formats.is_empty() {
        formats.push(Format { kind: Kind::Octal, size: 2, text: false });
    }
    // GNU rounds the width to a multiple of the largest item size
    let lcm_size = formats.iter().map(|f| f.size).max().unwrap_or(1);
    if !width.is_multiple_of(lcm_size) {
        width = (width / lcm_size).max(1) * lcm_size;
    }

    let files = if p.operands.is_empty() { vec!["-".to_string()] } else { p.operands.clone() };
    let mut data = Vec::new();
    let mut status = 0;
    let mut any_read = false;
    for f in &files {
        match ctx.read_input(f) {
            Ok(d) => {
                any_read = true;
                data.extend_from_slice(&d);
            }
            Err(e) => {
                ctx.file_error("od", f, &e);
                status = 1;
            }
        }
    }
    if !any_read {
        return status;
    }
    let skip_n = usize::try_from(skip).unwrap_or(usize::MAX);
    if skip_n > data.len() {
        ctx.err("od: cannot skip past end of combined input\n");
        return 1;
    }
    let mut body = &data[skip_n..];
    if let Some(l) = limit {
        body = &body[..usize::try_from(l).unwrap_or(usize::MAX).min(body.len())];
    }
    let mut closed = false;
    render_into(body, skip, &formats, radix, width, p.has('v'), &mut |chunk: &str| {
        closed = ctx.out(chunk).is_err();
        !closed
    });
    if closed {
        return 1;
    }
    status
}

fn address(radix: char, at: u64) -> String {
    match radix {
        'd' => format!("{at:07}"),
        'x' => format!("{at:06x}"),
        'n' => String::new(),
        _ => format!("{at:07o}"),
    }
}

#[cfg(test)]
fn render(data: &[u8], base: u64, formats: &[Format], radix: char, width: usize, all: bool) -> String {
    let mut text = String::new();
    render_into(data, base, formats, radix, width, all, &mut |chunk: &str| {
        text.push_str(chunk);
        true
    });
    text
}

/// Renders the dump, handing it to `emit` in pieces; stops when `emit`
/// returns false.
fn render_into(
    data: &[u8],
    base: u64,
    formats: &[Format],
    radix: char,
    width: usize,
    all: bool,
    emit: &mut dyn FnMut(&str) -> bool,
) {
    let width_per_block = formats.iter().map(|f| (f.field_width() + 1) * (width / f.size)).max().unwrap_or(0);
    let addr_pad = match radix {
        'n' => 0,
        'x' => 6,
        _ => 7,
    };
    let mut out = String::with_capacity((data.len() * 5).min(1 << 17));
    let mut prev: Option<&[u8]> = None;
    let mut starred = false;
    for (n, block) in data.chunks(width).enumerate() {
        let at = base + (n * width) as u64;
        if !all && block.len() == width && prev == Some(block) {
            if !starred {
                out.push_str("*\n");
                starred = true;
            }
            continue;
        }
        starred = false;
        prev = Some(block);
        let mut padded = block.to_vec();
        padded.resize(width, 0);
        for (k, f) in formats.iter().enumerate() {
            if k == 0 {
                out.push_str(&address(radix, at));
            } else {
                out.push_str(&" ".repeat(addr_pad));
            }
            let fields = width / f.size;
            let blank = (width - block.len()) / f.size;
            let fw = f.field_width();
            let pad = width_per_block - fw * fields;
            let mut pad_remaining = pad;
            let mut printed = 0;
            for i in (blank + 1..=fields).rev() {
                let next_pad = pad * (i - 1) / fields;
                let adjusted = pad_remaining - next_pad + fw;
                let idx = fields - i;
                let item = f.item(&padded[idx * f.size..(idx + 1) * f.size]);
                out.push_str(&format!("{item:>adjusted$}"));
                printed += adjusted.max(item.len());
                pad_remaining = next_pad;
            }
            if f.text {
                out.push_str(&" ".repeat(width_per_block.saturating_sub(printed) + 2));
                out.push('>');
                out.extend(block.iter().map(|&b| if (32..127).contains(&b) { b as char } else { '.' }));
                out.push('<');
            }
            out.push('\n');
        }
        if out.len() >= 1 << 16 {
            if !emit(&out) {
                return;
            }
            out.clear();
        }
    }
    if radix != 'n' {
        out.push_str(&address(radix, base + data.len() as u64));
        out.push('\n');
    }
    emit(&out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_octal_words() {
        let f = [Format { kind: Kind::Octal, size: 2, text: false }];
        assert_eq!(render(b"abc", 0, &f, 'o', 16, false), "0000000 061141 000143\n0000003\n");
    }

    #[test]
    fn mixed_formats_align() {
        let f = parse_type("xC").unwrap_or_default();
        let mut all = f.clone();
        all.extend(parse_type("xS").unwrap_or_default());
        assert_eq!(
            render(b"abcdefgh", 0, &all, 'o', 16, false),
            "0000000 61 62 63 64 65 66 67 68\n         6261  6463  6665  6867\n0000010\n"
        );
    }

    #[test]
    fn chars_and_duplicates() {
        let f = parse_type("c").unwrap_or_default();
        let data = b"abcdabcdabcdabcdabcdabcdabcdabcdabcd";
        assert_eq!(
            render(data, 0, &f, 'o', 16, false),
            "0000000   a   b   c   d   a   b   c   d   a   b   c   d   a   b   c   d\n*\n0000040   a   b   c   d\n0000044\n"
        );
    }
}
