//! `echo` (bash's builtin): `-n` no newline, `-e` escapes, `-E` none.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "echo",
    run,
    help: "Usage: echo [-neE] [ARG]...\nWrites the arguments separated by spaces and a newline.\n  -n  no trailing newline\n  -e  interpret backslash escapes (\\n \\t \\\\ \\c \\0NNN \\xHH)\n  -E  do not interpret escapes (default)\n",
    help_flag: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut newline = true;
    let mut escapes = false;
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        let flags = match first.strip_prefix('-') {
            Some(f) if !f.is_empty() && f.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) => f,
            _ => break,
        };
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        rest = tail;
    }
    let mut out = Vec::new();
    for (i, arg) in rest.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        if escapes {
            if unescape(arg, &mut out) {
                let _ = ctx.out(&out);
                return 0;
            }
        } else {
            out.extend_from_slice(arg.as_bytes());
        }
    }
    if newline {
        out.push(b'\n');
    }
    match ctx.out(&out) {
        Ok(()) => 0,
        Err(_) => {
            ctx.write_failed("echo");
            1
        }
    }
}

/// Appends `arg` with echo -e escapes decoded; `true` at `\c` (stop output).
fn unescape(arg: &str, out: &mut Vec<u8>) -> bool {
    let bytes = arg.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' || i + 1 >= bytes.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let e = bytes[i + 1];
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'e' | b'E' => out.push(27),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'\\' => out.push(b'\\'),
            b'c' => return true,
            b'0' => {
                let mut n: u32 = 0;
                let mut k = 0;
                while k < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    n = n * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    k += 1;
                }
                out.push((n & 0xff) as u8);
            }
            b'x' => {
                let mut n: u32 = 0;
                let mut k = 0;
                while k < 2 && i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    n = n * 16 + char::from(bytes[i]).to_digit(16).unwrap_or(0);
                    i += 1;
                    k += 1;
                }
                if k == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push((n & 0xff) as u8);
                }
            }
            b'u' | b'U' => {
                // `\uHHHH`, `\UHHHHHHHH`: a character, as UTF-8.
                let max = if e == b'u' { 4 } else { 8 };
                let mut n: u32 = 0;
                let mut k = 0;
                while k < max && i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    n = n * 16 + char::from(bytes[i]).to_digit(16).unwrap_or(0);
                    i += 1;
                    k += 1;
                }
                match char::from_u32(n).filter(|_| k > 0) {
                    Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                    None => {
                        out.push(b'\\');
                        out.push(e);
                    }
                }
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    false
}
