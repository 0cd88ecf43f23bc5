//! What `head` and `tail` share: their options (`-n`/`-c` with a sign,
//! `-q`, `-v`, `-z`) and the loop over files with `==> name <==` headers.

use super::super::args::{HasArg, Parsed, Spec};
use super::size::parse_size;
use crate::ctx::Ctx;
use crate::system::FsError;

pub(crate) const SPEC: Spec = Spec {
    short: "c:n:qvz",
    long: &[
        ("bytes", 'c', HasArg::Yes),
        ("lines", 'n', HasArg::Yes),
        ("quiet", 'q', HasArg::No),
        ("silent", 'q', HasArg::No),
        ("verbose", 'v', HasArg::No),
        ("zero-terminated", 'z', HasArg::No),
    ],
    stop_at_operand: false,
};

/// The last `-n` or `-c`: lines or bytes, whether its value had the sign
/// that changes its meaning (`-` for head, `+` for tail), and the count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Amount {
    pub lines: bool,
    pub signed: bool,
    pub n: u64,
}

/// The parsed options.
pub(crate) struct Opts {
    /// `None` when neither `-n` nor `-c` was given.
    pub amount: Option<Amount>,
    pub delim: u8,
    pub headers: bool,
    pub operands: Vec<String>,
}

/// Reads the options; `sign` is the sign that changes a count's meaning.
/// An invalid count is reported and gives `Err(1)`.
pub(crate) fn options(ctx: &mut Ctx, cmd: &str, parsed: Parsed, sign: char) -> Result<Opts, i32> {
    let other = if sign == '-' { '+' } else { '-' };
    let mut amount = None;
    let mut headers: Option<bool> = None;
    let mut delim = b'\n';
    for (c, v) in &parsed.opts {
        match (c, v) {
            ('n' | 'c', Some(v)) => {
                let (signed, digits) = match v.strip_prefix(sign) {
                    Some(d) => (true, d),
                    None => (false, v.strip_prefix(other).unwrap_or(v)),
                };
                let Some(n) = parse_size(digits) else {
                    let what = if *c == 'n' { "lines" } else { "bytes" };
                    ctx.error(cmd, format!("invalid number of {what}: '{v}'"));
                    return Err(1);
                };
                amount = Some(Amount { lines: *c == 'n', signed, n });
            }
            ('q', _) => headers = Some(false),
            ('v', _) => headers = Some(true),
            ('z', _) => delim = 0,
            _ => {}
        }
    }
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands };
    let headers = headers.unwrap_or(operands.len() > 1);
    Ok(Opts { amount, delim, headers, operands })
}

/// Prints `select` of each operand's contents, read by `read`, under a
/// header when asked; the exit status.
pub(crate) fn each_file(
    ctx: &mut Ctx,
    cmd: &str,
    opts: &Opts,
    mut read: impl FnMut(&mut Ctx, &str) -> Result<Vec<u8>, FsError>,
    select: impl Fn(&[u8]) -> &[u8],
) -> i32 {
    let mut status = 0;
    let mut first = true;
    for path in &opts.operands {
        let data = match read(ctx, path) {
            Ok(d) => d,
            Err(e) => {
                if e.errno == "EISDIR" {
                    ctx.err(format!("{cmd}: error reading '{path}': {}\n", e.describe()));
                } else {
                    ctx.err(format!("{cmd}: cannot open '{path}' for reading: {}\n", e.describe()));
                }
                status = 1;
                continue;
            }
        };
        if opts.headers {
            let name = if path == "-" { "standard input" } else { path.as_str() };
            let sep = if first { "" } else { "\n" };
            if ctx.out(format!("{sep}==> {name} <==\n")).is_err() {
                return status;
            }
        }
        first = false;
        if ctx.out(select(&data)).is_err() {
            return status;
        }
    }
    status
}
