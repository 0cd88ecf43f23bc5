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

mod engine;
mod escape;

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
pub(super) const MAX_PAD: usize = 1 << 24;

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
        let base = name.split_once('[').filter(|(_, rest)| rest.len() > 1 && rest.ends_with(']'));
        if !valid_identifier(base.map_or(name.as_str(), |(b, _)| b)) {
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
            if !set_target(ctx.state(), &name, value) {
                ctx.shell_error(&format!("{name}: readonly variable"));
                status = 1;
            }
        }
        None => {
            if ctx.out(&result.out).is_err() {
                ctx.write_failed("printf");
                status = 1;
            }
        }
    }
    status
}

/// Assigns `name` or an element `name[key]` (a number for an indexed
/// array, any key for an associative one).
fn set_target(state: &mut crate::state::State, name: &str, value: String) -> bool {
    let Some((base, key)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) else {
        return state.set(name, value);
    };
    if state.readonly.contains(base) {
        return false;
    }
    if let Some(assoc) = state.assoc.get_mut(base) {
        assoc.set(key, value);
        return true;
    }
    let key = state.get(key).unwrap_or(key).trim().to_string();
    let array = state.arrays.entry(base.to_string()).or_default();
    let index = key.parse::<i64>().ok().and_then(|i| array.resolve(i)).unwrap_or(0);
    array.set(index, value);
    state.vars.remove(base);
    true
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

pub(crate) use engine::format_with;

#[cfg(test)]
mod tests {
    use super::*;
    use engine::format;

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
}
