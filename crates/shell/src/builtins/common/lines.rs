//! Line-oriented input: splitting bytes into lines (records) on a
//! delimiter byte, and the operand loop of filters such as `cut`, `fold`,
//! `nl`, `rev` and `tac`. Input is bytes throughout: nothing here assumes
//! UTF-8.

use super::bytes::memchr;
use crate::ctx::Ctx;
use crate::io::Closed;
use crate::system::FsError;

/// One line of input: its bytes without the delimiter, and whether the
/// delimiter ended it (the last line of an input may lack one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub body: &'a [u8],
    pub terminated: bool,
}

/// The lines of `data` ending in `delim`. A final delimiter does not start
/// an empty line; a last line without one is still a line.
pub(crate) fn lines(data: &[u8], delim: u8) -> impl Iterator<Item = Line<'_>> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let line = match memchr(delim, rest) {
            Some(i) => {
                let line = Line { body: &rest[..i], terminated: true };
                rest = &rest[i + 1..];
                line
            }
            None => Line { body: std::mem::take(&mut rest), terminated: false },
        };
        Some(line)
    })
}

/// The lines of `data` ending in `delim`, without their delimiter (see
/// [`lines`]).
pub(crate) fn records(data: &[u8], delim: u8) -> impl Iterator<Item = &[u8]> {
    lines(data, delim).map(|line| line.body)
}

/// Runs `filter` on the whole contents of each operand in turn (standard
/// input for `-`, or when there are no operands), the way GNU filters
/// treat their files: one that cannot be read is reported by `open_error`
/// and makes the status 1 while the rest still run. `filter` writes its own
/// output; once that output is closed, the remaining operands are skipped.
/// Returns the exit status.
pub(crate) fn each_input(
    ctx: &mut Ctx,
    operands: &[String],
    open_error: impl FnMut(&mut Ctx, &str, &FsError),
    filter: impl FnMut(&mut Ctx, &[u8]) -> Result<(), Closed>,
) -> i32 {
    each_input_read(ctx, operands, |ctx, path| ctx.read_input(path), open_error, filter)
}

/// [`each_input`], with the operands read by `read` (for a command whose
/// `-` operand is a file name).
pub(crate) fn each_input_read(
    ctx: &mut Ctx,
    operands: &[String],
    mut read: impl FnMut(&mut Ctx, &str) -> Result<Vec<u8>, FsError>,
    mut open_error: impl FnMut(&mut Ctx, &str, &FsError),
    mut filter: impl FnMut(&mut Ctx, &[u8]) -> Result<(), Closed>,
) -> i32 {
    let stdin = ["-".to_string()];
    let operands = if operands.is_empty() { &stdin[..] } else { operands };
    let mut status = 0;
    for path in operands {
        match read(ctx, path) {
            Ok(data) => {
                if filter(ctx, &data).is_err() {
                    break;
                }
            }
            Err(e) => {
                open_error(ctx, path, &e);
                status = 1;
            }
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(data: &[u8], delim: u8) -> Vec<(&[u8], bool)> {
        lines(data, delim).map(|l| (l.body, l.terminated)).collect()
    }

    #[test]
    fn splits_lines() {
        assert_eq!(split(b"a\n\nb\n", b'\n'), [(&b"a"[..], true), (b"", true), (b"b", true)]);
        assert_eq!(split(b"a\nb", b'\n'), [(&b"a"[..], true), (b"b", false)]);
        assert_eq!(split(b"", b'\n'), []);
        assert_eq!(split(b"\n", b'\n'), [(&b""[..], true)]);
        assert_eq!(split(b"x\0\xff\xfe\0", 0), [(&b"x"[..], true), (b"\xff\xfe", true)]);
        assert_eq!(split(b"a\nb", 0), [(&b"a\nb"[..], false)]);
    }

    #[test]
    fn splits_records() {
        let recs: Vec<&[u8]> = records(b"a\n\nb\n", b'\n').collect();
        assert_eq!(recs, [&b"a"[..], b"", b"b"]);
        assert_eq!(records(b"", b'\n').count(), 0);
        assert_eq!(records(b"x", b'\n').count(), 1);
    }
}
