//! Reading the pieces of a command: labels, file names, delimited
//! regular expressions and replacements, `y` strings, `a`/`i`/`c` text.

use super::*;

/// Whether `v VERSION` asks for a sed newer than the GNU sed 4.9 this one
/// follows.
pub(super) fn newer_than_us(version: &[u8]) -> bool {
    let text = String::from_utf8_lossy(version);
    if text.is_empty() {
        return false;
    }
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    let want = (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    want > (4, 9, 0)
}

/// After a command: blanks, then the end of the line, `;`, `}` or `#`.
pub(super) fn end_of_cmd(c: &mut Cur) -> Result<(), String> {
    let ch = c.in_nonblank();
    match ch {
        None | Some(b'\n' | b';') => Ok(()),
        Some(b'}' | b'#') => {
            c.savchar(ch);
            Ok(())
        }
        Some(_) => Err(c.error("extra characters after command")),
    }
}

pub(super) fn read_label(c: &mut Cur, branch: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ch = c.in_nonblank();
    while let Some(x) = ch {
        if x == b'\n' || x == b';' || x.is_ascii_whitespace() {
            break;
        }
        if x == b'}' && branch {
            c.savchar(ch);
            break;
        }
        out.push(x);
        ch = c.inchar();
    }
    out
}

pub(super) fn read_filename(c: &mut Cur) -> String {
    let mut out = Vec::new();
    let mut ch = c.in_nonblank();
    while let Some(x) = ch {
        if x == b'\n' {
            break;
        }
        out.push(x);
        ch = c.inchar();
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads up to the unescaped delimiter (GNU `match_slash`): `\delim`
/// becomes the delimiter, `\` and a newline a newline; in a regex, bracket
/// expressions are copied whole (a delimiter inside is literal). `None` if
/// the text ends first.
pub(super) fn match_slash(c: &mut Cur, delim: u8, regex: bool) -> Option<Vec<u8>> {
    let mut b = Vec::new();
    loop {
        let ch = c.inchar()?;
        if ch == b'\n' {
            c.savchar(Some(ch));
            return None;
        }
        if ch == delim {
            return Some(b);
        }
        if ch == b'\\' {
            let d = c.inchar()?;
            if d == delim {
                if !regex && d == b'&' {
                    b.push(b'\\');
                }
                b.push(d);
            } else if d == b'\n' {
                b.push(b'\n');
            } else {
                b.push(b'\\');
                b.push(d);
            }
            continue;
        }
        if regex && ch == b'[' {
            b.push(ch);
            copy_bracket(c, &mut b)?;
            continue;
        }
        b.push(ch);
    }
}

/// Copies the rest of a bracket expression (after `[`) up to its `]`.
pub(super) fn copy_bracket(c: &mut Cur, b: &mut Vec<u8>) -> Option<()> {
    let mut first = true;
    if c.peek() == Some(b'^') {
        b.push(b'^');
        c.pos += 1;
    }
    loop {
        let ch = c.inchar()?;
        if ch == b'\n' {
            c.savchar(Some(ch));
            return None;
        }
        b.push(ch);
        if ch == b']' && !first {
            return Some(());
        }
        first = false;
        if ch == b'[' && matches!(c.peek(), Some(b':' | b'.' | b'=')) {
            let kind = c.inchar()?;
            b.push(kind);
            loop {
                let x = c.inchar()?;
                if x == b'\n' {
                    c.savchar(Some(x));
                    return None;
                }
                b.push(x);
                if x == kind && c.peek() == Some(b']') {
                    c.pos += 1;
                    b.push(b']');
                    break;
                }
            }
        }
    }
}

/// Parses a replacement; returns its parts and the highest `\N` used.
pub(super) fn parse_replacement(raw: &[u8]) -> (Vec<Repl>, usize) {
    let mut parts = Vec::new();
    let mut lit = Vec::new();
    let mut max_ref = 0;
    let mut i = 0;
    let flush = |lit: &mut Vec<u8>, parts: &mut Vec<Repl>| {
        if !lit.is_empty() {
            parts.push(Repl::Lit(std::mem::take(lit)));
        }
    };
    while i < raw.len() {
        let ch = raw[i];
        if ch == b'&' {
            flush(&mut lit, &mut parts);
            parts.push(Repl::Group(0));
            i += 1;
            continue;
        }
        if ch != b'\\' || i + 1 >= raw.len() {
            lit.push(ch);
            i += 1;
            continue;
        }
        let d = raw[i + 1];
        match d {
            b'0'..=b'9' => {
                flush(&mut lit, &mut parts);
                let n = usize::from(d - b'0');
                max_ref = max_ref.max(n);
                parts.push(Repl::Group(n));
                i += 2;
            }
            b'L' | b'U' | b'l' | b'u' | b'E' => {
                flush(&mut lit, &mut parts);
                parts.push(Repl::Case(match d {
                    b'L' => CaseOp::Lower,
                    b'U' => CaseOp::Upper,
                    b'l' => CaseOp::LowerOne,
                    b'u' => CaseOp::UpperOne,
                    _ => CaseOp::End,
                }));
                i += 2;
            }
            b'\n' => {
                lit.push(b'\n');
                i += 2;
            }
            _ => match posix::sed_escape(raw, i) {
                Some((b, next)) => {
                    lit.push(b);
                    i = next;
                }
                None => {
                    lit.push(d);
                    i += 2;
                }
            },
        }
    }
    flush(&mut lit, &mut parts);
    (parts, max_ref)
}

pub(super) fn y_unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() {
            if raw[i + 1] == b'\\' {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if let Some((b, next)) = posix::sed_escape(raw, i) {
                out.push(b);
                i = next;
                continue;
            }
            out.push(raw[i + 1]);
            i += 2;
            continue;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

/// The text of `a`, `i`, `c`: `\` before a character removes its special
/// meaning; `\n`, `\t`... are escapes.
pub(super) fn normalize_text(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() {
            if let Some((b, next)) = posix::sed_escape(raw, i) {
                out.push(b);
                i = next;
                continue;
            }
            out.push(raw[i + 1]);
            i += 2;
            continue;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}
