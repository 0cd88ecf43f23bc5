//! `printf`-style formatting of awk values, following C's printf (as mawk
//! calls it): `%d %i %o %x %X %u %c %s %e %E %f %F %g %G %%` with flags,
//! width, precision and `*`. Integer conversions clamp to mawk's range.

use super::value::{Value, MAX_INT};

/// The longest width or precision accepted.
const MAX_WIDTH: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FmtError {
    /// With what was formatted before the missing argument.
    NotEnoughArgs(Vec<u8>),
    /// The 1-based number of the bad conversion, and the output before it.
    BadConversion(usize, Vec<u8>),
    TooWide,
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

/// Formats `args` by `fmt`; `to_str` converts a value to its string (with
/// CONVFMT). Output beyond `limit` bytes is an error.
pub fn sprintf(
    fmt: &[u8],
    args: &[Value],
    to_str: &mut dyn FnMut(&Value) -> Vec<u8>,
    limit: usize,
) -> Result<Vec<u8>, FmtError> {
    let mut out = Vec::with_capacity(fmt.len() + 16);
    let mut next_arg = 0;
    let mut conv_no = 0;
    let mut i = 0;
    let take = |next_arg: &mut usize, out: &mut Vec<u8>| -> Result<Value, FmtError> {
        let v = args.get(*next_arg).cloned().ok_or_else(|| FmtError::NotEnoughArgs(std::mem::take(out)))?;
        *next_arg += 1;
        Ok(v)
    };
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            // Copy the run of plain bytes.
            let end = fmt[i..].iter().position(|&b| b == b'%').map_or(fmt.len(), |p| i + p);
            out.extend_from_slice(&fmt[i..end]);
            i = end;
            continue;
        }
        if fmt.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        conv_no += 1;
        let mut spec = Spec::default();
        let mut j = i + 1;
        while let Some(&f) = fmt.get(j) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            j += 1;
        }
        if fmt.get(j) == Some(&b'*') {
            let w = take(&mut next_arg, &mut out)?.to_num();
            let w = clamp_int(w);
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
            j += 1;
        } else {
            let mut w: usize = 0;
            while let Some(d) = fmt.get(j).filter(|d| d.is_ascii_digit()) {
                w = w.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                j += 1;
            }
            spec.width = w;
        }
        if fmt.get(j) == Some(&b'.') {
            j += 1;
            if fmt.get(j) == Some(&b'*') {
                let p = clamp_int(take(&mut next_arg, &mut out)?.to_num());
                spec.prec = if p < 0 { None } else { Some(p as usize) };
                j += 1;
            } else {
                let mut p: usize = 0;
                while let Some(d) = fmt.get(j).filter(|d| d.is_ascii_digit()) {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    j += 1;
                }
                spec.prec = Some(p);
            }
        }
        if spec.width > MAX_WIDTH || spec.prec.is_some_and(|p| p > MAX_WIDTH) {
            return Err(FmtError::TooWide);
        }
        while matches!(fmt.get(j), Some(b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')) {
            j += 1;
        }
        let Some(&conv) = fmt.get(j) else {
            return Err(FmtError::BadConversion(conv_no, out));
        };
        match conv {
            b'd' | b'i' => {
                let v = clamp_int(take(&mut next_arg, &mut out)?.to_num());
                format_int(&mut out, v, 10, false, &spec, true);
            }
            b'o' | b'x' | b'X' | b'u' => {
                let v = clamp_uint(take(&mut next_arg, &mut out)?.to_num());
                let base = match conv {
                    b'o' => 8,
                    b'u' => 10,
                    _ => 16,
                };
                format_int(&mut out, v as i64, base, conv == b'X', &spec, false);
            }
            b'c' => {
                let v = take(&mut next_arg, &mut out)?;
                let byte = match &v {
                    Value::Num(n) => clamp_int(*n) as u8,
                    Value::Uninit => 0,
                    Value::StrNum(s) if super::value::looks_numeric(s).is_some() => {
                        clamp_int(v.to_num()) as u8
                    }
                    Value::Str(s) | Value::StrNum(s) => s.first().copied().unwrap_or(0),
                };
                pad(&mut out, &[byte], &spec, false);
            }
            b's' => {
                let v = take(&mut next_arg, &mut out)?;
                let s = to_str(&v);
                let s = match spec.prec {
                    Some(p) if p < s.len() => &s[..p],
                    _ => &s[..],
                };
                pad(&mut out, s, &spec, false);
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => {
                let v = take(&mut next_arg, &mut out)?.to_num();
                format_float(&mut out, v, conv, &spec);
            }
            _ => return Err(FmtError::BadConversion(conv_no, out)),
        }
        if out.len() > limit {
            return Err(FmtError::TooWide);
        }
        i = j + 1;
    }
    Ok(out)
}

/// mawk's `d_to_I`: C int range, truncating.
pub fn clamp_int(d: f64) -> i64 {
    if d >= MAX_INT {
        MAX_INT as i64
    } else if d > -MAX_INT {
        d as i64
    } else {
        -(MAX_INT as i64)
    }
}

/// mawk's `d_to_U`: C unsigned range, truncating.
fn clamp_uint(d: f64) -> u64 {
    const MAX_UINT: f64 = 4_294_967_295.0;
    if d >= MAX_UINT {
        MAX_UINT as u64
    } else if d > 0.0 {
        d as u64
    } else {
        0
    }
}

fn pad(out: &mut Vec<u8>, body: &[u8], spec: &Spec, zero_ok: bool) {
    let fill = spec.width.saturating_sub(body.len());
    if spec.left {
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if zero_ok && spec.zero {
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(body);
    }
}

/// Pads a number made of a sign/prefix and digits: zeros go between them.
fn pad_num(out: &mut Vec<u8>, prefix: &[u8], digits: &[u8], spec: &Spec, zero_ok: bool) {
    let len = prefix.len() + digits.len();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
        out.resize(out.len() + fill, b' ');
    } else if zero_ok && spec.zero {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(digits);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
    }
}

fn format_int(out: &mut Vec<u8>, v: i64, base: u32, upper: bool, spec: &Spec, signed: bool) {
    let neg = v < 0;
    let mag = v.unsigned_abs();
    let mut digits: Vec<u8> = match base {
        8 => format!("{mag:o}").into_bytes(),
        16 if upper => format!("{mag:X}").into_bytes(),
        16 => format!("{mag:x}").into_bytes(),
        _ => format!("{mag}").into_bytes(),
    };
    if let Some(p) = spec.prec {
        if p == 0 && mag == 0 {
            digits.clear();
        }
        if digits.len() < p {
            let mut z = vec![b'0'; p - digits.len()];
            z.extend_from_slice(&digits);
            digits = z;
        }
    }
    let mut prefix: Vec<u8> = Vec::new();
    if signed {
        if neg {
            prefix.push(b'-');
        } else if spec.plus {
            prefix.push(b'+');
        } else if spec.space {
            prefix.push(b' ');
        }
    }
    if spec.alt {
        if base == 8 && digits.first() != Some(&b'0') {
            digits.insert(0, b'0');
        } else if base == 16 && mag != 0 {
            prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
        }
    }
    pad_num(out, &prefix, &digits, spec, spec.prec.is_none());
}

fn format_float(out: &mut Vec<u8>, v: f64, conv: u8, spec: &Spec) {
    let upper = conv.is_ascii_uppercase();
    let mut prefix: Vec<u8> = Vec::new();
    if v.is_sign_negative() {
        prefix.push(b'-');
    } else if spec.plus {
        prefix.push(b'+');
    } else if spec.space {
        prefix.push(b' ');
    }
    if !v.is_finite() {
        let body: &[u8] = match (v.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        pad_num(out, &prefix, body, spec, false);
        return;
    }
    let a = v.abs();
    let prec = spec.prec.unwrap_or(6);
    let body = match conv {
        b'e' | b'E' => format_e(a, prec, upper, spec.alt),
        b'f' | b'F' => format_f(a, prec, spec.alt),
        _ => format_g(a, prec, upper, spec.alt),
    };
    pad_num(out, &prefix, &body, spec, true);
}

/// `%.{prec}f` of a non-negative finite number.
pub fn format_f(a: f64, prec: usize, alt: bool) -> Vec<u8> {
    let mut s = format!("{a:.prec$}").into_bytes();
    if alt && prec == 0 {
        s.push(b'.');
    }
    s
}

/// `%.{prec}e` of a non-negative finite number, C style (`1.5e+03`).
pub fn format_e(a: f64, prec: usize, upper: bool, alt: bool) -> Vec<u8> {
    let s = format!("{a:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut out = mant.as_bytes().to_vec();
    if alt && prec == 0 {
        out.push(b'.');
    }
    out.push(if upper { b'E' } else { b'e' });
    out.push(if exp < 0 { b'-' } else { b'+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push(b'0');
    }
    out.extend_from_slice(e.to_string().as_bytes());
    out
}

/// `%.{prec}g` of a number (finite or not; the sign is included).
pub fn format_g(v: f64, prec: usize, upper: bool, alt: bool) -> Vec<u8> {
    if !v.is_finite() {
        let s: &[u8] = match (v.is_nan(), v.is_sign_negative()) {
            (true, false) => b"nan",
            (true, true) => b"-nan",
            (false, false) => b"inf",
            (false, true) => b"-inf",
        };
        return if upper { s.to_ascii_uppercase() } else { s.to_vec() };
    }
    if v.is_sign_negative() && v != 0.0 {
        let mut out = vec![b'-'];
        out.extend_from_slice(&format_g(-v, prec, upper, alt));
        return out;
    }
    let p = if prec == 0 { 1 } else { prec };
    // The exponent after rounding to p significant digits.
    let e_form = format!("{:.*e}", p - 1, v);
    let x: i64 = e_form.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let mut out = if (x < p as i64) && x >= -4 {
        let fp = (p as i64 - 1 - x).max(0) as usize;
        format_f(v, fp, alt)
    } else {
        format_e(v, p - 1, upper, alt)
    };
    if !alt {
        // Strip trailing zeros of the fraction (and a bare point).
        let (mant_end, exp_part) = match out.iter().position(|&b| b == b'e' || b == b'E') {
            Some(k) => (k, out[k..].to_vec()),
            None => (out.len(), Vec::new()),
        };
        if out[..mant_end].contains(&b'.') {
            let mut end = mant_end;
            while end > 0 && out[end - 1] == b'0' {
                end -= 1;
            }
            if end > 0 && out[end - 1] == b'.' {
                end -= 1;
            }
            out.truncate(end);
            out.extend_from_slice(&exp_part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Value]) -> String {
        let mut conv = |v: &Value| match v {
            Value::Num(n) => super::super::value::num_to_string_plain(*n).into_bytes(),
            Value::Str(s) | Value::StrNum(s) => s.to_vec(),
            Value::Uninit => Vec::new(),
        };
        match sprintf(fmt.as_bytes(), args, &mut conv, 1 << 20) {
            Ok(v) => String::from_utf8_lossy(&v).into_owned(),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn floats() {
        assert_eq!(f("%g", &[Value::Num(0.0001234)]), "0.0001234");
        assert_eq!(f("%g", &[Value::Num(1234567.0)]), "1.23457e+06");
        assert_eq!(f("%G", &[Value::Num(1e-10)]), "1E-10");
        assert_eq!(f("%e", &[Value::Num(1234.5)]), "1.234500e+03");
        assert_eq!(f("%5.2f|", &[Value::Num(1.23456)]), " 1.23|");
        assert_eq!(f("%g", &[Value::Num(100000.0)]), "100000");
        assert_eq!(f("%g", &[Value::Num(0.0)]), "0");
        assert_eq!(f("%#g", &[Value::Num(1.0)]), "1.00000");
        assert_eq!(f("%08.3f", &[Value::Num(-1.23456)]), "-001.235");
    }

    #[test]
    fn ints() {
        assert_eq!(
            f("%05d|%-5d|%+d|% d", &[Value::Num(42.0), Value::Num(42.0), Value::Num(5.0), Value::Num(5.0)]),
            "00042|42   |+5| 5"
        );
        assert_eq!(
            f("%x %X %o %u", &[Value::Num(255.0), Value::Num(255.0), Value::Num(8.0), Value::Num(-1.0)]),
            "ff FF 10 0"
        );
        assert_eq!(f("%d", &[Value::Num(1e30)]), "2147483647");
        assert_eq!(f("%.3d|%#x|%#o", &[Value::Num(7.0), Value::Num(255.0), Value::Num(8.0)]), "007|0xff|010");
        assert_eq!(
            f(
                "%*d|%-*.*s|",
                &[Value::Num(5.0), Value::Num(42.0), Value::Num(6.0), Value::Num(2.0), Value::str(b"hello")]
            ),
            "   42|he    |"
        );
        assert_eq!(f("%c%c", &[Value::Num(65.0), Value::str(b"hello")]), "Ah");
        assert_eq!(f("%d %d", &[Value::Num(1.0)]), "NotEnoughArgs([49, 32])");
        assert_eq!(f("%z", &[Value::Num(1.0)]), "BadConversion(1, [])");
    }
}
