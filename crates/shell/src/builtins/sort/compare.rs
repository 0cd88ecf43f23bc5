//! The orderings: numeric (`-n`), general numeric (`-g`), human sizes
//! (`-h`), months (`-M`), versions (`-V`) and text with `-f`, `-d`, `-i`.

use super::*;

/// Where the parts of a number are in a key text, as GNU's `strnumcmp`
/// sees it: sign, integer digits without leading zeros, fraction digits
/// without trailing zeros (offsets into the text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct NumForm {
    pub(super) neg: bool,
    pub(super) int: (u32, u32),
    pub(super) frac: (u32, u32),
}

pub(super) fn num_form(s: &[u8]) -> NumForm {
    let mut i = 0;
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && s[i] == b'-' {
        neg = true;
        i += 1;
    }
    while i < s.len() && s[i] == b'0' {
        i += 1;
    }
    let int_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let int = (int_start as u32, i as u32);
    let mut frac = (0, 0);
    if i < s.len() && s[i] == b'.' {
        i += 1;
        let fs = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        let mut fe = i;
        while fe > fs && s[fe - 1] == b'0' {
            fe -= 1;
        }
        frac = (fs as u32, fe as u32);
    }
    if int.0 == int.1 && frac.0 == frac.1 {
        neg = false;
    }
    NumForm { neg, int, frac }
}

pub(super) fn canonical(s: &[u8]) -> (bool, &[u8], &[u8]) {
    let f = num_form(s);
    (f.neg, &s[f.int.0 as usize..f.int.1 as usize], &s[f.frac.0 as usize..f.frac.1 as usize])
}

/// Compares two numbers given their texts and forms.
pub(super) fn numcompare_forms(a: &[u8], fa: NumForm, b: &[u8], fb: NumForm) -> Ordering {
    match (fa.neg, fb.neg) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => {
            let ai = &a[fa.int.0 as usize..fa.int.1 as usize];
            let bi = &b[fb.int.0 as usize..fb.int.1 as usize];
            let mag = ai.len().cmp(&bi.len()).then_with(|| ai.cmp(bi)).then_with(|| {
                a[fa.frac.0 as usize..fa.frac.1 as usize].cmp(&b[fb.frac.0 as usize..fb.frac.1 as usize])
            });
            if fa.neg {
                mag.reverse()
            } else {
                mag
            }
        }
    }
}

/// GNU's `find_unit_order` for `-h` (after leading blanks).
pub(super) fn unit_order(s: &[u8]) -> i32 {
    let mut i = 0;
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    let minus = i < s.len() && s[i] == b'-';
    if minus {
        i += 1;
    }
    let mut nonzero = false;
    while i < s.len() && s[i].is_ascii_digit() {
        nonzero |= s[i] != b'0';
        i += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            nonzero |= s[i] != b'0';
            i += 1;
        }
    }
    if !nonzero {
        return 0;
    }
    let order = match s.get(i) {
        Some(b'K' | b'k') => 1,
        Some(b'M') => 2,
        Some(b'G') => 3,
        Some(b'T') => 4,
        Some(b'P') => 5,
        Some(b'E') => 6,
        Some(b'Z') => 7,
        Some(b'Y') => 8,
        Some(b'R') => 9,
        Some(b'Q') => 10,
        _ => 0,
    };
    if minus {
        -order
    } else {
        order
    }
}

/// `-M`: 0 for unknown, 1..=12 for JAN..DEC (after leading blanks).
pub(super) fn month(s: &[u8]) -> u8 {
    const MONTHS: [&[u8; 3]; 12] =
        [b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV", b"DEC"];
    let mut i = 0;
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    let Some(m) = s.get(i..i + 3) else { return 0 };
    for (n, name) in MONTHS.iter().enumerate() {
        if m.iter().zip(name.iter()).all(|(a, b)| a.to_ascii_uppercase() == *b) {
            return n as u8 + 1;
        }
    }
    0
}

/// A `-g` value: conversion errors sort first, then NaNs, then numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum General {
    Error,
    Nan,
    Num(f64),
}

/// Like `strtold` on the start of `s`.
pub(super) fn general_value(s: &[u8]) -> General {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        i += 1;
    }
    let start = i;
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let rest = &s[i..];
    let lower3: Vec<u8> = rest.iter().take(8).map(|b| b.to_ascii_lowercase()).collect();
    if lower3.starts_with(b"inf") {
        return General::Num(if neg { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if lower3.starts_with(b"nan") {
        return General::Nan;
    }
    if lower3.starts_with(b"0x") {
        // Hexadecimal: integer and fraction digits, optional binary exponent.
        let mut j = 2;
        let mut v = 0f64;
        let mut any = false;
        while j < rest.len() && rest[j].is_ascii_hexdigit() {
            v = v * 16.0 + f64::from((rest[j] as char).to_digit(16).unwrap_or(0));
            any = true;
            j += 1;
        }
        if j < rest.len() && rest[j] == b'.' {
            j += 1;
            let mut scale = 1.0 / 16.0;
            while j < rest.len() && rest[j].is_ascii_hexdigit() {
                v += f64::from((rest[j] as char).to_digit(16).unwrap_or(0)) * scale;
                scale /= 16.0;
                any = true;
                j += 1;
            }
        }
        if !any {
            // "0x" alone converts as the number 0.
            return General::Num(0.0);
        }
        if j < rest.len() && (rest[j] == b'p' || rest[j] == b'P') {
            let mut k = j + 1;
            let mut eneg = false;
            if k < rest.len() && (rest[k] == b'+' || rest[k] == b'-') {
                eneg = rest[k] == b'-';
                k += 1;
            }
            let mut e: i32 = 0;
            let mut digits = false;
            while k < rest.len() && rest[k].is_ascii_digit() {
                e = e.saturating_mul(10).saturating_add(i32::from(rest[k] - b'0'));
                digits = true;
                k += 1;
            }
            if digits {
                v *= 2f64.powi(if eneg { -e } else { e });
            }
        }
        return General::Num(if neg { -v } else { v });
    }
    let mut j = 0;
    let mut digits = 0;
    while j < rest.len() && rest[j].is_ascii_digit() {
        j += 1;
        digits += 1;
    }
    if j < rest.len() && rest[j] == b'.' {
        j += 1;
        while j < rest.len() && rest[j].is_ascii_digit() {
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return General::Error;
    }
    let mut end = j;
    if j < rest.len() && (rest[j] == b'e' || rest[j] == b'E') {
        let mut k = j + 1;
        if k < rest.len() && (rest[k] == b'+' || rest[k] == b'-') {
            k += 1;
        }
        let ds = k;
        while k < rest.len() && rest[k].is_ascii_digit() {
            k += 1;
        }
        if k > ds {
            end = k;
        }
    }
    let text = std::str::from_utf8(&s[start..i + end]).unwrap_or("0");
    match text.parse::<f64>() {
        Ok(v) => General::Num(v),
        Err(_) => General::Error,
    }
}

pub(super) fn general_compare(a: General, b: General) -> Ordering {
    match (a, b) {
        (General::Error, General::Error) | (General::Nan, General::Nan) => Ordering::Equal,
        (General::Error, _) => Ordering::Less,
        (_, General::Error) => Ordering::Greater,
        (General::Nan, _) => Ordering::Less,
        (_, General::Nan) => Ordering::Greater,
        (General::Num(x), General::Num(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// gnulib's `filenvercmp` (used by `sort -V`).
pub(crate) fn filevercmp(a: &[u8], b: &[u8]) -> Ordering {
    if a.is_empty() {
        return if b.is_empty() { Ordering::Equal } else { Ordering::Less };
    }
    if b.is_empty() {
        return Ordering::Greater;
    }
    if a[0] == b'.' {
        if b[0] != b'.' {
            return Ordering::Less;
        }
        let (adot, bdot) = (a.len() == 1, b.len() == 1);
        if adot {
            return if bdot { Ordering::Equal } else { Ordering::Less };
        }
        if bdot {
            return Ordering::Greater;
        }
        let adotdot = a.len() == 2 && a[1] == b'.';
        let bdotdot = b.len() == 2 && b[1] == b'.';
        if adotdot {
            return if bdotdot { Ordering::Equal } else { Ordering::Less };
        }
        if bdotdot {
            return Ordering::Greater;
        }
    } else if b[0] == b'.' {
        return Ordering::Greater;
    }
    let ap = file_prefixlen(a);
    let bp = file_prefixlen(b);
    let one_pass = ap == a.len() && bp == b.len();
    let r = verrevcmp(&a[..ap], &b[..bp]);
    if r != 0 || one_pass {
        return r.cmp(&0);
    }
    verrevcmp(a, b).cmp(&0)
}

/// Length of `s` without its suffix matching `(\.[A-Za-z~][A-Za-z0-9~]*)*$`.
pub(super) fn file_prefixlen(s: &[u8]) -> usize {
    let n = s.len();
    let mut prefix = 0;
    let mut i = 0;
    loop {
        if i == n {
            return prefix;
        }
        i += 1;
        prefix = i;
        while i + 1 < n && s[i] == b'.' && (s[i + 1].is_ascii_alphabetic() || s[i + 1] == b'~') {
            i += 2;
            while i < n && (s[i].is_ascii_alphanumeric() || s[i] == b'~') {
                i += 1;
            }
        }
    }
}

pub(super) fn ver_order(s: &[u8], pos: usize) -> i32 {
    let Some(&c) = s.get(pos) else { return -1 };
    if c.is_ascii_digit() {
        0
    } else if c.is_ascii_alphabetic() {
        i32::from(c)
    } else if c == b'~' {
        -2
    } else {
        i32::from(c) + 256
    }
}

pub(super) fn verrevcmp(s1: &[u8], s2: &[u8]) -> i32 {
    let (l1, l2) = (s1.len(), s2.len());
    let (mut p1, mut p2) = (0, 0);
    while p1 < l1 || p2 < l2 {
        let mut first_diff = 0;
        while (p1 < l1 && !s1[p1].is_ascii_digit()) || (p2 < l2 && !s2[p2].is_ascii_digit()) {
            let c1 = ver_order(s1, p1);
            let c2 = ver_order(s2, p2);
            if c1 != c2 {
                return c1 - c2;
            }
            p1 += 1;
            p2 += 1;
        }
        while p1 < l1 && s1[p1] == b'0' {
            p1 += 1;
        }
        while p2 < l2 && s2[p2] == b'0' {
            p2 += 1;
        }
        while p1 < l1 && p2 < l2 && s1[p1].is_ascii_digit() && s2[p2].is_ascii_digit() {
            if first_diff == 0 {
                first_diff = i32::from(s1[p1]) - i32::from(s2[p2]);
            }
            p1 += 1;
            p2 += 1;
        }
        if p1 < l1 && s1[p1].is_ascii_digit() {
            return 1;
        }
        if p2 < l2 && s2[p2].is_ascii_digit() {
            return -1;
        }
        if first_diff != 0 {
            return first_diff;
        }
    }
    0
}

pub(super) fn ignored(ignore: Ignore, b: u8) -> bool {
    match ignore {
        Ignore::None => false,
        Ignore::Dictionary => !(b.is_ascii_alphanumeric() || b == b' ' || b == b'\t'),
        Ignore::Nonprinting => !(0x20..0x7f).contains(&b),
    }
}

/// Byte comparison skipping ignored bytes and folding case.
pub(super) fn compare_translated(a: &[u8], b: &[u8], fold: bool, ignore: Ignore) -> Ordering {
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && ignored(ignore, a[i]) {
            i += 1;
        }
        while j < b.len() && ignored(ignore, b[j]) {
            j += 1;
        }
        if i >= a.len() || j >= b.len() {
            break;
        }
        let (x, y) = if fold { (a[i].to_ascii_uppercase(), b[j].to_ascii_uppercase()) } else { (a[i], b[j]) };
        if x != y {
            return x.cmp(&y);
        }
        i += 1;
        j += 1;
    }
    (i < a.len()).cmp(&(j < b.len()))
}
