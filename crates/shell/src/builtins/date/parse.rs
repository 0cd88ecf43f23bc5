//! Parsing `-d` strings and `date`'s other date operands.

use super::Instant;
use crate::builtins::common::time::{days_from_civil, days_in_month, gmtime, MONTH_NAMES, WEEKDAY_NAMES};

#[derive(Debug, Default, Clone, Copy)]
struct Rel {
    years: i64,
    months: i64,
    days: i64,
    secs: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Year,
    Month,
    Fortnight,
    Week,
    Day,
    Hour,
    Minute,
    Second,
}

fn unit_of(word: &str) -> Option<Unit> {
    let w = word.strip_suffix('s').filter(|w| !w.is_empty()).unwrap_or(word);
    Some(match w {
        "year" => Unit::Year,
        "month" => Unit::Month,
        "fortnight" => Unit::Fortnight,
        "week" => Unit::Week,
        "day" => Unit::Day,
        "hour" => Unit::Hour,
        "minute" | "min" => Unit::Minute,
        "second" | "sec" => Unit::Second,
        _ => return None,
    })
}

fn month_of(word: &str) -> Option<u32> {
    if word == "sept" {
        return Some(9);
    }
    MONTH_NAMES
        .iter()
        .position(|m| {
            let m = m.to_ascii_lowercase();
            word == m || (word.len() == 3 && m.starts_with(word))
        })
        .map(|p| p as u32 + 1)
}

fn weekday_of(word: &str) -> Option<u32> {
    let w = word.strip_suffix('.').unwrap_or(word);
    WEEKDAY_NAMES
        .iter()
        .position(|d| {
            let d = d.to_ascii_lowercase();
            w == d
                || (w.len() == 3 && d.starts_with(w))
                || (w.len() == 4 && d.starts_with(w) && matches!(w, "tues" | "wednes" | "thur" | "thurs"))
        })
        .map(|p| p as u32)
}

#[derive(Debug, Clone, Copy)]
enum Tok<'a> {
    /// Digits, with the sign written right before them (if any).
    Num {
        sign: i8,
        text: &'a str,
    },
    Word(&'a str),
    Punct(u8),
}

fn tokenize(s: &str) -> Option<Vec<Tok<'_>>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Num { sign: 0, text: &s[st..i] });
        } else if (c == b'+' || c == b'-')
            && b[i + 1..].iter().find(|c| !c.is_ascii_whitespace()).is_some_and(u8::is_ascii_digit)
        {
            // A sign (maybe followed by blanks) belongs to the number unless
            // it joins two numbers (`2024-01-02`, `10:00-05`).
            let joins = matches!(out.last(), Some(Tok::Num { .. })) && i > 0 && b[i - 1].is_ascii_digit();
            if joins {
                out.push(Tok::Punct(c));
                i += 1;
                continue;
            }
            i += 1;
            while b[i].is_ascii_whitespace() {
                i += 1;
            }
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Num { sign: if c == b'-' { -1 } else { 1 }, text: &s[st..i] });
        } else if c.is_ascii_alphabetic() {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphabetic() || (b[i] == b'.' && i > st)) {
                i += 1;
            }
            out.push(Tok::Word(&s[st..i]));
        } else if matches!(c, b':' | b'-' | b'/' | b'.' | b',' | b'+') {
            out.push(Tok::Punct(c));
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

#[derive(Debug, Default)]
struct Parsed {
    date: Option<(i64, u32, u32)>,
    year_given: bool,
    time: Option<(u32, u32, u32, u32)>,
    zone: Option<i64>,
    rel: Rel,
    rel_seen: bool,
    weekday: Option<(u32, i64)>,
    /// Index in `rel` of the last relative item, for `ago`.
    last_rel: Option<(Unit, i64)>,
}

impl Parsed {
    fn add_rel(&mut self, unit: Unit, n: i64) {
        self.rel_seen = true;
        let r = &mut self.rel;
        let (field, scale) = match unit {
            Unit::Year => (&mut r.years, 1),
            Unit::Month => (&mut r.months, 1),
            Unit::Fortnight => (&mut r.days, 14),
            Unit::Week => (&mut r.days, 7),
            Unit::Day => (&mut r.days, 1),
            Unit::Hour => (&mut r.secs, 3600),
            Unit::Minute => (&mut r.secs, 60),
            Unit::Second => (&mut r.secs, 1),
        };
        *field = field.saturating_add(n.saturating_mul(scale));
        self.last_rel = Some((unit, n));
    }
}

fn num_val(text: &str) -> Option<i64> {
    if text.len() > 12 {
        return None;
    }
    text.parse().ok()
}

/// Parses a `-d` string; `now` is the base for relative items.
pub(super) fn parse_date(s: &str, now: Instant) -> Option<Instant> {
    let t = s.trim();
    if let Some(epoch) = t.strip_prefix('@') {
        return parse_epoch(epoch.trim_start());
    }
    let toks = tokenize(t)?;
    let mut p = Parsed::default();
    let mut i = 0;
    let get = |k: usize| toks.get(k).copied();
    let is_punct = |k: usize, c: u8| matches!(toks.get(k), Some(Tok::Punct(x)) if *x == c);
    while let Some(tok) = get(i) {
        match tok {
            Tok::Punct(b',') => i += 1,
            Tok::Num { sign, text } => {
                // Signed number after a time: a zone offset (even before a
                // unit word: GNU reads `12:00 +1 hour` as zone +01:00 and
                // one hour).
                if sign != 0 && p.time.is_some() && p.zone.is_none() && !p.rel_seen {
                    let (off, used) = zone_offset(&toks, i)?;
                    p.zone = Some(off);
                    i += used;
                    continue;
                }
                // N unit: relative.
                if let Some(Tok::Word(w)) = get(i + 1) {
                    if let Some(unit) = unit_of(&w.to_ascii_lowercase()) {
                        let n = num_val(text)?;
                        p.add_rel(unit, if sign < 0 { -n } else { n });
                        i += 2;
                        continue;
                    }
                }
                if sign != 0 {
                    return None;
                }
                if is_punct(i + 1, b'-') && matches!(get(i + 2), Some(Tok::Num { sign: 0, .. })) {
                    // ISO date Y-M-D.
                    let (Some(Tok::Num { text: m, .. }), true, Some(Tok::Num { sign: 0, text: d })) =
                        (get(i + 2), is_punct(i + 3, b'-'), get(i + 4))
                    else {
                        return None;
                    };
                    if p.date.is_some() {
                        return None;
                    }
                    p.date = Some((num_val(text)?, num_val(m)? as u32, num_val(d)? as u32));
                    p.year_given = true;
                    i += 5;
                    // `T` then a time.
                    if let Some(Tok::Word(w)) = get(i) {
                        if w.eq_ignore_ascii_case("t") && matches!(get(i + 1), Some(Tok::Num { sign: 0, .. }))
                        {
                            i += 1;
                            let used = parse_time(&toks, i, &mut p)?;
                            i += used;
                        }
                    }
                    continue;
                }
                if is_punct(i + 1, b':') {
                    let used = parse_time(&toks, i, &mut p)?;
                    i += used;
                    continue;
                }
                if is_punct(i + 1, b'/') {
                    let Some(Tok::Num { sign: 0, text: d }) = get(i + 2) else { return None };
                    if p.date.is_some() {
                        return None;
                    }
                    let (m, d) = (num_val(text)? as u32, num_val(d)? as u32);
                    i += 3;
                    if is_punct(i, b'/') {
                        let Some(Tok::Num { sign: 0, text: y }) = get(i + 1) else { return None };
                        p.date = Some((two_digit_year(y)?, m, d));
                        p.year_given = true;
                        i += 2;
                    } else {
                        p.date = Some((i64::MIN, m, d));
                    }
                    continue;
                }
                if let Some(Tok::Word(w)) = get(i + 1) {
                    let lw = w.to_ascii_lowercase();
                    if matches!(lw.as_str(), "am" | "pm" | "a.m." | "p.m.") {
                        if p.time.is_some() || text.len() > 2 {
                            return None;
                        }
                        let h = num_val(text)? as u32;
                        p.time = Some((ampm(h, &lw)?, 0, 0, 0));
                        i += 2;
                        continue;
                    }
                    if let Some(m) = month_of(lw.trim_end_matches('.')) {
                        // DD Mon [YYYY]
                        if p.date.is_some() {
                            return None;
                        }
                        let d = num_val(text)? as u32;
                        i += 2;
                        if is_punct(i, b'-') {
                            i += 1;
                        }
                        match get(i) {
                            Some(Tok::Num { sign: 0, text: y }) if !is_punct(i + 1, b':') => {
                                p.date = Some((num_val(y)?, m, d));
                                p.year_given = true;
                                i += 1;
                            }
                            _ => p.date = Some((i64::MIN, m, d)),
                        }
                        continue;
                    }
                }
                // A lone number.
                let n = num_val(text)?;
                if p.date.is_some() && !p.year_given && !p.rel_seen && (p.time.is_some() || text.len() > 2) {
                    if let Some((_, m, d)) = p.date {
                        p.date = Some((n, m, d));
                        p.year_given = true;
                    }
                } else if text.len() > 4 {
                    if p.date.is_some() || text.len() < 8 {
                        return None;
                    }
                    let (y, md) = text.split_at(text.len() - 4);
                    p.date = Some((num_val(y)?, num_val(&md[..2])? as u32, num_val(&md[2..])? as u32));
                    p.year_given = true;
                } else {
                    if p.time.is_some() {
                        return None;
                    }
                    let (h, m) = if text.len() <= 2 { (n, 0) } else { (n / 100, n % 100) };
                    p.time = Some((h as u32, m as u32, 0, 0));
                }
                i += 1;
            }
            Tok::Word(w) => {
                let lw = w.to_ascii_lowercase();
                let lw = lw.as_str();
                i += 1;
                match lw {
                    "now" | "today" => {
                        p.rel_seen = true;
                    }
                    "yesterday" => p.add_rel(Unit::Day, -1),
                    "tomorrow" => p.add_rel(Unit::Day, 1),
                    "ago" => {
                        let (unit, n) = p.last_rel?;
                        // Undo, then apply negated.
                        p.add_rel(unit, -2 * n);
                        p.last_rel = Some((unit, -n));
                    }
                    "utc" | "gmt" | "ut" | "z" | "zulu" => {
                        if p.zone.is_some() {
                            return None;
                        }
                        p.zone = Some(0);
                        // `UTC+2` style offsets.
                        if let Some(Tok::Num { sign, .. }) = get(i) {
                            if sign != 0 && !matches!(get(i + 1), Some(Tok::Word(_))) {
                                let (off, used) = zone_offset(&toks, i)?;
                                p.zone = Some(off);
                                i += used;
                            }
                        }
                    }
                    "next" | "last" | "this" => {
                        let n: i64 = match lw {
                            "next" => 1,
                            "last" => -1,
                            _ => 0,
                        };
                        let Some(Tok::Word(w2)) = get(i) else { return None };
                        let w2 = w2.to_ascii_lowercase();
                        i += 1;
                        if let Some(unit) = unit_of(&w2) {
                            p.add_rel(unit, n);
                        } else if let Some(wd) = weekday_of(&w2) {
                            if p.weekday.is_some() {
                                return None;
                            }
                            p.weekday = Some((wd, n));
                        } else {
                            return None;
                        }
                    }
                    "am" | "pm" | "a.m." | "p.m." => {
                        let (h, m, s, ns) = p.time?;
                        p.time = Some((ampm(h, lw)?, m, s, ns));
                    }
                    _ => {
                        if let Some(unit) = unit_of(lw) {
                            p.add_rel(unit, 1);
                        } else if let Some(m) = month_of(lw.trim_end_matches('.')) {
                            // Mon DD[,] [YYYY]
                            if p.date.is_some() {
                                return None;
                            }
                            if is_punct(i, b'-') {
                                i += 1;
                            }
                            let Some(Tok::Num { sign: 0, text: d }) = get(i) else {
                                return None;
                            };
                            if is_punct(i + 1, b':') {
                                return None;
                            }
                            p.date = Some((i64::MIN, m, num_val(d)? as u32));
                            i += 1;
                            if is_punct(i, b',') || is_punct(i, b'-') {
                                i += 1;
                            }
                            if let Some(Tok::Num { sign: 0, text: y }) = get(i) {
                                if !is_punct(i + 1, b':') && y.len() >= 3 {
                                    p.date = Some((num_val(y)?, m, num_val(d)? as u32));
                                    p.year_given = true;
                                    i += 1;
                                }
                            }
                        } else if let Some(wd) = weekday_of(lw) {
                            if p.weekday.is_some() {
                                return None;
                            }
                            p.weekday = Some((wd, 0));
                        } else {
                            return None;
                        }
                    }
                }
            }
            Tok::Punct(_) => return None,
        }
    }
    resolve(&p, t.is_empty(), now)
}

fn ampm(h: u32, word: &str) -> Option<u32> {
    if !(1..=12).contains(&h) {
        return None;
    }
    let pm = word.starts_with('p');
    Some(match (h, pm) {
        (12, false) => 0,
        (12, true) => 12,
        (h, false) => h,
        (h, true) => h + 12,
    })
}

pub(super) fn two_digit_year(y: &str) -> Option<i64> {
    let n = num_val(y)?;
    Some(if y.len() <= 2 {
        if n < 69 {
            2000 + n
        } else {
            1900 + n
        }
    } else {
        n
    })
}

/// `H:M[:S[.frac]] [am|pm] [zone]` starting at token `i`; returns tokens used.
fn parse_time(toks: &[Tok], i: usize, p: &mut Parsed) -> Option<usize> {
    if p.time.is_some() {
        return None;
    }
    let num = |k: usize| match toks.get(k) {
        Some(Tok::Num { sign: 0, text }) => Some(*text),
        _ => None,
    };
    let punct = |k: usize, c: u8| matches!(toks.get(k), Some(Tok::Punct(x)) if *x == c);
    let h = num_val(num(i)?)? as u32;
    let mut k = i + 1;
    let mut m = 0;
    let mut s = 0;
    let mut ns = 0;
    if punct(k, b':') {
        m = num_val(num(k + 1)?)? as u32;
        k += 2;
        if punct(k, b':') {
            s = num_val(num(k + 1)?)? as u32;
            k += 2;
            if punct(k, b'.') || punct(k, b',') {
                let frac = num(k + 1)?;
                let mut digits: String = frac.chars().take(9).collect();
                while digits.len() < 9 {
                    digits.push('0');
                }
                ns = digits.parse().ok()?;
                k += 2;
            }
        }
    }
    let mut hour = h;
    if let Some(Tok::Word(w)) = toks.get(k) {
        let lw = w.to_ascii_lowercase();
        if matches!(lw.as_str(), "am" | "pm" | "a.m." | "p.m.") {
            hour = ampm(h, &lw)?;
            k += 1;
        }
    }
    if hour > 23 || m > 59 || s > 60 {
        return None;
    }
    p.time = Some((hour, m, s.min(59), ns));
    // A zone right after the time.
    match toks.get(k) {
        Some(Tok::Num { sign, .. }) if *sign != 0 => {
            let (off, used) = zone_offset(toks, k)?;
            p.zone = Some(off);
            k += used;
        }
        Some(Tok::Punct(c @ (b'+' | b'-'))) => {
            // `10:00-05` after a number: the tokenizer kept the sign apart.
            let sign = if *c == b'-' { -1 } else { 1 };
            let text = num(k + 1)?;
            let (off, used) = offset_value(sign, text, toks, k + 2)?;
            p.zone = Some(off);
            k += 1 + used;
        }
        _ => {}
    }
    Some(k - i)
}

/// A signed zone offset at token `k`: `+HH`, `+HHMM`, `+HH:MM`.
fn zone_offset(toks: &[Tok], k: usize) -> Option<(i64, usize)> {
    let Some(Tok::Num { sign, text }) = toks.get(k) else { return None };
    offset_value(i64::from(*sign), text, toks, k + 1)
}

fn offset_value(sign: i64, text: &str, toks: &[Tok], after: usize) -> Option<(i64, usize)> {
    let n = num_val(text)?;
    let (h, m, used) = if matches!(toks.get(after), Some(Tok::Punct(b':'))) {
        let Some(Tok::Num { sign: 0, text: mm }) = toks.get(after + 1) else { return None };
        (n, num_val(mm)?, 3)
    } else if text.len() <= 2 {
        (n, 0, 1)
    } else if text.len() == 4 {
        (n / 100, n % 100, 1)
    } else {
        return None;
    };
    if h > 24 || m > 59 {
        return None;
    }
    Some((sign * (h * 3600 + m * 60), used))
}

fn resolve(p: &Parsed, empty: bool, now: Instant) -> Option<Instant> {
    let today = gmtime(now.secs, now.nanos);
    let (mut y, m, d) = match p.date {
        Some((y, m, d)) => (if y == i64::MIN { today.year } else { y }, m, d),
        None => (today.year, today.mon, today.mday),
    };
    if p.date.is_some() {
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
            return None;
        }
        if y.abs() > 100_000_000 {
            return None;
        }
    }
    let explicit = p.date.is_some() || p.time.is_some() || p.weekday.is_some() || empty;
    let (h, mi, s, ns) = match p.time {
        Some(t) => t,
        None if explicit => (0, 0, 0, 0),
        None => (today.hour, today.min, today.sec, now.nanos),
    };
    // Years and months move the calendar fields; days move the day.
    // Far beyond any real date: give up rather than overflow.
    const LIMIT: i64 = 1 << 40;
    if p.rel.years.abs() > LIMIT
        || p.rel.months.abs() > LIMIT
        || p.rel.days.abs() > LIMIT
        || p.rel.secs.abs() > LIMIT * 86_400
    {
        return None;
    }
    let total_months = y * 12 + i64::from(m) - 1 + p.rel.years * 12 + p.rel.months;
    y = total_months.div_euclid(12);
    let m = (total_months.rem_euclid(12) + 1) as u32;
    let mut days = days_from_civil(y, m, 1) + i64::from(d) - 1;
    // A day of the week moves the date only when no date is given.
    if let Some((wd, ordinal)) = p.weekday.filter(|_| p.date.is_none()) {
        let cur = (days + 4).rem_euclid(7);
        let diff = (i64::from(wd) - cur).rem_euclid(7);
        let adjust = ordinal - i64::from(ordinal > 0 && cur != i64::from(wd));
        days += diff + 7 * adjust;
    }
    days += p.rel.days;
    let secs = days.checked_mul(86_400)? + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(s)
        - p.zone.unwrap_or(0)
        + p.rel.secs;
    Some(Instant { secs, nanos: ns })
}

fn parse_epoch(s: &str) -> Option<Instant> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (int, frac) = match digits.split_once(['.', ',']) {
        Some((a, b)) => (a, Some(b)),
        None => (digits, None),
    };
    if int.is_empty() && frac.is_none_or(str::is_empty) {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || int.len() > 15 {
        return None;
    }
    let whole: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut nanos: u32 = 0;
    if let Some(f) = frac {
        if !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut d: String = f.chars().take(9).collect();
        while d.len() < 9 {
            d.push('0');
        }
        nanos = d.parse().ok()?;
    }
    if neg {
        if nanos > 0 {
            Some(Instant { secs: -whole - 1, nanos: 1_000_000_000 - nanos })
        } else {
            Some(Instant { secs: -whole, nanos: 0 })
        }
    } else {
        Some(Instant { secs: whole, nanos })
    }
}
