//! `cut`: select bytes, characters or fields of each line (GNU coreutils
//! semantics; characters are bytes in the C locale).

use super::args::{self, HasArg, Spec};
use super::common::bytes::memchr;
use super::common::lines::{each_input, records};
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::FsError;

pub const BUILTIN: Builtin = Builtin {
    name: "cut",
    run,
    help: "Usage: cut OPTION... [FILE]...\n\
Print selected parts of lines from each FILE to standard output.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -b, --bytes=LIST        select only these bytes\n\
  -c, --characters=LIST   select only these characters\n\
  -d, --delimiter=DELIM   use DELIM instead of TAB for field delimiter\n\
  -f, --fields=LIST       select only these fields;  also print any line\n\
                            that contains no delimiter character, unless\n\
                            the -s option is specified\n\
  -n                      (ignored)\n\
      --complement        complement the set of selected bytes, characters\n\
                            or fields\n\
  -s, --only-delimited    do not print lines not containing delimiters\n\
      --output-delimiter=STRING  use STRING as the output delimiter\n\
                            the default is to use the input delimiter\n\
  -z, --zero-terminated   line delimiter is NUL, not newline\n\
\n\
Each LIST is made up of one range, or many ranges separated by commas:\n\
  N, N-, N-M or -M (counted from 1).\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "b:c:d:f:nsz",
    long: &[
        ("bytes", 'b', HasArg::Yes),
        ("characters", 'c', HasArg::Yes),
        ("delimiter", 'd', HasArg::Yes),
        ("fields", 'f', HasArg::Yes),
        ("only-delimited", 's', HasArg::No),
        ("zero-terminated", 'z', HasArg::No),
        ("complement", 'C', HasArg::No),
        ("output-delimiter", 'O', HasArg::Yes),
    ],
    stop_at_operand: false,
};

/// Inclusive 1-based ranges, sorted and merged.
type Ranges = Vec<(u64, u64)>;

/// GNU's `set_fields`: parses LIST. `pos` selects the byte/character
/// wording of the messages.
fn parse_list(list: &str, pos: bool, complement: bool) -> Result<Ranges, String> {
    let numbered =
        if pos { "byte/character positions are numbered from 1" } else { "fields are numbered from 1" };
    let mut ranges: Ranges = Vec::new();
    let (mut initial, mut value) = (1u64, 0u64);
    let (mut lhs, mut rhs, mut dash) = (false, false, false);
    let bytes = list.as_bytes();
    let mut i = 0;
    loop {
        let c = bytes.get(i).copied();
        match c {
            Some(b'-') => {
                if dash {
                    return Err(
                        if pos { "invalid byte or character range" } else { "invalid field range" }.into()
                    );
                }
                dash = true;
                if lhs && value == 0 {
                    return Err(numbered.into());
                }
                initial = if lhs { value } else { 1 };
                value = 0;
                i += 1;
            }
            None | Some(b',' | b' ' | b'\t') => {
                if dash {
                    dash = false;
                    if !lhs && !rhs {
                        return Err("invalid range with no endpoint: -".into());
                    }
                    if !rhs {
                        ranges.push((initial, u64::MAX));
                    } else {
                        if value < initial {
                            return Err("invalid decreasing range".into());
                        }
                        ranges.push((initial, value));
                    }
                } else {
                    if value == 0 {
                        return Err(numbered.into());
                    }
                    ranges.push((value, value));
                }
                value = 0;
                if c.is_none() {
                    break;
                }
                i += 1;
                lhs = false;
                rhs = false;
            }
            Some(d) if d.is_ascii_digit() => {
                if dash {
                    rhs = true;
                } else {
                    lhs = true;
                }
                value = match value.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))) {
                    Some(v) if v != u64::MAX => v,
                    _ => {
                        let start = list[..i].rfind(|ch: char| !ch.is_ascii_digit()).map_or(0, |p| p + 1);
                        let len = list[start..].bytes().take_while(u8::is_ascii_digit).count();
                        let num = &list[start..start + len];
                        return Err(if pos {
                            format!("byte/character offset '{num}' is too large")
                        } else {
                            format!("field number '{num}' is too large")
                        });
                    }
                };
                i += 1;
            }
            Some(_) => {
                let rest = String::from_utf8_lossy(&bytes[i..]);
                return Err(if pos {
                    format!("invalid byte/character position '{rest}'")
                } else {
                    format!("invalid field value '{rest}'")
                });
            }
        }
    }
    ranges.sort_unstable();
    let mut merged: Ranges = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    if complement {
        let mut comp = Vec::new();
        let mut next = 1u64;
        for &(lo, hi) in &merged {
            if lo > next {
                comp.push((next, lo - 1));
            }
            next = hi.saturating_add(1);
            if hi == u64::MAX {
                next = u64::MAX;
                break;
            }
        }
        if next != u64::MAX {
            comp.push((next, u64::MAX));
        }
        merged = comp;
    }
    Ok(merged)
}

/// Whether 1-based position `n` is selected, advancing `cur` through the
/// sorted ranges.
#[inline]
fn selected(ranges: &Ranges, cur: &mut usize, n: u64) -> bool {
    while let Some(&(_, hi)) = ranges.get(*cur) {
        if n > hi {
            *cur += 1;
        } else {
            break;
        }
    }
    ranges.get(*cur).is_some_and(|&(lo, _)| n >= lo)
}

#[derive(Debug)]
enum Mode {
    Bytes(Ranges),
    Fields(Ranges),
}

struct Opts {
    mode: Mode,
    delim: u8,
    out_delim: Option<Vec<u8>>,
    only_delimited: bool,
    line_delim: u8,
}

fn cut_line(line: &[u8], o: &Opts, out: &mut Vec<u8>) {
    match &o.mode {
        Mode::Bytes(ranges) => {
            let mut cur = 0;
            let mut printed = false;
            for (i, &b) in line.iter().enumerate() {
                let n = i as u64 + 1;
                if selected(ranges, &mut cur, n) {
                    if let Some(d) = &o.out_delim {
                        if printed && ranges.get(cur).is_some_and(|&(lo, _)| lo == n) {
                            out.extend_from_slice(d);
                        }
                        printed = true;
                    }
                    out.push(b);
                } else if cur >= ranges.len() {
                    break;
                }
            }
            out.push(o.line_delim);
        }
        Mode::Fields(ranges) => {
            // The last field any range selects (u64::MAX: to the end).
            let last_wanted = ranges.last().map_or(0, |r| r.1);
            let mut cur = 0;
            let mut first = true;
            let mut field: u64 = 1;
            let mut start = 0;
            let mut saw_delim = false;
            loop {
                let end = memchr(o.delim, &line[start..]).map(|p| start + p);
                if end.is_none() && !saw_delim {
                    if !o.only_delimited {
                        out.extend_from_slice(line);
                        out.push(o.line_delim);
                    }
                    return;
                }
                saw_delim = true;
                let stop = end.unwrap_or(line.len());
                if selected(ranges, &mut cur, field) {
                    if !first {
                        match &o.out_delim {
                            Some(d) => out.extend_from_slice(d),
                            None => out.push(o.delim),
                        }
                    }
                    first = false;
                    out.extend_from_slice(&line[start..stop]);
                }
                match end {
                    Some(e) if field < last_wanted => {
                        start = e + 1;
                        field += 1;
                    }
                    _ => break,
                }
            }
            out.push(o.line_delim);
        }
    }
}

fn usage(ctx: &mut Ctx, msg: &str) -> i32 {
    ctx.err(format!("cut: {msg}\nTry 'cut --help' for more information.\n"));
    1
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("cut", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut list: Option<(char, String)> = None;
    let mut delim: Option<String> = None;
    let mut out_delim: Option<Vec<u8>> = None;
    let (mut only_delimited, mut complement) = (false, false);
    let mut line_delim = b'\n';
    for (c, v) in &parsed.opts {
        match (c, v) {
            ('b' | 'c' | 'f', Some(v)) => {
                if list.is_some() {
                    return usage(ctx, "only one list may be specified");
                }
                list = Some((*c, v.clone()));
            }
            ('d', Some(v)) => delim = Some(v.clone()),
            ('O', Some(v)) => out_delim = Some(if v.is_empty() { vec![0] } else { v.as_bytes().to_vec() }),
            ('s', _) => only_delimited = true,
            ('C', _) => complement = true,
            ('z', _) => line_delim = 0,
            _ => {}
        }
    }
    let Some((kind, spec)) = list else {
        return usage(ctx, "you must specify a list of bytes, characters, or fields");
    };
    let fields = kind == 'f';
    if delim.is_some() && !fields {
        return usage(ctx, "an input delimiter may be specified only when operating on fields");
    }
    if only_delimited && !fields {
        return usage(ctx, "suppressing non-delimited lines makes sense\n\tonly when operating on fields");
    }
    let delim = match delim.as_deref() {
        None => b'\t',
        Some("") => 0,
        Some(d) if d.len() == 1 => d.as_bytes()[0],
        Some(_) => return usage(ctx, "the delimiter must be a single character"),
    };
    let ranges = match parse_list(&spec, !fields, complement) {
        Ok(r) => r,
        Err(msg) => return usage(ctx, &msg),
    };
    let o = Opts {
        mode: if fields { Mode::Fields(ranges) } else { Mode::Bytes(ranges) },
        delim,
        out_delim,
        only_delimited,
        line_delim,
    };
    let open_error = |ctx: &mut Ctx, path: &str, e: &FsError| ctx.file_error("cut", path, e);
    each_input(ctx, &parsed.operands, open_error, |ctx, data| {
        let mut out = Vec::with_capacity(data.len() / 2 + 16);
        for line in records(data, line_delim) {
            cut_line(line, &o, &mut out);
            if out.len() >= 1 << 16 {
                ctx.out(&out)?;
                out.clear();
            }
        }
        ctx.out(&out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(parse_list("1,3-5,7-", false, false), Ok(vec![(1, 1), (3, 5), (7, u64::MAX)]));
        assert_eq!(parse_list("-3,2-4", true, false), Ok(vec![(1, 4)]));
        assert_eq!(parse_list("2,4", true, true), Ok(vec![(1, 1), (3, 3), (5, u64::MAX)]));
        assert_eq!(parse_list("0", false, false), Err("fields are numbered from 1".into()));
        assert_eq!(parse_list("-", true, false), Err("invalid range with no endpoint: -".into()));
        assert_eq!(parse_list("3-1", true, false), Err("invalid decreasing range".into()));
        assert_eq!(parse_list("1a", false, false), Err("invalid field value 'a'".into()));
    }

    #[test]
    fn cutting() {
        let o = Opts {
            mode: Mode::Fields(vec![(2, 2)]),
            delim: b',',
            out_delim: None,
            only_delimited: false,
            line_delim: b'\n',
        };
        let mut out = Vec::new();
        cut_line(b"a,b,c", &o, &mut out);
        cut_line(b"nodelim", &o, &mut out);
        assert_eq!(out, b"b\nnodelim\n");
    }
}
