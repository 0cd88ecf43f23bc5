//! Standard input and output of a command.
//!
//! Commands in a pipeline run one after the other, so a pipe is a buffer:
//! the writer fills it (up to [`PIPE_CAPACITY`], after which its writes fail
//! like a closed pipe) and the reader gets the whole of it as its input.

use std::cell::RefCell;
use std::rc::Rc;

use crate::system::{Stream, System};

/// The most one pipe or command substitution holds; a writer past it sees a
/// broken pipe (which is what stops `yes | head`).
pub const PIPE_CAPACITY: usize = 16 * 1024 * 1024;

/// Where a command's output goes.
#[derive(Debug)]
pub enum Sink {
    /// A stream of the run, on the host.
    Host(Stream),
    /// A pipe, command substitution or file redirection being collected.
    Buffer(Vec<u8>),
    /// `/dev/null`.
    Null,
    /// A closed descriptor (`>&-`): every write fails.
    Closed,
}

/// The write end failed: the reader is gone or the stream is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

/// A shared output: `2>&1` makes two descriptors share one sink.
pub type Output = Rc<RefCell<Sink>>;

pub fn output(sink: Sink) -> Output {
    Rc::new(RefCell::new(sink))
}

impl Sink {
    pub fn write(&mut self, sys: &mut dyn System, bytes: &[u8]) -> Result<(), Closed> {
        match self {
            Sink::Host(stream) => {
                if sys.output(*stream, bytes) {
                    Ok(())
                } else {
                    Err(Closed)
                }
            }
            Sink::Buffer(buf) => {
                if buf.len().saturating_add(bytes.len()) > PIPE_CAPACITY {
                    let room = PIPE_CAPACITY.saturating_sub(buf.len());
                    buf.extend_from_slice(bytes.get(..room).unwrap_or_default());
                    return Err(Closed);
                }
                buf.extend_from_slice(bytes);
                Ok(())
            }
            Sink::Null => Ok(()),
            Sink::Closed => Err(Closed),
        }
    }
}

/// A command's standard input: bytes and how far they have been read.
/// Shared, so `while read line; do …; done < file` reads one line per turn.
#[derive(Debug, Default)]
pub struct Input {
    data: Vec<u8>,
    pos: usize,
}

pub type InputRef = Rc<RefCell<Input>>;

pub fn input(data: Vec<u8>) -> InputRef {
    Rc::new(RefCell::new(Input { data, pos: 0 }))
}

impl Input {
    /// Everything not read yet.
    pub fn read_all(&mut self) -> Vec<u8> {
        let rest = self.data.get(self.pos..).unwrap_or_default().to_vec();
        self.pos = self.data.len();
        rest
    }

    /// The next line including its `\n` (the last line may lack it); `None`
    /// at the end.
    pub fn read_line(&mut self) -> Option<Vec<u8>> {
        self.read_until(b'\n')
    }

    /// The bytes up to and including `delim`; `None` at the end.
    pub fn read_until(&mut self, delim: u8) -> Option<Vec<u8>> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            return None;
        }
        let end = rest.iter().position(|&b| b == delim).map_or(rest.len(), |i| i + 1);
        let line = rest.get(..end).unwrap_or_default().to_vec();
        self.pos += end;
        Some(line)
    }

    /// At most `n` bytes.
    pub fn read_bytes(&mut self, n: usize) -> Vec<u8> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let take = rest.len().min(n);
        let out = rest.get(..take).unwrap_or_default().to_vec();
        self.pos += take;
        out
    }
}
