//! `date`: prints the sandbox clock (or a date given with `-d`, `-f`, `-r`)
//! as GNU date does in the C locale. Everything is UTC: a `TZ` other than
//! UTC is treated as UTC (`%Z` prints `UTC`), and the system date cannot be
//! set.
//!
//! `-d` understands `@EPOCH[.frac]`, ISO dates and times (`2024-01-02`,
//! `2024-01-02 03:04[:05[.nnn]]`, `2024-01-02T03:04:05Z`, `+02:00`
//! offsets), `MM/DD[/YYYY]`, `YYYYMMDD`, month names (`Jan 2 2024`,
//! `2 January 2024`, the default output of `date`), weekday names,
//! `am`/`pm`, `UTC`/`GMT`/`Z`, and relative items (`now`, `today`,
//! `yesterday`, `tomorrow`, `[+-]N unit`, `N unit ago`, `next`/`last`).

use super::printf::gnu_quote as q;
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "date",
    run,
    help: "Usage: date [OPTION]... [+FORMAT]\n\
Display the date and time (UTC: the sandbox has no time zones) in the given FORMAT.\n\n\
  -d, --date=STRING          display time described by STRING, not 'now'\n\
  -f, --file=DATEFILE        like --date; once for each line of DATEFILE\n\
  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.\n\
                               FMT='date' for date only (the default),\n\
                               'hours', 'minutes', 'seconds', or 'ns'\n\
  -R, --rfc-email            output date and time in RFC 5322 format\n\
      --rfc-3339=FMT         output date/time in RFC 3339 format;\n\
                               FMT='date', 'seconds', or 'ns'\n\
  -r, --reference=FILE       display the last modification time of FILE\n\
  -u, --utc, --universal     print Coordinated Universal Time (UTC)\n\
      --help                 display this help and exit\n\n\
FORMAT controls the output: %% %a %A %b %B %c %C %d %D %e %F %g %G %h %H %I\n\
%j %k %l %m %M %n %N %p %P %q %r %R %s %S %t %T %u %U %V %w %W %x %X %y %Y\n\
%z %:z %::z %:::z %Z, with the flags - (no padding), _ (spaces), 0 (zeros),\n\
^ (upper case), # (swap case) and a field width.\n",
    help_flag: true,
};

const TRY: &str = "Try 'date --help' for more information.\n";

/// A moment: seconds since the epoch and nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Instant {
    pub secs: i64,
    pub nanos: u32,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let opts = match parse_args(args) {
        Ok(o) => o,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let now_ms = ctx.sys().now_ms();
    let now = Instant { secs: (now_ms / 1000) as i64, nanos: ((now_ms % 1000) * 1_000_000) as u32 };
    let mut format: Option<String> = opts.format.clone();
    let mut operands = opts.operands.iter();
    // A date to set the clock to: GNU date fails to set it, then prints it.
    let mut set: Option<Instant> = None;
    if let Some(s) = &opts.set {
        match parse_date(s, now) {
            Some(t) => set = Some(t),
            None => {
                ctx.err(format!("date: invalid date {}\n", q(s)));
                return 1;
            }
        }
    }
    if let Some(op) = operands.next() {
        if let Some(extra) = operands.next() {
            ctx.err(format!("date: extra operand {}\n{TRY}", q(extra)));
            return 1;
        }
        match op.strip_prefix('+') {
            Some(f) => {
                if format.is_some() {
                    ctx.err("date: multiple output formats specified\n");
                    return 1;
                }
                format = Some(f.to_string());
            }
            None => {
                if opts.date.is_some()
                    || opts.file.is_some()
                    || opts.reference.is_some()
                    || opts.set.is_some()
                {
                    ctx.err(format!(
                        "date: the argument {} lacks a leading '+';\n\
when using an option to specify date(s), any non-option\n\
argument must be a format string beginning with '+'\n{TRY}",
                        q(op)
                    ));
                    return 1;
                }
                match parse_set_operand(op, now) {
                    Some(t) => set = Some(t),
                    None => {
                        ctx.err(format!("date: invalid date {}\n", q(op)));
                        return 1;
                    }
                }
            }
        }
    }
    let format = format.unwrap_or_else(|| "%a %b %e %H:%M:%S %Z %Y".to_string());
    if let Some(t) = set {
        ctx.err("date: cannot set date: Operation not permitted\n");
        let mut s = strftime(&format, t.secs, t.nanos);
        s.push('\n');
        let _ = ctx.out(s);
        return 1;
    }

    if let Some(path) = &opts.file {
        let data = match ctx.read_input(path) {
            Ok(d) => d,
            Err(e) => {
                ctx.file_error("date", path, &e);
                return 1;
            }
        };
        let mut status = 0;
        let text = String::from_utf8_lossy(&data).into_owned();
        for line in text.lines() {
            match parse_date(line, now) {
                Some(t) => {
                    let mut s = strftime(&format, t.secs, t.nanos);
                    s.push('\n');
                    if ctx.out(s).is_err() {
                        return 1;
                    }
                }
                None => {
                    ctx.err(format!("date: invalid date {}\n", q(line)));
                    status = 1;
                }
            }
        }
        return status;
    }

    let when = if let Some(path) = &opts.reference {
        match ctx.sys().stat(path) {
            Ok(meta) => Instant {
                secs: (meta.mtime_ms / 1000) as i64,
                nanos: ((meta.mtime_ms % 1000) * 1_000_000) as u32,
            },
            Err(e) => {
                ctx.file_error("date", path, &e);
                return 1;
            }
        }
    } else if let Some(d) = &opts.date {
        match parse_date(d, now) {
            Some(t) => t,
            None => {
                ctx.err(format!("date: invalid date {}\n", q(d)));
                return 1;
            }
        }
    } else {
        now
    };
    let mut s = strftime(&format, when.secs, when.nanos);
    s.push('\n');
    let _ = ctx.out(s);
    0
}

#[derive(Debug, Default)]
struct Opts {
    date: Option<String>,
    file: Option<String>,
    reference: Option<String>,
    set: Option<String>,
    format: Option<String>,
    operands: Vec<String>,
}

const LONG: &[(&str, char)] = &[
    ("date", 'd'),
    ("file", 'f'),
    ("iso-8601", 'I'),
    ("reference", 'r'),
    ("rfc-3339", '3'),
    ("rfc-email", 'R'),
    ("set", 's'),
    ("universal", 'u'),
    ("utc", 'u'),
];

fn iso_format(arg: Option<&str>, option: &str) -> Result<&'static str, String> {
    let choices: &[(&str, &str)] = &[
        ("hours", "%Y-%m-%dT%H%:z"),
        ("minutes", "%Y-%m-%dT%H:%M%:z"),
        ("date", "%Y-%m-%d"),
        ("seconds", "%Y-%m-%dT%H:%M:%S%:z"),
        ("ns", "%Y-%m-%dT%H:%M:%S,%N%:z"),
    ];
    let Some(arg) = arg else { return Ok("%Y-%m-%d") };
    match_choice(arg, choices, option)
}

fn rfc3339_format(arg: &str) -> Result<&'static str, String> {
    let choices: &[(&str, &str)] =
        &[("date", "%Y-%m-%d"), ("seconds", "%Y-%m-%d %H:%M:%S%:z"), ("ns", "%Y-%m-%d %H:%M:%S.%N%:z")];
    match_choice(arg, choices, "--rfc-3339")
}

/// GNU argmatch: an exact name or an unambiguous prefix.
fn match_choice(arg: &str, choices: &[(&str, &'static str)], option: &str) -> Result<&'static str, String> {
    if let Some((_, f)) = choices.iter().find(|(n, _)| *n == arg) {
        return Ok(f);
    }
    let found: Vec<_> = choices.iter().filter(|(n, _)| !arg.is_empty() && n.starts_with(arg)).collect();
    if let [(_, f)] = found.as_slice() {
        return Ok(f);
    }
    let kind = if found.is_empty() { "invalid" } else { "ambiguous" };
    let mut msg = format!("date: {kind} argument {} for '{option}'\nValid arguments are:\n", q(arg));
    for (n, _) in choices {
        msg.push_str(&format!("  - '{n}'\n"));
    }
    msg.push_str(TRY);
    Err(msg)
}

fn parse_args(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts::default();
    let set_format = |o: &mut Opts, f: &str| -> Result<(), String> {
        if o.format.is_some() {
            return Err("date: multiple output formats specified\n".to_string());
        }
        o.format = Some(f.to_string());
        Ok(())
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            o.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (key, inline) = match long.split_once('=') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (long, None),
            };
            let exact = LONG.iter().find(|(n, _)| *n == key);
            let matches: Vec<_> = LONG.iter().filter(|(n, _)| n.starts_with(key)).collect();
            let (name, c) = match (exact, matches.as_slice()) {
                (Some(&(n, c)), _) => (n, c),
                (None, [&(n, c)]) => (n, c),
                // `--u` could be --utc or --universal: both mean -u.
                (None, many) if !many.is_empty() && many.iter().all(|(_, c)| *c == 'u') => ("utc", 'u'),
                (None, []) => return Err(format!("date: unrecognized option '{arg}'\n{TRY}")),
                (None, _) => return Err(format!("date: option '{arg}' is ambiguous\n{TRY}")),
            };
            match c {
                'u' | 'R' => {
                    if inline.is_some() {
                        return Err(format!("date: option '--{name}' doesn't allow an argument\n{TRY}"));
                    }
                    if c == 'R' {
                        set_format(&mut o, "%a, %d %b %Y %H:%M:%S %z")?;
                    }
                }
                'I' => {
                    let f = iso_format(inline.as_deref(), "--iso-8601")?;
                    set_format(&mut o, f)?;
                }
                _ => {
                    let value = match inline {
                        Some(v) => v,
                        None => match args.get(i) {
                            Some(v) => {
                                i += 1;
                                v.clone()
                            }
                            None => {
                                return Err(format!("date: option '--{name}' requires an argument\n{TRY}"))
                            }
                        },
                    };
                    match c {
                        'd' => o.date = Some(value),
                        'f' => o.file = Some(value),
                        'r' => o.reference = Some(value),
                        's' => o.set = Some(value),
                        _ => {
                            let f = rfc3339_format(&value)?;
                            set_format(&mut o, f)?;
                        }
                    }
                }
            }
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            let bytes = arg.as_bytes();
            let mut j = 1;
            while j < bytes.len() {
                let c = char::from(bytes[j]);
                j += 1;
                match c {
                    'u' => {}
                    'R' => set_format(&mut o, "%a, %d %b %Y %H:%M:%S %z")?,
                    'I' => {
                        let rest = arg.get(j..).filter(|r| !r.is_empty());
                        let f = iso_format(rest, "--iso-8601")?;
                        set_format(&mut o, f)?;
                        break;
                    }
                    'd' | 'f' | 'r' | 's' => {
                        let value = match arg.get(j..).filter(|r| !r.is_empty()) {
                            Some(v) => v.to_string(),
                            None => match args.get(i) {
                                Some(v) => {
                                    i += 1;
                                    v.clone()
                                }
                                None => {
                                    return Err(format!("date: option requires an argument -- '{c}'\n{TRY}"))
                                }
                            },
                        };
                        match c {
                            'd' => o.date = Some(value),
                            'f' => o.file = Some(value),
                            'r' => o.reference = Some(value),
                            _ => o.set = Some(value),
                        }
                        break;
                    }
                    _ => {
                        let c = arg.get(j - 1..).and_then(|r| r.chars().next()).unwrap_or(c);
                        return Err(format!("date: invalid option -- '{c}'\n{TRY}"));
                    }
                }
            }
            continue;
        }
        o.operands.push(arg.clone());
    }
    Ok(o)
}

/// `MMDDhhmm[[CC]YY][.ss]`, the form GNU date would set the clock to.
fn parse_set_operand(op: &str, now: Instant) -> Option<Instant> {
    let (main, secs) = match op.split_once('.') {
        Some((m, s)) => (m, Some(s)),
        None => (op, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(main) || !matches!(main.len(), 8 | 10 | 12) {
        return None;
    }
    let sec: u32 = match secs {
        Some(s) if s.len() == 2 && all_digits(s) => s.parse().ok()?,
        Some(_) => return None,
        None => 0,
    };
    let n = |a: usize| main.get(a..a + 2).and_then(|s| s.parse::<u32>().ok());
    let (mon, day, hour, min) = (n(0)?, n(2)?, n(4)?, n(6)?);
    let year = match main.len() {
        8 => gmtime(now.secs, 0).year,
        10 => two_digit_year(main.get(8..10)?)?,
        _ => main.get(8..12)?.parse().ok()?,
    };
    if !(1..=12).contains(&mon)
        || day < 1
        || day > days_in_month(year, mon)
        || hour > 23
        || min > 59
        || sec > 59
    {
        return None;
    }
    let days = days_from_civil(year, mon, i64::from(day));
    Some(Instant { secs: days * 86_400 + i64::from(hour * 3600 + min * 60 + sec), nanos: 0 })
}

// ---------------------------------------------------------------------------
// Calendar arithmetic (proleptic Gregorian).

const DAYS_PER_400Y: i64 = 146_097;

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
    }
}

/// Days since 1970-01-01 of a date; the day may overflow its month
/// (`Feb 31` is `Mar 2` or `Mar 3`).
pub(crate) fn days_from_civil(y: i64, m: u32, d: i64) -> i64 {
    // Count from 0000-03-01 with years starting in March, so that the leap
    // day is the last day of a year.
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let cycles = y.div_euclid(400);
    let year_in_cycle = y.rem_euclid(400);
    // Days before month m (0 = March) in a March-based year.
    const BEFORE: [i64; 12] = [0, 31, 61, 92, 122, 153, 184, 214, 245, 275, 306, 337];
    let day_of_year = BEFORE[m as usize % 12] + d - 1;
    let day_of_cycle = year_in_cycle * 365 + year_in_cycle / 4 - year_in_cycle / 100 + day_of_year;
    // 0000-03-01 is 719468 days before the epoch.
    cycles * DAYS_PER_400Y + day_of_cycle - 719_468
}

/// The date of a day count since 1970-01-01: (year, month 1-12, day).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let cycles = z.div_euclid(DAYS_PER_400Y);
    let mut rest = z.rem_euclid(DAYS_PER_400Y);
    // Centuries of 36524 days, the last one a day longer.
    let centuries = (rest / 36_524).min(3);
    rest -= centuries * 36_524;
    // Four-year groups of 1461 days (the last of a century is shorter,
    // which the day count already accounts for).
    let quads = rest / 1461;
    rest -= quads * 1461;
    let years = (rest / 365).min(3);
    rest -= years * 365;
    let year = cycles * 400 + centuries * 100 + quads * 4 + years;
    // rest: day of a March-based year. Month lengths from March: 31 30 31 30
    // 31 31 30 31 30 31 31 29.
    const LENGTHS: [i64; 12] = [31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 29];
    let mut month = 0usize;
    while month < 11 && rest >= LENGTHS[month] {
        rest -= LENGTHS[month];
        month += 1;
    }
    let (year, month) = if month >= 10 { (year + 1, month as u32 - 9) } else { (year, month as u32 + 3) };
    (year, month, rest as u32 + 1)
}

/// A broken-down UTC time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tm {
    pub year: i64,
    pub mon: u32,
    pub mday: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
    /// 0 = Sunday.
    pub wday: u32,
    /// 0-based day of the year.
    pub yday: u32,
    pub secs: i64,
    pub nanos: u32,
}

pub(crate) fn gmtime(secs: i64, nanos: u32) -> Tm {
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400) as u32;
    let (year, mon, mday) = civil_from_days(days);
    let yday = (days - days_from_civil(year, 1, 1)) as u32;
    Tm {
        year,
        mon,
        mday,
        hour: tod / 3600,
        min: tod / 60 % 60,
        sec: tod % 60,
        wday: (days + 4).rem_euclid(7) as u32,
        yday,
        secs,
        nanos,
    }
}

const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// ISO 8601 week-based year and week number.
fn iso_week(tm: &Tm) -> (i64, u32) {
    let wday_mon = (tm.wday + 6) % 7; // Monday = 0
    let week = (tm.yday as i64 - wday_mon as i64 + 10) / 7;
    let weeks_in = |y: i64| -> i64 {
        let jan1 = (days_from_civil(y, 1, 1) + 4).rem_euclid(7); // 0 = Sunday
        if jan1 == 4 || (jan1 == 3 && is_leap(y)) {
            53
        } else {
            52
        }
    };
    if week < 1 {
        (tm.year - 1, weeks_in(tm.year - 1) as u32)
    } else if week > weeks_in(tm.year) {
        (tm.year + 1, 1)
    } else {
        (tm.year, week as u32)
    }
}

// ---------------------------------------------------------------------------
// strftime, GNU flavour.

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
            b'a' => push_name(out, &WEEKDAYS[tm.wday as usize % 7][..3], &f),
            b'A' => push_name(out, WEEKDAYS[tm.wday as usize % 7], &f),
            b'b' | b'h' => push_name(out, &MONTHS[(tm.mon as usize + 11) % 12][..3], &f),
            b'B' => push_name(out, MONTHS[(tm.mon as usize + 11) % 12], &f),
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

// ---------------------------------------------------------------------------
// Parsing `-d` strings.

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
    MONTHS
        .iter()
        .position(|m| {
            let m = m.to_ascii_lowercase();
            word == m || (word.len() == 3 && m.starts_with(word))
        })
        .map(|p| p as u32 + 1)
}

fn weekday_of(word: &str) -> Option<u32> {
    let w = word.strip_suffix('.').unwrap_or(word);
    WEEKDAYS
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
pub(crate) fn parse_date(s: &str, now: Instant) -> Option<Instant> {
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

fn two_digit_year(y: &str) -> Option<i64> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Instant = Instant { secs: 1_767_323_045, nanos: 0 }; // 2026-01-02T03:04:05Z

    #[test]
    fn civil_round_trip() {
        for days in (-800_000..800_000).step_by(97) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, i64::from(d)), days, "{y}-{m}-{d}");
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 28), 2);
    }

    #[test]
    fn default_format() {
        assert_eq!(strftime("%a %b %e %H:%M:%S %Z %Y", NOW.secs, 0), "Fri Jan  2 03:04:05 UTC 2026");
    }

    #[test]
    fn many_conversions() {
        let t = parse_date("2024-03-05 07:08:09", NOW).map(|i| i.secs).unwrap_or(0);
        assert_eq!(
            strftime("%Y %m %d %H %M %S %s %N %j %a %A %b %B %e %y %Z %z %T %D %F %R %p %I %u %w %% %C %g %G %V %U %W %h %k %l %P %r %c %x %X %:z %::z %-d %_m %05d %^a %#b %10A %-j %q %+ %i %3N", t, 0),
            "2024 03 05 07 08 09 1709622489 000000000 065 Tue Tuesday Mar March  5 24 UTC +0000 07:08:09 03/05/24 2024-03-05 07:08 AM 07 2 2 % 20 24 2024 10 09 10 Mar  7  7 am 07:08:09 AM Tue Mar  5 07:08:09 2024 03/05/24 07:08:09 +00:00 +00:00:00 5  3 00005 TUE MAR    Tuesday 65 1 %+ %i 000"
        );
    }

    #[test]
    fn parses() {
        let p = |s: &str| parse_date(s, NOW).map(|i| strftime("%F %T", i.secs, i.nanos));
        assert_eq!(p("2024-01-02T03:04:05Z").as_deref(), Some("2024-01-02 03:04:05"));
        assert_eq!(p("2024-01-02 03:04").as_deref(), Some("2024-01-02 03:04:00"));
        assert_eq!(p("2024-01-02T03:04:05+02:00").as_deref(), Some("2024-01-02 01:04:05"));
        assert_eq!(p("2024-01-02 +1 day").as_deref(), Some("2024-01-03 00:00:00"));
        assert_eq!(p("2024-01-02 1 day ago").as_deref(), Some("2024-01-01 00:00:00"));
        assert_eq!(p("Jan 2 2024").as_deref(), Some("2024-01-02 00:00:00"));
        assert_eq!(p("2024-01-31 +1 month").as_deref(), Some("2024-03-02 00:00:00"));
        assert_eq!(p("2024-01-02 10am").as_deref(), Some("2024-01-02 10:00:00"));
        assert_eq!(p("03/04/2024").as_deref(), Some("2024-03-04 00:00:00"));
        assert_eq!(p("20240102").as_deref(), Some("2024-01-02 00:00:00"));
        assert_eq!(p("Tue Mar  5 07:08:09 UTC 2024").as_deref(), Some("2024-03-05 07:08:09"));
        assert_eq!(p("5 Mar 2024 7:08").as_deref(), Some("2024-03-05 07:08:00"));
        assert_eq!(p("1 hour ago 2024-01-02").as_deref(), Some("2024-01-01 23:00:00"));
        assert_eq!(p("").as_deref(), Some("2026-01-02 00:00:00"));
        assert_eq!(p("yesterday").as_deref(), Some("2026-01-01 03:04:05"));
        assert_eq!(p("2024-02-30"), None);
        assert_eq!(p("xyz"), None);
        assert_eq!(p("2024-01-02 25:00"), None);
        assert_eq!(
            parse_date("@1700000000.5", NOW),
            Some(Instant { secs: 1_700_000_000, nanos: 500_000_000 })
        );
        assert_eq!(parse_date("@-1", NOW), Some(Instant { secs: -1, nanos: 0 }));
        assert_eq!(parse_date("@abc", NOW), None);
    }
}
