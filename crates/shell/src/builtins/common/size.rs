//! Sizes as GNU tools read and print them: counts with multiplier
//! suffixes (`head -c 1K`, `split -b`) and `-h` output (`4.9K`).

/// Parses a count like GNU's `xstrtoumax` with the size suffixes: digits
/// then an optional `b`, `K`/`k`, `M`, `G`, `T`, `P`, `E`, `Z`, `Y`
/// (1024-based, or 1000-based with a trailing `B`, `iB` being 1024-based).
/// Saturates on overflow. `None` when not a number.
pub(crate) fn parse_size(s: &str) -> Option<u64> {
    let digits_end = s.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return None;
    }
    let mut n: u64 = 0;
    for b in s.bytes().take(digits_end) {
        n = n.saturating_mul(10).saturating_add(u64::from(b - b'0'));
    }
    let suffix = &s[digits_end..];
    if suffix.is_empty() {
        return Some(n);
    }
    let mut chars = suffix.chars();
    let unit = chars.next()?;
    let rest = chars.as_str();
    if unit == 'b' {
        return if rest.is_empty() { Some(n.saturating_mul(512)) } else { None };
    }
    let power = match unit {
        'k' | 'K' => 1,
        'm' | 'M' => 2,
        'g' | 'G' => 3,
        't' | 'T' => 4,
        'p' | 'P' => 5,
        'e' | 'E' => 6,
        'z' | 'Z' => 7,
        'y' | 'Y' => 8,
        'R' => 9,
        'Q' => 10,
        _ => return None,
    };
    let base: u64 = match rest {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return None,
    };
    let mut mult: u64 = 1;
    for _ in 0..power {
        mult = mult.saturating_mul(base);
    }
    Some(n.saturating_mul(mult))
}

/// A size with a 1024-based unit, rounded up as GNU's `-h` does (`4.9K`,
/// `13K`, `2.0M`, `512`).
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [char; 8] = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    if bytes < 1024 {
        return bytes.to_string();
    }
    let b = bytes as u128;
    let mut exp = 1usize;
    while exp < UNITS.len() && 1024u128.pow(exp as u32 + 1) <= b {
        exp += 1;
    }
    loop {
        let div = 1024u128.pow(exp as u32);
        let tenths = (b * 10).div_ceil(div);
        let unit = UNITS[(exp - 1).min(UNITS.len() - 1)];
        if tenths < 100 {
            return format!("{}.{}{unit}", tenths / 10, tenths % 10);
        }
        let whole = b.div_ceil(div);
        if whole >= 1024 && exp < UNITS.len() {
            exp += 1;
            continue;
        }
        return format!("{whole}{unit}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("1kB"), Some(1000));
        assert_eq!(parse_size("2b"), Some(1024));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("2x"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn human_sizes_round_up_like_gnu() {
        assert_eq!(human_size(0), "0");
        assert_eq!(human_size(1000), "1000");
        assert_eq!(human_size(4096), "4.0K");
        assert_eq!(human_size(5000), "4.9K");
        assert_eq!(human_size(13193), "13K");
        assert_eq!(human_size(20480), "20K");
        assert_eq!(human_size(2_000_000), "2.0M");
        assert_eq!(human_size(1024 * 1024 - 1), "1.0M");
    }
}
