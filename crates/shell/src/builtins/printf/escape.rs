//! `printf`'s backslash escapes (bash's `tescape`) and `%q` quoting.

pub(super) fn first_utf8_char(s: &[u8]) -> Option<char> {
    let len = match s.first()? {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return None,
    };
    std::str::from_utf8(s.get(..len)?).ok()?.chars().next()
}

/// What a backslash escape stands for.
pub(super) enum Escape {
    Byte(u8),
    Bytes(Vec<u8>),
    /// `\c` in `%b`: stop printing.
    Stop,
    MissingHex,
    MissingUnicode(u8),
}

/// bash's `tescape`: `s` starts after the backslash. In `%b` arguments
/// (`in_b`), `\0` takes up to three more octal digits, `\c` stops and `\'`
/// `\"` `\?` stay as they are. Returns the bytes consumed after the
/// backslash (0 when the backslash is printed as itself).
pub(super) fn escape(s: &[u8], in_b: bool, utf8: bool) -> (usize, Escape) {
    let Some(&c) = s.first() else {
        return (0, Escape::Byte(b'\\'));
    };
    let byte = |b: u8| (1, Escape::Byte(b));
    match c {
        b'a' => byte(7),
        b'b' => byte(8),
        b'e' | b'E' => byte(0x1b),
        b'f' => byte(0x0c),
        b'n' => byte(b'\n'),
        b'r' => byte(b'\r'),
        b't' => byte(b'\t'),
        b'v' => byte(0x0b),
        b'\\' => byte(b'\\'),
        b'0'..=b'7' => {
            let mut value = u32::from(c - b'0');
            let mut more = if in_b && value == 0 { 3 } else { 2 };
            let mut used = 1;
            while more > 0 {
                match s.get(used) {
                    Some(&d @ b'0'..=b'7') => {
                        value = value * 8 + u32::from(d - b'0');
                        used += 1;
                        more -= 1;
                    }
                    _ => break,
                }
            }
            (used, Escape::Byte((value & 0xff) as u8))
        }
        b'x' => {
            let mut value = 0u32;
            let mut used = 1;
            while used < 3 {
                match s.get(used).and_then(|&d| char::from(d).to_digit(16)) {
                    Some(d) => {
                        value = value * 16 + d;
                        used += 1;
                    }
                    None => break,
                }
            }
            if used == 1 {
                return (0, Escape::MissingHex);
            }
            (used, Escape::Byte((value & 0xff) as u8))
        }
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            let mut value = 0u32;
            let mut used = 1;
            while used <= max {
                match s.get(used).and_then(|&d| char::from(d).to_digit(16)) {
                    Some(d) => {
                        value = value.wrapping_mul(16).wrapping_add(d);
                        used += 1;
                    }
                    None => break,
                }
            }
            if used == 1 {
                return (0, Escape::MissingUnicode(c));
            }
            if value <= 0x7f {
                return (used, Escape::Byte(value as u8));
            }
            match char::from_u32(value) {
                Some(ch) if utf8 => {
                    let mut buf = [0u8; 4];
                    (used, Escape::Bytes(ch.encode_utf8(&mut buf).as_bytes().to_vec()))
                }
                // bash in the C locale (or for an invalid code point) prints
                // the escape again, in upper case.
                _ => {
                    let text = if c == b'u' { format!("\\u{value:04X}") } else { format!("\\U{value:08X}") };
                    (used, Escape::Bytes(text.into_bytes()))
                }
            }
        }
        b'\'' | b'"' | b'?' if !in_b => byte(c),
        b'c' if in_b => (1, Escape::Stop),
        _ => (0, Escape::Byte(b'\\')),
    }
}

/// bash's `%q`: `''` for the empty string, `$'...'` when a character is not
/// printable, backslashes before special characters otherwise.
pub(crate) fn shell_quote(s: &[u8], utf8: bool) -> Vec<u8> {
    if s.is_empty() {
        return b"''".to_vec();
    }
    if needs_ansi_c(s, utf8) {
        return ansi_c_quote(s, utf8);
    }
    let mut out = Vec::with_capacity(s.len() + 8);
    for (i, &c) in s.iter().enumerate() {
        let special = matches!(
            c,
            b' ' | b'\t'
                | b'\n'
                | b'!'
                | b'"'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b','
                | b';'
                | b'<'
                | b'>'
                | b'?'
                | b'['
                | b'\\'
                | b']'
                | b'^'
                | b'`'
                | b'{'
                | b'|'
                | b'}'
        ) || (c == b'#' && i == 0)
            || (c == b'~' && (i == 0 || matches!(s[i - 1], b':' | b'=')));
        if special {
            out.push(b'\\');
        }
        out.push(c);
    }
    out
}

/// Yields each character as (its bytes, is it printable).
fn for_each_char(s: &[u8], utf8: bool, mut f: impl FnMut(&[u8], bool)) {
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c < 0x80 || !utf8 {
            f(&s[i..=i], (0x20..0x7f).contains(&c));
            i += 1;
            continue;
        }
        match first_utf8_char(&s[i..]) {
            Some(ch) => {
                let len = ch.len_utf8();
                let printable = !matches!(u32::from(ch), 0x80..=0x9f);
                f(&s[i..i + len], printable);
                i += len;
            }
            None => {
                f(&s[i..=i], false);
                i += 1;
            }
        }
    }
}

fn needs_ansi_c(s: &[u8], utf8: bool) -> bool {
    let mut needs = false;
    for_each_char(s, utf8, |_, printable| needs |= !printable);
    needs
}

fn ansi_c_quote(s: &[u8], utf8: bool) -> Vec<u8> {
    let mut out = b"$'".to_vec();
    for_each_char(s, utf8, |ch, printable| {
        let c = ch[0];
        let named = match c {
            0x1b => Some(b'E'),
            7 => Some(b'a'),
            0x0b => Some(b'v'),
            8 => Some(b'b'),
            0x0c => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            b'\\' | b'\'' => Some(c),
            _ => None,
        };
        if let Some(n) = named {
            out.push(b'\\');
            out.push(n);
        } else if !printable {
            for &b in ch {
                out.extend_from_slice(&[b'\\', b'0' + (b >> 6), b'0' + ((b >> 3) & 7), b'0' + (b & 7)]);
            }
        } else {
            out.extend_from_slice(ch);
        }
    });
    out.push(b'\'');
    out
}
