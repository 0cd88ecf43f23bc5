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
//!
//! Options and output here; parsing date strings in `parse`; the calendar
//! and `strftime` in `common::time` and `common::strftime` (`printf %(…)T`
//! uses them too).

mod parse;

use super::args;
use super::common::quote::gnu_quote as q;
use super::common::strftime::strftime;
use super::common::time::{days_from_civil, days_in_month, gmtime};
use super::Builtin;
use crate::ctx::Ctx;
use parse::{parse_date, two_digit_year};

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
            let (key, inline) = args::split_long(long);
            let (name, c) = match args::match_long(LONG, key, |(n, _)| *n).as_slice() {
                [&(n, c)] => (n, c),
                [] => return Err(format!("date: unrecognized option '{arg}'\n{TRY}")),
                // `--u` could be --utc or --universal: both mean -u.
                many if many.iter().all(|(_, c)| *c == 'u') => ("utc", 'u'),
                _ => return Err(format!("date: option '{arg}' is ambiguous\n{TRY}")),
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
                    let Some(value) = args::required_value(inline, args, &mut i) else {
                        return Err(format!("date: option '--{name}' requires an argument\n{TRY}"));
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
                        let rest = arg.get(j..).filter(|r| !r.is_empty()).map(str::to_string);
                        let Some(value) = args::required_value(rest, args, &mut i) else {
                            return Err(format!("date: option requires an argument -- '{c}'\n{TRY}"));
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

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Instant = Instant { secs: 1_767_323_045, nanos: 0 }; // 2026-01-02T03:04:05Z

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
