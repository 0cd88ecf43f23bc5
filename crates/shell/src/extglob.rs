//! bash's extended patterns (`shopt -s extglob`): `?(a|b)` zero or one,
//! `*(a|b)` any number, `+(a|b)` one or more, `@(a|b)` exactly one,
//! `!(a|b)` anything else. A backtracking matcher with a step budget: a
//! pattern that would take exponential time fails to match instead.

use crate::pattern::bracket;

/// Steps one match may take.
const BUDGET: u32 = 200_000;

/// Whether the pattern has an unescaped `X(` with `X` one of `?*+@!`.
pub(crate) fn has_ext(p: &[char]) -> bool {
    let mut i = 0;
    while i + 1 < p.len() {
        match p[i] {
            '\\' => i += 1,
            '?' | '*' | '+' | '@' | '!' if p[i + 1] == '(' => return close(p, i + 1).is_some(),
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether `t` matches the whole of pattern `p` (with extended groups).
pub(crate) fn matches(p: &[char], t: &[char]) -> bool {
    let mut budget = BUDGET;
    go(p, t, &mut budget)
}

/// The index of the `)` closing the `(` at `open`.
fn close(p: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = open;
    while i < p.len() {
        match p[i] {
            '\\' => i += 1,
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The `|`-separated alternatives between `(` at `open` and `)` at `end`.
fn alternatives(p: &[char], open: usize, end: usize) -> Vec<&[char]> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut i) = (0, open + 1, open + 1);
    while i < end {
        match p[i] {
            '\\' => i += 1,
            '(' => depth += 1,
            ')' => depth -= 1,
            '|' if depth == 0 => {
                out.push(&p[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&p[start..end]);
    out
}

fn any(alts: &[&[char]], t: &[char], budget: &mut u32) -> bool {
    alts.iter().any(|a| go(a, t, budget))
}

fn go(p: &[char], t: &[char], budget: &mut u32) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Some(&first) = p.first() else { return t.is_empty() };
    if matches!(first, '?' | '*' | '+' | '@' | '!') && p.get(1) == Some(&'(') {
        if let Some(end) = close(p, 1) {
            let alts = alternatives(p, 1, end);
            let rest = &p[end + 1..];
            return match first {
                '@' => (0..=t.len()).any(|k| any(&alts, &t[..k], budget) && go(rest, &t[k..], budget)),
                '?' => {
                    go(rest, t, budget)
                        || (0..=t.len()).any(|k| any(&alts, &t[..k], budget) && go(rest, &t[k..], budget))
                }
                '!' => (0..=t.len()).any(|k| !any(&alts, &t[..k], budget) && go(rest, &t[k..], budget)),
                // `*(…)` and `+(…)`: one match then the `*(…)` form again.
                _ => {
                    let mut star: Vec<char> = vec!['*'];
                    star.extend_from_slice(&p[1..]);
                    (first == '*' && go(rest, t, budget))
                        || (1..=t.len()).any(|k| any(&alts, &t[..k], budget) && go(&star, &t[k..], budget))
                }
            };
        }
    }
    match first {
        '*' => (0..=t.len()).any(|k| go(&p[1..], &t[k..], budget)),
        '?' => !t.is_empty() && go(&p[1..], &t[1..], budget),
        '[' if !t.is_empty() => match bracket(p, 0, t[0]) {
            Some((true, next)) => go(&p[next..], &t[1..], budget),
            Some((false, _)) => false,
            None => t[0] == '[' && go(&p[1..], &t[1..], budget),
        },
        '\\' if p.len() > 1 => t.first() == Some(&p[1]) && go(&p[2..], &t[1..], budget),
        c => t.first() == Some(&c) && go(&p[1..], &t[1..], budget),
    }
}

#[cfg(test)]
mod tests {
    use crate::pattern::fnmatch;

    #[test]
    fn extended() {
        assert!(fnmatch("@(foo|bar)", "bar"));
        assert!(!fnmatch("@(foo|bar)", "foobar"));
        assert!(fnmatch("+(foo|bar)", "foobarfoo"));
        assert!(fnmatch("*(ab)", ""));
        assert!(fnmatch("!(foo)", "foobar"));
        assert!(!fnmatch("!(foo)", "foo"));
        assert!(fnmatch("*.@(txt|md)", "a.md"));
        assert!(fnmatch("?(a|b).*", ".x"));
        assert!(!fnmatch("!(*.txt)", "a.txt"));
    }
}
