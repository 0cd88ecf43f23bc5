//! What a builtin gets: its standard streams, the shell's state and the
//! system, and a way to run other commands (for `xargs`, `find -exec`).

use crate::interp::Interp;
use crate::io::{Closed, InputRef, Output};
use crate::state::State;
use crate::system::{FsError, System};

/// The standard streams of one command.
#[derive(Debug, Clone)]
pub struct Io {
    pub stdin: InputRef,
    pub stdout: Output,
    pub stderr: Output,
    /// Descriptors 3 and up.
    pub fds: crate::fds::Fds,
}

/// The context a builtin runs in.
pub struct Ctx<'a, 'b> {
    pub(crate) interp: &'a mut Interp<'b>,
    pub(crate) io: Io,
}

impl<'a, 'b> Ctx<'a, 'b> {
    pub(crate) fn new(interp: &'a mut Interp<'b>, io: Io) -> Self {
        Self { interp, io }
    }

    /// The file system, clock, tools and output of the sandbox.
    pub fn sys(&mut self) -> &mut dyn System {
        &mut *self.interp.sys
    }

    /// Variables, functions and options.
    pub fn state(&mut self) -> &mut State {
        &mut *self.interp.state
    }

    /// The rest of standard input.
    pub fn stdin_all(&mut self) -> Vec<u8> {
        self.io.stdin.borrow_mut().read_all()
    }

    /// The next line of standard input, with its `\n` if it has one.
    pub fn stdin_line(&mut self) -> Option<Vec<u8>> {
        self.io.stdin.borrow_mut().read_line()
    }

    /// The next record of standard input ending in `delim` (included).
    pub fn stdin_until(&mut self, delim: u8) -> Option<Vec<u8>> {
        self.io.stdin.borrow_mut().read_until(delim)
    }

    /// Writes to standard output. `Err(Closed)` means the reader is gone or
    /// the output limit was reached: stop producing output (status 141 for
    /// generators like `yes`, or just return).
    pub fn out(&mut self, bytes: impl AsRef<[u8]>) -> Result<(), Closed> {
        let sys = &mut *self.interp.sys;
        self.io.stdout.borrow_mut().write(sys, bytes.as_ref())
    }

    /// Prints bash's `name: write error: Bad file descriptor` when standard
    /// output is closed (`>&-`); other write failures stay silent.
    pub fn write_failed(&mut self, name: &str) {
        if matches!(*self.io.stdout.borrow(), crate::io::Sink::Closed) {
            self.shell_error(&format!("{name}: write error: Bad file descriptor"));
        }
    }

    /// Writes to standard error (errors writing it are ignored).
    pub fn err(&mut self, bytes: impl AsRef<[u8]>) {
        let sys = &mut *self.interp.sys;
        let _ = self.io.stderr.borrow_mut().write(sys, bytes.as_ref());
    }

    /// Prints `name: message` and a newline to standard error.
    pub fn error(&mut self, name: &str, message: impl std::fmt::Display) {
        self.err(format!("{name}: {message}\n"));
    }

    /// Prints a message the way bash prints its own builtins' errors:
    /// `cordon: line N: message`.
    pub fn shell_error(&mut self, message: &str) {
        let text = format!("{}: line {}: {message}\n", self.interp.name, self.interp.line);
        self.err(text);
    }

    /// The current line of the script (for messages).
    pub fn line(&self) -> usize {
        self.interp.line
    }

    /// The contents of an input operand: `-` is standard input, anything
    /// else a file.
    pub fn read_input(&mut self, path: &str) -> Result<Vec<u8>, FsError> {
        if path == "-" {
            return Ok(self.stdin_all());
        }
        if let Some(result) = self.interp.special_input(path, &self.io) {
            return result;
        }
        match self.interp.sys.stat(path) {
            Ok(meta) if meta.kind == crate::system::Kind::Dir => {
                return Err(FsError::new("EISDIR", format!("EISDIR: {path}")))
            }
            _ => {}
        }
        self.interp.sys.read(path)
    }

    /// The contents of a path that is not a file of the file system
    /// (`/dev/null`, `/dev/stdin`, `/dev/fd/N`), or `None` for a file.
    pub fn special_input(&mut self, path: &str) -> Option<Result<Vec<u8>, FsError>> {
        self.interp.special_input(path, &self.io)
    }

    /// Where output to `path` goes when it is not a file of the file system
    /// (`/dev/null`, `/dev/stdout`, `/dev/fd/N`, …).
    pub fn special_output(&mut self, path: &str) -> Option<Result<Output, FsError>> {
        self.interp.special_output(path, &self.io)
    }

    /// Descriptor `fd` as an input (`read -u`), if it is open for reading.
    pub fn input_fd(&self, fd: i32) -> Option<crate::io::InputRef> {
        match fd {
            0 => Some(self.io.stdin.clone()),
            _ => match self.io.fds.get(&fd) {
                Some(crate::fds::Fd::In(data)) => Some(data.clone()),
                _ => None,
            },
        }
    }

    /// Prints the GNU-style message for a failed file operand:
    /// `name: path: No such file or directory`.
    pub fn file_error(&mut self, name: &str, path: &str, err: &FsError) {
        self.err(format!("{name}: {path}: {}\n", err.describe()));
    }

    /// Runs a command (builtin or function) with these streams, or with
    /// `stdin` as its input when given. Returns its status.
    pub fn exec(&mut self, argv: &[String], stdin: Option<Vec<u8>>) -> i32 {
        let io = match stdin {
            Some(data) => Io { stdin: crate::io::input(data), ..self.io.clone() },
            None => self.io.clone(),
        };
        self.interp.exec_argv(argv, &io)
    }

    /// Whether the run should stop (`exit`, a nesting limit, or the
    /// system asks to).
    pub fn interrupted(&mut self) -> bool {
        self.interp.flow.is_some() || self.interp.sys.interrupted()
    }
}
