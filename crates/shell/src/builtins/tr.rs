//! `tr`: translate, squeeze and delete bytes (GNU coreutils semantics in
//! the C locale): ranges, `[:class:]`, `[=c=]`, `[c*n]`/`[c*]` in SET2,
//! backslash escapes, `-d`, `-s`, `-c`/`-C`, `-t`.

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "tr",
    run,
    help: "Usage: tr [OPTION]... STRING1 [STRING2]\n\
Translate, squeeze, and/or delete characters from standard input,\n\
writing to standard output.\n\
\n\
  -c, -C, --complement    use the complement of STRING1\n\
  -d, --delete            delete characters in STRING1, do not translate\n\
  -s, --squeeze-repeats   replace each sequence of a repeated character\n\
                            that is listed in the last specified STRING,\n\
                            with a single occurrence of that character\n\
  -t, --truncate-set1     first truncate STRING1 to length of STRING2\n\
\n\
STRINGs use: \\NNN (octal), \\\\, \\a, \\b, \\f, \\n, \\r, \\t, \\v, CHAR1-CHAR2,\n\
[CHAR*] and [CHAR*REPEAT] (STRING2 only), [:alnum:] [:alpha:] [:blank:]\n\
[:cntrl:] [:digit:] [:graph:] [:lower:] [:print:] [:punct:] [:space:]\n\
[:upper:] [:xdigit:], and [=CHAR=].\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "cCdst",
    long: &[
        ("complement", 'c', HasArg::No),
        ("delete", 'd', HasArg::No),
        ("squeeze-repeats", 's', HasArg::No),
        ("truncate-set1", 't', HasArg::No),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Elem {
    Byte(u8),
    Range(u8, u8),
    Class(&'static str),
    /// `[c*n]`; `None` fills up to SET1's length.
    Repeat(u8, Option<usize>),
}

const CLASSES: [&str; 12] = [
    "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper",
    "xdigit",
];

fn in_class(name: &str, b: u8) -> bool {
    match name {
        "alnum" => b.is_ascii_alphanumeric(),
        "alpha" => b.is_ascii_alphabetic(),
        "blank" => b == b' ' || b == b'\t',
        "cntrl" => b.is_ascii_control(),
        "digit" => b.is_ascii_digit(),
        "graph" => b.is_ascii_graphic(),
        "lower" => b.is_ascii_lowercase(),
        "print" => (0x20..0x7f).contains(&b),
        "punct" => b.is_ascii_punctuation(),
        "space" => matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'),
        "upper" => b.is_ascii_uppercase(),
        "xdigit" => b.is_ascii_hexdigit(),
        _ => false,
    }
}

/// One possibly escaped byte at `s[i..]`: (byte, length consumed).
fn unescape(s: &[u8], i: usize, warn: &mut bool) -> (u8, usize) {
    if s[i] != b'\\' {
        return (s[i], 1);
    }
    let Some(&c) = s.get(i + 1) else {
        *warn = true;
        return (b'\\', 1);
    };
    match c {
        b'a' => (7, 2),
        b'b' => (8, 2),
        b'f' => (12, 2),
        b'n' => (b'\n', 2),
        b'r' => (b'\r', 2),
        b't' => (b'\t', 2),
        b'v' => (11, 2),
        b'0'..=b'7' => {
            let mut v: u32 = 0;
            let mut len = 0;
            while len < 3 {
                match s.get(i + 1 + len) {
                    Some(&d @ b'0'..=b'7') if v * 8 + u32::from(d - b'0') <= 255 => {
                        v = v * 8 + u32::from(d - b'0');
                        len += 1;
                    }
                    _ => break,
                }
            }
            (v as u8, 1 + len)
        }
        other => (other, 2),
    }
}

fn parse_set(s: &[u8], warn: &mut bool) -> Result<Vec<Elem>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'[' && i + 1 < s.len() {
            let kind = s[i + 1];
            if kind == b':' || kind == b'=' {
                // Find the closing ":]" or "=]".
                if let Some(rel) = s[i + 2..].windows(2).position(|w| w[0] == kind && w[1] == b']') {
                    let inner = &s[i + 2..i + 2 + rel];
                    if kind == b':' {
                        let name = String::from_utf8_lossy(inner).into_owned();
                        match CLASSES.iter().find(|c| **c == name) {
                            Some(c) => out.push(Elem::Class(c)),
                            None => return Err(format!("invalid character class '{name}'")),
                        }
                        i += 2 + rel + 2;
                        continue;
                    }
                    let (b, len) = if inner.is_empty() { (0, 0) } else { unescape(inner, 0, warn) };
                    if len == inner.len() && len > 0 {
                        out.push(Elem::Byte(b));
                        i += 2 + rel + 2;
                        continue;
                    }
                    if !inner.is_empty() {
                        let text = String::from_utf8_lossy(inner).into_owned();
                        return Err(format!("{text}: equivalence class operand must be a single character"));
                    }
                }
            } else {
                // [c*n] or [c*]
                let (c, len) = unescape(s, i + 1, warn);
                let star = i + 1 + len;
                if s.get(star) == Some(&b'*') {
                    if let Some(rel) = s[star + 1..].iter().position(|&b| b == b']') {
                        let digits = &s[star + 1..star + 1 + rel];
                        let count = if digits.is_empty() {
                            None
                        } else {
                            let text = String::from_utf8_lossy(digits).into_owned();
                            let radix = if digits[0] == b'0' { 8 } else { 10 };
                            match usize::from_str_radix(&text, radix) {
                                Ok(0) => None,
                                // Beyond 64K the extra copies change nothing (sets
                                // map at most 256 distinct bytes in order).
                                Ok(n) => Some(n.min(1 << 16)),
                                Err(_) => {
                                    return Err(format!("invalid repeat count '{text}' in [c*n] construct"))
                                }
                            }
                        };
                        out.push(Elem::Repeat(c, count));
                        i = star + 1 + rel + 1;
                        continue;
                    }
                }
            }
        }
        let (c, len) = unescape(s, i, warn);
        i += len;
        if s.get(i) == Some(&b'-') && i + 1 < s.len() {
            let (end, elen) = unescape(s, i + 1, warn);
            if end < c {
                let text = String::from_utf8_lossy(&s[i - len..i + 1 + elen]).into_owned();
                return Err(format!("range-endpoints of '{text}' are in reverse collating sequence order"));
            }
            out.push(Elem::Range(c, end));
            i += 1 + elen;
            continue;
        }
        out.push(Elem::Byte(c));
    }
    Ok(out)
}

/// Expands a set to bytes; `case_at` receives the positions where
/// `[:upper:]`/`[:lower:]` start (for the alignment check).
fn expand(elems: &[Elem], fill_to: usize, case_at: &mut Vec<(usize, &'static str)>) -> Vec<u8> {
    let fixed: usize = elems
        .iter()
        .map(|e| match e {
            Elem::Byte(_) => 1,
            Elem::Range(a, b) => usize::from(*b - *a) + 1,
            Elem::Class(c) => (0..=255u8).filter(|&b| in_class(c, b)).count(),
            Elem::Repeat(_, Some(n)) => *n,
            Elem::Repeat(_, None) => 0,
        })
        .sum();
    let mut out = Vec::new();
    for e in elems {
        match e {
            Elem::Byte(b) => out.push(*b),
            Elem::Range(a, b) => out.extend(*a..=*b),
            Elem::Class(c) => {
                if *c == "upper" || *c == "lower" {
                    case_at.push((out.len(), c));
                }
                out.extend((0..=255u8).filter(|&b| in_class(c, b)));
            }
            Elem::Repeat(b, Some(n)) => out.extend(std::iter::repeat_n(*b, *n)),
            Elem::Repeat(b, None) => out.extend(std::iter::repeat_n(*b, fill_to.saturating_sub(fixed))),
        }
    }
    out
}

fn fail(ctx: &mut Ctx, msg: &str) -> i32 {
    ctx.error("tr", msg);
    1
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("tr", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let complement = parsed.has('c') || parsed.has('C');
    let delete = parsed.has('d');
    let squeeze = parsed.has('s');
    let truncate = parsed.has('t');
    let ops = &parsed.operands;
    let min = 1 + usize::from(delete == squeeze);
    let max = 1 + usize::from(delete <= squeeze);
    if ops.len() < min {
        if ops.is_empty() {
            ctx.err("tr: missing operand\n");
        } else {
            let last = &ops[ops.len() - 1];
            let why = if squeeze {
                "Two strings must be given when both deleting and squeezing repeats."
            } else {
                "Two strings must be given when translating."
            };
            ctx.err(format!("tr: missing operand after '{last}'\n{why}\n"));
        }
        ctx.err("Try 'tr --help' for more information.\n");
        return 1;
    }
    if ops.len() > max {
        ctx.err(format!("tr: extra operand '{}'\n", ops[max]));
        if ops.len() == 2 {
            ctx.err("Only one string may be given when deleting without squeezing repeats.\n");
        }
        ctx.err("Try 'tr --help' for more information.\n");
        return 1;
    }
    let mut warn = false;
    let set1 = match parse_set(ops[0].as_bytes(), &mut warn) {
        Ok(s) => s,
        Err(m) => return fail(ctx, &m),
    };
    let set2 = match ops.get(1).map(|s| parse_set(s.as_bytes(), &mut warn)).transpose() {
        Ok(s) => s,
        Err(m) => return fail(ctx, &m),
    };
    if warn {
        ctx.error("tr", "warning: an unescaped backslash at end of string is not portable");
    }
    if set1.iter().any(|e| matches!(e, Elem::Repeat(..))) {
        return fail(ctx, "the [c*] repeat construct may not appear in string1");
    }
    let translating = set2.is_some() && !delete;
    let mut case1 = Vec::new();
    let mut bytes1 = expand(&set1, 0, &mut case1);
    if complement {
        let mut member = [false; 256];
        for &b in &bytes1 {
            member[usize::from(b)] = true;
        }
        bytes1 = (0..=255u8).filter(|&b| !member[usize::from(b)]).collect();
    }
    let mut bytes2 = Vec::new();
    if let Some(set2) = &set2 {
        if set2.iter().filter(|e| matches!(e, Elem::Repeat(_, None))).count() > 1 {
            return fail(ctx, "only one [c*] repeat construct may appear in string2");
        }
        if translating && set2.iter().any(|e| matches!(e, Elem::Class(c) if *c != "upper" && *c != "lower")) {
            return fail(
                ctx,
                "when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'",
            );
        }
        let mut case2 = Vec::new();
        bytes2 = expand(set2, bytes1.len(), &mut case2);
        if translating {
            for (pos, _) in &case2 {
                if complement || !case1.iter().any(|(p, _)| p == pos) {
                    return fail(ctx, "misaligned [:upper:] and/or [:lower:] construct");
                }
            }
        }
    }
    let mut map: [u8; 256] = [0; 256];
    for (i, m) in map.iter_mut().enumerate() {
        *m = i as u8;
    }
    let mut delete_set = [false; 256];
    let mut squeeze_set = [false; 256];
    if translating {
        if bytes2.is_empty() && !bytes1.is_empty() && !truncate {
            return fail(ctx, "when not truncating set1, string2 must be non-empty");
        }
        let last = bytes2.last().copied();
        for (i, &b) in bytes1.iter().enumerate() {
            let to = match bytes2.get(i) {
                Some(&t) => t,
                None if truncate => break,
                None => last.unwrap_or(b),
            };
            map[usize::from(b)] = to;
        }
        if squeeze {
            for &b in &bytes2 {
                squeeze_set[usize::from(b)] = true;
            }
        }
    } else if delete {
        for &b in &bytes1 {
            delete_set[usize::from(b)] = true;
        }
        if squeeze {
            for &b in &bytes2 {
                squeeze_set[usize::from(b)] = true;
            }
        }
    } else {
        for &b in &bytes1 {
            squeeze_set[usize::from(b)] = true;
        }
    }
    let input = ctx.stdin_all();
    if !delete_set.contains(&true) && !squeeze_set.contains(&true) {
        let out: Vec<u8> = input.iter().map(|&b| map[usize::from(b)]).collect();
        let _ = ctx.out(&out);
        return 0;
    }
    let mut out = Vec::with_capacity(input.len());
    let mut last: Option<u8> = None;
    for &b in &input {
        if delete_set[usize::from(b)] {
            continue;
        }
        let c = map[usize::from(b)];
        if squeeze_set[usize::from(c)] && last == Some(c) {
            continue;
        }
        out.push(c);
        last = Some(c);
    }
    let _ = ctx.out(&out);
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str, fill: usize) -> Vec<u8> {
        let mut w = false;
        let set = parse_set(s.as_bytes(), &mut w).unwrap_or_default();
        expand(&set, fill, &mut Vec::new())
    }

    #[test]
    fn sets() {
        assert_eq!(bytes("a-e", 0), b"abcde");
        assert_eq!(bytes("\\n\\t\\\\x", 0), b"\n\t\\x");
        assert_eq!(bytes("[:digit:]", 0), b"0123456789");
        assert_eq!(bytes("[x*]y", 4), b"xxxy");
        assert_eq!(bytes("[x*2]yz", 6), b"xxyz");
        assert_eq!(bytes("a-", 0), b"a-");
        assert_eq!(bytes("\\101[=b=]", 0), b"Ab");
        let mut w = false;
        assert!(parse_set(b"z-a", &mut w).is_err());
        assert!(parse_set(b"[:foo:]", &mut w).is_err());
    }
}
