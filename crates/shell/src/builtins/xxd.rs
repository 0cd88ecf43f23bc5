//! `xxd`: hex dumps like vim's xxd (2022): the default dump, `-p` plain
//! hex, `-i` C include, `-b` bits, and `-r` to turn dumps back into bytes.

use super::Builtin;
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "xxd",
    run,
    help: "Usage:
       xxd [options] [infile [outfile]]
    or
       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]
Options:
    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.
    -b          binary digit dump (incompatible with -ps,-i,-r). Default hex.
    -C          capitalize variable names in C include file style (-i).
    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).
    -g bytes    number of octets per group in normal output. Default 2.
    -h          print this summary.
    -i          output in C include file style.
    -l len      stop after <len> octets.
    -n name     set the variable name used in C include output (-i).
    -o off      add <off> to the displayed file position.
    -ps         output in postscript plain hexdump style.
    -r          reverse operation: convert (or patch) hexdump into binary.
    -s [+][-]seek  start at <seek> bytes abs. (or -: from end) infile offset.
    -u          use upper case hex letters.
    -v          show version: \"xxd 2022-01-14 by Juergen Weigert et al.\".
",
    help_flag: true,
};

const USAGE_SHORT: &str = "Usage:\n       xxd [options] [infile [outfile]]\n    or\n       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\nTry 'xxd --help' for more information.\n";

#[derive(Default)]
struct Opts {
    autoskip: bool,
    bits: bool,
    capitalize: bool,
    cols: Option<usize>,
    group: Option<usize>,
    include: bool,
    len: Option<u64>,
    name: Option<String>,
    offset: u64,
    plain: bool,
    revert: bool,
    seek: Option<i64>,
    upper: bool,
}

/// `strtol(s, 0)`-style numbers: `0x` hex, leading `0` octal.
fn number(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        i64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut o = Opts::default();
    let mut i = 0;
    let mut operands = Vec::new();
    while let Some(a) = args.get(i) {
        i += 1;
        if !a.starts_with('-') || a == "-" || !operands.is_empty() {
            operands.push(a.clone());
            continue;
        }
        if a == "--" {
            operands.extend(args.iter().skip(i).cloned());
            break;
        }
        let flag = &a[1..];
        // options with a value: attached (`-c8`) or separate (`-c 8`)
        let mut value = |name: char| -> Result<String, i32> {
            let rest = flag.get(name.len_utf8()..).unwrap_or_default();
            let rest = match name {
                // long spellings such as -cols, -len, -seek, -group, -name
                'c' => rest.strip_prefix("ols").unwrap_or(rest),
                'l' => rest.strip_prefix("en").unwrap_or(rest),
                'g' => rest.strip_prefix("roupsize").unwrap_or(rest),
                'n' => rest.strip_prefix("ame").unwrap_or(rest),
                _ => rest,
            };
            if !rest.is_empty() {
                return Ok(rest.to_string());
            }
            match args.get(i) {
                Some(v) => {
                    i += 1;
                    Ok(v.clone())
                }
                None => Err(1),
            }
        };
        let first = flag.chars().next().unwrap_or(' ');
        match first {
            'a' if matches!(flag, "a" | "autoskip") => o.autoskip = !o.autoskip,
            'b' if matches!(flag, "b" | "bits") => o.bits = true,
            'C' if matches!(flag, "C" | "capitalize") => o.capitalize = true,
            'i' if matches!(flag, "i" | "include") => o.include = true,
            'p' if matches!(flag, "p" | "ps" | "postscript" | "plain") => o.plain = true,
            'r' if matches!(flag, "r" | "revert") => o.revert = true,
            'u' if matches!(flag, "u" | "upper") => o.upper = true,
            'h' if matches!(flag, "h" | "help") => {
                let _ = ctx.out(BUILTIN.help);
                return 0;
            }
            'v' if matches!(flag, "v" | "version") => {
                ctx.err("xxd 2022-01-14 by Juergen Weigert et al.\n");
                return 0;
            }
            'c' | 'g' | 'l' | 'n' | 'o' | 's' => {
                let Ok(v) = value(first) else {
                    ctx.err(USAGE_SHORT);
                    return 1;
                };
                if first == 'n' {
                    o.name = Some(v);
                    continue;
                }
                let Some(n) = number(&v) else {
                    ctx.err(USAGE_SHORT);
                    return 1;
                };
                match first {
                    'c' => o.cols = Some(usize::try_from(n).unwrap_or(0)),
                    'g' => o.group = Some(usize::try_from(n).unwrap_or(0)),
                    'l' => o.len = Some(u64::try_from(n).unwrap_or(0)),
                    'o' => o.offset = u64::try_from(n).unwrap_or(0),
                    _ => o.seek = Some(n),
                }
            }
            _ => {
                ctx.err(USAGE_SHORT);
                return 1;
            }
        }
    }
    if operands.len() > 2 {
        ctx.err(USAGE_SHORT);
        return 1;
    }
    if o.cols.is_some_and(|c| c > 256) && !o.plain && !o.include && !o.revert {
        ctx.err("xxd: invalid number of columns (max. 256).\n");
        return 1;
    }
    let infile = operands.first().map_or("-", String::as_str);
    let data = match ctx.read_input(infile) {
        Ok(d) => d,
        Err(e) => {
            ctx.file_error("xxd", infile, &e);
            return 2;
        }
    };
    let out = if o.revert {
        revert(&data, &o)
    } else {
        let start = match o.seek {
            None => 0,
            Some(s) if s < 0 => {
                data.len().saturating_sub(usize::try_from(s.unsigned_abs()).unwrap_or(usize::MAX))
            }
            Some(s) => usize::try_from(s).unwrap_or(usize::MAX).min(data.len()),
        };
        let mut slice = &data[start..];
        if let Some(l) = o.len {
            slice = &slice[..usize::try_from(l).unwrap_or(usize::MAX).min(slice.len())];
        }
        let name = operands.first().filter(|f| *f != "-").cloned();
        if o.plain {
            plain(slice, &o)
        } else if o.include {
            include(slice, &o, name.as_deref())
        } else if operands.get(1).is_none_or(|f| f == "-") {
            // straight to standard output, in pieces
            let mut closed = false;
            dump_into(slice, start as u64 + o.offset, &o, &mut |chunk: &[u8]| {
                closed = ctx.out(chunk).is_err();
                !closed
            });
            return i32::from(closed);
        } else {
            let mut all = Vec::new();
            dump_into(slice, start as u64 + o.offset, &o, &mut |chunk: &[u8]| {
                all.extend_from_slice(chunk);
                true
            });
            all
        }
    };
    match operands.get(1) {
        Some(outfile) if outfile != "-" => {
            if let Err(e) = ctx.sys().write(outfile, &out, WriteMode::Truncate) {
                ctx.file_error("xxd", outfile, &e);
                return 3;
            }
        }
        _ => {
            if ctx.out(&out).is_err() {
                return 1;
            }
        }
    }
    0
}

fn hex_digit(n: u8, upper: bool) -> u8 {
    let digits = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    digits[usize::from(n & 15)]
}

#[cfg(test)]
fn dump(data: &[u8], base: u64, o: &Opts) -> Vec<u8> {
    let mut all = Vec::new();
    dump_into(data, base, o, &mut |chunk: &[u8]| {
        all.extend_from_slice(chunk);
        true
    });
    all
}

/// The default (or `-b`) dump, handed to `emit` in pieces; stops when
/// `emit` returns false.
fn dump_into(data: &[u8], base: u64, o: &Opts, emit: &mut dyn FnMut(&[u8]) -> bool) {
    let cols = match o.cols {
        Some(c) if c > 0 => c,
        _ => {
            if o.bits {
                6
            } else {
                16
            }
        }
    };
    let mut group = o.group.unwrap_or(if o.bits { 1 } else { 2 });
    if group == 0 || group > cols {
        group = cols;
    }
    let digits = if o.bits { 8 } else { 2 };
    let grplen = digits * group + 1;
    let ascii_at = 12 + (grplen * cols - 1) / group;
    let mut out = Vec::with_capacity((data.len() * 5).min(1 << 17));
    let mut zero_lines = 0usize;
    let mut line = Vec::with_capacity(ascii_at + cols + 1);
    let chunks: Vec<&[u8]> = data.chunks(cols).collect();
    for (n, chunk) in chunks.iter().enumerate() {
        let addr = base + (n * cols) as u64;
        let all_zero = chunk.len() == cols && chunk.iter().all(|&b| b == 0);
        if o.autoskip && all_zero {
            zero_lines += 1;
            let last = n + 1 == chunks.len();
            if zero_lines == 2 && !last {
                out.extend_from_slice(b"*\n");
            }
            if zero_lines > 1 && !last {
                continue;
            }
        } else {
            zero_lines = 0;
        }
        line.clear();
        line.extend_from_slice(format!("{addr:08x}:").as_bytes());
        line.resize(ascii_at + chunk.len(), b' ');
        for (p, &b) in chunk.iter().enumerate() {
            let at = 10 + (grplen * p) / group;
            if o.bits {
                for k in 0..8 {
                    line[at + k] = if b & (0x80 >> k) != 0 { b'1' } else { b'0' };
                }
            } else {
                line[at] = hex_digit(b >> 4, o.upper);
                line[at + 1] = hex_digit(b, o.upper);
            }
            line[ascii_at + p] = if (32..127).contains(&b) { b } else { b'.' };
        }
        out.extend_from_slice(&line);
        out.push(b'\n');
        if out.len() >= 1 << 16 {
            if !emit(&out) {
                return;
            }
            out.clear();
        }
    }
    emit(&out);
}

fn plain(data: &[u8], o: &Opts) -> Vec<u8> {
    let cols = match o.cols {
        Some(c) if c > 0 => c,
        _ => 30,
    };
    let mut out = Vec::with_capacity(data.len() * 2 + data.len() / cols + 1);
    for chunk in data.chunks(cols) {
        for &b in chunk {
            out.push(hex_digit(b >> 4, o.upper));
            out.push(hex_digit(b, o.upper));
        }
        out.push(b'\n');
    }
    out
}

fn include(data: &[u8], o: &Opts, file: Option<&str>) -> Vec<u8> {
    let cols = match o.cols {
        Some(c) if c > 0 => c,
        _ => 12,
    };
    let mut out = Vec::new();
    let var = o.name.clone().or_else(|| {
        file.map(|f| {
            let mut v: String = f.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
            if v.starts_with(|c: char| c.is_ascii_digit()) {
                v.insert(0, '_');
                v.insert(0, '_');
            }
            if o.capitalize {
                v = v.to_ascii_uppercase();
            }
            v
        })
    });
    if let Some(v) = &var {
        out.extend_from_slice(format!("unsigned char {v}[] = {{\n").as_bytes());
    }
    let n = data.len();
    for (i, chunk) in data.chunks(cols).enumerate() {
        out.extend_from_slice(b" ");
        for (j, &b) in chunk.iter().enumerate() {
            let x = if o.upper { format!(" 0X{b:02X}") } else { format!(" 0x{b:02x}") };
            out.extend_from_slice(x.as_bytes());
            if i * cols + j + 1 < n {
                out.push(b',');
            }
        }
        out.push(b'\n');
    }
    if let Some(v) = &var {
        out.extend_from_slice(format!("}};\nunsigned int {v}_len = {n};\n").as_bytes());
    }
    out
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn revert(data: &[u8], o: &Opts) -> Vec<u8> {
    let mut out = Vec::new();
    if o.plain {
        let mut hi: Option<u8> = None;
        for &b in data {
            let Some(v) = hex_val(b) else { continue };
            match hi.take() {
                Some(h) => out.push((h << 4) | v),
                None => hi = Some(v),
            }
        }
        return out;
    }
    let cols = match o.cols {
        Some(c) if c > 0 => c,
        _ => 16,
    };
    let seek = o.seek.unwrap_or(0);
    for line in data.split(|&b| b == b'\n') {
        let Some(colon) = line.iter().position(|&b| b == b':') else { continue };
        let addr_text = String::from_utf8_lossy(&line[..colon]);
        let Ok(addr) = i64::from_str_radix(addr_text.trim(), 16) else { continue };
        let mut pos = usize::try_from(addr + seek).unwrap_or(0);
        let mut hi: Option<u8> = None;
        let mut count = 0;
        let mut spaces = 0;
        for &b in &line[colon + 1..] {
            if b == b' ' || b == b'\t' {
                spaces += 1;
                if spaces >= 2 && hi.is_none() && count > 0 {
                    break;
                }
                continue;
            }
            spaces = 0;
            let Some(v) = hex_val(b) else { break };
            match hi.take() {
                Some(h) => {
                    if out.len() <= pos {
                        out.resize(pos + 1, 0);
                    }
                    out[pos] = (h << 4) | v;
                    pos += 1;
                    count += 1;
                    if count >= cols {
                        break;
                    }
                }
                None => hi = Some(v),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_dump() {
        let o = Opts::default();
        let out = dump(b"hello\n", 0, &o);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "00000000: 6865 6c6c 6f0a                           hello.\n"
        );
    }

    #[test]
    fn round_trips() {
        let o = Opts { plain: true, ..Opts::default() };
        assert_eq!(revert(&plain(b"abc", &o), &o), b"abc");
        let d = Opts::default();
        assert_eq!(
            revert(&dump(b"hello world, this is a test\n", 0, &d), &d),
            b"hello world, this is a test\n"
        );
    }
}
