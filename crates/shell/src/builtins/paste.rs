//! `paste`: merge lines of files (GNU coreutils semantics): parallel or
//! serial (`-s`), cycling delimiter lists (`-d`), `-` for standard input
//! (shared when repeated), `-z`.

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "paste",
    run,
    help: "Usage: paste [OPTION]... [FILE]...\n\
Write lines consisting of the sequentially corresponding lines from\n\
each FILE, separated by TABs, to standard output.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -d, --delimiters=LIST   reuse characters from LIST instead of TABs\n\
                            (\\n, \\t, \\\\ and \\0 for no delimiter)\n\
  -s, --serial            paste one file at a time instead of in parallel\n\
  -z, --zero-terminated   line delimiter is NUL, not newline\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "d:sz",
    long: &[
        ("delimiters", 'd', HasArg::Yes),
        ("serial", 's', HasArg::No),
        ("zero-terminated", 'z', HasArg::No),
    ],
    stop_at_operand: false,
};

/// The delimiter list: `None` is the empty delimiter (`\0`).
fn parse_delims(s: &str) -> Result<Vec<Option<u8>>, ()> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            let Some(&c) = b.get(i + 1) else { return Err(()) };
            out.push(match c {
                b'0' => None,
                b'b' => Some(8),
                b'f' => Some(12),
                b'n' => Some(b'\n'),
                b'r' => Some(b'\r'),
                b't' => Some(b'\t'),
                b'v' => Some(11),
                other => Some(other),
            });
            i += 2;
        } else {
            out.push(Some(b[i]));
            i += 1;
        }
    }
    Ok(out)
}

/// An input being read line by line.
struct Source {
    /// Index into `datas`; standard input is shared by every `-`.
    data: usize,
    open: bool,
}

fn next_line<'a>(data: &'a [u8], pos: &mut usize, delim: u8) -> Option<&'a [u8]> {
    if *pos >= data.len() {
        return None;
    }
    let rest = &data[*pos..];
    match rest.iter().position(|&b| b == delim) {
        Some(i) => {
            *pos += i + 1;
            Some(&rest[..i])
        }
        None => {
            *pos = data.len();
            Some(rest)
        }
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("paste", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let delims = match parse_delims(parsed.value('d').unwrap_or("\\t")) {
        Ok(d) if d.is_empty() => vec![None],
        Ok(d) => d,
        Err(()) => {
            let list = parsed.value('d').unwrap_or_default();
            ctx.error("paste", format!("delimiter list ends with an unescaped backslash: {list}"));
            return 1;
        }
    };
    let line_delim = if parsed.has('z') { 0 } else { b'\n' };
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands.clone() };
    let mut out = Vec::new();
    let mut status = 0;
    if parsed.has('s') {
        for path in &operands {
            let data = match ctx.read_input(path) {
                Ok(d) => d,
                Err(e) => {
                    ctx.file_error("paste", path, &e);
                    status = 1;
                    continue;
                }
            };
            let mut d = 0;
            if let Some((&last, body)) = data.split_last() {
                for &c in body {
                    if c == line_delim {
                        if let Some(x) = delims[d] {
                            out.push(x);
                        }
                        d = (d + 1) % delims.len();
                    } else {
                        out.push(c);
                    }
                }
                out.push(last);
                if last != line_delim {
                    out.push(line_delim);
                }
            } else {
                out.push(line_delim);
            }
        }
        let _ = ctx.out(&out);
        return status;
    }
    // Parallel: every input is read up front (files first, so a missing
    // one fails before any output, like GNU).
    let mut datas: Vec<Vec<u8>> = Vec::new();
    let mut sources = Vec::new();
    let mut stdin_index: Option<usize> = None;
    for path in &operands {
        if path == "-" {
            let idx = match stdin_index {
                Some(i) => i,
                None => {
                    datas.push(Vec::new());
                    stdin_index = Some(datas.len() - 1);
                    datas.len() - 1
                }
            };
            sources.push(Source { data: idx, open: true });
            continue;
        }
        match ctx.read_input(path) {
            Ok(d) => {
                datas.push(d);
                sources.push(Source { data: datas.len() - 1, open: true });
            }
            Err(e) => {
                ctx.file_error("paste", path, &e);
                return 1;
            }
        }
    }
    if let Some(i) = stdin_index {
        datas[i] = ctx.stdin_all();
    }
    let mut positions = vec![0usize; datas.len()];
    let n = sources.len();
    let mut files_open = n;
    while files_open > 0 {
        let mut somedone = false;
        let mut d = 0;
        let mut saved: Vec<u8> = Vec::new();
        for (i, src) in sources.iter_mut().enumerate() {
            if files_open == 0 {
                break;
            }
            let line = if src.open {
                next_line(&datas[src.data], &mut positions[src.data], line_delim)
            } else {
                None
            };
            match line {
                None => {
                    if src.open {
                        src.open = false;
                        files_open -= 1;
                    }
                    if i + 1 == n {
                        if somedone {
                            out.append(&mut saved);
                            out.push(line_delim);
                        }
                    } else {
                        if let Some(x) = delims[d] {
                            saved.push(x);
                        }
                        d = (d + 1) % delims.len();
                    }
                }
                Some(line) => {
                    out.append(&mut saved);
                    somedone = true;
                    out.extend_from_slice(line);
                    if i + 1 != n {
                        if let Some(x) = delims[d] {
                            out.push(x);
                        }
                        d = (d + 1) % delims.len();
                    } else {
                        out.push(line_delim);
                    }
                }
            }
        }
        if out.len() > 1 << 16 {
            if ctx.out(&out).is_err() {
                return status;
            }
            out.clear();
        }
    }
    let _ = ctx.out(&out);
    status
}

#[cfg(test)]
mod tests {
    #[test]
    fn delimiters() {
        assert_eq!(super::parse_delims("\\t,\\0\\n"), Ok(vec![Some(b'\t'), Some(b','), None, Some(b'\n')]));
        assert!(super::parse_delims("a\\").is_err());
    }
}
