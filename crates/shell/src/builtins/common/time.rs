//! Calendar arithmetic (proleptic Gregorian, UTC) and the date layouts
//! several builtins print: `date`, `printf %(…)T`, `stat`, `ls`, `find`,
//! `file` and `diff`.

const DAYS_PER_400Y: i64 = 146_097;

pub(crate) fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub(crate) fn days_in_month(y: i64, m: u32) -> u32 {
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

pub(crate) const WEEKDAY_NAMES: [&str; 7] =
    ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
pub(crate) const MONTH_NAMES: [&str; 12] = [
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
pub(crate) fn iso_week(tm: &Tm) -> (i64, u32) {
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

/// Civil date and time (UTC) of a Unix time in seconds:
/// (year, month 1-12, day, hour, minute, second).
pub(crate) fn civil(secs: i64) -> (i64, u32, u32, u32, u32, u32) {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    (y, m, d, (rem / 3600) as u32, (rem % 3600 / 60) as u32, (rem % 60) as u32)
}

/// Abbreviated month names, as `ls`, `find` and `file` print them.
pub(crate) const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// `2026-01-02 03:04:05.000000000 +0000`, as `stat` and `diff` print times.
pub(crate) fn full_time(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = civil((ms / 1000) as i64);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{:09} +0000", (ms % 1000) * 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn dates() {
        assert_eq!(full_time(1_767_323_045_000), "2026-01-02 03:04:05.000000000 +0000");
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(civil(-1), (1969, 12, 31, 23, 59, 59));
    }
}
