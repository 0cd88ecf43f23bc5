//! Floating point, as the x87 80-bit `long double` bash uses: reading
//! (`strtold`) and printing exactly (`%e %f %g %a`) with big integers; and
//! printing a `double` (`fmt_double`) the same way without them.

use super::{assemble, big, skip_space_and_sign, Spec};

/// A `long double`: `mant * 2^exp` with the top bit of `mant` set (or zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Num {
    Finite { neg: bool, mant: u64, exp: i32 },
    Inf { neg: bool },
    Nan { neg: bool },
}

impl Num {
    pub(crate) const ZERO: Num = Num::Finite { neg: false, mant: 0, exp: 0 };

    /// The nearest `f64` (infinite for huge values; NaN stays NaN).
    pub(crate) fn to_f64(self) -> f64 {
        match self {
            Num::Finite { neg, mant, exp } => {
                let mag = if mant == 0 {
                    0.0
                } else {
                    // Split the scaling so that neither factor overflows
                    // before the product does.
                    let half = exp / 2;
                    (mant as f64) * 2f64.powi(half) * 2f64.powi(exp - half)
                };
                if neg {
                    -mag
                } else {
                    mag
                }
            }
            Num::Inf { neg } => {
                if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Num::Nan { .. } => f64::NAN,
        }
    }

    /// A `double`, exactly (every `double` is a `long double`).
    pub(crate) fn from_f64(v: f64) -> Num {
        let neg = v.is_sign_negative();
        if v.is_nan() {
            return Num::Nan { neg };
        }
        if v.is_infinite() {
            return Num::Inf { neg };
        }
        let bits = v.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1 << 52) - 1);
        // value = m * 2^e
        let (m, e) = if biased == 0 { (frac, -1074) } else { (frac | (1 << 52), biased - 1075) };
        if m == 0 {
            return Num::Finite { neg, mant: 0, exp: 0 };
        }
        let shift = m.leading_zeros();
        Num::Finite { neg, mant: m << shift, exp: e - shift as i32 }
    }

    pub(crate) fn from_i64(v: i64) -> Num {
        let neg = v < 0;
        let mag = v.unsigned_abs();
        if mag == 0 {
            return Num::ZERO;
        }
        let shift = mag.leading_zeros();
        Num::Finite { neg, mant: mag << shift, exp: -(shift as i32) }
    }
}

/// Largest binary exponent of the leading bit of a finite `long double`.
const MAX_EXP2: i64 = 16383;
/// Smallest binary exponent of the leading bit of a normal `long double`.
const MIN_EXP2: i64 = -16382;

/// C's `strtold(s, &end)`: (value, end, out of range). `end` is 0 when no
/// number starts `s`.
pub(crate) fn parse_float(s: &[u8]) -> (Num, usize, bool) {
    let (mut i, neg) = skip_space_and_sign(s);
    let rest = &s[i..];
    let starts = |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    if starts(b"infinity") {
        return (Num::Inf { neg }, i + 8, false);
    }
    if starts(b"inf") {
        return (Num::Inf { neg }, i + 3, false);
    }
    if starts(b"nan") {
        let mut end = i + 3;
        if s.get(end) == Some(&b'(') {
            if let Some(close) =
                s[end..].iter().position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'('))
            {
                if s[end + close] == b')' {
                    end += close + 1;
                }
            }
        }
        return (Num::Nan { neg }, end, false);
    }
    if rest.len() >= 2
        && rest[0] == b'0'
        && (rest[1] | 0x20) == b'x'
        && (rest.get(2).is_some_and(|c| c.is_ascii_hexdigit())
            || (rest.get(2) == Some(&b'.') && rest.get(3).is_some_and(|c| c.is_ascii_hexdigit())))
    {
        return parse_hex_float(s, i + 2, neg);
    }
    // Decimal: significant digits (at most MAX_DIGITS, then a sticky digit).
    const MAX_DIGITS: usize = 1000;
    let mut sig: Vec<u8> = Vec::new();
    let mut exp10: i64 = 0;
    let mut sticky = false;
    let mut any_digit = false;
    let mut seen_point = false;
    while let Some(&c) = s.get(i) {
        if c.is_ascii_digit() {
            any_digit = true;
            if sig.is_empty() && c == b'0' {
                if seen_point {
                    exp10 -= 1;
                }
            } else if sig.len() < MAX_DIGITS {
                sig.push(c - b'0');
                if seen_point {
                    exp10 -= 1;
                }
            } else {
                sticky |= c != b'0';
                if !seen_point {
                    exp10 += 1;
                }
            }
        } else if c == b'.' && !seen_point {
            seen_point = true;
        } else {
            break;
        }
        i += 1;
    }
    if !any_digit {
        return (Num::ZERO, 0, false);
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        if let Some((e, end)) = exponent(s, i + 1) {
            exp10 += e;
            i = end;
        }
    }
    if sig.is_empty() {
        return (Num::Finite { neg, mant: 0, exp: 0 }, i, false);
    }
    if sticky {
        sig.push(1);
        exp10 -= 1;
    }
    let magnitude = sig.len() as i64 + exp10;
    if magnitude > 4940 {
        return (Num::Inf { neg }, i, true);
    }
    if magnitude < -4960 {
        return (Num::Finite { neg, mant: 0, exp: 0 }, i, true);
    }
    let d = big::Big::from_digits(&sig);
    let (mant, exp) = if exp10 >= 0 {
        let mut n = d;
        n.mul_pow10(exp10 as u32);
        round_to_64(&n, false)
    } else {
        let mut b = big::Big::from_u64(1);
        b.mul_pow10((-exp10) as u32);
        divide_to_64(&d, &b)
    };
    finish(neg, mant, exp, i)
}

/// A signed decimal exponent starting at `s[i]` (after the `e` or `p`),
/// clamped to ±1e9, and the index after it; `None` without digits.
fn exponent(s: &[u8], mut i: usize) -> Option<(i64, usize)> {
    let mut neg = false;
    if let Some(&c @ (b'+' | b'-')) = s.get(i) {
        neg = c == b'-';
        i += 1;
    }
    if !s.get(i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut e: i64 = 0;
    while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
        e = (e * 10 + i64::from(d - b'0')).min(1_000_000_000);
        i += 1;
    }
    Some((if neg { -e } else { e }, i))
}

fn finish(neg: bool, mant: u64, exp: i64, end: usize) -> (Num, usize, bool) {
    let top = exp + 63;
    if top > MAX_EXP2 {
        return (Num::Inf { neg }, end, true);
    }
    if top < MIN_EXP2 - 64 {
        return (Num::Finite { neg, mant: 0, exp: 0 }, end, true);
    }
    (Num::Finite { neg, mant, exp: exp as i32 }, end, top < MIN_EXP2)
}

fn parse_hex_float(s: &[u8], mut i: usize, neg: bool) -> (Num, usize, bool) {
    let mut n = big::Big::from_u64(0);
    let mut exp2: i64 = 0;
    let mut seen_point = false;
    let mut count = 0usize;
    let mut sticky = false;
    while let Some(&c) = s.get(i) {
        if let Some(d) = char::from(c).to_digit(16) {
            if count < 300 {
                if !(n.is_zero() && d == 0) {
                    count += 1;
                }
                n.mul_small(16);
                n.add_small(d);
                if seen_point {
                    exp2 -= 4;
                }
            } else {
                sticky |= d != 0;
                if !seen_point {
                    exp2 += 4;
                }
            }
        } else if c == b'.' && !seen_point {
            seen_point = true;
        } else {
            break;
        }
        i += 1;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        if let Some((e, end)) = exponent(s, i + 1) {
            exp2 += e;
            i = end;
        }
    }
    if n.is_zero() {
        return (Num::Finite { neg, mant: 0, exp: 0 }, i, false);
    }
    let (mant, exp) = round_to_64(&n, sticky);
    finish(neg, mant, exp + exp2, i)
}

/// Rounds `n` (nonzero) to 64 significant bits, half to even:
/// `n ≈ mant * 2^exp`.
fn round_to_64(n: &big::Big, extra_sticky: bool) -> (u64, i64) {
    let bits = n.bits();
    if bits <= 64 {
        let shift = 64 - bits;
        return (n.low_u64() << shift, -(shift as i64));
    }
    let shift = bits - 64;
    let mut top = n.clone();
    top.shr(shift);
    let mant = top.low_u64();
    let half = n.bit(shift - 1);
    let sticky = extra_sticky || n.any_bits_below(shift - 1);
    round_mant(mant, shift as i64, half, sticky, false)
}

fn round_mant(mant: u64, exp: i64, half: bool, sticky: bool, _unused: bool) -> (u64, i64) {
    if half && (sticky || mant & 1 == 1) {
        match mant.checked_add(1) {
            Some(m) => (m, exp),
            None => (1 << 63, exp + 1),
        }
    } else {
        (mant, exp)
    }
}

/// `d / b` rounded to 64 significant bits: (mant, exp).
fn divide_to_64(d: &big::Big, b: &big::Big) -> (u64, i64) {
    let s = 64 + b.bits() as i64 - d.bits() as i64;
    let (num, den) = if s >= 0 {
        let mut num = d.clone();
        num.shl(s as usize);
        (num, b.clone())
    } else {
        let mut den = b.clone();
        den.shl((-s) as usize);
        (d.clone(), den)
    };
    let (q, r) = num.divmod(&den);
    if q.bits() > 64 {
        let mant = {
            let mut t = q.clone();
            t.shr(1);
            t.low_u64()
        };
        round_mant(mant, -s + 1, q.bit(0), !r.is_zero(), false)
    } else {
        let mant = q.low_u64();
        let mut twice = r.clone();
        twice.shl(1);
        match twice.cmp(&den) {
            std::cmp::Ordering::Less => (mant, -s),
            std::cmp::Ordering::Greater => round_mant(mant, -s, true, true, false),
            std::cmp::Ordering::Equal => round_mant(mant, -s, true, false, false),
        }
    }
}

/// The exact decimal value of `mant * 2^exp`: digits (no leading zeros;
/// `[0]` for zero) and the power of ten they are multiplied by.
fn exact_decimal(mant: u64, exp: i32) -> (Vec<u8>, i64) {
    if mant == 0 {
        return (vec![0], 0);
    }
    // Drop trailing zero bits first: smaller numbers, same value.
    let tz = mant.trailing_zeros();
    let mant = mant >> tz;
    let exp = i64::from(exp) + i64::from(tz);
    let mut n = big::Big::from_u64(mant);
    let dexp = if exp >= 0 {
        n.shl(exp as usize);
        0
    } else {
        n.mul_pow5((-exp) as u32);
        exp
    };
    let mut digits = n.to_digits();
    let mut dexp = dexp;
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
        dexp += 1;
    }
    (digits, dexp)
}

/// Keeps the first `keep` digits, rounding half to even on the exact value.
/// The result has `keep` digits, or `keep + 1` when rounding carried into a
/// new leading digit (`999` → `1000`).
fn round_digits(digits: &[u8], keep: i64) -> Vec<u8> {
    if keep < 0 {
        return Vec::new();
    }
    let keep = keep as usize;
    if keep >= digits.len() {
        let mut v = digits.to_vec();
        v.resize(keep, 0);
        return v;
    }
    let mut kept = digits[..keep].to_vec();
    let first = digits[keep];
    let rest_nonzero = digits[keep + 1..].iter().any(|&d| d != 0);
    let last_odd = kept.last().is_some_and(|d| d % 2 == 1);
    let up = first > 5 || (first == 5 && (rest_nonzero || last_odd));
    if up {
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, 1);
                break;
            }
            i -= 1;
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    kept
}

fn to_ascii(digits: &[u8]) -> Vec<u8> {
    digits.iter().map(|d| b'0' + d).collect()
}

/// `%f`: the digits of `value` with `prec` fraction digits.
fn body_f(digits: &[u8], dexp: i64, prec: usize, alt: bool) -> Vec<u8> {
    let nint = digits.len() as i64 + dexp;
    let keep = nint + prec as i64;
    let kept = round_digits(digits, keep);
    // `kept` is the value times 10^prec, as an integer (maybe empty = 0).
    let mut int = to_ascii(&kept);
    if int.len() < prec + 1 {
        let mut padded = vec![b'0'; prec + 1 - int.len()];
        padded.extend_from_slice(&int);
        int = padded;
    }
    let split = int.len() - prec;
    let mut out = int[..split].to_vec();
    if prec > 0 || alt {
        out.push(b'.');
    }
    out.extend_from_slice(&int[split..]);
    out
}

/// `%e`: the digits of `value` with `prec` fraction digits and an exponent.
fn body_e(digits: &[u8], dexp: i64, prec: usize, alt: bool, upper: bool) -> Vec<u8> {
    let (kept, x) = if digits == [0] {
        (vec![0; prec + 1], 0)
    } else {
        let mut x = digits.len() as i64 + dexp - 1;
        let mut kept = round_digits(digits, prec as i64 + 1);
        if kept.len() > prec + 1 {
            kept.pop();
            x += 1;
        }
        (kept, x)
    };
    let mut out = vec![b'0' + kept.first().copied().unwrap_or(0)];
    if prec > 0 || alt {
        out.push(b'.');
    }
    out.extend(kept.iter().skip(1).map(|d| b'0' + d));
    push_exponent(&mut out, x, upper);
    out
}

/// Appends a decimal exponent as C spells it: `e+05`, `E-123` (a sign and
/// at least two digits).
fn push_exponent(out: &mut Vec<u8>, exp: i64, upper: bool) {
    out.push(if upper { b'E' } else { b'e' });
    out.push(if exp < 0 { b'-' } else { b'+' });
    let digits = exp.unsigned_abs().to_string();
    if digits.len() < 2 {
        out.push(b'0');
    }
    out.extend_from_slice(digits.as_bytes());
}

/// `%g`'s number of significant digits for a precision.
fn g_digits(prec: Option<usize>) -> usize {
    match prec {
        None => 6,
        Some(0) => 1,
        Some(p) => p,
    }
}

/// Whether `%g` with `p` significant digits prints a number whose rounded
/// decimal exponent is `x` as `%f` (else as `%e`).
fn g_uses_f(p: usize, x: i64) -> bool {
    (p as i64) > x && x >= -4
}

/// `%g` without `#`: the fraction's trailing zeros go, and the point with
/// them when nothing is left after it (an exponent stays).
fn strip_g_zeros(out: &mut Vec<u8>) {
    let e_at = out.iter().position(|&c| c == b'e' || c == b'E').unwrap_or(out.len());
    if out[..e_at].contains(&b'.') {
        let mut end = e_at;
        while end > 0 && out[end - 1] == b'0' {
            end -= 1;
        }
        if end > 0 && out[end - 1] == b'.' {
            end -= 1;
        }
        out.drain(end..e_at);
    }
}

fn body_g(digits: &[u8], dexp: i64, prec: Option<usize>, alt: bool, upper: bool) -> Vec<u8> {
    let p = g_digits(prec);
    let x = if digits == [0] {
        0
    } else {
        let kept = round_digits(digits, p as i64);
        digits.len() as i64 + dexp - 1 + i64::from(kept.len() > p)
    };
    let mut out = if g_uses_f(p, x) {
        body_f(digits, dexp, (p as i64 - 1 - x) as usize, alt)
    } else {
        body_e(digits, dexp, p - 1, alt, upper)
    };
    if !alt {
        strip_g_zeros(&mut out);
    }
    out
}

/// `%a` as glibc prints an x87 `long double`: `0xc.ccccccccccccccdp-7`.
fn body_a(mant: u64, exp: i32, prec: Option<usize>, alt: bool, upper: bool) -> Vec<u8> {
    let (mut lead, mut frac, mut e) = if mant == 0 {
        (0u64, 0u64, 0i64)
    } else {
        (mant >> 60, mant & ((1 << 60) - 1), i64::from(exp) + 60)
    };
    let mut nfrac = 15usize;
    if let Some(p) = prec {
        if p < 15 {
            let drop = (15 - p) * 4;
            let kept = frac >> drop;
            let rem = frac & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            let up = rem > half || (rem == half && kept & 1 == 1);
            frac = kept + u64::from(up);
            if frac >> (p * 4) != 0 {
                frac &= (1u64 << (p * 4)) - 1;
                lead += 1;
                if lead == 16 {
                    lead = 1;
                    e += 4;
                }
            }
            nfrac = p;
        }
    }
    let mut hex: Vec<u8> = (0..nfrac).rev().map(|k| hex_digit((frac >> (k * 4)) & 15, upper)).collect();
    let extra = prec.map_or(0, |p| p.saturating_sub(15));
    if prec.is_none() {
        while hex.last() == Some(&b'0') {
            hex.pop();
        }
    }
    let mut out = vec![hex_digit(lead, upper)];
    if !hex.is_empty() || extra > 0 || alt {
        out.push(b'.');
    }
    out.extend_from_slice(&hex);
    out.resize(out.len() + extra, b'0');
    out.push(if upper { b'P' } else { b'p' });
    out.push(if e < 0 { b'-' } else { b'+' });
    out.extend_from_slice(e.unsigned_abs().to_string().as_bytes());
    out
}

fn hex_digit(v: u64, upper: bool) -> u8 {
    let d = (v & 15) as u8;
    match (d, upper) {
        (0..=9, _) => b'0' + d,
        (_, false) => b'a' + d - 10,
        (_, true) => b'A' + d - 10,
    }
}

/// The sign a number is printed with: `-`, or what `+` or space ask for.
fn sign(neg: bool, spec: &Spec) -> Vec<u8> {
    if neg {
        b"-".to_vec()
    } else if spec.plus {
        b"+".to_vec()
    } else if spec.space {
        b" ".to_vec()
    } else {
        Vec::new()
    }
}

/// `%e %f %g %a` (and upper case) of a `long double`, exactly.
pub(crate) fn fmt_float(v: Num, conv: u8, spec: &Spec) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let sign = |neg: bool| sign(neg, spec);
    let (neg, mant, exp) = match v {
        Num::Inf { neg } | Num::Nan { neg } => {
            let word: &[u8] = match (matches!(v, Num::Inf { .. }), upper) {
                (true, false) => b"inf",
                (true, true) => b"INF",
                (false, false) => b"nan",
                (false, true) => b"NAN",
            };
            return assemble(&sign(neg), word, spec.width, spec.minus, false);
        }
        Num::Finite { neg, mant, exp } => (neg, mant, exp),
    };
    let mut prefix = sign(neg);
    let body = match conv | 0x20 {
        b'a' => {
            prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
            body_a(mant, exp, spec.precision, spec.alt, upper)
        }
        c => {
            let (digits, dexp) = exact_decimal(mant, exp);
            match c {
                b'f' => body_f(&digits, dexp, spec.precision.unwrap_or(6), spec.alt),
                b'e' => body_e(&digits, dexp, spec.precision.unwrap_or(6), spec.alt, upper),
                _ => body_g(&digits, dexp, spec.precision, spec.alt, upper),
            }
        }
    };
    assemble(&prefix, &body, spec.width, spec.minus, spec.zero && !spec.minus)
}

// `double`s without big integers. Rust prints an `f64` with `{:.N}` and
// `{:.Ne}` exactly as glibc does: from its exact binary value, rounded
// half to even at the last digit. Only the exponent's spelling (`e5` for
// C's `e+05`) and `%g`'s choice between the two forms are C's own, so
// `fmt_double(v)` gives the bytes `fmt_float(Num::from_f64(v))` does.

/// `%e %f %g %a` (and upper case) of a `double`, as [`fmt_float`] prints
/// the same value (awk and seq compute in `double`s).
pub(crate) fn fmt_double(v: f64, conv: u8, spec: &Spec) -> Vec<u8> {
    if !v.is_finite() || conv | 0x20 == b'a' {
        return fmt_float(Num::from_f64(v), conv, spec);
    }
    let upper = conv.is_ascii_uppercase();
    let x = v.abs();
    let body = match conv | 0x20 {
        b'f' => double_f(x, spec.precision.unwrap_or(6), spec.alt),
        b'e' => double_e(x, spec.precision.unwrap_or(6), spec.alt, upper),
        _ => double_g(x, spec.precision, spec.alt, upper),
    };
    assemble(&sign(v.is_sign_negative(), spec), &body, spec.width, spec.minus, spec.zero && !spec.minus)
}

/// `%f` of a finite, non-negative `x`.
fn double_f(x: f64, prec: usize, alt: bool) -> Vec<u8> {
    let mut out = format!("{x:.prec$}").into_bytes();
    if alt && prec == 0 {
        out.push(b'.');
    }
    out
}

/// Rust's `{:.Ne}` of a non-negative number (`1.5e-7`): its mantissa and
/// decimal exponent.
fn rust_e(x: f64, prec: usize) -> (String, i64) {
    let mut text = format!("{x:.prec$e}");
    let Some(at) = text.find('e') else {
        return (text, 0);
    };
    let exp = text[at + 1..].parse().unwrap_or(0);
    text.truncate(at);
    (text, exp)
}

/// A mantissa and decimal exponent spelled as C does: `1.5e-07`; `#`
/// keeps a point with no digits after it.
fn c_e_form(mant: String, exp: i64, prec: usize, alt: bool, upper: bool) -> Vec<u8> {
    let mut out = mant.into_bytes();
    if alt && prec == 0 {
        out.push(b'.');
    }
    push_exponent(&mut out, exp, upper);
    out
}

/// `%e` of a finite, non-negative `x`.
fn double_e(x: f64, prec: usize, alt: bool, upper: bool) -> Vec<u8> {
    let (mant, exp) = rust_e(x, prec);
    c_e_form(mant, exp, prec, alt, upper)
}

/// `%g` of a finite, non-negative `x`: the exponent it has once rounded to
/// its significant digits picks `%f` or `%e`.
fn double_g(x: f64, prec: Option<usize>, alt: bool, upper: bool) -> Vec<u8> {
    let p = g_digits(prec);
    let (mant, exp) = rust_e(x, p - 1);
    let mut out = if g_uses_f(p, exp) {
        double_f(x, (p as i64 - 1 - exp) as usize, alt)
    } else {
        c_e_form(mant, exp, p - 1, alt, upper)
    };
    if !alt {
        strip_g_zeros(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(v: f64, conv: u8, precision: usize) -> String {
        let spec = Spec { precision: Some(precision), ..Spec::default() };
        String::from_utf8_lossy(&fmt_float(Num::from_f64(v), conv, &spec)).into_owned()
    }

    /// `%e` as C prints it, from Rust's exact formatting of a `double`.
    fn c_e(v: f64, precision: usize) -> String {
        let s = format!("{v:.precision$e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
    }

    fn spec(precision: Option<usize>, alt: bool) -> Spec {
        Spec { precision, alt, ..Spec::default() }
    }

    /// `fmt_double`, and a check that the big-integer engine agrees.
    fn double(v: f64, conv: u8, precision: Option<usize>, alt: bool) -> String {
        let spec = spec(precision, alt);
        let fast = fmt_double(v, conv, &spec);
        assert_eq!(fast, fmt_float(Num::from_f64(v), conv, &spec), "{v:e} {}", conv as char);
        String::from_utf8_lossy(&fast).into_owned()
    }

    #[test]
    fn doubles_without_big_integers() {
        // Ties round to even on the exact value.
        assert_eq!(double(0.5, b'f', Some(0), false), "0");
        assert_eq!(double(1.5, b'f', Some(0), false), "2");
        assert_eq!(double(2.5, b'f', Some(0), false), "2");
        assert_eq!(double(0.125, b'f', Some(2), false), "0.12");
        assert_eq!(double(0.375, b'f', Some(2), false), "0.38");
        assert_eq!(double(2.5, b'e', Some(0), false), "2e+00");
        assert_eq!(double(9.5, b'e', Some(0), false), "1e+01");
        // Not a tie: 0.15 is a little under, 2.675 too.
        assert_eq!(double(0.15, b'f', Some(1), false), "0.1");
        assert_eq!(double(2.675, b'f', Some(2), false), "2.67");
        // Large and small magnitudes.
        assert_eq!(double(1e21, b'f', None, false), "1000000000000000000000.000000");
        assert_eq!(double(1e21, b'g', None, false), "1e+21");
        assert_eq!(double(1e-7, b'f', None, false), "0.000000");
        assert_eq!(double(1e-7, b'e', None, false), "1.000000e-07");
        assert_eq!(double(1e-7, b'g', None, false), "1e-07");
        assert_eq!(double(1e100, b'e', Some(2), false), "1.00e+100");
        assert_eq!(double(5e-324, b'g', None, false), "4.94066e-324");
        assert_eq!(double(f64::MAX, b'G', Some(17), false), "1.7976931348623157E+308");
        // Zero keeps its sign.
        assert_eq!(double(-0.0, b'f', Some(1), false), "-0.0");
        assert_eq!(double(-0.0, b'g', None, false), "-0");
        assert_eq!(double(0.0, b'e', Some(0), false), "0e+00");
        // Infinities and NaN.
        assert_eq!(double(f64::INFINITY, b'f', None, false), "inf");
        assert_eq!(double(f64::NEG_INFINITY, b'E', None, false), "-INF");
        assert_eq!(double(f64::NAN, b'g', None, false), "nan");
        assert_eq!(double(-f64::NAN, b'G', None, false), "-NAN");
        // %g picks %e below 1e-4 and from 10^precision, after rounding.
        assert_eq!(double(0.0001, b'g', None, false), "0.0001");
        assert_eq!(double(0.00001, b'g', None, false), "1e-05");
        assert_eq!(double(123456.0, b'g', None, false), "123456");
        assert_eq!(double(1234567.0, b'g', None, false), "1.23457e+06");
        assert_eq!(double(999999.5, b'g', None, false), "1e+06");
        assert_eq!(double(99.94, b'g', Some(3), false), "99.9");
        assert_eq!(double(99.96, b'g', Some(3), false), "100");
        assert_eq!(double(0.5, b'g', Some(0), false), "0.5");
        assert_eq!(double(100.0, b'g', Some(2), false), "1e+02");
        // `#` keeps the point and %g's trailing zeros.
        assert_eq!(double(1.0, b'g', None, true), "1.00000");
        assert_eq!(double(1e-5, b'g', Some(2), true), "1.0e-05");
        assert_eq!(double(3.0, b'f', Some(0), true), "3.");
        assert_eq!(double(3.0, b'e', Some(0), true), "3.e+00");
        assert_eq!(double(100.0, b'g', Some(1), true), "1.e+02");
        // Precision past a double's 17 significant digits prints its exact
        // binary value.
        assert_eq!(double(0.1, b'f', Some(30), false), "0.100000000000000005551115123126");
        assert_eq!(double(0.1, b'e', Some(30), false), "1.000000000000000055511151231258e-01");
        assert_eq!(double(0.1, b'g', Some(30), false), "0.100000000000000005551115123126");
        assert_eq!(double(1e-300, b'f', Some(400), false).len(), 402);
        // Flags and width around the body.
        let spec = Spec { width: 10, zero: true, plus: true, precision: Some(2), ..Spec::default() };
        assert_eq!(fmt_double(12.345, b'f', &spec), b"+000012.35");
        let spec = Spec { width: 8, minus: true, space: true, ..Spec::default() };
        assert_eq!(fmt_double(2.0, b'g', &spec), b" 2      ");
        assert_eq!(fmt_double(1.0, b'a', &Spec::default()), b"0x8p-3");
    }

    #[test]
    fn doubles_agree_with_the_big_integer_engine() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let bits = next();
            // Random bit patterns, and numbers of everyday size.
            let v = if bits % 2 == 0 { f64::from_bits(bits) } else { (bits >> 11) as f64 / 1e6 - 4e6 };
            if !v.is_finite() {
                continue;
            }
            let r = next();
            let precision = match r % 8 {
                0 => None,
                1 => Some(30 + (r >> 8) as usize % 40),
                _ => Some((r >> 8) as usize % 18),
            };
            let alt = r & (1 << 20) != 0;
            for conv in [b'e', b'E', b'g', b'G'] {
                double(v, conv, precision, alt);
            }
            if v.abs() < 1e40 {
                double(v, b'f', precision, alt);
            }
        }
    }

    #[test]
    fn doubles_print_exactly() {
        assert_eq!(Num::from_f64(1.0), Num::from_i64(1));
        assert_eq!(Num::from_f64(-0.0), Num::Finite { neg: true, mant: 0, exp: 0 });
        assert_eq!(fmt(5e-324, b'e', 3), "4.941e-324");
        assert_eq!(fmt(0.125, b'f', 2), "0.12");
        assert_eq!(fmt(f64::MAX, b'g', 17), "1.7976931348623157e+308");
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let v = f64::from_bits(seed);
            if !v.is_finite() {
                continue;
            }
            let p = (seed % 20) as usize;
            assert_eq!(fmt(v, b'e', p), c_e(v, p), "{v:e} %.{p}e");
            if v.abs() < 1e30 {
                assert_eq!(fmt(v, b'f', p), format!("{v:.p$}"), "{v:e} %.{p}f");
            }
        }
    }
}
