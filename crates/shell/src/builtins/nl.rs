//! `nl`: number lines (GNU coreutils semantics): body/header/footer styles
//! (`a`, `t`, `n`, `pBRE`), formats `ln`/`rn`/`rz`, width, separator,
//! start and increment, `-l`, `-p`, and `\:` logical page delimiters.

use super::args::{self, HasArg, Spec};
use super::common::lines::{each_input, records};
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::FsError;

pub const BUILTIN: Builtin = Builtin {
    name: "nl",
    run,
    help: "Usage: nl [OPTION]... [FILE]...\n\
Write each FILE to standard output, with line numbers added.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -b, --body-numbering=STYLE      use STYLE for numbering body lines\n\
  -d, --section-delimiter=CC      use CC for logical page delimiters\n\
  -f, --footer-numbering=STYLE    use STYLE for numbering footer lines\n\
  -h, --header-numbering=STYLE    use STYLE for numbering header lines\n\
  -i, --line-increment=NUMBER     line number increment at each line\n\
  -l, --join-blank-lines=NUMBER   group of NUMBER empty lines counted as one\n\
  -n, --number-format=FORMAT      insert line numbers according to FORMAT\n\
  -p, --no-renumber               do not reset line numbers for each section\n\
  -s, --number-separator=STRING   add STRING after (possible) line number\n\
  -v, --starting-line-number=NUMBER  first line number for each section\n\
  -w, --number-width=NUMBER       use NUMBER columns for line numbers\n\
\n\
Default options are: -bt -d'\\:' -fn -hn -i1 -l1 -n'rn' -s<TAB> -v1 -w6\n\
\n\
STYLE is one of: a (all lines), t (nonempty lines), n (no lines),\n\
pBRE (lines matching the basic regular expression BRE).\n\
FORMAT is one of: ln (left justified), rn (right justified), rz (zero padded).\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "b:d:f:h:i:l:n:ps:v:w:",
    long: &[
        ("body-numbering", 'b', HasArg::Yes),
        ("section-delimiter", 'd', HasArg::Yes),
        ("footer-numbering", 'f', HasArg::Yes),
        ("header-numbering", 'h', HasArg::Yes),
        ("line-increment", 'i', HasArg::Yes),
        ("join-blank-lines", 'l', HasArg::Yes),
        ("number-format", 'n', HasArg::Yes),
        ("no-renumber", 'p', HasArg::No),
        ("number-separator", 's', HasArg::Yes),
        ("starting-line-number", 'v', HasArg::Yes),
        ("number-width", 'w', HasArg::Yes),
    ],
    stop_at_operand: false,
};

enum Style {
    All,
    NonEmpty,
    None,
    Regex(regex::bytes::Regex),
}

/// Translates a POSIX basic regular expression to the `regex` crate's
/// syntax (enough for `nl -bp`).
pub(crate) fn bre_to_regex(bre: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = bre.chars().collect();
    let mut i = 0;
    let mut at_start = true;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                match n {
                    '(' | ')' | '{' | '}' | '|' | '+' | '?' => out.push(n),
                    _ => {
                        out.push('\\');
                        out.push(n);
                    }
                }
                at_start = n == '(' || n == '|';
                i += 2;
                continue;
            }
            '[' => {
                // Copy a bracket expression verbatim.
                let mut j = i + 1;
                if j < chars.len() && chars[j] == '^' {
                    j += 1;
                }
                if j < chars.len() && chars[j] == ']' {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    if chars[j] == '[' && j + 1 < chars.len() && matches!(chars[j + 1], ':' | '=' | '.') {
                        let close = chars[j + 1];
                        j += 2;
                        while j + 1 < chars.len() && !(chars[j] == close && chars[j + 1] == ']') {
                            j += 1;
                        }
                        j += 2;
                        continue;
                    }
                    j += 1;
                }
                let end = j.min(chars.len().saturating_sub(1));
                for &ch in &chars[i..=end] {
                    if ch == '\\' {
                        out.push('\\');
                    }
                    out.push(ch);
                }
                i = end + 1;
                at_start = false;
                continue;
            }
            '*' if at_start => out.push_str("\\*"),
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        at_start = c == '^' && at_start;
        i += 1;
    }
    out
}

fn parse_style(ctx: &mut Ctx, s: &str, which: &str) -> Option<Style> {
    let style = match s {
        "a" => Style::All,
        "t" => Style::NonEmpty,
        "n" => Style::None,
        _ => match s.strip_prefix('p') {
            Some(re) => match regex::bytes::Regex::new(&bre_to_regex(re)) {
                Ok(r) => Style::Regex(r),
                Err(_) => {
                    ctx.error("nl", format!("invalid regular expression: '{re}'"));
                    return None;
                }
            },
            None => {
                ctx.err(format!(
                    "nl: invalid {which} numbering style: '{s}'\nTry 'nl --help' for more information.\n"
                ));
                return None;
            }
        },
    };
    Some(style)
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("nl", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut styles = [Style::None, Style::NonEmpty, Style::None]; // header, body, footer
    let mut format = "rn".to_string();
    let mut width: usize = 6;
    let mut sep = "\t".to_string();
    let (mut start, mut incr): (i64, i64) = (1, 1);
    let mut join: u64 = 1;
    let mut renumber = true;
    let mut delim: Vec<u8> = b"\\:".to_vec();
    for (c, v) in &parsed.opts {
        let v = v.clone().unwrap_or_default();
        let int = |ctx: &mut Ctx, what: &str| -> Option<i64> {
            match v.parse::<i64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    ctx.error("nl", format!("invalid {what}: '{v}'"));
                    None
                }
            }
        };
        match c {
            'b' | 'h' | 'f' => {
                let (idx, which) = match c {
                    'h' => (0, "header"),
                    'b' => (1, "body"),
                    _ => (2, "footer"),
                };
                match parse_style(ctx, &v, which) {
                    Some(s) => styles[idx] = s,
                    None => return 1,
                }
            }
            'n' => {
                if !matches!(v.as_str(), "ln" | "rn" | "rz") {
                    ctx.err(format!(
                        "nl: invalid line numbering format: '{v}'\nTry 'nl --help' for more information.\n"
                    ));
                    return 1;
                }
                format = v.clone();
            }
            'w' => match int(ctx, "line number field width") {
                Some(n) if n > 0 => width = usize::try_from(n).unwrap_or(6).min(4096),
                Some(_) => {
                    ctx.error(
                        "nl",
                        format!("invalid line number field width: '{v}': Numerical result out of range"),
                    );
                    return 1;
                }
                None => return 1,
            },
            's' => sep = v.clone(),
            'v' => match int(ctx, "starting line number") {
                Some(n) => start = n,
                None => return 1,
            },
            'i' => match int(ctx, "line number increment") {
                Some(n) => incr = n,
                None => return 1,
            },
            'l' => match int(ctx, "line number of blank lines") {
                Some(n) if n > 0 => join = n as u64,
                Some(_) => {
                    ctx.error(
                        "nl",
                        format!("invalid line number of blank lines: '{v}': Numerical result out of range"),
                    );
                    return 1;
                }
                None => return 1,
            },
            'p' => renumber = false,
            'd' => {
                let b = v.as_bytes();
                delim = match b.len() {
                    0 => Vec::new(),
                    1 => vec![b[0], b':'],
                    _ => b.to_vec(),
                };
            }
            _ => {}
        }
    }
    let blank_prefix = " ".repeat(width + sep.len());
    let mut number = start;
    let mut section = 1; // body
    let mut blanks: u64 = 0;
    let d3: Vec<u8> = delim.repeat(3);
    let d2: Vec<u8> = delim.repeat(2);
    let open_error = |ctx: &mut Ctx, path: &str, e: &FsError| ctx.file_error("nl", path, e);
    each_input(ctx, &parsed.operands, open_error, |ctx, data| {
        let mut out = Vec::with_capacity(data.len() + data.len() / 2);
        for body in records(data, b'\n') {
            if !delim.is_empty() {
                let new_section = if body == d3.as_slice() {
                    Some(0)
                } else if body == d2.as_slice() {
                    Some(1)
                } else if body == delim.as_slice() {
                    Some(2)
                } else {
                    None
                };
                if let Some(s) = new_section {
                    section = s;
                    if renumber {
                        number = start;
                    }
                    out.push(b'\n');
                    continue;
                }
            }
            let numbered = match &styles[section] {
                Style::All => {
                    if body.is_empty() {
                        blanks += 1;
                        if blanks >= join {
                            blanks = 0;
                            true
                        } else {
                            false
                        }
                    } else {
                        blanks = 0;
                        true
                    }
                }
                Style::NonEmpty => !body.is_empty(),
                Style::None => false,
                Style::Regex(r) => r.is_match(body),
            };
            if numbered {
                let s = match format.as_str() {
                    "ln" => format!("{number:<width$}"),
                    "rz" => {
                        if number < 0 {
                            format!("-{:0>w$}", number.unsigned_abs(), w = width.saturating_sub(1))
                        } else {
                            format!("{number:0>width$}")
                        }
                    }
                    _ => format!("{number:>width$}"),
                };
                out.extend_from_slice(s.as_bytes());
                out.extend_from_slice(sep.as_bytes());
                number = number.wrapping_add(incr);
            } else {
                out.extend_from_slice(blank_prefix.as_bytes());
            }
            out.extend_from_slice(body);
            out.push(b'\n');
        }
        ctx.out(&out)
    })
}

#[cfg(test)]
mod tests {
    use super::bre_to_regex;

    #[test]
    fn bre() {
        assert_eq!(bre_to_regex("a.a"), "a.a");
        assert_eq!(bre_to_regex("\\(ab\\)*"), "(ab)*");
        assert_eq!(bre_to_regex("a+b"), "a\\+b");
        assert_eq!(bre_to_regex("*x"), "\\*x");
        assert_eq!(bre_to_regex("[]a]"), "[]a]");
    }
}
