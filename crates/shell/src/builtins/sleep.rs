//! `sleep NUMBER[SUFFIX]...`: waits on the sandbox clock (the host bounds
//! the wait by the run's limits). Numbers are read like C's `strtod` (`1.5`,
//! `1e-3`, `0x1p-2`, `inf`), with an optional `s`, `m`, `h` or `d` suffix;
//! several arguments are summed.

use super::args::{self, Spec};
use super::common::cformat::float::parse_float;
use super::common::quote::gnu_quote;
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "sleep",
    run,
    help: "Usage: sleep NUMBER[SUFFIX]...\n  or:  sleep OPTION\n\
Pause for NUMBER seconds.  SUFFIX may be 's' for seconds (the default),\n\
'm' for minutes, 'h' for hours or 'd' for days.  NUMBER need not be an\n\
integer.  Given two or more arguments, pause for the amount of time\n\
specified by the sum of their values.\n\n\
      --help        display this help and exit\n",
    help_flag: true,
};

const TRY: &str = "Try 'sleep --help' for more information.\n";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("sleep", args, &Spec::new("")) {
        Ok(p) => p,
        Err(msg) => {
            // GNU sleep exits with 1 on usage errors.
            ctx.err(msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err(format!("sleep: missing operand\n{TRY}"));
        return 1;
    }
    let mut total = 0.0f64;
    let mut ok = true;
    for arg in &parsed.operands {
        match interval(arg) {
            Some(secs) => total += secs,
            None => {
                ctx.err(format!("sleep: invalid time interval {}\n", gnu_quote(arg)));
                ok = false;
            }
        }
    }
    if !ok {
        ctx.err(TRY);
        return 1;
    }
    let ms = (total * 1000.0).ceil();
    let ms = if ms.is_nan() || ms >= u64::MAX as f64 { u64::MAX } else { ms as u64 };
    if ms > 0 {
        // In a background job, the job's virtual time (see `crate::jobs`).
        match ctx.interp.job_elapsed.as_mut() {
            Some(t) => *t = t.saturating_add(ms),
            None => {
                ctx.sys().sleep(ms);
                ctx.interp.clock_ms = ctx.interp.clock_ms.saturating_add(ms);
            }
        }
    }
    0
}

/// Seconds for one operand, or `None` when it is not a valid interval.
fn interval(arg: &str) -> Option<f64> {
    let bytes = arg.as_bytes();
    let (num, end, _) = parse_float(bytes);
    if end == 0 {
        return None;
    }
    let value = num.to_f64();
    if value.is_nan() || value < 0.0 {
        return None;
    }
    let scale = match &bytes[end..] {
        b"" | b"s" => 1.0,
        b"m" => 60.0,
        b"h" => 3600.0,
        b"d" => 86_400.0,
        _ => return None,
    };
    Some(value * scale)
}

#[cfg(test)]
mod tests {
    use super::interval;

    #[test]
    fn intervals() {
        assert_eq!(interval("1"), Some(1.0));
        assert_eq!(interval("0.5"), Some(0.5));
        assert_eq!(interval(".5s"), Some(0.5));
        assert_eq!(interval("2m"), Some(120.0));
        assert_eq!(interval("1h"), Some(3600.0));
        assert_eq!(interval("1d"), Some(86_400.0));
        assert_eq!(interval("1e-3"), Some(0.001));
        assert_eq!(interval(" 0"), Some(0.0));
        assert_eq!(interval("x"), None);
        assert_eq!(interval(""), None);
        assert_eq!(interval("1x"), None);
        assert_eq!(interval("0.0.1"), None);
        assert_eq!(interval("0s5"), None);
        assert_eq!(interval("0ms"), None);
        assert_eq!(interval("-1"), None);
        assert_eq!(interval("inf"), Some(f64::INFINITY));
    }
}
