//! `wc`: line, word, character and byte counts (GNU coreutils semantics in
//! the C locale, including its column widths and `total` line).

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "wc",
    run,
    help: "Usage: wc [OPTION]... [FILE]...\n\
Print newline, word, and byte counts for each FILE, and a total line if\n\
more than one FILE is specified. With no FILE, or when FILE is -, read standard input.\n\
\n\
  -c, --bytes            print the byte counts\n\
  -m, --chars            print the character counts\n\
  -l, --lines            print the newline counts\n\
  -L, --max-line-length  print the maximum display width\n\
  -w, --words            print the word counts\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "cmlLw",
    long: &[
        ("bytes", 'c', HasArg::No),
        ("chars", 'm', HasArg::No),
        ("lines", 'l', HasArg::No),
        ("max-line-length", 'L', HasArg::No),
        ("words", 'w', HasArg::No),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    lines: u64,
    words: u64,
    chars: u64,
    bytes: u64,
    max_len: u64,
}

/// Byte classes for counting words: whitespace ends a word, a printable
/// character starts or continues one, anything else does neither.
const fn classes() -> [u8; 256] {
    let mut t = [OTHER; 256];
    let mut b = 0x21;
    while b < 0x7f {
        t[b] = PRINT;
        b += 1;
    }
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[0x0b] = SPACE;
    t[0x0c] = SPACE;
    t[b'\r' as usize] = SPACE;
    t
}
const OTHER: u8 = 0;
const PRINT: u8 = 1;
const SPACE: u8 = 2;
static CLASS: [u8; 256] = classes();

/// Counts; the display width (`-L`) only when `max_len` is asked for.
fn count(data: &[u8], want_words: bool, want_max_len: bool) -> Counts {
    let mut c = Counts { bytes: data.len() as u64, chars: data.len() as u64, ..Counts::default() };
    c.lines =
        data.chunks(1 << 16).map(|ch| ch.iter().map(|&b| u32::from(b == b'\n')).sum::<u32>() as u64).sum();
    // Bytes that are neither whitespace nor printable: below TAB, between
    // CR and space, DEL and above.
    let other = |b: u8| b < 0x09 || (0x0e..0x20).contains(&b) || b >= 0x7f;
    let has_other = || data.chunks(1 << 16).any(|ch| ch.iter().fold(false, |acc, &b| acc | other(b)));
    if want_words && !has_other() {
        // Without bytes that are neither blank nor printable, a word starts
        // wherever a printable byte follows a blank (or the start).
        let is_print = |b: u8| b.wrapping_sub(0x21) < 0x5e;
        let first = data.first().map_or(0, |&b| u64::from(is_print(b)));
        let mut starts = 0u64;
        for chunk in data.chunks(1 << 16).enumerate() {
            let (k, chunk) = chunk;
            // Count within the chunk (and across its first byte boundary).
            let prev_last = if k == 0 { None } else { data.get((k << 16) - 1).copied() };
            if let (Some(p), Some(&f)) = (prev_last, chunk.first()) {
                starts += u64::from(is_print(f) && !is_print(p));
            }
            let n: u32 = chunk
                .iter()
                .zip(chunk.iter().skip(1))
                .map(|(&a, &b)| u32::from(is_print(b) & !is_print(a)))
                .sum();
            starts += u64::from(n);
        }
        c.words = first + starts;
    } else if want_words {
        let mut in_word = false;
        let mut words = 0u64;
        for &b in data {
            let k = CLASS[usize::from(b)];
            words += u64::from(k == PRINT && !in_word);
            in_word = (in_word && k != SPACE) || k == PRINT;
        }
        c.words = words;
    }
    if want_max_len {
        let mut pos: u64 = 0;
        for &b in data {
            match b {
                b'\n' | b'\r' | b'\x0c' => {
                    c.max_len = c.max_len.max(pos);
                    pos = 0;
                }
                b'\t' => pos += 8 - pos % 8,
                0x20..=0x7e => pos += 1,
                _ => {}
            }
        }
        c.max_len = c.max_len.max(pos);
    }
    c
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("wc", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let (mut lines, mut words, chars, mut bytes, max_len) =
        (parsed.has('l'), parsed.has('w'), parsed.has('m'), parsed.has('c'), parsed.has('L'));
    if !(lines || words || chars || bytes || max_len) {
        lines = true;
        words = true;
        bytes = true;
    }
    let named = !parsed.operands.is_empty();
    let operands = if named { parsed.operands } else { vec!["-".to_string()] };
    let mut status = 0;
    // (name, counts) or None for a failed file; stdin is not a regular file.
    let mut results: Vec<Option<Counts>> = Vec::new();
    let mut non_regular: Vec<String> = Vec::new();
    for path in &operands {
        match ctx.read_input(path) {
            Ok(d) => results.push(Some(count(&d, words, max_len))),
            Err(e) => {
                ctx.file_error("wc", path, &e);
                status = 1;
                // GNU still prints zero counts for a directory.
                results.push((e.errno == "EISDIR").then(Counts::default));
                if e.errno == "EISDIR" {
                    non_regular.push(path.clone());
                }
            }
        }
    }
    let selected = [lines, words, chars, bytes, max_len].iter().filter(|&&x| x).count();
    let width = if operands.len() == 1 && selected == 1 {
        1
    } else {
        let mut min = 1;
        let mut regular_total: u64 = 0;
        for (path, r) in operands.iter().zip(&results) {
            if let Some(c) = r {
                if path == "-" || path.starts_with("/dev/") || non_regular.contains(path) {
                    min = 7;
                } else {
                    regular_total += c.bytes;
                }
            }
        }
        let mut w = 1;
        while regular_total >= 10 {
            regular_total /= 10;
            w += 1;
        }
        w.max(min)
    };
    let fields = |c: &Counts| {
        let mut v = Vec::new();
        if lines {
            v.push(c.lines);
        }
        if words {
            v.push(c.words);
        }
        if chars {
            v.push(c.chars);
        }
        if bytes {
            v.push(c.bytes);
        }
        if max_len {
            v.push(c.max_len);
        }
        v
    };
    let render = |c: &Counts, name: Option<&str>| {
        let mut s = fields(c).iter().map(|n| format!("{n:>width$}")).collect::<Vec<_>>().join(" ");
        if let Some(name) = name {
            s.push(' ');
            s.push_str(name);
        }
        s.push('\n');
        s
    };
    let mut total = Counts::default();
    let mut out = String::new();
    for (path, r) in operands.iter().zip(&results) {
        if let Some(c) = r {
            total.lines += c.lines;
            total.words += c.words;
            total.chars += c.chars;
            total.bytes += c.bytes;
            total.max_len = total.max_len.max(c.max_len);
            out.push_str(&render(c, named.then_some(path.as_str())));
        }
    }
    if operands.len() > 1 {
        out.push_str(&render(&total, Some("total")));
    }
    let _ = ctx.out(out);
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_need_printable_characters() {
        let all = |d: &[u8]| count(d, true, true);
        assert_eq!(all(b"a\x01b c\n").words, 2);
        assert_eq!(all(b"\x80\xff\n").words, 0);
        assert_eq!(all(b"\x01\x02 a").words, 1);
        assert_eq!(all(b"a\tb\n").max_len, 9);
        assert_eq!(all(b"a b\nc\n\n").lines, 3);
        assert_eq!(all(b"  hello  world\tx\n").words, 3);
        assert_eq!(all(b"x").words, 1);
        assert_eq!(all(b"").words, 0);
    }
}
