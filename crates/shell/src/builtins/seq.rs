//! `seq`: print a sequence of numbers (GNU coreutils semantics): `FIRST
//! [INCR] LAST`, negative and fractional steps, `-s SEP`, `-w` (equal
//! width) and `-f FORMAT` with one `%e`, `%f` or `%g` directive. Integers
//! are exact; other numbers use `f64` (GNU uses `long double`).

use super::args;
use super::common::cformat::float::fmt_double;
use super::common::cformat::Spec;
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "seq",
    run,
    help: "Usage: seq [OPTION]... LAST\n\
  or:  seq [OPTION]... FIRST LAST\n\
  or:  seq [OPTION]... FIRST INCREMENT LAST\n\
Print numbers from FIRST to LAST, in steps of INCREMENT.\n\
\n\
  -f, --format=FORMAT      use printf style floating-point FORMAT\n\
  -s, --separator=STRING   use STRING to separate numbers (default: \\n)\n\
  -w, --equal-width        equalize width by padding with leading zeroes\n",
    help_flag: true,
};

/// A parsed operand: its value, digits after the point (None: no fixed
/// precision, as for hex, infinities or NaN) and printed width.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Operand {
    value: f64,
    precision: Option<usize>,
    width: usize,
    /// Exact value when written as a plain integer.
    int: Option<i128>,
}

fn parse_operand(arg: &str) -> Option<Operand> {
    let s = arg.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let s = s.strip_prefix('+').unwrap_or(s);
    let lower = s.to_ascii_lowercase();
    let body = lower.strip_prefix('-').unwrap_or(&lower);
    if body.starts_with("inf") || body.starts_with("nan") || body.starts_with("0x") {
        let v = match body {
            "inf" | "infinity" => f64::INFINITY,
            "nan" => f64::NAN,
            _ => {
                let hex = body.strip_prefix("0x")?;
                let n = i128::from_str_radix(hex, 16).ok()?;
                n as f64
            }
        };
        let v = if lower.starts_with('-') { -v } else { v };
        return Some(Operand { value: v, precision: None, width: s.len(), int: None });
    }
    // digits [. digits] [e [sign] digits]
    let b = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    let mut frac = 0usize;
    let mut has_point = false;
    if i < b.len() && b[i] == b'.' {
        has_point = true;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
            frac += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    let mut exponent: Option<i64> = None;
    let mantissa_end = i;
    if i < b.len() && b[i] == b'e' {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let ds = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == ds {
            return None;
        }
        exponent = Some(body[i + 1..j].parse::<i64>().ok()?);
        i = j;
    }
    if i != b.len() {
        return None;
    }
    let value: f64 = s.parse().ok()?;
    let mut precision = frac;
    let mut width = s.len();
    if let Some(e) = exponent {
        precision = if e < 0 {
            precision.saturating_add(usize::try_from(e.unsigned_abs()).unwrap_or(usize::MAX))
        } else {
            precision - precision.min(usize::try_from(e).unwrap_or(usize::MAX))
        };
        width -= s.len() - mantissa_end - (s.len() - body.len());
    }
    let precision = precision.min(MAX_WIDTH);
    let int = if exponent.is_none() && !has_point { s.parse::<i128>().ok() } else { None };
    Some(Operand { value, precision: Some(precision), width, int })
}

/// A `printf` floating-point conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Conv {
    prefix: String,
    suffix: String,
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    kind: char,
}

impl Conv {
    /// Plain `%g`, what seq uses without a format or decimal operands.
    fn plain() -> Conv {
        Conv {
            prefix: String::new(),
            suffix: String::new(),
            left: false,
            plus: false,
            space: false,
            alt: false,
            zero: false,
            width: 0,
            precision: None,
            kind: 'g',
        }
    }
}

/// The largest field width or precision honoured.
const MAX_WIDTH: usize = 1 << 16;

fn parse_format(fmt: &str) -> Result<Conv, String> {
    let mut prefix = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let unescape_pct = |s: &mut String, c: &[char], i: &mut usize| {
        // handles "%%"
        s.push('%');
        *i += 2;
        let _ = c;
    };
    while i < chars.len() {
        if chars[i] == '%' {
            if chars.get(i + 1) == Some(&'%') {
                unescape_pct(&mut prefix, &chars, &mut i);
                continue;
            }
            break;
        }
        prefix.push(chars[i]);
        i += 1;
    }
    if i >= chars.len() {
        return Err(format!("format '{fmt}' has no % directive"));
    }
    let start = i;
    i += 1;
    let mut c = Conv { prefix, ..Conv::plain() };
    while let Some(&f) = chars.get(i) {
        match f {
            '-' => c.left = true,
            '+' => c.plus = true,
            ' ' => c.space = true,
            '#' => c.alt = true,
            '0' => c.zero = true,
            '\'' => {}
            _ => break,
        }
        i += 1;
    }
    while let Some(d) = chars.get(i).and_then(|ch| ch.to_digit(10)) {
        // Bounded: a huge width must not exhaust the sandbox's memory.
        c.width = c.width.saturating_mul(10).saturating_add(d as usize).min(MAX_WIDTH);
        i += 1;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        let mut p = 0usize;
        while let Some(d) = chars.get(i).and_then(|ch| ch.to_digit(10)) {
            p = p.saturating_mul(10).saturating_add(d as usize).min(MAX_WIDTH);
            i += 1;
        }
        c.precision = Some(p);
    }
    // Length modifiers are accepted.
    while matches!(chars.get(i), Some('l' | 'L' | 'h')) {
        i += 1;
    }
    match chars.get(i) {
        Some(&k) if "eEfFgGaA".contains(k) => c.kind = k,
        Some(_) => {
            let directive: String = chars[start..=i].iter().collect();
            return Err(format!("format '{fmt}' has unknown {directive} directive"));
        }
        None => {
            let directive: String = chars[start..].iter().collect();
            return Err(format!("format '{fmt}' ends in {directive}"));
        }
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '%' {
            if chars.get(i + 1) == Some(&'%') {
                c.suffix.push('%');
                i += 2;
                continue;
            }
            return Err(format!("format '{fmt}' has too many % directives"));
        }
        c.suffix.push(chars[i]);
        i += 1;
    }
    Ok(c)
}

/// One number printed by the conversion, between its prefix and suffix.
fn format_value(c: &Conv, x: f64) -> String {
    // `%a` has always printed as `%g` here (GNU seq prints hexadecimal).
    let conv = match c.kind {
        'a' => b'g',
        'A' => b'G',
        k => k as u8,
    };
    let spec = Spec {
        minus: c.left,
        plus: c.plus,
        space: c.space,
        zero: c.zero,
        alt: c.alt,
        width: c.width,
        precision: c.precision,
    };
    // A NaN prints without a sign.
    let x = if x.is_nan() { f64::NAN } else { x };
    let body = fmt_double(x, conv, &spec);
    format!("{}{}{}", c.prefix, String::from_utf8_lossy(&body), c.suffix)
}

fn usage_fail(ctx: &mut Ctx, msg: &str) -> i32 {
    ctx.err(format!("seq: {msg}\nTry 'seq --help' for more information.\n"));
    1
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut format: Option<String> = None;
    let mut sep = "\n".to_string();
    let mut equal_width = false;
    let mut operands: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let negative_number = a.len() > 1
            && a.starts_with('-')
            && a.as_bytes().get(1).is_some_and(|b| b.is_ascii_digit() || *b == b'.');
        if !operands.is_empty() || negative_number || a == "-" || !a.starts_with('-') {
            operands.push(a.clone());
            continue;
        }
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = args::split_long(long);
            let known = [("format", true), ("separator", true), ("equal-width", false)];
            // An ambiguous abbreviation (only `--=…` can be one) is
            // unrecognized too.
            let [&(full, takes)] = args::match_long(&known, name, |(n, _)| *n).as_slice() else {
                return usage_fail(ctx, &format!("unrecognized option '{a}'"));
            };
            let value = if takes {
                let Some(value) = args::required_value(inline, args, &mut i) else {
                    return usage_fail(ctx, &format!("option '--{full}' requires an argument"));
                };
                Some(value)
            } else if inline.is_some() {
                return usage_fail(ctx, &format!("option '--{full}' doesn't allow an argument"));
            } else {
                None
            };
            match full {
                "format" => format = value,
                "separator" => sep = value.unwrap_or_default(),
                _ => equal_width = true,
            }
            continue;
        }
        let flags: Vec<char> = a.chars().skip(1).collect();
        let mut k = 0;
        while k < flags.len() {
            let f = flags[k];
            k += 1;
            match f {
                'w' => equal_width = true,
                'f' | 's' => {
                    let rest: String = flags[k..].iter().collect();
                    let attached = Some(rest).filter(|r| !r.is_empty());
                    let Some(value) = args::required_value(attached, args, &mut i) else {
                        return usage_fail(ctx, &format!("option requires an argument -- '{f}'"));
                    };
                    if f == 'f' {
                        format = Some(value);
                    } else {
                        sep = value;
                    }
                    break;
                }
                other => return usage_fail(ctx, &format!("invalid option -- '{other}'")),
            }
        }
    }
    if operands.is_empty() {
        return usage_fail(ctx, "missing operand");
    }
    if operands.len() > 3 {
        return usage_fail(ctx, &format!("extra operand '{}'", operands[3]));
    }
    let mut parsed = Vec::new();
    for op in &operands {
        match parse_operand(op) {
            Some(p) if p.value.is_nan() => {
                return usage_fail(ctx, &format!("invalid 'not-a-number' argument: '{op}'"))
            }
            Some(p) => parsed.push(p),
            None => return usage_fail(ctx, &format!("invalid floating point argument: '{op}'")),
        }
    }
    let one = Operand { value: 1.0, precision: Some(0), width: 1, int: Some(1) };
    let (first, step, last) = match parsed.as_slice() {
        [l] => (one, one, *l),
        [f, l] => (*f, one, *l),
        [f, s, l] => (*f, *s, *l),
        _ => return 1,
    };
    if step.value == 0.0 {
        let op = if operands.len() == 3 { &operands[1] } else { "0" };
        return usage_fail(ctx, &format!("invalid Zero increment value: '{op}'"));
    }
    if format.is_some() && equal_width {
        return usage_fail(ctx, "format string may not be specified when printing equal width strings");
    }
    let conv = match &format {
        Some(f) => match parse_format(f) {
            Ok(c) => Some(c),
            Err(m) => {
                ctx.error("seq", m);
                return 1;
            }
        },
        None => None,
    };
    let mut out = String::new();
    // Exact integers.
    if let (None, Some(a), Some(s), Some(b)) = (&conv, first.int, step.int, last.int) {
        let width = if equal_width { first.width.max(last.width) } else { 0 };
        let mut x = a;
        let mut any = false;
        while (s > 0 && x <= b) || (s < 0 && x >= b) {
            if any {
                out.push_str(&sep);
            }
            any = true;
            let digits = x.unsigned_abs().to_string();
            let sign = if x < 0 { "-" } else { "" };
            let pad = width.saturating_sub(digits.len() + sign.len());
            out.push_str(sign);
            out.push_str(&"0".repeat(pad));
            out.push_str(&digits);
            if out.len() > 1 << 16 {
                if ctx.out(&out).is_err() {
                    return 0;
                }
                out.clear();
            }
            match x.checked_add(s) {
                Some(n) => x = n,
                None => break,
            }
        }
        if any {
            out.push('\n');
        }
        let _ = ctx.out(&out);
        return 0;
    }
    let conv = match conv {
        Some(c) => c,
        None => {
            let prec = first.precision.zip(step.precision).map(|(a, b)| a.max(b));
            match (prec, last.precision) {
                (Some(prec), Some(last_prec)) => {
                    let mut width = 0;
                    if equal_width {
                        let mut first_w = first.width + (prec - first.precision.unwrap_or(0));
                        let mut last_w = last.width + prec;
                        last_w = last_w.saturating_sub(last_prec);
                        if last_prec > 0 && prec == 0 {
                            last_w = last_w.saturating_sub(1);
                        }
                        if last_prec == 0 && prec > 0 {
                            last_w += 1;
                        }
                        if first.precision == Some(0) && prec > 0 {
                            first_w += 1;
                        }
                        width = first_w.max(last_w);
                    }
                    Conv { zero: equal_width, width, precision: Some(prec), kind: 'f', ..Conv::plain() }
                }
                _ => Conv::plain(),
            }
        }
    };
    let (a, s, b) = (first.value, step.value, last.value);
    let out_of_range = |x: f64| if s < 0.0 { x < b } else { b < x };
    if out_of_range(a) {
        return 0;
    }
    let mut x = a;
    let mut n: f64 = 1.0;
    loop {
        let x0 = x;
        out.push_str(&format_value(&conv, x));
        x = a + n * s;
        n += 1.0;
        if out_of_range(x) {
            // Print one more number if it prints as LAST but differently
            // from the previous one (rounding), like GNU.
            let bare = Conv { prefix: String::new(), suffix: String::new(), ..conv.clone() };
            let xs = format_value(&bare, x);
            let extra = xs.trim().parse::<f64>().is_ok_and(|v| v == b) && xs != format_value(&bare, x0);
            if !extra {
                break;
            }
        }
        out.push_str(&sep);
        if out.len() > 1 << 16 {
            if ctx.out(&out).is_err() {
                return 0;
            }
            out.clear();
        }
        if !x.is_finite() {
            break;
        }
    }
    out.push('\n');
    let _ = ctx.out(&out);
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(f: &str) -> Conv {
        parse_format(f).unwrap_or_else(|_| Conv::plain())
    }

    #[test]
    fn formats() {
        assert_eq!(format_value(&conv("%g"), 100000.0), "100000");
        assert_eq!(format_value(&conv("%g"), 1000000.0), "1e+06");
        assert_eq!(format_value(&conv("%g"), 0.0001), "0.0001");
        assert_eq!(format_value(&conv("%g"), 0.5), "0.5");
        assert_eq!(format_value(&conv("%03g"), 1.0), "001");
        assert_eq!(format_value(&conv("x%5.2fy"), 1.5), "x 1.50y");
        assert_eq!(format_value(&conv("%e"), 1.0), "1.000000e+00");
        assert_eq!(format_value(&conv("%g%%"), 1.0), "1%");
        assert!(parse_format("abc").is_err());
        assert!(parse_format("%d").is_err());
    }

    #[test]
    fn operands() {
        let o = parse_operand("1.50");
        assert_eq!(o.map(|o| (o.precision, o.width)), Some((Some(2), 4)));
        let o = parse_operand("1e2");
        assert_eq!(o.map(|o| (o.value, o.precision)), Some((100.0, Some(0))));
        assert!(parse_operand("a").is_none());
    }
}
