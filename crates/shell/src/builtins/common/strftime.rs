//! `strftime`, GNU flavour in the C locale and UTC: `date +FORMAT` and
//! `printf %(FORMAT)T`.

use super::time::{gmtime, iso_week, Tm, MONTH_NAMES, WEEKDAY_NAMES};

#[derive(Clone, Copy)]
struct Flags {
    pad: Option<u8>, // b'-', b'_', b'0'
    upper: bool,
    swap: bool,
    width: Option<usize>,
}

/// Formats `secs` (UTC) like GNU date's `+FORMAT`.
pub(crate) fn strftime(fmt: &str, secs: i64, nanos: u32) -> String {
    let tm = gmtime(secs, nanos);
    let mut out = String::new();
    format_tm(fmt, &tm, &mut out);
    out
}

fn format_tm(fmt: &str, tm: &Tm, out: &mut String) {
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            let end = b[i..].iter().position(|&c| c == b'%').map_or(b.len(), |p| i + p);
            out.push_str(&fmt[i..end]);
            i = end;
            continue;
        }
        let start = i;
        i += 1;
        let mut f = Flags { pad: None, upper: false, swap: false, width: None };
        while let Some(&c) = b.get(i) {
            match c {
                b'-' | b'_' | b'0' => f.pad = Some(c),
                b'^' => f.upper = true,
                b'#' => f.swap = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        let mut has_width = false;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            width = width.saturating_mul(10).saturating_add(usize::from(c - b'0')).min(4096);
            has_width = true;
            i += 1;
        }
        if has_width {
            f.width = Some(width);
        }
        while matches!(b.get(i), Some(b'E' | b'O')) {
            i += 1;
        }
        let mut colons = 0;
        while b.get(i) == Some(&b':') {
            colons += 1;
            i += 1;
        }
        let Some(&conv) = b.get(i) else {
            out.push_str(&fmt[start..]);
            break;
        };
        i += 1;
        while !fmt.is_char_boundary(i) {
            i += 1;
        }
        if colons > 0 && conv != b'z' {
            out.push_str(&fmt[start..i]);
            continue;
        }
        let num = |out: &mut String, v: i64, w: usize, pad: u8| push_num(out, v, w, pad, &f);
        match conv {
            b'%' if i - start == 2 => out.push('%'),
            b'%' => {
                // GNU prints a flagged `%%` as written, padded oddly.
                let spec = &fmt[start..i];
                let fill = (f.width.unwrap_or(0) + 1).saturating_sub(spec.len());
                if f.pad != Some(b'-') {
                    out.extend(std::iter::repeat_n(if f.pad == Some(b'0') { '0' } else { ' ' }, fill));
                }
                out.push_str(spec);
            }
            b'n' => push_text(out, "\n", &f),
            b't' => push_text(out, "\t", &f),
            b'a' => push_name(out, &WEEKDAY_NAMES[tm.wday as usize % 7][..3], &f),
            b'A' => push_name(out, WEEKDAY_NAMES[tm.wday as usize % 7], &f),
            b'b' | b'h' => push_name(out, &MONTH_NAMES[(tm.mon as usize + 11) % 12][..3], &f),
            b'B' => push_name(out, MONTH_NAMES[(tm.mon as usize + 11) % 12], &f),
            b'c' => composite(out, "%a %b %e %H:%M:%S %Y", tm, &f),
            b'C' => num(out, tm.year.div_euclid(100), 2, b'0'),
            b'd' => num(out, i64::from(tm.mday), 2, b'0'),
            b'D' | b'x' => composite(out, "%m/%d/%y", tm, &f),
            b'e' => num(out, i64::from(tm.mday), 2, b' '),
            b'F' => composite(out, "%Y-%m-%d", tm, &f),
            b'g' => num(out, iso_week(tm).0.rem_euclid(100), 2, b'0'),
            b'G' => num(out, iso_week(tm).0, 4, b'0'),
            b'H' => num(out, i64::from(tm.hour), 2, b'0'),
            b'I' => num(out, i64::from((tm.hour + 11) % 12 + 1), 2, b'0'),
            b'j' => num(out, i64::from(tm.yday + 1), 3, b'0'),
            b'k' => num(out, i64::from(tm.hour), 2, b' '),
            b'l' => num(out, i64::from((tm.hour + 11) % 12 + 1), 2, b' '),
            b'm' => num(out, i64::from(tm.mon), 2, b'0'),
            b'M' => num(out, i64::from(tm.min), 2, b'0'),
            b'N' => {
                // A fraction: `_` turns its trailing zeros into spaces, `-`
                // with a width drops them.
                let digits = format!("{:09}", tm.nanos);
                let w = f.width.unwrap_or(9);
                let mut s: String = digits.chars().take(w).collect();
                while s.len() < w {
                    s.push('0');
                }
                let kept = s.trim_end_matches('0').len().max(1).min(s.len());
                match f.pad {
                    Some(b'_') => {
                        let len = s.len();
                        s.truncate(kept);
                        s.extend(std::iter::repeat_n(' ', len - kept));
                    }
                    Some(b'-') if f.width.is_some() => s.truncate(kept),
                    _ => {}
                }
                out.push_str(&s);
            }
            b'p' => {
                let s = if tm.hour < 12 { "AM" } else { "PM" };
                let mut g = f;
                if g.swap {
                    g.swap = false;
                    push_text(out, &s.to_ascii_lowercase(), &g);
                } else {
                    push_text(out, s, &g);
                }
            }
            b'P' => push_text(out, if tm.hour < 12 { "am" } else { "pm" }, &f),
            b'q' => num(out, i64::from((tm.mon - 1) / 3 + 1), 1, b'0'),
            b'r' => composite(out, "%I:%M:%S %p", tm, &f),
            b'R' => composite(out, "%H:%M", tm, &f),
            b's' => num(out, tm.secs, 1, b'0'),
            b'S' => num(out, i64::from(tm.sec), 2, b'0'),
            b'T' | b'X' => composite(out, "%H:%M:%S", tm, &f),
            b'u' => num(out, i64::from((tm.wday + 6) % 7 + 1), 1, b'0'),
            b'U' => num(out, i64::from((tm.yday + 7 - tm.wday) / 7), 2, b'0'),
            b'V' => num(out, i64::from(iso_week(tm).1), 2, b'0'),
            b'w' => num(out, i64::from(tm.wday), 1, b'0'),
            b'W' => num(out, i64::from((tm.yday + 7 - (tm.wday + 6) % 7) / 7), 2, b'0'),
            b'y' => num(out, tm.year.rem_euclid(100), 2, b'0'),
            b'Y' => num(out, tm.year, 4, b'0'),
            b'z' => {
                // The offset is always zero: a sign, zero digits, colons.
                let (min_digits, default_digits) = match colons {
                    0 => (1, 4),
                    1 => (3, 4),
                    2 => (5, 6),
                    3 => (2, 2),
                    _ => {
                        out.push_str(&fmt[start..i]);
                        continue;
                    }
                };
                let seps = if colons == 3 { 0 } else { colons };
                let digits = match f.width {
                    Some(w) => w.saturating_sub(1 + seps).max(min_digits),
                    None => default_digits,
                };
                if f.pad == Some(b'_') && colons == 0 {
                    let w = f.width.unwrap_or(5);
                    out.extend(std::iter::repeat_n(' ', w.saturating_sub(2)));
                    out.push_str("+0");
                    continue;
                }
                let mut text = "0".repeat(digits);
                if colons == 1 || colons == 2 {
                    text.insert(digits - 2, ':');
                }
                if colons == 2 {
                    text.insert(digits - 4, ':');
                }
                out.push('+');
                out.push_str(&text);
            }
            b'Z' => {
                let mut g = f;
                if g.swap {
                    g.swap = false;
                    push_text(out, "utc", &g);
                } else {
                    push_text(out, "UTC", &g);
                }
            }
            _ => out.push_str(&fmt[start..i]),
        }
    }
}

fn composite(out: &mut String, fmt: &str, tm: &Tm, f: &Flags) {
    let mut s = String::new();
    format_tm(fmt, tm, &mut s);
    push_text(out, &s, f);
}

/// Names: `#` and `^` upper-case them.
fn push_name(out: &mut String, s: &str, f: &Flags) {
    let mut g = *f;
    if g.swap {
        g.swap = false;
        g.upper = true;
    }
    push_text(out, s, &g);
}

fn push_text(out: &mut String, s: &str, f: &Flags) {
    let s = if f.upper { s.to_ascii_uppercase() } else { s.to_string() };
    let w = f.width.unwrap_or(0);
    let fill = w.saturating_sub(s.len());
    if f.pad != Some(b'-') {
        let c = if f.pad == Some(b'0') { '0' } else { ' ' };
        out.extend(std::iter::repeat_n(c, fill));
    }
    out.push_str(&s);
}

fn push_num(out: &mut String, v: i64, default_width: usize, default_pad: u8, f: &Flags) {
    let digits = v.unsigned_abs().to_string();
    let sign = if v < 0 { "-" } else { "" };
    let pad = match f.pad {
        Some(b'-') => None,
        Some(b'_') => Some(' '),
        Some(_) => Some('0'),
        None => Some(char::from(default_pad)),
    };
    let width = f.width.unwrap_or(default_width);
    let len = sign.len() + digits.len();
    match pad {
        None => {
            out.push_str(sign);
            out.push_str(&digits);
        }
        Some(' ') => {
            out.extend(std::iter::repeat_n(' ', width.saturating_sub(len)));
            out.push_str(sign);
            out.push_str(&digits);
        }
        Some(c) => {
            out.push_str(sign);
            out.extend(std::iter::repeat_n(c, width.saturating_sub(len)));
            out.push_str(&digits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_format() {
        assert_eq!(strftime("%a %b %e %H:%M:%S %Z %Y", 1_767_323_045, 0), "Fri Jan  2 03:04:05 UTC 2026");
    }
}
