//! awk's regular expressions (POSIX EREs as mawk reads them) translated to
//! the `regex` crate, on bytes, in the C locale: `.` and bracket
//! expressions match any byte including newline, `{` and `}` are literal
//! (mawk has no intervals), unknown escapes stand for the character.

use regex::bytes::Regex;

/// How far past a leftmost-first match the leftmost-longest search looks.
const LONGEST_WINDOW: usize = 256;

/// A compiled awk regular expression.
#[derive(Debug)]
pub struct Re {
    re: Regex,
    /// For patterns with alternation and no anchors: the pattern matching
    /// a whole string, used to find POSIX's longest match.
    full: Option<Regex>,
}

impl Re {
    pub fn new(ere: &[u8]) -> Result<Re, String> {
        let t = translate(ere)?;
        let re = Regex::new(&format!("(?s-u){}", t.pattern)).map_err(|e| describe(&e))?;
        let full = if t.has_alt && !t.has_anchor {
            Regex::new(&format!("(?s-u)\\A(?:{})\\z", t.pattern)).ok()
        } else {
            None
        };
        Ok(Re { re, full })
    }

    pub fn is_match(&self, hay: &[u8]) -> bool {
        self.re.is_match(hay)
    }

    /// The leftmost match at or after `start` (leftmost-first).
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        self.re.find_at(hay, start).map(|m| (m.start(), m.end()))
    }

    /// The leftmost match at or after `start`, as long as POSIX makes it
    /// (within a window past the first-found end).
    pub fn find_longest_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        let (s, e) = self.find_at(hay, start)?;
        if let Some(full) = &self.full {
            let top = hay.len().min(e.saturating_add(LONGEST_WINDOW));
            let mut cand = top;
            while cand > e {
                if full.is_match(&hay[s..cand]) {
                    return Some((s, cand));
                }
                cand -= 1;
            }
        }
        Some((s, e))
    }
}

fn describe(e: &regex::Error) -> String {
    match e {
        regex::Error::CompiledTooBig(_) => "regular expression too big".to_string(),
        _ => {
            let text = e.to_string();
            // The last line of the crate's message names the problem.
            let last = text.lines().rev().find(|l| l.starts_with("error:")).unwrap_or("syntax error");
            last.trim_start_matches("error:").trim().to_string()
        }
    }
}

struct Translated {
    pattern: String,
    has_alt: bool,
    has_anchor: bool,
}

fn push_lit(out: &mut String, b: u8) {
    if b.is_ascii_alphanumeric() {
        out.push(b as char);
    } else {
        out.push_str(&format!("\\x{{{b:02X}}}"));
    }
}

/// The byte an escape stands for, starting after the backslash at `i`;
/// returns the byte and the index after the escape.
fn escape(ere: &[u8], i: usize) -> (u8, usize) {
    let Some(&c) = ere.get(i) else { return (b'\\', i) };
    match c {
        b'n' => (b'\n', i + 1),
        b't' => (b'\t', i + 1),
        b'r' => (b'\r', i + 1),
        b'f' => (12, i + 1),
        b'v' => (11, i + 1),
        b'a' => (7, i + 1),
        b'b' => (8, i + 1),
        b'0'..=b'7' => {
            let mut v: u32 = 0;
            let mut j = i;
            while j < ere.len() && j < i + 3 && (b'0'..=b'7').contains(&ere[j]) {
                v = v * 8 + u32::from(ere[j] - b'0');
                j += 1;
            }
            ((v & 0xff) as u8, j)
        }
        _ => (c, i + 1),
    }
}

const CLASSES: &[&str] = &[
    "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper",
    "xdigit",
];

fn translate(ere: &[u8]) -> Result<Translated, String> {
    let mut out = String::with_capacity(ere.len() * 2);
    let mut has_alt = false;
    let mut has_anchor = false;
    let mut depth = 0usize;
    // Whether something a quantifier can apply to was just emitted, and
    // the last quantifier emitted right after it.
    let mut have_atom = false;
    let mut last_quant: Option<u8> = None;
    let mut i = 0;
    while i < ere.len() {
        let c = ere[i];
        match c {
            b'\\' => {
                let (b, next) = if i + 1 < ere.len() { escape(ere, i + 1) } else { (b'\\', i + 1) };
                push_lit(&mut out, b);
                i = next;
                have_atom = true;
                last_quant = None;
                continue;
            }
            b'.' => {
                out.push('.');
                have_atom = true;
                last_quant = None;
            }
            b'[' => {
                let next = bracket(ere, i, &mut out)?;
                i = next;
                have_atom = true;
                last_quant = None;
                continue;
            }
            b'(' => {
                out.push_str("(?:");
                depth += 1;
                have_atom = false;
                last_quant = None;
            }
            b')' => {
                if depth == 0 {
                    push_lit(&mut out, b')');
                } else {
                    out.push(')');
                    depth -= 1;
                }
                have_atom = true;
                last_quant = None;
            }
            b'|' => {
                out.push('|');
                has_alt = true;
                have_atom = false;
                last_quant = None;
            }
            b'*' | b'+' | b'?' => {
                if let Some(q) = last_quant {
                    // Two quantifiers in a row: `a**` is `a*`, mixed ones `*`.
                    if q != c {
                        out.pop();
                        out.push('*');
                        last_quant = Some(b'*');
                    }
                } else if have_atom {
                    out.push(c as char);
                    last_quant = Some(c);
                } else {
                    return Err("missing operand".to_string());
                }
            }
            b'^' => {
                out.push('^');
                has_anchor = true;
                have_atom = false;
                last_quant = None;
            }
            b'$' => {
                out.push('$');
                has_anchor = true;
                have_atom = true;
                last_quant = None;
            }
            _ => {
                push_lit(&mut out, c);
                have_atom = true;
                last_quant = None;
            }
        }
        i += 1;
    }
    if depth > 0 {
        return Err("missing ')'".to_string());
    }
    Ok(Translated { pattern: out, has_alt, has_anchor })
}

/// Translates the bracket expression starting at `ere[start] == '['`;
/// returns the index after it.
fn bracket(ere: &[u8], start: usize, out: &mut String) -> Result<usize, String> {
    const BAD: &str = "bad class -- [], [^] or [";
    let mut i = start + 1;
    let mut negate = false;
    if ere.get(i) == Some(&b'^') {
        negate = true;
        i += 1;
    }
    let mut items = String::new();
    let mut first = true;
    loop {
        let Some(&c) = ere.get(i) else { return Err(BAD.to_string()) };
        if c == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        // A class name.
        if c == b'[' && ere.get(i + 1) == Some(&b':') {
            let name_start = i + 2;
            let mut j = name_start;
            while j < ere.len() && ere[j].is_ascii_alphabetic() {
                j += 1;
            }
            if ere.get(j) == Some(&b':') && ere.get(j + 1) == Some(&b']') {
                let name = String::from_utf8_lossy(&ere[name_start..j]).into_owned();
                if !CLASSES.contains(&name.as_str()) {
                    return Err(BAD.to_string());
                }
                items.push_str(&format!("[:{name}:]"));
                i = j + 2;
                continue;
            }
        }
        // A single byte, maybe the start of a range.
        let (lo, next) = bracket_byte(ere, i)?;
        i = next;
        if ere.get(i) == Some(&b'-') && ere.get(i + 1).is_some_and(|&b| b != b']') {
            let (hi, next) = bracket_byte(ere, i + 1)?;
            if hi < lo {
                return Err("bad class -- invalid range".to_string());
            }
            items.push_str(&format!("\\x{{{lo:02X}}}-\\x{{{hi:02X}}}"));
            i = next;
        } else {
            items.push_str(&format!("\\x{{{lo:02X}}}"));
        }
    }
    out.push('[');
    if negate {
        out.push('^');
    }
    out.push_str(&items);
    out.push(']');
    Ok(i)
}

/// One byte of a bracket expression: plain, escaped, or `[.c.]`/`[=c=]`.
fn bracket_byte(ere: &[u8], i: usize) -> Result<(u8, usize), String> {
    let Some(&c) = ere.get(i) else { return Err("bad class -- [], [^] or [".to_string()) };
    if c == b'\\' && i + 1 < ere.len() {
        return Ok(escape(ere, i + 1));
    }
    if c == b'[' && matches!(ere.get(i + 1), Some(b'.' | b'=')) {
        let kind = ere[i + 1];
        if let (Some(&ch), Some(&k2), Some(b']')) = (ere.get(i + 2), ere.get(i + 3), ere.get(i + 4)) {
            if k2 == kind {
                return Ok((ch, i + 5));
            }
        }
    }
    Ok((c, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(re: &str, s: &str) -> bool {
        Re::new(re.as_bytes()).map(|r| r.is_match(s.as_bytes())).unwrap_or(false)
    }

    #[test]
    fn translation() {
        assert!(m("a.c", "a\nc"));
        assert!(m("a{3}", "a{3}"));
        assert!(!m("a{3}", "aaa"));
        assert!(m("[[:digit:]]+x", "12x"));
        assert!(m("[]a]", "]"));
        assert!(m("[^]a]", "b"));
        assert!(!m("[^]a]", "]"));
        assert!(m("\\.", "."));
        assert!(!m("\\.", "a"));
        assert!(m("\\w", "w"));
        assert!(m("[\\/]", "/"));
        assert!(m("a|b&", "b&"));
        assert!(m("x**", "x"));
        assert!(m("^$", ""));
        assert!(m("a)", "a)"));
        assert!(Re::new(b"*a").is_err());
        assert!(Re::new(b"(a").is_err());
        assert!(Re::new(b"[a").is_err());
    }

    #[test]
    fn longest() {
        let r = Re::new(b"ab|abcd").ok();
        assert_eq!(r.and_then(|r| r.find_longest_at(b"xabcd", 0)), Some((1, 5)));
    }
}
