//! `sort`: GNU coreutils sort in the C locale. Keys (`-k POS1[,POS2]` with
//! `F.C` positions and per-key flags), field separators (`-t`), numeric
//! (`-n`), general numeric (`-g`), human (`-h`), month (`-M`) and version
//! (`-V`) orders, folding/ignoring (`-f -d -i -b`), reverse, stable and
//! unique output, checking (`-c -C`) and `-o`. Like GNU, lines whose keys
//! compare equal are ordered by a last-resort byte comparison of the whole
//! line unless `-s` or `-u` is given.
//!
//! Lines are byte slices into the inputs; key spans are computed once per
//! line before sorting so comparisons never allocate.

use std::cmp::Ordering;

use super::args::{self, HasArg, Spec};
use super::common::bytes::records;
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "sort",
    run,
    help: "Usage: sort [OPTION]... [FILE]...\n\
Write sorted concatenation of all FILE(s) to standard output.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -b, --ignore-leading-blanks  ignore leading blanks\n\
  -d, --dictionary-order      consider only blanks and alphanumeric characters\n\
  -f, --ignore-case           fold lower case to upper case characters\n\
  -g, --general-numeric-sort  compare according to general numerical value\n\
  -i, --ignore-nonprinting    consider only printable characters\n\
  -M, --month-sort            compare (unknown) < 'JAN' < ... < 'DEC'\n\
  -h, --human-numeric-sort    compare human readable numbers (e.g., 2K 1G)\n\
  -n, --numeric-sort          compare according to string numerical value\n\
  -r, --reverse               reverse the result of comparisons\n\
  -V, --version-sort          natural sort of (version) numbers within text\n\
  -c, --check                 check for sorted input; do not sort\n\
  -C                          like -c, but do not report first bad line\n\
  -k, --key=KEYDEF            sort via a key; KEYDEF gives location and type\n\
  -m, --merge                 merge already sorted files (sorts them here)\n\
  -o, --output=FILE           write result to FILE instead of standard output\n\
  -s, --stable                stabilize sort by disabling last-resort comparison\n\
  -S, --buffer-size=SIZE      accepted and ignored\n\
  -t, --field-separator=SEP   use SEP instead of non-blank to blank transition\n\
  -T, --temporary-directory=DIR  accepted and ignored\n\
      --parallel=N            accepted and ignored\n\
  -u, --unique                output only the first of an equal run\n\
  -z, --zero-terminated       line delimiter is NUL, not newline\n\
\n\
KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a\n\
field number and C a character position in the field; both are origin 1, and\n\
the stop position defaults to the line's end. OPTS is one or more of bdfgiMhnrV.\n\
Random sort (-R) is not supported.\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "bcCdfghik:mMno:rsS:t:T:uVz",
    long: &[
        ("ignore-leading-blanks", 'b', HasArg::No),
        ("check", 'c', HasArg::No),
        ("dictionary-order", 'd', HasArg::No),
        ("ignore-case", 'f', HasArg::No),
        ("general-numeric-sort", 'g', HasArg::No),
        ("human-numeric-sort", 'h', HasArg::No),
        ("ignore-nonprinting", 'i', HasArg::No),
        ("key", 'k', HasArg::Yes),
        ("merge", 'm', HasArg::No),
        ("month-sort", 'M', HasArg::No),
        ("numeric-sort", 'n', HasArg::No),
        ("output", 'o', HasArg::Yes),
        ("reverse", 'r', HasArg::No),
        ("stable", 's', HasArg::No),
        ("buffer-size", 'S', HasArg::Yes),
        ("field-separator", 't', HasArg::Yes),
        ("temporary-directory", 'T', HasArg::Yes),
        ("parallel", 'P', HasArg::Yes),
        ("unique", 'u', HasArg::No),
        ("version-sort", 'V', HasArg::No),
        ("zero-terminated", 'z', HasArg::No),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    #[default]
    Text,
    Numeric,
    General,
    Human,
    Month,
    Version,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Ignore {
    #[default]
    None,
    /// `-d`: keep only blanks and alphanumerics.
    Dictionary,
    /// `-i`: keep only printable characters.
    Nonprinting,
}

/// Ordering options, global or of one key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flags {
    skip_start_blanks: bool,
    skip_end_blanks: bool,
    numeric: bool,
    general: bool,
    human: bool,
    month: bool,
    version: bool,
    fold: bool,
    ignore: Ignore,
    reverse: bool,
}

impl Flags {
    /// GNU's `default_key_compare`: no ordering option at all.
    fn is_default(&self) -> bool {
        !(self.skip_start_blanks
            || self.skip_end_blanks
            || self.numeric
            || self.general
            || self.human
            || self.month
            || self.version
            || self.fold
            || self.ignore != Ignore::None)
    }

    fn mode(&self) -> Mode {
        if self.numeric {
            Mode::Numeric
        } else if self.general {
            Mode::General
        } else if self.human {
            Mode::Human
        } else if self.month {
            Mode::Month
        } else if self.version {
            Mode::Version
        } else {
            Mode::Text
        }
    }

    /// Applies one option letter; false if it is not an ordering option.
    fn set(&mut self, c: char, end: bool) -> bool {
        match c {
            'b' => {
                if end {
                    self.skip_end_blanks = true;
                } else {
                    self.skip_start_blanks = true;
                }
            }
            'd' => self.ignore = Ignore::Dictionary,
            'f' => self.fold = true,
            'g' => self.general = true,
            'h' => self.human = true,
            'i' => {
                if self.ignore == Ignore::None {
                    self.ignore = Ignore::Nonprinting;
                }
            }
            'M' => self.month = true,
            'n' => self.numeric = true,
            'r' => self.reverse = true,
            'V' => self.version = true,
            _ => return false,
        }
        true
    }

    /// GNU's `key_to_opts` letters, for the incompatibility message.
    fn letters(&self) -> String {
        let mut s = String::new();
        if self.ignore == Ignore::Dictionary {
            s.push('d');
        }
        if self.fold {
            s.push('f');
        }
        if self.general {
            s.push('g');
        }
        if self.human {
            s.push('h');
        }
        if self.ignore == Ignore::Nonprinting {
            s.push('i');
        }
        if self.month {
            s.push('M');
        }
        if self.numeric {
            s.push('n');
        }
        if self.version {
            s.push('V');
        }
        s
    }

    fn incompatible(&self) -> bool {
        let n = usize::from(self.numeric)
            + usize::from(self.general)
            + usize::from(self.human)
            + usize::from(self.month)
            + usize::from(self.version || self.ignore != Ignore::None);
        n > 1
    }
}

/// One `-k` key: 0-based start field/char, end field (None: line end) and
/// end char (0: end of the field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    sword: usize,
    schar: usize,
    eword: Option<usize>,
    echar: usize,
    flags: Flags,
}

fn bad_key(what: &str, spec: &str) -> String {
    format!("sort: {what}: invalid field specification '{spec}'\n")
}

/// Parses a decimal count at the start of `s`: (value, rest). Saturates.
fn count_prefix(s: &str) -> Option<(usize, &str)> {
    let end = s.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let mut n: usize = 0;
    for b in s.bytes().take(end) {
        n = n.saturating_mul(10).saturating_add(usize::from(b - b'0'));
    }
    Some((n, &s[end..]))
}

fn parse_key(spec: &str) -> Result<Key, String> {
    let invalid_count = |what: &str, s: &str| format!("sort: {what}: invalid count at start of '{s}'\n");
    let mut flags = Flags::default();
    let (sword, rest) =
        count_prefix(spec).ok_or_else(|| invalid_count("invalid number at field start", spec))?;
    if sword == 0 {
        return Err(bad_key("field number is zero", spec));
    }
    let mut rest = rest;
    let mut schar = 0;
    if let Some(r) = rest.strip_prefix('.') {
        let (c, r) = count_prefix(r).ok_or_else(|| invalid_count("invalid number after '.'", r))?;
        if c == 0 {
            return Err(bad_key("character offset is zero", spec));
        }
        schar = c - 1;
        rest = r;
    }
    let mut chars = rest.char_indices();
    let mut consumed = rest.len();
    for (i, c) in chars.by_ref() {
        if !flags.set(c, false) {
            consumed = i;
            break;
        }
    }
    rest = &rest[consumed..];
    let mut eword = None;
    let mut echar = 0;
    if let Some(r) = rest.strip_prefix(',') {
        let (w, r) = count_prefix(r).ok_or_else(|| invalid_count("invalid number after ','", r))?;
        if w == 0 {
            return Err(bad_key("field number is zero", spec));
        }
        eword = Some(w - 1);
        rest = r;
        if let Some(r) = rest.strip_prefix('.') {
            let (c, r) = count_prefix(r).ok_or_else(|| invalid_count("invalid number after '.'", r))?;
            echar = c;
            rest = r;
        }
        let mut consumed = rest.len();
        for (i, c) in rest.char_indices() {
            if !flags.set(c, true) {
                consumed = i;
                break;
            }
        }
        rest = &rest[consumed..];
    }
    if !rest.is_empty() {
        return Err(bad_key("stray character in field spec", spec));
    }
    Ok(Key { sword: sword - 1, schar, eword, echar, flags })
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

/// GNU's `begfield`: where a key starts in `line`.
fn begfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    let mut p = 0;
    let mut sword = key.sword;
    match tab {
        Some(t) => {
            while p < lim && sword > 0 {
                sword -= 1;
                while p < lim && line[p] != t {
                    p += 1;
                }
                if p < lim {
                    p += 1;
                }
            }
        }
        None => {
            while p < lim && sword > 0 {
                sword -= 1;
                while p < lim && is_blank(line[p]) {
                    p += 1;
                }
                while p < lim && !is_blank(line[p]) {
                    p += 1;
                }
            }
        }
    }
    if key.flags.skip_start_blanks {
        while p < lim && is_blank(line[p]) {
            p += 1;
        }
    }
    p.saturating_add(key.schar).min(lim)
}

/// GNU's `limfield`: where a key ends in `line`.
fn limfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    let Some(eword) = key.eword else { return lim };
    let mut eword = eword;
    let echar = key.echar;
    if echar == 0 {
        eword += 1;
    }
    let mut p = 0;
    match tab {
        Some(t) => {
            while p < lim && eword > 0 {
                eword -= 1;
                while p < lim && line[p] != t {
                    p += 1;
                }
                if p < lim && (eword > 0 || echar > 0) {
                    p += 1;
                }
            }
        }
        None => {
            while p < lim && eword > 0 {
                eword -= 1;
                while p < lim && is_blank(line[p]) {
                    p += 1;
                }
                while p < lim && !is_blank(line[p]) {
                    p += 1;
                }
            }
        }
    }
    if echar != 0 {
        if key.flags.skip_end_blanks {
            while p < lim && is_blank(line[p]) {
                p += 1;
            }
        }
        p = p.saturating_add(echar).min(lim);
    }
    p
}

/// Where the parts of a number are in a key text, as GNU's `strnumcmp`
/// sees it: sign, integer digits without leading zeros, fraction digits
/// without trailing zeros (offsets into the text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct NumForm {
    neg: bool,
    int: (u32, u32),
    frac: (u32, u32),
}

fn num_form(s: &[u8]) -> NumForm {
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

fn canonical(s: &[u8]) -> (bool, &[u8], &[u8]) {
    let f = num_form(s);
    (f.neg, &s[f.int.0 as usize..f.int.1 as usize], &s[f.frac.0 as usize..f.frac.1 as usize])
}

/// Compares two numbers given their texts and forms.
fn numcompare_forms(a: &[u8], fa: NumForm, b: &[u8], fb: NumForm) -> Ordering {
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
fn unit_order(s: &[u8]) -> i32 {
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
fn month(s: &[u8]) -> u8 {
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
enum General {
    Error,
    Nan,
    Num(f64),
}

/// Like `strtold` on the start of `s`.
fn general_value(s: &[u8]) -> General {
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

fn general_compare(a: General, b: General) -> Ordering {
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
fn file_prefixlen(s: &[u8]) -> usize {
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

fn ver_order(s: &[u8], pos: usize) -> i32 {
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

fn verrevcmp(s1: &[u8], s2: &[u8]) -> i32 {
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

fn ignored(ignore: Ignore, b: u8) -> bool {
    match ignore {
        Ignore::None => false,
        Ignore::Dictionary => !(b.is_ascii_alphanumeric() || b == b' ' || b == b'\t'),
        Ignore::Nonprinting => !(0x20..0x7f).contains(&b),
    }
}

/// Byte comparison skipping ignored bytes and folding case.
fn compare_translated(a: &[u8], b: &[u8], fold: bool, ignore: Ignore) -> Ordering {
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

/// Everything the comparison needs, computed once.
struct Sorter<'d> {
    lines: Vec<&'d [u8]>,
    keys: Vec<Key>,
    /// `spans[line * keys.len() + k]`: the key's byte range in the line.
    spans: Vec<(u32, u32)>,
    /// Precomputed `-g` values, same indexing (empty when no `-g` key).
    generals: Vec<General>,
    /// Precomputed number forms (and `-h` unit orders) for `-n`/`-h` keys,
    /// same indexing (empty when there are none).
    nums: Vec<(NumForm, i32)>,
    reverse: bool,
    /// No last-resort comparison (`-s` or `-u`).
    no_last_resort: bool,
}

impl<'d> Sorter<'d> {
    fn new(
        lines: Vec<&'d [u8]>,
        keys: Vec<Key>,
        tab: Option<u8>,
        reverse: bool,
        no_last_resort: bool,
    ) -> Self {
        let nk = keys.len();
        let mut spans = Vec::with_capacity(lines.len() * nk);
        let any_general = keys.iter().any(|k| k.flags.mode() == Mode::General);
        let mut generals = Vec::new();
        let any_num = keys.iter().any(|k| matches!(k.flags.mode(), Mode::Numeric | Mode::Human));
        let mut nums = Vec::new();
        for line in &lines {
            for key in &keys {
                let beg = begfield(line, key, tab);
                let lim = limfield(line, key, tab).max(beg);
                spans.push((beg as u32, lim as u32));
                if any_num {
                    let text = &line[beg..lim];
                    nums.push(match key.flags.mode() {
                        Mode::Numeric => (num_form(text), 0),
                        Mode::Human => (num_form(text), unit_order(text)),
                        _ => (NumForm::default(), 0),
                    });
                }
                if any_general {
                    generals.push(if key.flags.mode() == Mode::General {
                        general_value(&line[beg..lim])
                    } else {
                        General::Error
                    });
                }
            }
        }
        Self { lines, keys, spans, generals, nums, reverse, no_last_resort }
    }

    fn keycompare(&self, a: usize, b: usize) -> Ordering {
        let nk = self.keys.len();
        let (la, lb) = (self.lines[a], self.lines[b]);
        for (k, key) in self.keys.iter().enumerate() {
            let (sa, ea) = self.spans[a * nk + k];
            let (sb, eb) = self.spans[b * nk + k];
            let ta = &la[sa as usize..ea as usize];
            let tb = &lb[sb as usize..eb as usize];
            let f = &key.flags;
            let diff = match f.mode() {
                Mode::Numeric => numcompare_forms(ta, self.nums[a * nk + k].0, tb, self.nums[b * nk + k].0),
                Mode::General => general_compare(self.generals[a * nk + k], self.generals[b * nk + k]),
                Mode::Human => {
                    let (fa, ua) = self.nums[a * nk + k];
                    let (fb, ub) = self.nums[b * nk + k];
                    ua.cmp(&ub).then_with(|| numcompare_forms(ta, fa, tb, fb))
                }
                Mode::Month => month(ta).cmp(&month(tb)),
                Mode::Version => filevercmp(ta, tb),
                Mode::Text => {
                    if f.fold || f.ignore != Ignore::None {
                        compare_translated(ta, tb, f.fold, f.ignore)
                    } else {
                        ta.cmp(tb)
                    }
                }
            };
            if diff != Ordering::Equal {
                return if f.reverse { diff.reverse() } else { diff };
            }
        }
        Ordering::Equal
    }

    fn compare(&self, a: usize, b: usize) -> Ordering {
        if !self.keys.is_empty() {
            let d = self.keycompare(a, b);
            if d != Ordering::Equal || self.no_last_resort {
                return d;
            }
        }
        let d = self.lines[a].cmp(self.lines[b]);
        if self.reverse {
            d.reverse()
        } else {
            d
        }
    }
}

/// Splits inputs into records (without their delimiter).
fn split_records<'d>(data: &'d [u8], delim: u8, into: &mut Vec<&'d [u8]>) {
    into.extend(records(data, delim));
}

/// Length of the prefix all `items` share.
fn common_prefix<'a>(mut items: impl Iterator<Item = &'a [u8]>) -> usize {
    let Some(first) = items.next() else { return 0 };
    let mut lcp = first.len();
    for item in items {
        let limit = lcp.min(item.len());
        let mut i = 0;
        while i < limit && item[i] == first[i] {
            i += 1;
        }
        lcp = i;
        if lcp == 0 {
            break;
        }
    }
    lcp
}

/// Bytes `at..at + 8` of `s` as a big-endian number, zero padded: if two
/// of these differ, the slices (which agree before `at`) compare the same way.
fn prefix8(s: &[u8], at: usize) -> u64 {
    let mut v = 0u64;
    for k in 0..8 {
        v = (v << 8) | u64::from(s.get(at + k).copied().unwrap_or(0));
    }
    v
}

/// The integer part of a `-n` key, truncated toward zero, when it fits:
/// ordering by it is consistent with `numcompare`.
fn int_part(s: &[u8]) -> Option<i64> {
    let (neg, int, _) = canonical(s);
    if int.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in int {
        v = v * 10 + i64::from(d - b'0');
    }
    Some(if neg { -v } else { v })
}

/// The sorted order of the lines' indices. Comparisons start with a cheap
/// precomputed value (an 8-byte prefix, or a number's integer part) and
/// only fall back to the full comparison when those are equal.
fn sort_order(s: &Sorter) -> Vec<u32> {
    let n = s.lines.len();
    if s.keys.is_empty() {
        // Whole-line byte order: equal lines are identical bytes, so an
        // unstable sort prints the same thing.
        let lcp = common_prefix(s.lines.iter().copied());
        let mut v: Vec<(u64, u32)> =
            s.lines.iter().enumerate().map(|(i, l)| (prefix8(l, lcp), i as u32)).collect();
        let lines = &s.lines;
        let rev = s.reverse;
        v.sort_unstable_by(|a, b| {
            let o = a.0.cmp(&b.0).then_with(|| lines[a.1 as usize][lcp..].cmp(&lines[b.1 as usize][lcp..]));
            if rev {
                o.reverse()
            } else {
                o
            }
        });
        return v.into_iter().map(|(_, i)| i).collect();
    }
    let nk = s.keys.len();
    let key = s.keys[0];
    let text_of = |i: usize| {
        let (a, b) = s.spans[i * nk];
        &s.lines[i][a as usize..b as usize]
    };
    let flags = key.flags;
    let mut order: Vec<u32> = (0..n as u32).collect();
    if flags.mode() == Mode::Text && !flags.fold && flags.ignore == Ignore::None {
        let lcp = common_prefix((0..n).map(text_of));
        let pre: Vec<u64> = (0..n).map(|i| prefix8(text_of(i), lcp)).collect();
        order.sort_by(|&a, &b| {
            let (pa, pb) = (pre[a as usize], pre[b as usize]);
            if pa != pb {
                let o = pa.cmp(&pb);
                return if flags.reverse { o.reverse() } else { o };
            }
            s.compare(a as usize, b as usize)
        });
    } else if flags.mode() == Mode::Numeric {
        let ints: Vec<Option<i64>> = (0..n).map(|i| int_part(text_of(i))).collect();
        order.sort_by(|&a, &b| {
            if let (Some(x), Some(y)) = (ints[a as usize], ints[b as usize]) {
                if x != y {
                    let o = x.cmp(&y);
                    return if flags.reverse { o.reverse() } else { o };
                }
            }
            s.compare(a as usize, b as usize)
        });
    } else {
        order.sort_by(|&a, &b| s.compare(a as usize, b as usize));
    }
    order
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let random = args.iter().take_while(|a| *a != "--").find(|a| {
        a.starts_with("--random")
            || (a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && {
                // -R in a cluster of flags, before any option taking a value.
                let flags: String = a.chars().skip(1).take_while(|c| !"kotST".contains(*c)).collect();
                flags.contains('R')
            })
    });
    if let Some(opt) = random {
        ctx.err(format!(
            "sort: {opt}: random sort is not supported\nTry 'sort --help' for more information.\n"
        ));
        return 2;
    }
    let parsed = match args::parse("sort", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 2;
        }
    };
    let mut global = Flags::default();
    let mut keys = Vec::new();
    let mut tab: Option<u8> = None;
    let (mut check, mut quiet_check, mut stable, mut unique) = (false, false, false, false);
    let mut delim = b'\n';
    let mut output: Option<String> = None;
    for (c, v) in &parsed.opts {
        match (c, v) {
            ('k', Some(spec)) => match parse_key(spec) {
                Ok(k) => keys.push(k),
                Err(msg) => {
                    ctx.err(msg);
                    return 2;
                }
            },
            ('t', Some(t)) => {
                let bytes = t.as_bytes();
                let new = match bytes {
                    [] => {
                        ctx.error("sort", "empty tab");
                        return 2;
                    }
                    [b] => *b,
                    [b'\\', b'0'] => 0,
                    _ => {
                        ctx.error("sort", format!("multi-character tab '{t}'"));
                        return 2;
                    }
                };
                if tab.is_some_and(|old| old != new) {
                    ctx.error("sort", "incompatible tabs");
                    return 2;
                }
                tab = Some(new);
            }
            ('o', Some(path)) => output = Some(path.clone()),
            ('c', _) => check = true,
            ('C', _) => {
                check = true;
                quiet_check = true;
            }
            ('s', _) => stable = true,
            ('u', _) => unique = true,
            ('z', _) => delim = 0,
            ('m' | 'S' | 'T' | 'P', _) => {}
            (c, _) => {
                global.set(*c, false);
                if *c == 'b' {
                    global.skip_end_blanks = true;
                }
            }
        }
    }
    // Keys without ordering options inherit the global ones.
    for key in &mut keys {
        if key.flags.is_default() && !key.flags.reverse {
            key.flags = global;
        }
    }
    if keys.is_empty() && !global.is_default() {
        keys.push(Key { sword: 0, schar: 0, eword: None, echar: 0, flags: global });
    }
    for key in &keys {
        if key.flags.incompatible() {
            ctx.error("sort", format!("options '-{}' are incompatible", key.flags.letters()));
            return 2;
        }
    }
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands };
    if check && operands.len() > 1 {
        let extra = &operands[1];
        ctx.error(
            "sort",
            format!("extra operand '{extra}' not allowed with -{}", if quiet_check { 'C' } else { 'c' }),
        );
        return 2;
    }
    let mut datas = Vec::with_capacity(operands.len());
    for path in &operands {
        match ctx.read_input(path) {
            Ok(d) => datas.push(d),
            Err(e) => {
                let what = if e.errno == "EISDIR" { "read failed" } else { "cannot read" };
                ctx.err(format!("sort: {what}: {path}: {}\n", e.describe()));
                return 2;
            }
        }
    }
    let mut lines = Vec::new();
    for d in &datas {
        split_records(d, delim, &mut lines);
    }
    let sorter = Sorter::new(lines, keys, tab, global.reverse, stable || unique);
    let n = sorter.lines.len();
    if check {
        for i in 1..n {
            let ord = sorter.compare(i - 1, i);
            if ord == Ordering::Greater || (unique && ord == Ordering::Equal) {
                if !quiet_check {
                    let line = String::from_utf8_lossy(sorter.lines[i]).into_owned();
                    ctx.error("sort", format!("{}:{}: disorder: {line}", operands[0], i + 1));
                }
                return 1;
            }
        }
        return 0;
    }
    let order = sort_order(&sorter);
    let total: usize = sorter.lines.iter().map(|l| l.len() + 1).sum();
    let mut out = Vec::with_capacity(total);
    let mut prev: Option<usize> = None;
    for &i in &order {
        let i = i as usize;
        if unique {
            if let Some(p) = prev {
                if sorter.compare(p, i) == Ordering::Equal {
                    continue;
                }
            }
            prev = Some(i);
        }
        out.extend_from_slice(sorter.lines[i]);
        out.push(delim);
    }
    match output {
        Some(path) => {
            if let Err(e) = ctx.sys().write(&path, &out, WriteMode::Truncate) {
                ctx.err(format!("sort: open failed: {path}: {}\n", e.describe()));
                return 2;
            }
        }
        None => {
            let _ = ctx.out(&out);
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(input: &[&str], keys: &[&str], tab: Option<u8>, global: &str) -> Vec<String> {
        let mut g = Flags::default();
        for c in global.chars() {
            g.set(c, false);
        }
        let mut ks: Vec<Key> = keys.iter().filter_map(|k| parse_key(k).ok()).collect();
        for k in &mut ks {
            if k.flags.is_default() && !k.flags.reverse {
                k.flags = g;
            }
        }
        if ks.is_empty() && !g.is_default() {
            ks.push(Key { sword: 0, schar: 0, eword: None, echar: 0, flags: g });
        }
        let lines: Vec<&[u8]> = input.iter().map(|s| s.as_bytes()).collect();
        let s = Sorter::new(lines, ks, tab, g.reverse, false);
        let mut order: Vec<usize> = (0..input.len()).collect();
        order.sort_by(|&a, &b| s.compare(a, b));
        order.iter().map(|&i| input[i].to_string()).collect()
    }

    #[test]
    fn numeric_with_last_resort() {
        let input = ["10", "9", "-1", "-0", "0", "+5", ".5", "1.5", "abc", "", " 3"];
        assert_eq!(
            sorted(&input, &[], None, "n"),
            ["-1", "", "+5", "-0", "0", "abc", ".5", "1.5", " 3", "9", "10"]
        );
    }

    #[test]
    fn keys_and_fields() {
        let input = ["b 2", "a 10", "c 1", "a 2"];
        assert_eq!(sorted(&input, &["2n"], None, ""), ["c 1", "a 2", "b 2", "a 10"]);
        assert_eq!(sorted(&input, &["2,2n", "1,1r"], None, ""), ["c 1", "b 2", "a 2", "a 10"]);
        assert_eq!(sorted(&["a,b", "a,a"], &["2"], Some(b','), ""), ["a,a", "a,b"]);
        assert_eq!(sorted(&input, &["1.2,1.3"], None, ""), ["a 10", "c 1", "a 2", "b 2"]);
    }

    #[test]
    fn key_errors() {
        assert_eq!(
            parse_key("a"),
            Err("sort: invalid number at field start: invalid count at start of 'a'\n".into())
        );
        assert_eq!(
            parse_key("0"),
            Err("sort: field number is zero: invalid field specification '0'\n".into())
        );
        assert_eq!(
            parse_key("2x"),
            Err("sort: stray character in field spec: invalid field specification '2x'\n".into())
        );
        assert_eq!(
            parse_key("1,x"),
            Err("sort: invalid number after ',': invalid count at start of 'x'\n".into())
        );
    }

    #[test]
    fn human_version_general() {
        let input = ["1K", "2M", "500", "1G", "-1K", "0"];
        assert_eq!(sorted(&input, &[], None, "h"), ["-1K", "0", "500", "1K", "2M", "1G"]);
        let input = ["a1.10", "a1.2", "a1.9", "b", "1.0~rc1", "1.0"];
        assert_eq!(sorted(&input, &[], None, "V"), ["1.0~rc1", "1.0", "a1.2", "a1.9", "a1.10", "b"]);
        let input = ["1e3", "-inf", "abc", "2", "nan", "0x10"];
        assert_eq!(sorted(&input, &[], None, "g"), ["abc", "nan", "-inf", "2", "0x10", "1e3"]);
    }
}

/// Timing of the benchmark pipeline over an in-memory file system:
/// `cargo test --release -p cordon-shell --lib bench_pipeline -- --ignored --nocapture`.
#[cfg(test)]
mod bench {
    use std::collections::HashMap;

    use crate::system::{
        DirEntry, FsError, JsOutcome, Kind, Meta, Stream, System, ToolError, ToolInfo, WriteMode,
    };

    #[derive(Default)]
    struct MemSystem {
        files: HashMap<String, Vec<u8>>,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    }

    fn key(path: &str) -> String {
        path.trim_start_matches("/workspace/").to_string()
    }

    impl System for MemSystem {
        fn read(&mut self, path: &str) -> Result<Vec<u8>, FsError> {
            self.files.get(&key(path)).cloned().ok_or_else(|| FsError::new("ENOENT", path))
        }
        fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError> {
            let f = self.files.entry(key(path)).or_default();
            if mode != WriteMode::Append {
                f.clear();
            }
            f.extend_from_slice(data);
            Ok(())
        }
        fn mkdir(&mut self, _: &str, _: bool) -> Result<(), FsError> {
            Ok(())
        }
        fn readdir(&mut self, _: &str) -> Result<Vec<DirEntry>, FsError> {
            Ok(Vec::new())
        }
        fn stat(&mut self, path: &str) -> Result<Meta, FsError> {
            match self.files.get(&key(path)) {
                Some(f) => Ok(Meta { kind: Kind::File, size: f.len() as u64, mtime_ms: 0 }),
                None if path == "/workspace" || path == "." => {
                    Ok(Meta { kind: Kind::Dir, size: 0, mtime_ms: 0 })
                }
                None => Err(FsError::new("ENOENT", path)),
            }
        }
        fn remove(&mut self, path: &str, _: bool) -> Result<(), FsError> {
            self.files.remove(&key(path));
            Ok(())
        }
        fn rename(&mut self, _: &str, _: &str) -> Result<(), FsError> {
            Ok(())
        }
        fn chdir(&mut self, _: &str) -> Result<String, FsError> {
            Ok("/workspace".into())
        }
        fn cwd(&mut self) -> String {
            "/workspace".into()
        }
        fn output(&mut self, stream: Stream, bytes: &[u8]) -> bool {
            match stream {
                Stream::Stdout => self.stdout.extend_from_slice(bytes),
                Stream::Stderr => self.stderr.extend_from_slice(bytes),
            }
            true
        }
        fn now_ms(&mut self) -> u64 {
            0
        }
        fn sleep(&mut self, _: u64) {}
        fn tool_call(&mut self, _: &str, _: &str) -> Result<String, ToolError> {
            Err(ToolError { code: "DENIED".into(), reason: None, message: String::new() })
        }
        fn tools(&mut self) -> Vec<ToolInfo> {
            Vec::new()
        }
        fn javascript(&mut self, _: &str, _: &[String], _: &[u8]) -> JsOutcome {
            JsOutcome { stdout: Vec::new(), stderr: Vec::new(), status: 1 }
        }
    }

    #[test]
    #[ignore]
    fn bench_pipeline() {
        let mut data = Vec::new();
        let mut i: u64 = 0;
        while data.len() < 5 * 1024 * 1024 {
            let line = format!(
                "{{\"id\":{i},\"user\":\"user{}\",\"level\":\"{}\",\"msg\":\"request handled in {} ms with some padding text here\",\"ok\":true}}\n",
                (i * 7919) % 1000,
                ["info", "warn", "error"][(i % 3) as usize],
                i % 997
            );
            data.extend_from_slice(line.as_bytes());
            i += 1;
        }
        let mut sys = MemSystem::default();
        sys.files.insert("big.csv".into(), data);
        let mut shell = crate::Shell::new();
        shell.run(&mut sys, "cut -d, -f2 big.csv > c2; sort c2 > s2; uniq -c s2 > u2");
        for script in [
            "cut -d, -f2 big.csv | sort | uniq -c | sort -rn | head -3",
            "cat big.csv > /dev/null",
            "true",
            "cut -d, -f2 big.csv | sort > /dev/null",
            "cut -d, -f2 big.csv | sort | uniq -c > /dev/null",
            "cat s2 | uniq -c | sort -rn | head -3 > /dev/null",
            "cut -d, -f2 big.csv > /dev/null",
            "sort c2 > /dev/null",
            "uniq -c s2 > /dev/null",
            "sort -rn u2 > /dev/null",
            "sort u2 > /dev/null",
            "sort -n u2 > /dev/null",
            "cat u2 > /dev/null",
            "wc -l u2",
            "sort big.csv > /dev/null",
            "sort -t, -k2,2 big.csv > /dev/null",
            "sort -n big.csv > /dev/null",
            "uniq -c big.csv > /dev/null",
            "wc big.csv",
            "tr a-z A-Z < big.csv > /dev/null",
        ] {
            let mut best = std::time::Duration::MAX;
            for _ in 0..25 {
                let start = std::time::Instant::now();
                shell.run(&mut sys, script);
                best = best.min(start.elapsed());
            }
            println!("{script}: {best:?}");
        }
        println!("lines {i}\n{}", String::from_utf8_lossy(&sys.stdout[..sys.stdout.len().min(200)]));
    }
}
