//! `printf`-style formatting of awk values, following C's printf (as mawk
//! calls it): `%d %i %o %x %X %u %c %s %e %E %f %F %g %G %%` with flags,
//! width, precision and `*`. Integer conversions clamp to mawk's range;
//! the numbers themselves are printed by `common::cformat`, as `printf`'s.

use super::value::{Value, MAX_INT};
use crate::builtins::common::cformat::float::fmt_double;
use crate::builtins::common::cformat::{fmt_int, pad_into, Spec};

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
                b'-' => spec.minus = true,
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
                spec.minus = true;
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
                spec.precision = if p < 0 { None } else { Some(p as usize) };
                j += 1;
            } else {
                let mut p: usize = 0;
                while let Some(d) = fmt.get(j).filter(|d| d.is_ascii_digit()) {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    j += 1;
                }
                spec.precision = Some(p);
            }
        }
        if spec.width > MAX_WIDTH || spec.precision.is_some_and(|p| p > MAX_WIDTH) {
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
                out.extend(fmt_int(v < 0, v.unsigned_abs(), b'd', &spec));
            }
            b'o' | b'x' | b'X' | b'u' => {
                let v = clamp_uint(take(&mut next_arg, &mut out)?.to_num());
                out.extend(fmt_int(false, v, conv, &spec));
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
                pad_into(&mut out, &[byte], spec.width, spec.minus);
            }
            b's' => {
                let v = take(&mut next_arg, &mut out)?;
                let s = to_str(&v);
                let s = match spec.precision {
                    Some(p) if p < s.len() => &s[..p],
                    _ => &s[..],
                };
                pad_into(&mut out, s, spec.width, spec.minus);
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => {
                let v = take(&mut next_arg, &mut out)?.to_num();
                out.extend(fmt_double(v, conv, &spec));
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

/// `%.{prec}g` of a number (finite or not; the sign is included), as
/// CONVFMT and OFMT convert numbers to strings.
pub fn format_g(v: f64, prec: usize, upper: bool, alt: bool) -> Vec<u8> {
    let spec = Spec { precision: Some(prec), alt, ..Spec::default() };
    fmt_double(v, if upper { b'G' } else { b'g' }, &spec)
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
