//! Values and the conversions between strings and numbers, as mawk does
//! them: `strtod` for string to number (hex and `inf`/`nan` included),
//! integers printed as integers within the `int` range, other numbers
//! through `CONVFMT`/`OFMT`.

use std::rc::Rc;

/// A string value; cheap to clone.
pub type Str = Rc<[u8]>;

#[derive(Debug, Clone, Default)]
pub enum Value {
    /// Never assigned: both "" and 0.
    #[default]
    Uninit,
    Num(f64),
    Str(Str),
    /// A string from input (fields, `getline var`, `split`, `-v`, ARGV,
    /// ENVIRON): a number when it looks like one.
    StrNum(Str),
}

/// The largest integer printed as an integer (mawk uses C `int`).
pub const MAX_INT: f64 = 2_147_483_647.0;

pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// C `strtod` on a byte string: the number at its start and how many bytes
/// it used (0 when there is none).
pub fn strtod(s: &[u8]) -> (f64, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if let Some(&c) = s.get(i) {
        if c == b'+' || c == b'-' {
            neg = c == b'-';
            i += 1;
        }
    }
    let sign = |v: f64| if neg { -v } else { v };
    let rest = &s[i.min(s.len())..];
    let lower = |k: usize| rest.get(..k).map(|p| p.to_ascii_lowercase());
    if lower(8).as_deref() == Some(b"infinity") {
        return (sign(f64::INFINITY), i + 8);
    }
    if lower(3).as_deref() == Some(b"inf") {
        return (sign(f64::INFINITY), i + 3);
    }
    if lower(3).as_deref() == Some(b"nan") {
        let mut end = i + 3;
        if s.get(end) == Some(&b'(') {
            let mut k = end + 1;
            while k < s.len() && (s[k].is_ascii_alphanumeric() || s[k] == b'_') {
                k += 1;
            }
            if s.get(k) == Some(&b')') {
                end = k + 1;
            }
        }
        // glibc's nan is positive; "-nan" negates it.
        let v = if neg { -f64::NAN } else { f64::NAN };
        return (v, end);
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] == b'x' || rest[1] == b'X') {
        if let Some((v, used)) = hex_float(&rest[2..]) {
            return (sign(v), i + 2 + used);
        }
        // "0x" with no digits: just the 0.
        return (sign(0.0), i + 1);
    }
    let start = i;
    let mut j = i;
    let mut digits = 0;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
        digits += 1;
    }
    if s.get(j) == Some(&b'.') {
        j += 1;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return (0.0, 0);
    }
    if matches!(s.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(s.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if s.get(k).is_some_and(|d| d.is_ascii_digit()) {
            while k < s.len() && s[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    let text = std::str::from_utf8(&s[start..j]).unwrap_or("0");
    let v = match text.parse::<f64>() {
        Ok(v) => v,
        // "5." is fine for strtod, and Rust's parser accepts it too; this is
        // only a fallback.
        Err(_) => text.trim_end_matches('.').parse::<f64>().unwrap_or(0.0),
    };
    (sign(v), j)
}

/// Hex digits with an optional fraction and binary exponent.
fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut v = 0.0f64;
    let mut j = 0;
    let mut digits = 0;
    while let Some(d) = s.get(j).and_then(|c| (*c as char).to_digit(16)) {
        v = v * 16.0 + f64::from(d);
        j += 1;
        digits += 1;
    }
    if s.get(j) == Some(&b'.') {
        let mut k = j + 1;
        let mut scale = 1.0 / 16.0;
        let mut frac_digits = 0;
        while let Some(d) = s.get(k).and_then(|c| (*c as char).to_digit(16)) {
            v += f64::from(d) * scale;
            scale /= 16.0;
            k += 1;
            frac_digits += 1;
        }
        if digits + frac_digits > 0 {
            j = k;
            digits += frac_digits;
        }
    }
    if digits == 0 {
        return None;
    }
    if matches!(s.get(j), Some(b'p' | b'P')) {
        let mut k = j + 1;
        let mut eneg = false;
        if matches!(s.get(k), Some(b'+' | b'-')) {
            eneg = s[k] == b'-';
            k += 1;
        }
        if s.get(k).is_some_and(|d| d.is_ascii_digit()) {
            let mut e: i32 = 0;
            while k < s.len() && s[k].is_ascii_digit() {
                e = e.saturating_mul(10).saturating_add(i32::from(s[k] - b'0'));
                k += 1;
            }
            v *= 2f64.powi(if eneg { -e } else { e });
            j = k;
        }
    }
    Some((v, j))
}

/// Whether input text counts as a number in comparisons (mawk's test: it
/// starts with a digit, sign or `.`, ends with a digit or `.`, and
/// `strtod` uses all of it, blanks aside).
pub fn looks_numeric(s: &[u8]) -> Option<f64> {
    let mut a = 0;
    let mut b = s.len();
    while a < b && is_space(s[a]) {
        a += 1;
    }
    while b > a && is_space(s[b - 1]) {
        b -= 1;
    }
    if a == b {
        return None;
    }
    let first = s[a];
    let last = s[b - 1];
    if !(first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'.') {
        return None;
    }
    if !(last.is_ascii_digit() || last == b'.') {
        return None;
    }
    let (v, used) = strtod(&s[a..b]);
    if used == b - a {
        Some(v)
    } else {
        None
    }
}

/// The number a string stands for (its leading number, or 0).
pub fn str_to_num(s: &[u8]) -> f64 {
    strtod(s).0
}

/// Whether `d` prints as an integer.
pub fn is_int_like(d: f64) -> bool {
    d.fract() == 0.0 && (-MAX_INT..=MAX_INT).contains(&d)
}

/// A number as an integer string when it is one, else through `%.6g`
/// (used for messages).
pub fn num_to_string_plain(d: f64) -> String {
    if is_int_like(d) {
        format!("{}", d as i64)
    } else {
        String::from_utf8_lossy(&super::format::format_g(d, 6, false, false)).into_owned()
    }
}

impl Value {
    pub fn str(s: &[u8]) -> Value {
        Value::Str(Rc::from(s))
    }

    pub fn strnum(s: &[u8]) -> Value {
        Value::StrNum(Rc::from(s))
    }

    pub fn to_num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) => *n,
            Value::Str(s) | Value::StrNum(s) => str_to_num(s),
        }
    }

    pub fn truthy(&self) -> bool {
        match self {
            Value::Uninit => false,
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::StrNum(s) => match looks_numeric(s) {
                Some(n) => n != 0.0,
                None => !s.is_empty(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_forms() {
        assert_eq!(strtod(b" 12abc"), (12.0, 3));
        assert_eq!(strtod(b"0x1A"), (26.0, 4));
        assert_eq!(strtod(b"0x"), (0.0, 1));
        assert_eq!(strtod(b"-inf"), (f64::NEG_INFINITY, 4));
        assert_eq!(strtod(b"1e"), (1.0, 1));
        assert_eq!(strtod(b".5"), (0.5, 2));
        assert_eq!(strtod(b"."), (0.0, 0));
        assert_eq!(strtod(b"5."), (5.0, 2));
    }

    #[test]
    fn numeric_looking() {
        assert_eq!(looks_numeric(b" 12 "), Some(12.0));
        assert_eq!(looks_numeric(b"0x10"), Some(16.0));
        assert_eq!(looks_numeric(b"0x1A"), None);
        assert_eq!(looks_numeric(b"inf"), None);
        assert_eq!(looks_numeric(b"1.5."), None);
        assert_eq!(looks_numeric(b".e1"), None);
        assert_eq!(looks_numeric(b"-.5e-1"), Some(-0.05));
        assert_eq!(looks_numeric(b""), None);
    }
}
