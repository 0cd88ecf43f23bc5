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

    // Read up to the delimiter (joining backslash-newline unless -r).
    let mut line: Vec<u8> = Vec::new();
    let mut found_delim = false;
    loop {
        let chunk = match limit {
            Some(n) => {
                let remaining = n.saturating_sub(line.len());
                if remaining == 0 {
                    found_delim = true;
                    break;
                }
                let bytes = ctx.io.stdin.borrow_mut().read_bytes(1);
                if bytes.is_empty() {
                    None
                } else {
                    Some(bytes)
                }
            }
            None => ctx.stdin_until(delim),
        };
        let Some(mut chunk) = chunk else { break };
        if chunk.last() == Some(&delim) {
            chunk.pop();
            if !raw && chunk.last() == Some(&b'\\') && limit.is_none() {
                chunk.pop();
                line.extend_from_slice(&chunk);
                continue;
            }
            if limit.is_some() && chunk.is_empty() {
                found_delim = true;
                break;
            }
            line.extend_from_slice(&chunk);
            found_delim = true;
            if limit.is_none() {
                break;
            }
            break;
        }
        line.extend_from_slice(&chunk);
        if limit.is_none() {
            break;
        }
    }
    // A shell string cannot hold NUL: bash's read drops them.
    line.retain(|&b| b != 0);
    let text = String::from_utf8_lossy(&line).into_owned();
    let text = if raw { text } else { unescape(&text) };
    let ifs = ctx.state().get("IFS").map_or_else(|| " \t\n".to_string(), str::to_string);

    if let Some(array) = parsed.value('a') {
        let words = split(&text, &ifs, usize::MAX);
        ctx.state().vars.remove(array);
        ctx.state().arrays.insert(array.to_string(), words.into_iter().collect());
    } else {
        let names: Vec<String> =
            if parsed.operands.is_empty() { vec!["REPLY".to_string()] } else { parsed.operands.clone() };
        if names.len() == 1 && names[0] == "REPLY" && parsed.operands.is_empty() {
            ctx.state().set("REPLY", text.clone());
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
    if found_delim || (!line.is_empty() && limit.is_some()) {
        0
    } else {
        1
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits into at most `n` words; the last gets the rest of the line (with
/// inner separators kept, trailing IFS whitespace removed).
fn split(text: &str, ifs: &str, n: usize) -> Vec<String> {
    let is_ws = |c: char| ifs.contains(c) && c.is_whitespace();
    let is_sep = |c: char| ifs.contains(c);
    let mut words = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() && is_ws(chars[i]) {
        i += 1;
    }
    while i < chars.len() {
        if words.len() + 1 == n {
            let mut rest: String = chars[i..].iter().collect();
            while rest.chars().last().is_some_and(is_ws) {
                rest.pop();
            }
            words.push(rest);
            return words;
        }
        let start = i;
        while i < chars.len() && !is_sep(chars[i]) {
            i += 1;
        }
        words.push(chars[start..i].iter().collect());
        // Skip one separator: whitespace around it, at most one non-whitespace.
        while i < chars.len() && is_ws(chars[i]) {
            i += 1;
        }
        if i < chars.len() && is_sep(chars[i]) && !is_ws(chars[i]) {
            i += 1;
            while i < chars.len() && is_ws(chars[i]) {
                i += 1;
            }
        }
    }
    words
}
