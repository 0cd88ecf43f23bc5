//! How GNU tools quote names and operands in their messages (C locale).

/// A file name quoted as GNU tools quote it in messages (`'a b'`,
/// `"it's"`, `'t'$'\t''ab'`).
pub(crate) fn quote(name: &str) -> String {
    let has_control = name.chars().any(|c| c.is_control());
    if !has_control {
        if !name.contains('\'') {
            return format!("'{name}'");
        }
        if !name.contains(['"', '$', '`', '\\']) {
            return format!("\"{name}\"");
        }
    }
    let mut out = String::from("'");
    let mut in_quote = true;
    for c in name.chars() {
        if c == '\'' || c.is_control() {
            if in_quote {
                out.push('\'');
                in_quote = false;
            }
            if c == '\'' {
                out.push_str("\\'");
            } else {
                let esc = match c {
                    '\t' => "\\t".to_string(),
                    '\n' => "\\n".to_string(),
                    '\r' => "\\r".to_string(),
                    _ => format!("\\{:03o}", c as u32),
                };
                out.push_str("$'");
                out.push_str(&esc);
                out.push('\'');
            }
        } else {
            if !in_quote {
                out.push('\'');
                in_quote = true;
            }
            out.push(c);
        }
    }
    if in_quote {
        out.push('\'');
    }
    out
}

/// How GNU tools quote an operand in a message in the C locale
/// (`quote()`): `'a\'b'`, C escapes and octal for unprintable bytes.
pub(crate) fn gnu_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for &b in s.as_bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            7 => out.push_str("\\a"),
            8 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "\"it's\"");
        assert_eq!(quote("t\tab"), "'t'$'\\t''ab'");
        assert_eq!(gnu_quote("a'b\\c"), "'a\\'b\\\\c'");
        assert_eq!(gnu_quote("a\tb\u{1}\u{7f}é"), "'a\\tb\\001\\177\\303\\251'");
    }
}
