//! `read`: reads a line of standard input into variables, split by `IFS`.

use super::args::{self, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "read",
    run,
    help: "Usage: read [-r] [-a ARRAY] [-d DELIM] [-n N] [-p PROMPT] [NAME]...\nReads one line into NAMEs (default REPLY); status 1 at end of input.\n  -r  backslashes are not escapes\n  -a  store the words in an array\n  -d  stop at DELIM instead of newline\n  -n  read at most N characters\n  -p  prompt (ignored: no terminal)\n  -s, -t  accepted and ignored\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, argv: &[String]) -> i32 {
    let spec = Spec::new("ra:d:n:N:p:st:u:");
    let parsed = match args::parse("read", argv, &spec) {
        Ok(p) => p,
        Err(_) => {
            let bad = argv.iter().find(|a| a.starts_with('-')).cloned().unwrap_or_default();
            ctx.shell_error(&format!("read: {bad}: invalid option"));
            ctx.err("read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n");
            return 2;
        }
    };
    if let Some(fd) = parsed.value('u') {
        match fd.parse::<i32>().ok().and_then(|n| ctx.input_fd(n)) {
            Some(data) => ctx.io.stdin = data,
            None => {
                ctx.shell_error(&format!("read: {fd}: invalid file descriptor: Bad file descriptor"));
                return 1;
            }
        }
    }
    let raw = parsed.has('r');
    let delim = parsed.value('d').map_or(b'\n', |d| d.as_bytes().first().copied().unwrap_or(0));
    let limit = parsed.value('n').or(parsed.value('N')).and_then(|n| n.parse::<usize>().ok());
    for name in
        parsed.operands.iter().chain(parsed.value('a').map(|_| &parsed.operands[..0]).into_iter().flatten())
    {
        if !super::export::valid_name(name) {
            ctx.shell_error(&format!("read: `{name}': not a valid identifier"));
            return 1;
        }
    }

    // `-t 0` only asks whether input is there; nothing is read.
    if parsed.value('t').and_then(|t| t.parse::<f64>().ok()) == Some(0.0) {
        return 0;
    }
    let exact = parsed.value('N').is_some();
    let (text, found_delim) = read_input(ctx, delim, limit, exact, raw);
    let ifs = ctx.state().get("IFS").map_or_else(|| " \t\n".to_string(), str::to_string);
    if exact {
        // `-N`: the characters as read, into the first name.
        let value: String = text.iter().map(|&(c, _)| c).collect();
        let names: Vec<String> =
            if parsed.operands.is_empty() { vec!["REPLY".to_string()] } else { parsed.operands.clone() };
        for (i, name) in names.iter().enumerate() {
            let v = if i == 0 { value.clone() } else { String::new() };
            if !ctx.state().set(name, v) {
                ctx.shell_error(&format!("read: {name}: readonly variable"));
                return 1;
            }
        }
        return if found_delim || !text.is_empty() { 0 } else { 1 };
    }
    let line_read = !text.is_empty();

    if let Some(array) = parsed.value('a') {
        let words = split(&text, &ifs, usize::MAX);
        ctx.state().vars.remove(array);
        ctx.state().arrays.insert(array.to_string(), words.into_iter().collect());
    } else {
        let names: Vec<String> =
            if parsed.operands.is_empty() { vec!["REPLY".to_string()] } else { parsed.operands.clone() };
        if names.len() == 1 && names[0] == "REPLY" && parsed.operands.is_empty() {
            ctx.state().set("REPLY", text.iter().map(|&(c, _)| c).collect::<String>());
        } else {
            let words = split(&text, &ifs, names.len());
            for (i, name) in names.iter().enumerate() {
                let value = words.get(i).cloned().unwrap_or_default();
                if !ctx.state().set(name, value) {
                    ctx.shell_error(&format!("read: {name}: readonly variable"));
                    return 1;
                }
            }
        }
    }
    if found_delim || (line_read && limit.is_some()) {
        0
    } else {
        1
    }
}

/// Reads up to the delimiter (any character with `-N`), or `limit`
/// characters. Unless `raw`, a backslash escapes the next character (the
/// character is kept, marked escaped) and backslash-newline joins lines.
/// NUL bytes are dropped, as bash's read does. Whether the delimiter (or the
/// limit) ended the read.
fn read_input(
    ctx: &mut Ctx,
    delim: u8,
    limit: Option<usize>,
    exact: bool,
    raw: bool,
) -> (Vec<(char, bool)>, bool) {
    let mut bytes: Vec<(u8, bool)> = Vec::new();
    let mut found = false;
    let mut count = 0usize;
    let next = |ctx: &mut Ctx| ctx.io.stdin.borrow_mut().read_bytes(1).first().copied();
    match limit {
        None => {
            while let Some(mut chunk) = ctx.stdin_until(delim) {
                let ended = chunk.last() == Some(&delim);
                if ended {
                    chunk.pop();
                }
                let mut it = chunk.into_iter().peekable();
                let mut continued = false;
                while let Some(b) = it.next() {
                    if b == b'\\' && !raw {
                        match it.next() {
                            // Backslash-newline is dropped whatever the delimiter.
                            Some(b'\n') => {}
                            Some(n) => bytes.push((n, true)),
                            // Backslash-delimiter: the line goes on (with
                            // the delimiter, unless it is a newline).
                            None => {
                                continued = ended;
                                if ended && delim != b'\n' {
                                    bytes.push((delim, true));
                                }
                            }
                        }
                    } else {
                        bytes.push((b, false));
                    }
                }
                if !continued {
                    found = ended;
                    break;
                }
            }
        }
        Some(n) => {
            while count < n {
                let Some(b) = next(ctx) else { break };
                if b == delim && !exact {
                    found = true;
                    break;
                }
                if b == b'\\' && !raw {
                    match next(ctx) {
                        Some(b'\n') => continue,
                        Some(e) => {
                            bytes.push((e, true));
                            count += usize::from(e & 0xC0 != 0x80);
                        }
                        None => break,
                    }
                    continue;
                }
                bytes.push((b, false));
                count += usize::from(b & 0xC0 != 0x80);
            }
            found |= count >= n;
        }
    }
    bytes.retain(|&(b, _)| b != 0);
    // Back to characters, each keeping whether it was escaped.
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let len = match bytes[i].0 {
            b if b < 0x80 => 1,
            b if b >= 0xF0 => 4,
            b if b >= 0xE0 => 3,
            _ => 2,
        };
        let end = (i + len).min(bytes.len());
        let chunk: Vec<u8> = bytes[i..end].iter().map(|&(b, _)| b).collect();
        let escaped = bytes[i].1;
        for c in String::from_utf8_lossy(&chunk).chars() {
            out.push((c, escaped));
        }
        i = end;
    }
    (out, found)
}

/// Splits into at most `n` words at unescaped IFS characters; the last
/// gets the rest of the line (inner separators kept, trailing IFS
/// whitespace removed, and one trailing delimiter when it ends the only
/// field left).
fn split(text: &[(char, bool)], ifs: &str, n: usize) -> Vec<String> {
    let is_ws = |&(c, escaped): &(char, bool)| !escaped && ifs.contains(c) && c.is_whitespace();
    let is_sep = |&(c, escaped): &(char, bool)| !escaped && ifs.contains(c);
    let word = |s: &[(char, bool)]| s.iter().map(|&(c, _)| c).collect::<String>();
    let mut words = Vec::new();
    let chars = text;
    let mut i = 0;
    while i < chars.len() && is_ws(&chars[i]) {
        i += 1;
    }
    while i < chars.len() {
        if words.len() + 1 == n {
            let mut rest = &chars[i..];
            while rest.last().is_some_and(is_ws) {
                rest = &rest[..rest.len() - 1];
            }
            if let Some((last, body)) = rest.split_last() {
                if is_sep(last) && !body.iter().any(is_sep) {
                    rest = body;
                }
            }
            words.push(word(rest));
            return words;
        }
        let start = i;
        while i < chars.len() && !is_sep(&chars[i]) {
            i += 1;
        }
        words.push(word(&chars[start..i]));
        // Skip one separator: whitespace around it, at most one non-whitespace.
        while i < chars.len() && is_ws(&chars[i]) {
            i += 1;
        }
        if i < chars.len() && is_sep(&chars[i]) && !is_ws(&chars[i]) {
            i += 1;
            while i < chars.len() && is_ws(&chars[i]) {
                i += 1;
            }
        }
    }
    words
}
