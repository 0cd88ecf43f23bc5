//! `-printf` and `-fprintf` formats.

use super::*;

pub(super) fn printf(ctx: &mut Ctx, fmt: &[char], f: &Entry) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c == '\\' {
            i += 1;
            if let Some((e, next)) = escape(fmt, i) {
                out.push(e);
                i = next;
                continue;
            }
            match fmt.get(i) {
                Some('c') => return out,
                Some(other) => {
                    out.push('\\');
                    out.push(*other);
                }
                None => out.push('\\'),
            }
            i += 1;
            continue;
        }
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        let (d, at) = directive(fmt, i + 1, "-+ #0");
        i = at;
        let Some(&conv) = fmt.get(i) else {
            out.extend(&fmt[start..]);
            break;
        };
        i += 1;
        let value = match conv {
            '%' => "%".to_string(),
            'p' => f.path.to_string(),
            'f' => base_name(f.path).to_string(),
            'h' => match f.path.trim_end_matches('/').rfind('/') {
                Some(0) => "/".to_string(),
                Some(k) => f.path[..k].to_string(),
                None => ".".to_string(),
            },
            'P' => {
                let rest = f.path.strip_prefix(f.start).unwrap_or(f.path);
                rest.trim_start_matches('/').to_string()
            }
            'H' => f.start.to_string(),
            's' => apparent_size(&f.meta).to_string(),
            'd' => f.depth.to_string(),
            'y' | 'Y' => if f.meta.kind == Kind::Dir { "d" } else { "f" }.to_string(),
            'm' => format!("{:o}", f.meta.mode),
            'M' => mode_string(&f.meta),
            'k' => disk_kib(&f.meta).to_string(),
            'b' => (disk_kib(&f.meta) * 2).to_string(),
            'n' => nlink(ctx.sys(), f.path, &f.meta).to_string(),
            'u' | 'g' => OWNER.to_string(),
            'U' | 'G' => UID.to_string(),
            'i' => "0".to_string(),
            'l' => String::new(),
            'a' | 'c' | 't' => ctime(f.meta.mtime_ms),
            'A' | 'C' | 'T' => {
                let k = fmt.get(i).copied().unwrap_or('@');
                i += 1;
                time_part(f.meta.mtime_ms, k)
            }
            _ => {
                // GNU warns and prints the directive as it was.
                fmt[start..i].iter().collect()
            }
        };
        pad(&mut out, &value, d.width, d.left, false);
    }
    out
}

pub(super) const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];

pub(super) fn frac(ms: u64) -> String {
    format!("{:03}0000000", ms % 1000)
}

/// `Sat Nov 21 09:18:05.3700000000 2026`, as `%t` prints.
pub(super) fn ctime(ms: u64) -> String {
    let secs = (ms / 1000) as i64;
    let (y, mo, d, h, mi, s) = civil(secs);
    let wd = DAYS[(secs.div_euclid(86_400).rem_euclid(7)) as usize];
    let month = MONTHS[(mo as usize).saturating_sub(1).min(11)];
    format!("{wd} {month} {d:>2} {h:02}:{mi:02}:{s:02}.{} {y}", frac(ms))
}

pub(super) fn time_part(ms: u64, k: char) -> String {
    let secs = (ms / 1000) as i64;
    let (y, mo, d, h, mi, s) = civil(secs);
    match k {
        '@' => format!("{secs}.{}", frac(ms)),
        'Y' => format!("{y:04}"),
        'm' => format!("{mo:02}"),
        'd' => format!("{d:02}"),
        'e' => format!("{d:>2}"),
        'H' => format!("{h:02}"),
        'M' => format!("{mi:02}"),
        'S' => format!("{s:02}.{}", frac(ms)),
        'T' => format!("{h:02}:{mi:02}:{s:02}.{}", frac(ms)),
        'F' => format!("{y:04}-{mo:02}-{d:02}"),
        'D' => format!("{mo:02}/{d:02}/{:02}", y.rem_euclid(100)),
        'y' => format!("{:02}", y.rem_euclid(100)),
        'b' | 'h' => MONTHS[(mo as usize).saturating_sub(1).min(11)].to_string(),
        'a' => DAYS[(secs.div_euclid(86_400).rem_euclid(7)) as usize].to_string(),
        's' => secs.to_string(),
        'k' => format!("{h:>2}"),
        'R' => format!("{h:02}:{mi:02}"),
        '+' => format!("{y:04}-{mo:02}-{d:02}+{h:02}:{mi:02}:{s:02}.{}", frac(ms)),
        _ => String::new(),
    }
}
