//! The format grammar `find -printf` and `stat --printf` share: backslash
//! escapes, `%[flags][width][.precision]` before a conversion character,
//! and padding to a width.

/// The escape after a backslash at `fmt[i]` that both commands know (C's
/// `\n \t \r \a \b \f \v \\` and up to three octal digits): the character
/// and the index after the escape. `None` for anything else.
pub(crate) fn escape(fmt: &[char], i: usize) -> Option<(char, usize)> {
    let c = *fmt.get(i)?;
    let plain = match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'a' => '\x07',
        'b' => '\x08',
        'f' => '\x0c',
        'v' => '\x0b',
        '\\' => '\\',
        '0'..='7' => {
            let mut v = 0u32;
            let mut j = i;
            while j < i + 3 && fmt.get(j).is_some_and(|d| d.is_digit(8)) {
                v = v * 8 + fmt[j].to_digit(8).unwrap_or(0);
                j += 1;
            }
            return Some((char::from_u32(v).unwrap_or('?'), j));
        }
        _ => return None,
    };
    Some((plain, i + 1))
}

/// A directive's flags, width and precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Directive {
    pub left: bool,
    pub zero: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

/// Reads `[flags][width][.precision]` from `fmt[i]` on (just after the
/// `%`), taking the characters in `flags` as flags: the directive and the
/// index of its conversion character. Widths and precisions stop at 4096.
pub(crate) fn directive(fmt: &[char], mut i: usize, flags: &str) -> (Directive, usize) {
    let mut d = Directive { left: false, zero: false, width: 0, precision: None };
    while let Some(&f) = fmt.get(i).filter(|f| flags.contains(**f)) {
        match f {
            '-' => d.left = true,
            '0' => d.zero = true,
            _ => {}
        }
        i += 1;
    }
    let number = |i: &mut usize| {
        let mut n = 0usize;
        while let Some(v) = fmt.get(*i).and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(v as usize).min(4096);
            *i += 1;
        }
        n
    };
    d.width = number(&mut i);
    if fmt.get(i) == Some(&'.') {
        i += 1;
        d.precision = Some(number(&mut i));
    }
    (d, i)
}

/// Appends `value` padded to `width` characters: with spaces on the right
/// when `left`, else with zeros when `zero`, else with spaces on the left.
pub(crate) fn pad(out: &mut String, value: &str, width: usize, left: bool, zero: bool) {
    let fill = width.saturating_sub(value.chars().count());
    if left {
        out.push_str(value);
        out.extend(std::iter::repeat_n(' ', fill));
    } else {
        out.extend(std::iter::repeat_n(if zero { '0' } else { ' ' }, fill));
        out.push_str(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn escapes() {
        assert_eq!(escape(&chars("n"), 0), Some(('\n', 1)));
        assert_eq!(escape(&chars("101x"), 0), Some(('A', 3)));
        assert_eq!(escape(&chars("0"), 0), Some(('\0', 1)));
        assert_eq!(escape(&chars("1234"), 0), Some(('S', 3)));
        assert_eq!(escape(&chars("q"), 0), None);
        assert_eq!(escape(&chars(""), 0), None);
    }

    #[test]
    fn directives() {
        let d = |s: &str| directive(&chars(s), 0, "-0+ #");
        assert_eq!(d("-08.3s").1, 5);
        assert_eq!(d("-08.3s").0, Directive { left: true, zero: true, width: 8, precision: Some(3) });
        assert_eq!(d("s").0, Directive { left: false, zero: false, width: 0, precision: None });
        assert_eq!(directive(&chars("'5d"), 0, "-").1, 0);
        let mut out = String::new();
        pad(&mut out, "ab", 4, false, false);
        pad(&mut out, "ab", 4, true, true);
        pad(&mut out, "12", 4, false, true);
        pad(&mut out, "long", 2, false, false);
        assert_eq!(out, "  abab  0012long");
    }
}
