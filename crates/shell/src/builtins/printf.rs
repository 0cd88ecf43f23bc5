//! `printf` (bash's builtin): the format is reused until the arguments are
//! consumed; `%s %b %q %Q %c %d %i %o %u %x %X %e %E %f %F %g %G %a %A
//! %(fmt)T %%`, flags `-+ 0#'`, widths and precisions (also `*`), the
//! escapes of bash (`\n \t \0NNN \xHH \uHHHH` ...), numeric arguments as C's
//! `strtoimax`/`strtold` read them (`0x1f`, `010`, `'c`), and `-v VAR`.
//!
//! Floating-point conversions work like bash's, which uses the x87 80-bit
//! `long double`: arguments are rounded to a 64-bit mantissa and printed
//! exactly (`printf '%.1f' 0.15` is `0.2`, as in bash, not `0.1` as a
//! `double` would give).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "printf",
    run,
    help: "printf: printf [-v var] format [arguments]\n    \
Formats and prints ARGUMENTS under control of the FORMAT.\n\n    \
Options:\n      -v var\tassign the output to shell variable VAR rather than\n\t\tdisplay it on the standard output\n\n    \
FORMAT is a character string which contains three types of objects: plain\n    \
characters, which are simply copied to standard output; character escape\n    \
sequences, which are converted and copied to the standard output; and\n    \
format specifications, each of which causes printing of the next successive\n    \
argument.\n\n    \
In addition to the standard format characters csndiouxXeEfFgGaA described\n    \
in printf(3), printf interprets:\n\n      \
%b\texpand backslash escape sequences in the corresponding argument\n      \
%q\tquote the argument in a way that can be reused as shell input\n      \
%Q\tlike %q, but apply any precision to the unquoted argument before\n\t\tquoting\n      \
%(fmt)T\toutput the date-time string resulting from using FMT as a format\n\t        string for strftime(3) (the sandbox clock, UTC)\n\n    \
The format is re-used as necessary to consume all of the arguments.  If\n    \
there are fewer arguments than the format requires,  extra format\n    \
specifications behave as if a zero value or null string, as appropriate,\n    \
had been supplied.\n\n    \
Exit Status:\n    \
Returns success unless an invalid option is given or a write or assignment\n    \
error occurs.\n",
    help_flag: true,
};

const USAGE: &str = "printf: usage: printf [-v var] format [arguments]\n";

/// Widths and precisions beyond this are clamped (bash would try to print
/// them; the sandbox's output is bounded anyway).
const MAX_PAD: usize = 1 << 24;

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut rest = args;
    let mut var: Option<String> = None;
    // bash's internal_getopt with "v:": options only before the format.
    while let Some(first) = rest.first() {
        if first == "--" {
            rest = &rest[1..];
            break;
        }
        if first.len() < 2 || !first.starts_with('-') {
            break;
        }
        if let Some(v) = first.strip_prefix("-v") {
            if !v.is_empty() {
                var = Some(v.to_string());
                rest = &rest[1..];
            } else if let Some(name) = rest.get(1) {
                var = Some(name.clone());
                rest = &rest[2..];
            } else {
                ctx.shell_error("printf: -v: option requires an argument");
                ctx.err(USAGE);
                return 2;
            }
            continue;
        }
        ctx.shell_error(&format!("printf: {}: invalid option", first.get(..2).unwrap_or(first)));
        ctx.err(USAGE);
        return 2;
    }
    let Some(fmt) = rest.first() else {
        ctx.err(USAGE);
        return 2;
    };
    if let Some(name) = &var {
        if !valid_identifier(name) {
            ctx.shell_error(&format!("printf: `{name}': not a valid identifier"));
            return 2;
        }
    }
    let now = i64::try_from(ctx.sys().now_ms() / 1000).unwrap_or(0);
    let env = Env { utf8: utf8_locale(ctx), now };
    let result = format_with(fmt.as_bytes(), &rest[1..], &env);
    // bash buffers the output and flushes it at the end, after the messages
    // (which only matters when both go to the same place).
    for message in &result.messages {
        ctx.shell_error(&format!("printf: {message}"));
    }
    let mut status = i32::from(result.failed);
    match var {
        Some(name) => {
            let bytes = match result.out.iter().position(|&b| b == 0) {
                Some(nul) => &result.out[..nul],
                None => &result.out[..],
            };
            let value = String::from_utf8_lossy(bytes).into_owned();
            if !ctx.state().set(&name, value) {
                ctx.shell_error(&format!("{name}: readonly variable"));
                status = 1;
            }
        }
        None => {
            if ctx.out(&result.out).is_err() {
                status = 1;
            }
        }
    }
    status
}

fn valid_identifier(name: &str) -> bool {
    let mut chars = name.bytes();
    matches!(chars.next(), Some(c) if c == b'_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == b'_' || c.is_ascii_alphanumeric())
}

/// Whether the shell's locale variables ask for UTF-8 (`\u` escapes, `%q`
/// and `'c` arguments then work on characters, as bash does).
pub(crate) fn utf8_locale(ctx: &mut Ctx) -> bool {
    let state = ctx.state();
    for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
        if let Some(v) = state.get(name) {
            if !v.is_empty() {
                let v = v.to_ascii_lowercase();
                return v.contains("utf-8") || v.contains("utf8");
            }
        }
    }
    false
}

/// What the format engine needs from the outside world.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Env {
    /// The locale's character set is UTF-8 (`\u` escapes encode to it).
    pub utf8: bool,
    /// Seconds since the epoch, for `%(fmt)T` with `-1` or no argument.
    pub now: i64,
}

/// The result of formatting.
#[derive(Debug, Default)]
pub(crate) struct Formatted {
    pub out: Vec<u8>,
    /// Diagnostics without the `printf: ` prefix (`abc: invalid number`,
    /// `warning: ...`).
    pub messages: Vec<String>,
    /// The exit status is 1.
    pub failed: bool,
}

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

#[derive(Default, Clone, Copy)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
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

    /// bash's `getintmax`.
    fn int_arg(&mut self) -> i64 {
        let Some(arg) = self.take() else { return 0 };
        let bytes = arg.as_bytes();
        if matches!(bytes.first(), Some(b'\'' | b'"')) {
            return char_code(&bytes[1..], self.env.utf8);
        }
        let (value, end, erange) = strtoimax(bytes);
        if end != bytes.len() {
            let arg = arg.to_string();
            self.invalid_number(&arg);
        } else if erange {
            let arg = arg.to_string();
            self.erange(&arg);
        }
        value
    }

    /// bash's `getuintmax`.
    fn uint_arg(&mut self) -> u64 {
        let Some(arg) = self.take() else { return 0 };
        let bytes = arg.as_bytes();
        if matches!(bytes.first(), Some(b'\'' | b'"')) {
            return char_code(&bytes[1..], self.env.utf8) as u64;
        }
        let (value, end, erange) = strtoumax(bytes);
        if end != bytes.len() {
            let arg = arg.to_string();
            self.invalid_number(&arg);
        } else if erange {
            let arg = arg.to_string();
            self.erange(&arg);
        }
        value
    }

    /// bash's `getfloatmax`.
    fn float_arg(&mut self) -> Num {
        let Some(arg) = self.take() else { return Num::ZERO };
        let bytes = arg.as_bytes();
        if matches!(bytes.first(), Some(b'\'' | b'"')) {
            return Num::from_i64(char_code(&bytes[1..], self.env.utf8));
        }
        let (value, end, erange) = parse_float(bytes);
        if end != bytes.len() {
            let arg = arg.to_string();
            self.invalid_number(&arg);
        } else if erange {
            let arg = arg.to_string();
            self.erange(&arg);
        }
        value
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
                    let text = super::date::strftime(&timefmt, secs, 0);
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

fn pad_into(out: &mut Vec<u8>, s: &[u8], width: usize, left: bool) {
    let fill = width.saturating_sub(s.len());
    if left {
        out.extend_from_slice(s);
        out.resize(out.len() + fill, b' ');
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(s);
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

fn first_utf8_char(s: &[u8]) -> Option<char> {
    let len = match s.first()? {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return None,
    };
    std::str::from_utf8(s.get(..len)?).ok()?.chars().next()
}

/// What a backslash escape stands for.
enum Escape {
    Byte(u8),
    Bytes(Vec<u8>),
    /// `\c` in `%b`: stop printing.
    Stop,
    MissingHex,
    MissingUnicode(u8),
}

/// bash's `tescape`: `s` starts after the backslash. In `%b` arguments
/// (`in_b`), `\0` takes up to three more octal digits, `\c` stops and `\'`
/// `\"` `\?` stay as they are. Returns the bytes consumed after the
/// backslash (0 when the backslash is printed as itself).
fn escape(s: &[u8], in_b: bool, utf8: bool) -> (usize, Escape) {
    let Some(&c) = s.first() else {
        return (0, Escape::Byte(b'\\'));
    };
    let byte = |b: u8| (1, Escape::Byte(b));
    match c {
        b'a' => byte(7),
        b'b' => byte(8),
        b'e' | b'E' => byte(0x1b),
        b'f' => byte(0x0c),
        b'n' => byte(b'\n'),
        b'r' => byte(b'\r'),
        b't' => byte(b'\t'),
        b'v' => byte(0x0b),
        b'\\' => byte(b'\\'),
        b'0'..=b'7' => {
            let mut value = u32::from(c - b'0');
            let mut more = if in_b && value == 0 { 3 } else { 2 };
            let mut used = 1;
            while more > 0 {
                match s.get(used) {
                    Some(&d @ b'0'..=b'7') => {
                        value = value * 8 + u32::from(d - b'0');
                        used += 1;
                        more -= 1;
                    }
                    _ => break,
                }
            }
            (used, Escape::Byte((value & 0xff) as u8))
        }
        b'x' => {
            let mut value = 0u32;
            let mut used = 1;
            while used < 3 {
                match s.get(used).and_then(|&d| char::from(d).to_digit(16)) {
                    Some(d) => {
                        value = value * 16 + d;
                        used += 1;
                    }
                    None => break,
                }
            }
            if used == 1 {
                return (0, Escape::MissingHex);
            }
            (used, Escape::Byte((value & 0xff) as u8))
        }
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            let mut value = 0u32;
            let mut used = 1;
            while used <= max {
                match s.get(used).and_then(|&d| char::from(d).to_digit(16)) {
                    Some(d) => {
                        value = value.wrapping_mul(16).wrapping_add(d);
                        used += 1;
                    }
                    None => break,
                }
            }
            if used == 1 {
                return (0, Escape::MissingUnicode(c));
            }
            if value <= 0x7f {
                return (used, Escape::Byte(value as u8));
            }
            match char::from_u32(value) {
                Some(ch) if utf8 => {
                    let mut buf = [0u8; 4];
                    (used, Escape::Bytes(ch.encode_utf8(&mut buf).as_bytes().to_vec()))
                }
                // bash in the C locale (or for an invalid code point) prints
                // the escape again, in upper case.
                _ => {
                    let text = if c == b'u' { format!("\\u{value:04X}") } else { format!("\\U{value:08X}") };
                    (used, Escape::Bytes(text.into_bytes()))
                }
            }
        }
        b'\'' | b'"' | b'?' if !in_b => byte(c),
        b'c' if in_b => (1, Escape::Stop),
        _ => (0, Escape::Byte(b'\\')),
    }
}

/// bash's `%q`: `''` for the empty string, `$'...'` when a character is not
/// printable, backslashes before special characters otherwise.
pub(crate) fn shell_quote(s: &[u8], utf8: bool) -> Vec<u8> {
    if s.is_empty() {
        return b"''".to_vec();
    }
    if needs_ansi_c(s, utf8) {
        return ansi_c_quote(s, utf8);
    }
    let mut out = Vec::with_capacity(s.len() + 8);
    for (i, &c) in s.iter().enumerate() {
        let special = matches!(
            c,
            b' ' | b'\t'
                | b'\n'
                | b'!'
                | b'"'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b','
                | b';'
                | b'<'
                | b'>'
                | b'?'
                | b'['
                | b'\\'
                | b']'
                | b'^'
                | b'`'
                | b'{'
                | b'|'
                | b'}'
        ) || (c == b'#' && i == 0)
            || (c == b'~' && (i == 0 || matches!(s[i - 1], b':' | b'=')));
        if special {
            out.push(b'\\');
        }
        out.push(c);
    }
    out
}

/// Yields each character as (its bytes, is it printable).
fn for_each_char(s: &[u8], utf8: bool, mut f: impl FnMut(&[u8], bool)) {
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c < 0x80 || !utf8 {
            f(&s[i..=i], (0x20..0x7f).contains(&c));
            i += 1;
            continue;
        }
        match first_utf8_char(&s[i..]) {
            Some(ch) => {
                let len = ch.len_utf8();
                let printable = !matches!(u32::from(ch), 0x80..=0x9f);
                f(&s[i..i + len], printable);
                i += len;
            }
            None => {
                f(&s[i..=i], false);
                i += 1;
            }
        }
    }
}

fn needs_ansi_c(s: &[u8], utf8: bool) -> bool {
    let mut needs = false;
    for_each_char(s, utf8, |_, printable| needs |= !printable);
    needs
}

fn ansi_c_quote(s: &[u8], utf8: bool) -> Vec<u8> {
    let mut out = b"$'".to_vec();
    for_each_char(s, utf8, |ch, printable| {
        let c = ch[0];
        let named = match c {
            0x1b => Some(b'E'),
            7 => Some(b'a'),
            0x0b => Some(b'v'),
            8 => Some(b'b'),
            0x0c => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            b'\\' | b'\'' => Some(c),
            _ => None,
        };
        if let Some(n) = named {
            out.push(b'\\');
            out.push(n);
        } else if !printable {
            for &b in ch {
                out.extend_from_slice(&[b'\\', b'0' + (b >> 6), b'0' + ((b >> 3) & 7), b'0' + (b & 7)]);
            }
        } else {
            out.extend_from_slice(ch);
        }
    });
    out.push(b'\'');
    out
}

/// How GNU tools quote an operand in a message in the C locale
/// (`quote()`): `'a\'b'`, C escapes and octal for unprintable bytes.
pub(crate) fn gnu_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for &b in s.as_bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            7 => out.push_str("\\a"),
            8 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0b => out.push_str("\\v"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('\'');
    out
}

// ---------------------------------------------------------------------------
// Integers.

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `strtol` family with base 0: (negative, magnitude saturated at
/// `u64::MAX`, overflowed, end of the number; 0 when there is none).
fn parse_c_int(s: &[u8]) -> (bool, u64, bool, usize) {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if let Some(&c @ (b'+' | b'-')) = s.get(i) {
        neg = c == b'-';
        i += 1;
    }
    let mut base = 10u64;
    if s.get(i) == Some(&b'0') {
        if matches!(s.get(i + 1), Some(b'x' | b'X')) && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit()) {
            base = 16;
            i += 2;
        } else {
            base = 8;
        }
    }
    let digits_start = i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|&c| char::from(c).to_digit(base as u32)) {
        match value.checked_mul(base).and_then(|v| v.checked_add(u64::from(d))) {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == digits_start {
        return (false, 0, false, 0);
    }
    (neg, if overflow { u64::MAX } else { value }, overflow, i)
}

/// C's `strtoimax(s, &end, 0)`: (value, end, out of range).
pub(crate) fn strtoimax(s: &[u8]) -> (i64, usize, bool) {
    let (neg, mag, overflow, end) = parse_c_int(s);
    if neg {
        if overflow || mag > 1u64 << 63 {
            return (i64::MIN, end, true);
        }
        (0i64.wrapping_sub_unsigned(mag), end, false)
    } else if overflow || mag > i64::MAX as u64 {
        (i64::MAX, end, true)
    } else {
        (mag as i64, end, false)
    }
}

/// C's `strtoumax(s, &end, 0)`: (value, end, out of range).
pub(crate) fn strtoumax(s: &[u8]) -> (u64, usize, bool) {
    let (neg, mag, overflow, end) = parse_c_int(s);
    if overflow {
        return (u64::MAX, end, true);
    }
    (if neg { mag.wrapping_neg() } else { mag }, end, false)
}

fn fmt_int(neg: bool, mag: u64, conv: u8, spec: &Spec) -> Vec<u8> {
    let mut digits = match conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    }
    .into_bytes();
    if let Some(p) = spec.precision {
        if p == 0 && mag == 0 {
            digits.clear();
        }
        if digits.len() < p {
            let mut padded = vec![b'0'; p - digits.len()];
            padded.extend_from_slice(&digits);
            digits = padded;
        }
    }
    let mut prefix: Vec<u8> = Vec::new();
    match conv {
        b'd' => {
            if neg {
                prefix.push(b'-');
            } else if spec.plus {
                prefix.push(b'+');
            } else if spec.space {
                prefix.push(b' ');
            }
        }
        b'o' if spec.alt && digits.first() != Some(&b'0') => digits.insert(0, b'0'),
        b'x' if spec.alt && mag != 0 => prefix.extend_from_slice(b"0x"),
        b'X' if spec.alt && mag != 0 => prefix.extend_from_slice(b"0X"),
        _ => {}
    }
    let zero_pad = spec.zero && !spec.minus && spec.precision.is_none();
    assemble(&prefix, &digits, spec.width, spec.minus, zero_pad)
}

/// Sign or prefix, then the body, padded to `width`.
fn assemble(prefix: &[u8], body: &[u8], width: usize, left: bool, zero_pad: bool) -> Vec<u8> {
    let len = prefix.len() + body.len();
    let fill = width.saturating_sub(len);
    let mut out = Vec::with_capacity(len + fill);
    if left {
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if zero_pad {
        out.extend_from_slice(prefix);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(fill, b' ');
        out.extend_from_slice(prefix);
        out.extend_from_slice(body);
    }
    out
}

// ---------------------------------------------------------------------------
// Floating point, as the x87 80-bit `long double` bash uses.

/// A `long double`: `mant * 2^exp` with the top bit of `mant` set (or zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Num {
    Finite { neg: bool, mant: u64, exp: i32 },
    Inf { neg: bool },
    Nan { neg: bool },
}

impl Num {
    pub(crate) const ZERO: Num = Num::Finite { neg: false, mant: 0, exp: 0 };

    /// The nearest `f64` (infinite for huge values; NaN stays NaN).
    pub(crate) fn to_f64(self) -> f64 {
        match self {
            Num::Finite { neg, mant, exp } => {
                let mag = if mant == 0 {
                    0.0
                } else {
                    // Split the scaling so that neither factor overflows
                    // before the product does.
                    let half = exp / 2;
                    (mant as f64) * 2f64.powi(half) * 2f64.powi(exp - half)
                };
                if neg {
                    -mag
                } else {
                    mag
                }
            }
            Num::Inf { neg } => {
                if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Num::Nan { .. } => f64::NAN,
        }
    }

    fn from_i64(v: i64) -> Num {
        let neg = v < 0;
        let mag = v.unsigned_abs();
        if mag == 0 {
            return Num::ZERO;
        }
        let shift = mag.leading_zeros();
        Num::Finite { neg, mant: mag << shift, exp: -(shift as i32) }
    }
}

/// Largest binary exponent of the leading bit of a finite `long double`.
const MAX_EXP2: i64 = 16383;
/// Smallest binary exponent of the leading bit of a normal `long double`.
const MIN_EXP2: i64 = -16382;

/// C's `strtold(s, &end)`: (value, end, out of range). `end` is 0 when no
/// number starts `s`.
pub(crate) fn parse_float(s: &[u8]) -> (Num, usize, bool) {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if let Some(&c @ (b'+' | b'-')) = s.get(i) {
        neg = c == b'-';
        i += 1;
    }
    let rest = &s[i..];
    let starts = |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    if starts(b"infinity") {
        return (Num::Inf { neg }, i + 8, false);
    }
    if starts(b"inf") {
        return (Num::Inf { neg }, i + 3, false);
    }
    if starts(b"nan") {
        let mut end = i + 3;
        if s.get(end) == Some(&b'(') {
            if let Some(close) =
                s[end..].iter().position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'('))
            {
                if s[end + close] == b')' {
                    end += close + 1;
                }
            }
        }
        return (Num::Nan { neg }, end, false);
    }
    if rest.len() >= 2
        && rest[0] == b'0'
        && (rest[1] | 0x20) == b'x'
        && (rest.get(2).is_some_and(|c| c.is_ascii_hexdigit())
            || (rest.get(2) == Some(&b'.') && rest.get(3).is_some_and(|c| c.is_ascii_hexdigit())))
    {
        return parse_hex_float(s, i + 2, neg);
    }
    // Decimal: significant digits (at most MAX_DIGITS, then a sticky digit).
    const MAX_DIGITS: usize = 1000;
    let mut sig: Vec<u8> = Vec::new();
    let mut exp10: i64 = 0;
    let mut sticky = false;
    let mut any_digit = false;
    let mut seen_point = false;
    while let Some(&c) = s.get(i) {
        if c.is_ascii_digit() {
            any_digit = true;
            if sig.is_empty() && c == b'0' {
                if seen_point {
                    exp10 -= 1;
                }
            } else if sig.len() < MAX_DIGITS {
                sig.push(c - b'0');
                if seen_point {
                    exp10 -= 1;
                }
            } else {
                sticky |= c != b'0';
                if !seen_point {
                    exp10 += 1;
                }
            }
        } else if c == b'.' && !seen_point {
            seen_point = true;
        } else {
            break;
        }
        i += 1;
    }
    if !any_digit {
        return (Num::ZERO, 0, false);
    }
    if let Some(b'e' | b'E') = s.get(i) {
        let mut j = i + 1;
        let mut eneg = false;
        if let Some(&c @ (b'+' | b'-')) = s.get(j) {
            eneg = c == b'-';
            j += 1;
        }
        if s.get(j).is_some_and(u8::is_ascii_digit) {
            let mut e: i64 = 0;
            while let Some(&d) = s.get(j).filter(|d| d.is_ascii_digit()) {
                e = (e * 10 + i64::from(d - b'0')).min(1_000_000_000);
                j += 1;
            }
            exp10 += if eneg { -e } else { e };
            i = j;
        }
    }
    if sig.is_empty() {
        return (Num::Finite { neg, mant: 0, exp: 0 }, i, false);
    }
    if sticky {
        sig.push(1);
        exp10 -= 1;
    }
    let magnitude = sig.len() as i64 + exp10;
    if magnitude > 4940 {
        return (Num::Inf { neg }, i, true);
    }
    if magnitude < -4960 {
        return (Num::Finite { neg, mant: 0, exp: 0 }, i, true);
    }
    let d = big::Big::from_digits(&sig);
    let (mant, exp) = if exp10 >= 0 {
        let mut n = d;
        n.mul_pow10(exp10 as u32);
        round_to_64(&n, false)
    } else {
        let mut b = big::Big::from_u64(1);
        b.mul_pow10((-exp10) as u32);
        divide_to_64(&d, &b)
    };
    finish(neg, mant, exp, i)
}

fn finish(neg: bool, mant: u64, exp: i64, end: usize) -> (Num, usize, bool) {
    let top = exp + 63;
    if top > MAX_EXP2 {
        return (Num::Inf { neg }, end, true);
    }
    if top < MIN_EXP2 - 64 {
        return (Num::Finite { neg, mant: 0, exp: 0 }, end, true);
    }
    (Num::Finite { neg, mant, exp: exp as i32 }, end, top < MIN_EXP2)
}

fn parse_hex_float(s: &[u8], mut i: usize, neg: bool) -> (Num, usize, bool) {
    let mut n = big::Big::from_u64(0);
    let mut exp2: i64 = 0;
    let mut seen_point = false;
    let mut count = 0usize;
    let mut sticky = false;
    while let Some(&c) = s.get(i) {
        if let Some(d) = char::from(c).to_digit(16) {
            if count < 300 {
                if !(n.is_zero() && d == 0) {
                    count += 1;
                }
                n.mul_small(16);
                n.add_small(d);
                if seen_point {
                    exp2 -= 4;
                }
            } else {
                sticky |= d != 0;
                if !seen_point {
                    exp2 += 4;
                }
            }
        } else if c == b'.' && !seen_point {
            seen_point = true;
        } else {
            break;
        }
        i += 1;
    }
    if let Some(b'p' | b'P') = s.get(i) {
        let mut j = i + 1;
        let mut eneg = false;
        if let Some(&c @ (b'+' | b'-')) = s.get(j) {
            eneg = c == b'-';
            j += 1;
        }
        if s.get(j).is_some_and(u8::is_ascii_digit) {
            let mut e: i64 = 0;
            while let Some(&d) = s.get(j).filter(|d| d.is_ascii_digit()) {
                e = (e * 10 + i64::from(d - b'0')).min(1_000_000_000);
                j += 1;
            }
            exp2 += if eneg { -e } else { e };
            i = j;
        }
    }
    if n.is_zero() {
        return (Num::Finite { neg, mant: 0, exp: 0 }, i, false);
    }
    let (mant, exp) = round_to_64(&n, sticky);
    finish(neg, mant, exp + exp2, i)
}

/// Rounds `n` (nonzero) to 64 significant bits, half to even:
/// `n ≈ mant * 2^exp`.
fn round_to_64(n: &big::Big, extra_sticky: bool) -> (u64, i64) {
    let bits = n.bits();
    if bits <= 64 {
        let shift = 64 - bits;
        return (n.low_u64() << shift, -(shift as i64));
    }
    let shift = bits - 64;
    let mut top = n.clone();
    top.shr(shift);
    let mant = top.low_u64();
    let half = n.bit(shift - 1);
    let sticky = extra_sticky || n.any_bits_below(shift - 1);
    round_mant(mant, shift as i64, half, sticky, false)
}

fn round_mant(mant: u64, exp: i64, half: bool, sticky: bool, _unused: bool) -> (u64, i64) {
    if half && (sticky || mant & 1 == 1) {
        match mant.checked_add(1) {
            Some(m) => (m, exp),
            None => (1 << 63, exp + 1),
        }
    } else {
        (mant, exp)
    }
}

/// `d / b` rounded to 64 significant bits: (mant, exp).
fn divide_to_64(d: &big::Big, b: &big::Big) -> (u64, i64) {
    let s = 64 + b.bits() as i64 - d.bits() as i64;
    let (num, den) = if s >= 0 {
        let mut num = d.clone();
        num.shl(s as usize);
        (num, b.clone())
    } else {
        let mut den = b.clone();
        den.shl((-s) as usize);
        (d.clone(), den)
    };
    let (q, r) = num.divmod(&den);
    if q.bits() > 64 {
        let mant = {
            let mut t = q.clone();
            t.shr(1);
            t.low_u64()
        };
        round_mant(mant, -s + 1, q.bit(0), !r.is_zero(), false)
    } else {
        let mant = q.low_u64();
        let mut twice = r.clone();
        twice.shl(1);
        match twice.cmp(&den) {
            std::cmp::Ordering::Less => (mant, -s),
            std::cmp::Ordering::Greater => round_mant(mant, -s, true, true, false),
            std::cmp::Ordering::Equal => round_mant(mant, -s, true, false, false),
        }
    }
}

/// The exact decimal value of `mant * 2^exp`: digits (no leading zeros;
/// `[0]` for zero) and the power of ten they are multiplied by.
fn exact_decimal(mant: u64, exp: i32) -> (Vec<u8>, i64) {
    if mant == 0 {
        return (vec![0], 0);
    }
    // Drop trailing zero bits first: smaller numbers, same value.
    let tz = mant.trailing_zeros();
    let mant = mant >> tz;
    let exp = i64::from(exp) + i64::from(tz);
    let mut n = big::Big::from_u64(mant);
    let dexp = if exp >= 0 {
        n.shl(exp as usize);
        0
    } else {
        n.mul_pow5((-exp) as u32);
        exp
    };
    let mut digits = n.to_digits();
    let mut dexp = dexp;
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
        dexp += 1;
    }
    (digits, dexp)
}

/// Keeps the first `keep` digits, rounding half to even on the exact value.
/// The result has `keep` digits, or `keep + 1` when rounding carried into a
/// new leading digit (`999` → `1000`).
fn round_digits(digits: &[u8], keep: i64) -> Vec<u8> {
    if keep < 0 {
        return Vec::new();
    }
    let keep = keep as usize;
    if keep >= digits.len() {
        let mut v = digits.to_vec();
        v.resize(keep, 0);
        return v;
    }
    let mut kept = digits[..keep].to_vec();
    let first = digits[keep];
    let rest_nonzero = digits[keep + 1..].iter().any(|&d| d != 0);
    let last_odd = kept.last().is_some_and(|d| d % 2 == 1);
    let up = first > 5 || (first == 5 && (rest_nonzero || last_odd));
    if up {
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, 1);
                break;
            }
            i -= 1;
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    kept
}

fn to_ascii(digits: &[u8]) -> Vec<u8> {
    digits.iter().map(|d| b'0' + d).collect()
}

/// `%f`: the digits of `value` with `prec` fraction digits.
fn body_f(digits: &[u8], dexp: i64, prec: usize, alt: bool) -> Vec<u8> {
    let nint = digits.len() as i64 + dexp;
    let keep = nint + prec as i64;
    let kept = round_digits(digits, keep);
    // `kept` is the value times 10^prec, as an integer (maybe empty = 0).
    let mut int = to_ascii(&kept);
    if int.len() < prec + 1 {
        let mut padded = vec![b'0'; prec + 1 - int.len()];
        padded.extend_from_slice(&int);
        int = padded;
    }
    let split = int.len() - prec;
    let mut out = int[..split].to_vec();
    if prec > 0 || alt {
        out.push(b'.');
    }
    out.extend_from_slice(&int[split..]);
    out
}

/// `%e`: the digits of `value` with `prec` fraction digits and an exponent.
fn body_e(digits: &[u8], dexp: i64, prec: usize, alt: bool, upper: bool) -> Vec<u8> {
    let (kept, x) = if digits == [0] {
        (vec![0; prec + 1], 0)
    } else {
        let mut x = digits.len() as i64 + dexp - 1;
        let mut kept = round_digits(digits, prec as i64 + 1);
        if kept.len() > prec + 1 {
            kept.pop();
            x += 1;
        }
        (kept, x)
    };
    let mut out = vec![b'0' + kept.first().copied().unwrap_or(0)];
    if prec > 0 || alt {
        out.push(b'.');
    }
    out.extend(kept.iter().skip(1).map(|d| b'0' + d));
    out.push(if upper { b'E' } else { b'e' });
    out.push(if x < 0 { b'-' } else { b'+' });
    let xs = x.unsigned_abs().to_string();
    if xs.len() < 2 {
        out.push(b'0');
    }
    out.extend_from_slice(xs.as_bytes());
    out
}

fn body_g(digits: &[u8], dexp: i64, prec: Option<usize>, alt: bool, upper: bool) -> Vec<u8> {
    let p = match prec {
        None => 6,
        Some(0) => 1,
        Some(p) => p,
    };
    let x = if digits == [0] {
        0
    } else {
        let kept = round_digits(digits, p as i64);
        digits.len() as i64 + dexp - 1 + i64::from(kept.len() > p)
    };
    let mut out = if (p as i64) > x && x >= -4 {
        body_f(digits, dexp, (p as i64 - 1 - x) as usize, alt)
    } else {
        body_e(digits, dexp, p - 1, alt, upper)
    };
    if !alt {
        // Remove trailing zeros of the fraction (before any exponent).
        let e_at = out.iter().position(|&c| c == b'e' || c == b'E').unwrap_or(out.len());
        if out[..e_at].contains(&b'.') {
            let mut end = e_at;
            while end > 0 && out[end - 1] == b'0' {
                end -= 1;
            }
            if end > 0 && out[end - 1] == b'.' {
                end -= 1;
            }
            let tail = out[e_at..].to_vec();
            out.truncate(end);
            out.extend_from_slice(&tail);
        }
    }
    out
}

/// `%a` as glibc prints an x87 `long double`: `0xc.ccccccccccccccdp-7`.
fn body_a(mant: u64, exp: i32, prec: Option<usize>, alt: bool, upper: bool) -> Vec<u8> {
    let (mut lead, mut frac, mut e) = if mant == 0 {
        (0u64, 0u64, 0i64)
    } else {
        (mant >> 60, mant & ((1 << 60) - 1), i64::from(exp) + 60)
    };
    let mut nfrac = 15usize;
    if let Some(p) = prec {
        if p < 15 {
            let drop = (15 - p) * 4;
            let kept = frac >> drop;
            let rem = frac & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            let up = rem > half || (rem == half && kept & 1 == 1);
            frac = kept + u64::from(up);
            if frac >> (p * 4) != 0 {
                frac &= (1u64 << (p * 4)) - 1;
                lead += 1;
                if lead == 16 {
                    lead = 1;
                    e += 4;
                }
            }
            nfrac = p;
        }
    }
    let mut hex: Vec<u8> = (0..nfrac).rev().map(|k| hex_digit((frac >> (k * 4)) & 15, upper)).collect();
    let extra = prec.map_or(0, |p| p.saturating_sub(15));
    if prec.is_none() {
        while hex.last() == Some(&b'0') {
            hex.pop();
        }
    }
    let mut out = vec![hex_digit(lead, upper)];
    if !hex.is_empty() || extra > 0 || alt {
        out.push(b'.');
    }
    out.extend_from_slice(&hex);
    out.resize(out.len() + extra, b'0');
    out.push(if upper { b'P' } else { b'p' });
    out.push(if e < 0 { b'-' } else { b'+' });
    out.extend_from_slice(e.unsigned_abs().to_string().as_bytes());
    out
}

fn hex_digit(v: u64, upper: bool) -> u8 {
    let d = (v & 15) as u8;
    match (d, upper) {
        (0..=9, _) => b'0' + d,
        (_, false) => b'a' + d - 10,
        (_, true) => b'A' + d - 10,
    }
}

fn fmt_float(v: Num, conv: u8, spec: &Spec) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let sign = |neg: bool| -> Vec<u8> {
        if neg {
            b"-".to_vec()
        } else if spec.plus {
            b"+".to_vec()
        } else if spec.space {
            b" ".to_vec()
        } else {
            Vec::new()
        }
    };
    let (neg, mant, exp) = match v {
        Num::Inf { neg } | Num::Nan { neg } => {
            let word: &[u8] = match (matches!(v, Num::Inf { .. }), upper) {
                (true, false) => b"inf",
                (true, true) => b"INF",
                (false, false) => b"nan",
                (false, true) => b"NAN",
            };
            return assemble(&sign(neg), word, spec.width, spec.minus, false);
        }
        Num::Finite { neg, mant, exp } => (neg, mant, exp),
    };
    let mut prefix = sign(neg);
    let body = match conv | 0x20 {
        b'a' => {
            prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
            body_a(mant, exp, spec.precision, spec.alt, upper)
        }
        c => {
            let (digits, dexp) = exact_decimal(mant, exp);
            match c {
                b'f' => body_f(&digits, dexp, spec.precision.unwrap_or(6), spec.alt),
                b'e' => body_e(&digits, dexp, spec.precision.unwrap_or(6), spec.alt, upper),
                _ => body_g(&digits, dexp, spec.precision, spec.alt, upper),
            }
        }
    };
    assemble(&prefix, &body, spec.width, spec.minus, spec.zero && !spec.minus)
}

/// Unsigned big integers, for exact decimal conversions (and `expr`).
pub(crate) mod big {
    use std::cmp::Ordering;

    /// Little-endian 32-bit limbs, no trailing zero limbs.
    #[derive(Debug, Clone, PartialEq, Eq, Default)]
    pub(crate) struct Big {
        limbs: Vec<u32>,
    }

    impl Big {
        pub(crate) fn from_u64(v: u64) -> Big {
            let mut b = Big { limbs: vec![v as u32, (v >> 32) as u32] };
            b.trim();
            b
        }

        /// From decimal digit values (0..=9), most significant first.
        pub(crate) fn from_digits(digits: &[u8]) -> Big {
            let mut b = Big::default();
            for chunk in digits.chunks(9) {
                let mut v = 0u32;
                for &d in chunk {
                    v = v * 10 + u32::from(d);
                }
                b.mul_small(10u32.pow(chunk.len() as u32));
                b.add_small(v);
            }
            b
        }

        /// Parses ASCII decimal digits (all must be digits).
        pub(crate) fn parse(text: &[u8]) -> Option<Big> {
            if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let digits: Vec<u8> = text.iter().map(|c| c - b'0').collect();
            Some(Big::from_digits(&digits))
        }

        fn trim(&mut self) {
            while self.limbs.last() == Some(&0) {
                self.limbs.pop();
            }
        }

        pub(crate) fn is_zero(&self) -> bool {
            self.limbs.is_empty()
        }

        pub(crate) fn bits(&self) -> usize {
            match self.limbs.last() {
                None => 0,
                Some(&top) => self.limbs.len() * 32 - top.leading_zeros() as usize,
            }
        }

        pub(crate) fn bit(&self, i: usize) -> bool {
            self.limbs.get(i / 32).is_some_and(|l| (l >> (i % 32)) & 1 == 1)
        }

        /// Whether any bit below position `i` is set.
        pub(crate) fn any_bits_below(&self, i: usize) -> bool {
            let full = i / 32;
            if self.limbs.iter().take(full).any(|&l| l != 0) {
                return true;
            }
            let rem = i % 32;
            rem > 0 && self.limbs.get(full).is_some_and(|l| l & ((1u32 << rem) - 1) != 0)
        }

        pub(crate) fn low_u64(&self) -> u64 {
            let lo = u64::from(self.limbs.first().copied().unwrap_or(0));
            let hi = u64::from(self.limbs.get(1).copied().unwrap_or(0));
            lo | (hi << 32)
        }

        pub(crate) fn mul_small(&mut self, m: u32) {
            let mut carry = 0u64;
            for l in &mut self.limbs {
                let v = u64::from(*l) * u64::from(m) + carry;
                *l = v as u32;
                carry = v >> 32;
            }
            if carry > 0 {
                self.limbs.push(carry as u32);
            }
            self.trim();
        }

        pub(crate) fn add_small(&mut self, a: u32) {
            let mut carry = u64::from(a);
            for l in &mut self.limbs {
                if carry == 0 {
                    break;
                }
                let v = u64::from(*l) + carry;
                *l = v as u32;
                carry = v >> 32;
            }
            if carry > 0 {
                self.limbs.push(carry as u32);
            }
        }

        pub(crate) fn mul_pow10(&mut self, mut n: u32) {
            while n >= 9 {
                self.mul_small(1_000_000_000);
                n -= 9;
            }
            self.mul_small(10u32.pow(n));
        }

        pub(crate) fn mul_pow5(&mut self, mut n: u32) {
            while n >= 13 {
                self.mul_small(1_220_703_125);
                n -= 13;
            }
            self.mul_small(5u32.pow(n));
        }

        pub(crate) fn shl(&mut self, n: usize) {
            if self.is_zero() {
                return;
            }
            let (words, bits) = (n / 32, n % 32);
            if bits > 0 {
                let mut carry = 0u32;
                for l in &mut self.limbs {
                    let v = (*l << bits) | carry;
                    carry = *l >> (32 - bits);
                    *l = v;
                }
                if carry > 0 {
                    self.limbs.push(carry);
                }
            }
            if words > 0 {
                let mut v = vec![0u32; words];
                v.extend_from_slice(&self.limbs);
                self.limbs = v;
            }
        }

        pub(crate) fn shr(&mut self, n: usize) {
            let (words, bits) = (n / 32, n % 32);
            if words >= self.limbs.len() {
                self.limbs.clear();
                return;
            }
            self.limbs.drain(..words);
            if bits > 0 {
                let len = self.limbs.len();
                for i in 0..len {
                    let hi = self.limbs.get(i + 1).copied().unwrap_or(0);
                    self.limbs[i] = (self.limbs[i] >> bits) | (hi << (32 - bits));
                }
            }
            self.trim();
        }

        pub(crate) fn add(&self, other: &Big) -> Big {
            let n = self.limbs.len().max(other.limbs.len());
            let mut limbs = Vec::with_capacity(n + 1);
            let mut carry = 0u64;
            for i in 0..n {
                let v = u64::from(self.limbs.get(i).copied().unwrap_or(0))
                    + u64::from(other.limbs.get(i).copied().unwrap_or(0))
                    + carry;
                limbs.push(v as u32);
                carry = v >> 32;
            }
            if carry > 0 {
                limbs.push(carry as u32);
            }
            Big { limbs }
        }

        /// `self - other`, for `self >= other`.
        pub(crate) fn sub(&self, other: &Big) -> Big {
            let mut limbs = self.limbs.clone();
            let mut borrow = 0i64;
            for (i, l) in limbs.iter_mut().enumerate() {
                let v = i64::from(*l) - i64::from(other.limbs.get(i).copied().unwrap_or(0)) - borrow;
                if v < 0 {
                    *l = (v + (1i64 << 32)) as u32;
                    borrow = 1;
                } else {
                    *l = v as u32;
                    borrow = 0;
                }
            }
            let mut b = Big { limbs };
            b.trim();
            b
        }

        pub(crate) fn mul(&self, other: &Big) -> Big {
            if self.is_zero() || other.is_zero() {
                return Big::default();
            }
            let mut limbs = vec![0u32; self.limbs.len() + other.limbs.len()];
            for (i, &a) in self.limbs.iter().enumerate() {
                let mut carry = 0u64;
                for (j, &b) in other.limbs.iter().enumerate() {
                    let v = u64::from(limbs[i + j]) + u64::from(a) * u64::from(b) + carry;
                    limbs[i + j] = v as u32;
                    carry = v >> 32;
                }
                let mut k = i + other.limbs.len();
                while carry > 0 && k < limbs.len() {
                    let v = u64::from(limbs[k]) + carry;
                    limbs[k] = v as u32;
                    carry = v >> 32;
                    k += 1;
                }
            }
            let mut b = Big { limbs };
            b.trim();
            b
        }

        /// (quotient, remainder); `d` must not be zero.
        pub(crate) fn divmod(&self, d: &Big) -> (Big, Big) {
            if d.is_zero() || self.cmp(d) == Ordering::Less {
                return (Big::default(), self.clone());
            }
            let k = self.bits() - d.bits();
            let mut shifted = d.clone();
            shifted.shl(k);
            let mut r = self.clone();
            let mut q = Big { limbs: vec![0; k / 32 + 1] };
            for i in (0..=k).rev() {
                if r.cmp(&shifted) != Ordering::Less {
                    r = r.sub(&shifted);
                    q.limbs[i / 32] |= 1 << (i % 32);
                }
                shifted.shr(1);
            }
            q.trim();
            (q, r)
        }

        fn divmod_small(&mut self, d: u32) -> u32 {
            let mut rem = 0u64;
            for l in self.limbs.iter_mut().rev() {
                let v = (rem << 32) | u64::from(*l);
                *l = (v / u64::from(d)) as u32;
                rem = v % u64::from(d);
            }
            self.trim();
            rem as u32
        }

        /// Decimal digit values, most significant first (`[0]` for zero).
        pub(crate) fn to_digits(&self) -> Vec<u8> {
            if self.is_zero() {
                return vec![0];
            }
            let mut n = self.clone();
            let mut chunks = Vec::new();
            while !n.is_zero() {
                chunks.push(n.divmod_small(1_000_000_000));
            }
            let mut out = Vec::with_capacity(chunks.len() * 9);
            for (i, chunk) in chunks.iter().rev().enumerate() {
                let s = if i == 0 { chunk.to_string() } else { format!("{chunk:09}") };
                out.extend(s.bytes().map(|c| c - b'0'));
            }
            out
        }

        pub(crate) fn to_decimal(&self) -> String {
            self.to_digits().iter().map(|d| char::from(b'0' + d)).collect()
        }
    }

    impl PartialOrd for Big {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }

    impl Ord for Big {
        fn cmp(&self, other: &Self) -> Ordering {
            self.limbs
                .len()
                .cmp(&other.limbs.len())
                .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (out, _) = format(fmt, &args);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn strings_and_reuse() {
        assert_eq!(f("%s|%5s|%-5s|%.2s|\n", &["abc", "ab", "ab", "abcdef"]), "abc|   ab|ab   |ab|\n");
        assert_eq!(f("%s %s\n", &["a", "b", "c"]), "a b\nc \n");
        assert_eq!(f("x\n", &["a", "b"]), "x\n");
        assert_eq!(f("%*s|%-*s|%.*s|", &["4", "a", "4", "b", "2", "abcdef"]), "   a|b   |ab|");
    }

    #[test]
    fn integers() {
        assert_eq!(
            f(
                "%05d|%-5d|%+d|% d|%+05d|%x|%#x|%#o|%X|%#X|%o|%u|%.3d|%8.3d|%-08d|",
                &["42", "42", "42", "42", "42", "255", "255", "8", "255", "255", "8", "-1", "7", "7", "7"]
            ),
            "00042|42   |+42| 42|+0042|ff|0xff|010|FF|0XFF|10|18446744073709551615|007|     007|7       |"
        );
        assert_eq!(f("%d %d %d %d %d\n", &["0x1f", "010", "'A", " 12", "-0x10"]), "31 8 65 12 -16\n");
        assert_eq!(f("%.0d|%.0x|%#.0o|%#o|%#x|%5.0d|", &["0", "0", "0", "0", "0", "0"]), "||0|0|0|     |");
        let (out, errs) = format("%d\n", &["12x".to_string()]);
        assert_eq!(out, b"12\n");
        assert_eq!(errs, vec!["12x: invalid number".to_string()]);
    }

    #[test]
    fn floats_like_long_double() {
        assert_eq!(f("%.1f %.1f %.1f %.2f\n", &["0.15", "0.25", "0.35", "2.675"]), "0.2 0.2 0.3 2.67\n");
        assert_eq!(
            f("%f %.3f %.0f %.0f %.0f", &["3.14159", "2.0005", "0.5", "1.5", "2.5"]),
            "3.141590 2.001 0 2 2"
        );
        assert_eq!(
            f(
                "%e %E %g %G %g %g %#g %g",
                &["12345.678", "0.000123", "0.0001", "1e-5", "123456789", "100000", "1", "1e100"]
            ),
            "1.234568e+04 1.230000E-04 0.0001 1E-05 1.23457e+08 100000 1.00000 1e+100"
        );
        assert_eq!(
            f("%a %a %a %A", &["1", "0.1", "-2.5", "255"]),
            "0x8p-3 0xc.ccccccccccccccdp-7 -0xap-2 0XF.FP+4"
        );
        assert_eq!(
            f("%.3a|%.0a|%.1a|%a|%a", &["1.999", "1", "1.97", "0", "-0"]),
            "0xf.fdfp-3|0x8p-3|0xf.cp-3|0x0p+0|-0x0p+0"
        );
        assert_eq!(
            f(
                "%08.3f|%-8.2f|%+.2e|%#.0f|%#.0e|% f|%08f|%8f|",
                &["3.14159", "2.5", "12345", "3", "4", "1", "-inf", "nan"]
            ),
            "0003.142|2.50    |+1.23e+04|3.|4.e+00| 1.000000|    -inf|     nan|"
        );
        assert_eq!(f("%.20f", &["0.1"]), "0.10000000000000000000");
        assert_eq!(
            f("%g|%g|%.10g|%e|%.0e", &["0.0001234", "-0.0", "3.14159265358979", "0", "15"]),
            "0.0001234|-0|3.141592654|0.000000e+00|2e+01"
        );
        assert_eq!(f("%.0f", &["1e300"]).len(), 301);
    }

    #[test]
    fn escapes() {
        assert_eq!(f("a\\tb\\101\\x41\\0101\\q\\c", &[]), "a\tbAA\x081\\q\\c");
        assert_eq!(f("%b|", &["a\\0101b", "\\101", "\\x41", "q\\'"]), "aAb|A|A|q\\'|");
        assert_eq!(f("%b|%s", &["a\\cb", "zz"]), "a");
        assert_eq!(f("\\u00e9", &[]), "\\u00E9");
    }

    #[test]
    fn quoting() {
        assert_eq!(
            f("%q ", &["a b", "it's", "\t", "", "a$b", "~x", "x~", "#a", "a#", "a=~b"]),
            "a\\ b it\\'s $'\\t' '' a\\$b \\~x x~ \\#a a# a=\\~b "
        );
        assert_eq!(f("%q", &["\x01\x7f"]), "$'\\001\\177'");
    }

    #[test]
    fn format_errors_stop() {
        let (out, errs) = format("a%kb", &[]);
        assert_eq!(out, b"a");
        assert_eq!(errs, vec!["`k': invalid format character".to_string()]);
        let (_, errs) = format("ab%5", &[]);
        assert_eq!(errs, vec!["`%5': missing format character".to_string()]);
    }

    #[test]
    fn gnu_quoting() {
        assert_eq!(gnu_quote("a'b\\c"), "'a\\'b\\\\c'");
        assert_eq!(gnu_quote("a\tb\u{1}\u{7f}é"), "'a\\tb\\001\\177\\303\\251'");
    }

    #[test]
    fn big_division() {
        let a = big::Big::parse(b"123456789012345678901234567890").unwrap_or_default();
        let b = big::Big::parse(b"987654321").unwrap_or_default();
        let (q, r) = a.divmod(&b);
        assert_eq!(q.to_decimal(), "124999998873437499901");
        assert_eq!(r.to_decimal(), "574845669");
    }
}
