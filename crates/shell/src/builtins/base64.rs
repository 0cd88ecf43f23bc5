//! `base64`: encode or decode base64 (RFC 4648), like GNU coreutils.

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "base64",
    run,
    help: "Usage: base64 [OPTION]... [FILE]
Base64 encode or decode FILE, or standard input, to standard output.

  -d, --decode          decode data
  -i, --ignore-garbage  when decoding, ignore non-alphabet characters
  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76).
                          Use 0 to disable line wrapping
      --help            display this help and exit
",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "diw:",
    long: &[("decode", 'd', HasArg::No), ("ignore-garbage", 'i', HasArg::No), ("wrap", 'w', HasArg::Yes)],
    stop_at_operand: false,
};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("base64", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU base64 exits 1 on a bad option
            ctx.err(msg);
            return 1;
        }
    };
    if parsed.operands.len() > 1 {
        let extra = &parsed.operands[1];
        ctx.err(format!("base64: extra operand '{extra}'\nTry 'base64 --help' for more information.\n"));
        return 1;
    }
    let wrap = match parsed.value('w') {
        None => 76,
        Some(w) => match w.parse::<u64>() {
            Ok(n) => usize::try_from(n).unwrap_or(usize::MAX),
            Err(_) => {
                ctx.err(format!("base64: invalid wrap size: '{w}'\n"));
                return 1;
            }
        },
    };
    let path = parsed.operands.first().map_or("-", String::as_str);
    let data = match ctx.read_input(path) {
        Ok(d) => d,
        Err(e) => {
            ctx.file_error("base64", path, &e);
            return 1;
        }
    };
    if parsed.has('d') {
        let (out, ok) = decode(&data, parsed.has('i'));
        if ctx.out(&out).is_err() {
            return 1;
        }
        if !ok {
            ctx.err("base64: invalid input\n");
            return 1;
        }
        return 0;
    }
    let out = encode_wrapped(&data, wrap);
    if ctx.out(&out).is_err() {
        return 1;
    }
    0
}

/// Encodes, with a newline every `wrap` characters and at the end (none
/// at all when `wrap` is 0).
pub(crate) fn encode_wrapped(data: &[u8], wrap: usize) -> Vec<u8> {
    let mut enc = Vec::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b0 = chunk[0];
        let b1 = chunk.get(1).copied().unwrap_or(0);
        let b2 = chunk.get(2).copied().unwrap_or(0);
        let n = (u32::from(b0) << 16) | (u32::from(b1) << 8) | u32::from(b2);
        enc.push(ALPHABET[(n >> 18) as usize & 63]);
        enc.push(ALPHABET[(n >> 12) as usize & 63]);
        enc.push(if chunk.len() > 1 { ALPHABET[(n >> 6) as usize & 63] } else { b'=' });
        enc.push(if chunk.len() > 2 { ALPHABET[n as usize & 63] } else { b'=' });
    }
    if wrap == 0 || enc.is_empty() {
        return enc;
    }
    let mut out = Vec::with_capacity(enc.len() + enc.len() / wrap + 1);
    for line in enc.chunks(wrap) {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

fn value(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some(u32::from(c - b'A')),
        b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
        b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Decodes like GNU: newlines are skipped, quanta of four characters may
/// end in `=` padding; anything else is invalid (skipped with `ignore`).
/// Returns what could be decoded and whether the input was valid.
pub(crate) fn decode(data: &[u8], ignore: bool) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(data.len() / 4 * 3);
    let mut quad = [0u32; 4];
    let mut n = 0;
    let mut pad = 0;
    let flush = |quad: &[u32; 4], n: usize, out: &mut Vec<u8>| {
        let v = (quad[0] << 18) | (quad[1] << 12) | (quad[2] << 6) | quad[3];
        if n >= 2 {
            out.push((v >> 16) as u8);
        }
        if n >= 3 {
            out.push((v >> 8) as u8);
        }
        if n >= 4 {
            out.push(v as u8);
        }
    };
    for &c in data {
        if c == b'\n' {
            continue;
        }
        if c == b'=' {
            if ignore && (n < 2) {
                continue;
            }
            if n < 2 {
                flush(&quad, n, &mut out);
                return (out, false);
            }
            pad += 1;
            if n + pad == 4 {
                flush(&quad, n, &mut out);
                quad = [0; 4];
                n = 0;
                pad = 0;
            }
            continue;
        }
        let Some(v) = value(c) else {
            if ignore {
                continue;
            }
            flush(&quad, n, &mut out);
            return (out, false);
        };
        if pad > 0 {
            if ignore {
                continue;
            }
            flush(&quad, n, &mut out);
            return (out, false);
        }
        quad[n] = v;
        n += 1;
        if n == 4 {
            flush(&quad, 4, &mut out);
            quad = [0; 4];
            n = 0;
        }
    }
    if n > 0 || pad > 0 {
        flush(&quad, n, &mut out);
        return (out, false);
    }
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(encode_wrapped(b"hi", 76), b"aGk=\n");
        assert_eq!(encode_wrapped(b"hi", 0), b"aGk=");
        assert_eq!(encode_wrapped(b"", 76), b"");
        assert_eq!(decode(b"aGk=\n", false), (b"hi".to_vec(), true));
        assert_eq!(decode(b"aGk=aGk=", false), (b"hihi".to_vec(), true));
        assert_eq!(decode(b"aGk", false), (b"hi".to_vec(), false));
        assert_eq!(decode(b"aG k=", false), (b"h".to_vec(), false));
        assert_eq!(decode(b"a!Gk=", true), (b"hi".to_vec(), true));
        assert_eq!(decode(b"a", false), (Vec::new(), false));
    }
}
