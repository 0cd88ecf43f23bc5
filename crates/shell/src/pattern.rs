//! Shell patterns (`*`, `?`, `[...]`, `[[:class:]]`), used by `case`,
//! `[[ == ]]`, `${x#pat}`, pathname expansion and `find -name`.

/// Whether `text` matches the whole of `pattern`. A backslash makes the
/// next character literal.
pub fn fnmatch(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    if crate::extglob::has_ext(&p) {
        return crate::extglob::matches(&p, &t);
    }
    matches(&p, &t)
}

/// Whether `pattern` has an unescaped `*`, `?` or `[`.
pub fn has_magic(pattern: &str) -> bool {
    let mut escaped = false;
    for c in pattern.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, '*' | '?' | '[') {
            return true;
        }
    }
    crate::extglob::has_ext(&pattern.chars().collect::<Vec<_>>())
}

/// Escapes `text` so it matches itself as a pattern.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // `(` too: a quoted `*(` is not an extended glob.
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '(') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Removes the escaping backslashes of a pattern (its literal text).
pub fn unescape(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut escaped = false;
    for c in pattern.chars() {
        if !escaped && c == '\\' {
            escaped = true;
            continue;
        }
        escaped = false;
        out.push(c);
    }
    out
}

fn matches(p: &[char], t: &[char]) -> bool {
    // Iterative matcher with single-star backtracking: linear in practice,
    // never exponential.
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = bracket(p, pi, t[ti]) {
                        if matched {
                            pi = next;
                            ti += 1;
                            continue;
                        }
                    } else if t[ti] == '[' {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == t[ti] {
                        pi += 2;
                        ti += 1;
                        continue;
                    }
                }
                c => {
                    if c == t[ti] {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Matches `c` against the bracket expression at `p[start]` (`[`). Returns
/// whether it matched and the index after `]`, or `None` when the bracket is
/// not closed (then `[` is literal).
pub(crate) fn bracket(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let ch = *p.get(i)?;
        if ch == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if ch == '[' && p.get(i + 1) == Some(&':') {
            let rest: String = p[i + 2..].iter().collect();
            if let Some(end) = rest.find(":]") {
                let class = &rest[..end];
                if class_matches(class, c) {
                    matched = true;
                }
                i += 2 + class.chars().count() + 2;
                continue;
            }
        }
        let lo = if ch == '\\' {
            i += 1;
            *p.get(i)?
        } else {
            ch
        };
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&x| x != ']') {
            let mut hi_at = i + 2;
            if p[hi_at] == '\\' {
                hi_at += 1;
            }
            let hi = *p.get(hi_at)?;
            if lo <= c && c <= hi {
                matched = true;
            }
            i = hi_at + 1;
        } else {
            if lo == c {
                matched = true;
            }
            i += 1;
        }
    }
}

/// POSIX character classes (ASCII).
pub fn class_matches(class: &str, c: char) -> bool {
    match class {
        "alpha" => c.is_ascii_alphabetic(),
        "digit" => c.is_ascii_digit(),
        "alnum" => c.is_ascii_alphanumeric(),
        "upper" => c.is_ascii_uppercase(),
        "lower" => c.is_ascii_lowercase(),
        "space" => matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'),
        "blank" => matches!(c, ' ' | '\t'),
        "punct" => c.is_ascii_punctuation(),
        "xdigit" => c.is_ascii_hexdigit(),
        "cntrl" => c.is_ascii_control(),
        "print" => (' '..='~').contains(&c),
        "graph" => ('!'..='~').contains(&c),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    #[test]
    fn globs() {
        assert!(fnmatch("*.txt", "a.txt"));
        assert!(!fnmatch("*.txt", "a.txt.bak"));
        assert!(fnmatch("a?c", "abc"));
        assert!(fnmatch("[a-c]x", "bx"));
        assert!(!fnmatch("[!a-c]x", "bx"));
        assert!(fnmatch("[[:digit:]]*", "9lives"));
        assert!(fnmatch("\\*", "*"));
        assert!(!fnmatch("\\*", "a"));
        assert!(fnmatch("*a*b*c*", "xxaxxbxxcxx"));
        assert!(fnmatch("[]]", "]"));
        assert!(fnmatch("[", "["));
        assert!(fnmatch("", ""));
    }
}
