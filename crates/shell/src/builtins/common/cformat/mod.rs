//! C-style numbers, as glibc reads and prints them: `strtoimax`,
//! `strtold` and the `%d %o %u %x %e %f %g %a` conversions with their
//! flags, width and precision. `printf` formats x87 `long double`s with
//! it (exactly, through the big integers of `big`); `awk` and `seq` format
//! `double`s, for which `float::fmt_double` gives the same bytes without
//! big integers.

pub(crate) mod big;
pub(crate) mod float;

/// A conversion's flags, width and precision.
#[derive(Default, Clone, Copy)]
pub(crate) struct Spec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub zero: bool,
    pub alt: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

// Integers.

pub(crate) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `strtol` family with base 0: (negative, magnitude saturated at
/// `u64::MAX`, overflowed, end of the number; 0 when there is none).
/// Where a C number's digits start in `s` (past leading white space and a
/// sign), and whether the sign was `-`: how `strtol` and `strtod` begin.
pub(crate) fn skip_space_and_sign(s: &[u8]) -> (usize, bool) {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    match s.get(i) {
        Some(&c @ (b'+' | b'-')) => (i + 1, c == b'-'),
        _ => (i, false),
    }
}

fn parse_c_int(s: &[u8]) -> (bool, u64, bool, usize) {
    let (mut i, neg) = skip_space_and_sign(s);
    let mut base = 10u64;
    if s.get(i) == Some(&b'0') {
        if matches!(s.get(i + 1), Some(b'x' | b'X')) && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit()) {
            base = 16;
            i += 2;
        } else {
            base = 8;
        }
    }
    let digits_start = i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|&c| char::from(c).to_digit(base as u32)) {
        match value.checked_mul(base).and_then(|v| v.checked_add(u64::from(d))) {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == digits_start {
        return (false, 0, false, 0);
    }
    (neg, if overflow { u64::MAX } else { value }, overflow, i)
}

/// C's `strtoimax(s, &end, 0)`: (value, end, out of range).
pub(crate) fn strtoimax(s: &[u8]) -> (i64, usize, bool) {
    let (neg, mag, overflow, end) = parse_c_int(s);
    if neg {
        if overflow || mag > 1u64 << 63 {
            return (i64::MIN, end, true);
        }
        (0i64.wrapping_sub_unsigned(mag), end, false)
    } else if overflow || mag > i64::MAX as u64 {
        (i64::MAX, end, true)
    } else {
        (mag as i64, end, false)
    }
}

/// C's `strtoumax(s, &end, 0)`: (value, end, out of range).
pub(crate) fn strtoumax(s: &[u8]) -> (u64, usize, bool) {
    let (neg, mag, overflow, end) = parse_c_int(s);
    if overflow {
        return (u64::MAX, end, true);
    }
    (if neg { mag.wrapping_neg() } else { mag }, end, false)
}

pub(crate) fn fmt_int(neg: bool, mag: u64, conv: u8, spec: &Spec) -> Vec<u8> {
    let mut digits = match conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    }
    .into_bytes();
    if let Some(p) = spec.precision {
        if p == 0 && mag == 0 {
            digits.clear();
        }
        if digits.len() < p {
            let mut padded = vec![b'0'; p - digits.len()];
            padded.extend_from_slice(&digits);
            digits = padded;
        }
    }
    let mut prefix: Vec<u8> = Vec::new();
    match conv {
        b'd' => {
            if neg {
                prefix.push(b'-');
            } else if spec.plus {
                prefix.push(b'+');
            } else if spec.space {
                prefix.push(b' ');
            }
        }
        b'o' if spec.alt && digits.first() != Some(&b'0') => digits.insert(0, b'0'),
        b'x' if spec.alt && mag != 0 => prefix.extend_from_slice(b"0x"),
        b'X' if spec.alt && mag != 0 => prefix.extend_from_slice(b"0X"),
        _ => {}
    }
    let zero_pad = spec.zero && !spec.minus && spec.precision.is_none();
    assemble(&prefix, &digits, spec.width, spec.minus, zero_pad)
}

/// A string padded with spaces to `width` bytes (`%s`, `%c`).
pub(crate) fn pad_into(out: &mut Vec<u8>, s: &[u8], width: usize, left: bool) {
    let fill = width.saturating_sub(s.len());
    if left {
        out.extend_from_slice(s);
        out.resize(out.len() + fill, b' ');
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(s);
    }
}

/// Sign or prefix, then the body, padded to `width`.
pub(crate) fn assemble(prefix: &[u8], body: &[u8], width: usize, left: bool, zero_pad: bool) -> Vec<u8> {
    let len = prefix.len() + body.len();
    let fill = width.saturating_sub(len);
    let mut out = Vec::with_capacity(len + fill);
    if left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if zero_pad {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
    out
}
