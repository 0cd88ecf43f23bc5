//! Sort keys (`-k POS1[,POS2]`) and where they start and end in a line.

use super::*;

/// One `-k` key: 0-based start field/char, end field (None: line end) and
/// end char (0: end of the field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key {
    pub(super) sword: usize,
    pub(super) schar: usize,
    pub(super) eword: Option<usize>,
    pub(super) echar: usize,
    pub(super) flags: Flags,
}

pub(super) fn bad_key(what: &str, spec: &str) -> String {
    format!("sort: {what}: invalid field specification '{spec}'\n")
}

/// Parses a decimal count at the start of `s`: (value, rest). Saturates.
pub(super) fn count_prefix(s: &str) -> Option<(usize, &str)> {
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

pub(super) fn parse_key(spec: &str) -> Result<Key, String> {
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
pub(super) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

/// GNU's `begfield`: where a key starts in `line`.
pub(super) fn begfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
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
pub(super) fn limfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
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
