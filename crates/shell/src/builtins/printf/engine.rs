//! The format engine: walks the format, once per pass over the arguments.

use super::escape::{escape, first_utf8_char, shell_quote, Escape};
use super::{Env, Formatted, MAX_PAD};
use crate::builtins::common::cformat::float::{fmt_float, parse_float, Num};
use crate::builtins::common::cformat::{fmt_int, pad_into, strtoimax, strtoumax, Spec};
use crate::builtins::common::strftime::strftime;

/// Formats like bash's `printf FORMAT ARGS...` in the C locale: the output
/// and the diagnostics (without the `printf: ` prefix).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn format(fmt: &str, args: &[String]) -> (Vec<u8>, Vec<String>) {
    let f = format_with(fmt.as_bytes(), args, &Env { utf8: false, now: 0 });
    (f.out, f.messages)
}

/// The format engine.
pub(crate) fn format_with(fmt: &[u8], args: &[String], env: &Env) -> Formatted {
    let mut engine = Engine { args, next: 0, env, res: Formatted::default() };
    loop {
        let before = engine.next;
        if engine.pass(fmt) == Flow::Stop {
            break;
        }
        if engine.next >= args.len() || engine.next == before {
            break;
        }
    }
    engine.res
}

#[derive(PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

struct Engine<'a> {
    args: &'a [String],
    next: usize,
    env: &'a Env,
    res: Formatted,
}

impl<'a> Engine<'a> {
    fn take(&mut self) -> Option<&'a str> {
        let args: &'a [String] = self.args;
        let arg = args.get(self.next)?;
        self.next += 1;
        Some(arg.as_str())
    }

    /// bash's `sh_invalidnum`.
    fn invalid_number(&mut self, arg: &str) {
        let b = arg.as_bytes();
        let what = match (b.first(), b.get(1)) {
            (Some(b'0'), Some(c)) if c.is_ascii_digit() => "invalid octal number",
            (Some(b'0'), Some(b'x')) => "invalid hex number",
            _ => "invalid number",
        };
        self.res.messages.push(format!("{arg}: {what}"));
        self.res.failed = true;
    }

    fn erange(&mut self, arg: &str) {
        self.res.messages.push(format!("warning: {arg}: Numerical result out of range"));
    }

    /// The next argument as a number: a quoted character's code, or what
    /// `parse` (a C `strto*` function) reads, reporting an invalid or
    /// out-of-range number as bash does.
    fn number_arg<T>(&mut self, zero: T, code: fn(i64) -> T, parse: fn(&[u8]) -> (T, usize, bool)) -> T {
        let Some(arg) = self.take() else { return zero };
        let bytes = arg.as_bytes();
        if matches!(bytes.first(), Some(b'\'' | b'"')) {
            return code(char_code(&bytes[1..], self.env.utf8));
        }
        let (value, end, erange) = parse(bytes);
        if end != bytes.len() {
            self.invalid_number(arg);
        } else if erange {
            self.erange(arg);
        }
        value
    }

    /// bash's `getintmax`.
    fn int_arg(&mut self) -> i64 {
        self.number_arg(0, |c| c, strtoimax)
    }

    /// bash's `getuintmax`.
    fn uint_arg(&mut self) -> u64 {
        self.number_arg(0, |c| c as u64, strtoumax)
    }

    /// bash's `getfloatmax`.
    fn float_arg(&mut self) -> Num {
        self.number_arg(Num::ZERO, Num::from_i64, parse_float)
    }

    /// bash's `getint`, for `*` widths and precisions.
    /// (Like bash, the out-of-range warning names the argument after the
    /// number, and the last argument is truncated rather than clamped.)
    fn star_arg(&mut self) -> i64 {
        let v = self.int_arg();
        let Some(next) = self.args.get(self.next).cloned() else {
            return i64::from(v as i32);
        };
        let clamped = v.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
        if clamped != v {
            self.erange(&next);
        }
        clamped
    }

    fn fatal(&mut self, message: String) -> Flow {
        self.res.messages.push(message);
        self.res.failed = true;
        Flow::Stop
    }

    /// One pass over the format.
    fn pass(&mut self, fmt: &[u8]) -> Flow {
        let mut i = 0;
        while i < fmt.len() {
            let c = fmt[i];
            if c == b'\\' {
                i += 1;
                let (consumed, esc) = escape(&fmt[i..], false, self.env.utf8);
                i += consumed;
                self.push_escape(esc);
                continue;
            }
            if c != b'%' {
                // Copy the run of plain bytes at once.
                let end = fmt[i..].iter().position(|&b| b == b'\\' || b == b'%').map_or(fmt.len(), |p| i + p);
                self.res.out.extend_from_slice(&fmt[i..end]);
                i = end;
                continue;
            }
            let start = i;
            i += 1;
            if fmt.get(i) == Some(&b'%') {
                self.res.out.push(b'%');
                i += 1;
                continue;
            }
            let mut spec = Spec::default();
            while let Some(&f) = fmt.get(i) {
                match f {
                    b'-' => spec.minus = true,
                    b'+' => spec.plus = true,
                    b' ' => spec.space = true,
                    b'0' => spec.zero = true,
                    b'#' => spec.alt = true,
                    b'\'' => {}
                    _ => break,
                }
                i += 1;
            }
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let w = self.star_arg();
                if w < 0 {
                    spec.minus = true;
                }
                spec.width = usize::try_from(w.unsigned_abs()).unwrap_or(MAX_PAD).min(MAX_PAD);
            } else {
                let (n, used) = digits(&fmt[i..]);
                spec.width = n.min(MAX_PAD);
                i += used;
            }
            if fmt.get(i) == Some(&b'.') {
                i += 1;
                if fmt.get(i) == Some(&b'*') {
                    i += 1;
                    let p = self.star_arg();
                    spec.precision = usize::try_from(p).ok().map(|p| p.min(MAX_PAD));
                } else {
                    let (n, used) = digits(&fmt[i..]);
                    spec.precision = Some(n.min(MAX_PAD));
                    i += used;
                }
            }
            while matches!(fmt.get(i), Some(b'h' | b'j' | b'l' | b'L' | b't' | b'z')) {
                i += 1;
            }
            let Some(&conv) = fmt.get(i) else {
                let text = String::from_utf8_lossy(&fmt[start..]).into_owned();
                return self.fatal(format!("`{text}': missing format character"));
            };
            i += 1;
            match conv {
                b's' => {
                    let s = self.take().unwrap_or_default().as_bytes().to_vec();
                    self.put_str(&s, &spec);
                }
                b'c' => {
                    let c = self.take().and_then(|a| a.as_bytes().first().copied()).unwrap_or(0);
                    let mut s = spec;
                    s.precision = None;
                    self.put_str(&[c], &s);
                }
                b'b' => {
                    let arg = self.take().unwrap_or_default().to_string();
                    let (expanded, stop) = self.bexpand(arg.as_bytes());
                    self.put_str(&expanded, &spec);
                    if stop {
                        return Flow::Stop;
                    }
                }
                b'q' | b'Q' => {
                    let arg = self.take().unwrap_or_default().as_bytes().to_vec();
                    let mut s = spec;
                    let arg = if conv == b'Q' {
                        s.precision = None;
                        match spec.precision {
                            Some(p) if p < arg.len() => arg[..p].to_vec(),
                            _ => arg,
                        }
                    } else {
                        arg
                    };
                    let quoted = shell_quote(&arg, self.env.utf8);
                    self.put_str(&quoted, &s);
                }
                b'd' | b'i' => {
                    let v = self.int_arg();
                    let text = fmt_int(v < 0, v.unsigned_abs(), b'd', &spec);
                    self.res.out.extend_from_slice(&text);
                }
                b'o' | b'u' | b'x' | b'X' => {
                    let v = self.uint_arg();
                    let text = fmt_int(false, v, conv, &spec);
                    self.res.out.extend_from_slice(&text);
                }
                b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
                    let v = self.float_arg();
                    let text = fmt_float(v, conv, &spec);
                    self.res.out.extend_from_slice(&text);
                }
                b'(' => {
                    let Some(close) = fmt[i..].iter().position(|&b| b == b')') else {
                        // Like bash: a warning, then the `%` is printed and
                        // the format goes on after it.
                        self.res.messages.push("warning: `': invalid time format specification".to_string());
                        self.res.out.push(b'%');
                        i = start + 1;
                        continue;
                    };
                    let timefmt = String::from_utf8_lossy(&fmt[i..i + close]).into_owned();
                    i += close + 1;
                    if fmt.get(i) != Some(&b'T') {
                        let c = fmt.get(i).map_or(String::new(), |&c| char::from(c).to_string());
                        self.res.messages.push(format!("warning: `{c}': invalid time format specification"));
                        // bash prints the `%` and goes on after it.
                        self.res.out.push(b'%');
                        i = start + 1;
                        continue;
                    }
                    i += 1;
                    let secs = match self.args.get(self.next) {
                        None => -1,
                        Some(_) => self.int_arg(),
                    };
                    let secs = if secs == -1 || secs == -2 { self.env.now } else { secs };
                    // Where C's localtime fails (the year does not fit an
                    // int), bash uses the epoch.
                    let secs = if secs.unsigned_abs() > 67_767_976_233_316_800 { 0 } else { secs };
                    let timefmt = if timefmt.is_empty() { "%X".to_string() } else { timefmt };
                    let mut text = strftime(&timefmt, secs, 0);
                    // bash formats into a 128-byte buffer: what does not
                    // fit leaves nothing.
                    if text.len() >= 128 {
                        text.clear();
                    }
                    self.put_str(text.as_bytes(), &spec);
                }
                other => {
                    let c =
                        if other.is_ascii() { char::from(other).to_string() } else { format!("\\{other:o}") };
                    return self.fatal(format!("`{c}': invalid format character"));
                }
            }
        }
        Flow::Go
    }

    fn push_escape(&mut self, esc: Escape) {
        match esc {
            Escape::Byte(b) => self.res.out.push(b),
            Escape::Bytes(v) => self.res.out.extend_from_slice(&v),
            Escape::Stop => {}
            Escape::MissingHex => {
                self.res.messages.push("missing hex digit for \\x".to_string());
                self.res.out.push(b'\\');
            }
            Escape::MissingUnicode(c) => {
                self.res.messages.push(format!("missing unicode digit for \\{}", char::from(c)));
                self.res.out.push(b'\\');
            }
        }
    }

    /// `%b`'s expansion; `true` when `\c` stops all output.
    fn bexpand(&mut self, s: &[u8]) -> (Vec<u8>, bool) {
        let mut out = Vec::with_capacity(s.len());
        let mut i = 0;
        while i < s.len() {
            let c = s[i];
            i += 1;
            if c != b'\\' || i >= s.len() {
                out.push(c);
                continue;
            }
            let (consumed, esc) = escape(&s[i..], true, self.env.utf8);
            i += consumed;
            match esc {
                Escape::Byte(b) => out.push(b),
                Escape::Bytes(v) => out.extend_from_slice(&v),
                Escape::Stop => return (out, true),
                Escape::MissingHex => {
                    self.res.messages.push("missing hex digit for \\x".to_string());
                    out.push(b'\\');
                }
                Escape::MissingUnicode(c) => {
                    self.res.messages.push(format!("missing unicode digit for \\{}", char::from(c)));
                    out.push(b'\\');
                }
            }
        }
        (out, false)
    }

    /// A string conversion: precision truncates, width pads with spaces.
    fn put_str(&mut self, s: &[u8], spec: &Spec) {
        let s = match spec.precision {
            Some(p) if p < s.len() => &s[..p],
            _ => s,
        };
        pad_into(&mut self.res.out, s, spec.width, spec.minus);
    }
}

/// A run of decimal digits: its (saturated) value and length.
fn digits(s: &[u8]) -> (usize, usize) {
    let mut n: usize = 0;
    let mut used = 0;
    while let Some(&d) = s.get(used) {
        if !d.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
        used += 1;
    }
    (n, used)
}

/// The value of a `'c` argument: the character's code.
fn char_code(s: &[u8], utf8: bool) -> i64 {
    if utf8 {
        if let Some(c) = first_utf8_char(s) {
            return i64::from(u32::from(c));
        }
    }
    s.first().map_or(0, |&b| i64::from(b))
}
