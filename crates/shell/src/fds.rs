//! File descriptors beyond 0–2, `exec` redirections and process
//! substitution.
//!
//! A command's descriptors 3 and up live in [`Io::fds`]. `exec` with only
//! redirections gives the rest of the script new streams: the interpreter
//! keeps a map from the streams a command was given to the ones `exec` made
//! of them, which every later command given the same streams follows.
//!
//! `<(list)` runs the list first (in a subshell, counting against the same
//! budgets) and names its output `/dev/fd/63` (then 62, …) for the duration
//! of the command; `>(list)` names a buffer that the list reads as its
//! standard input once the command is done. Those paths exist only for the
//! shell's own commands: they are not files of the sandbox file system.

use std::collections::BTreeMap;
use std::rc::Rc;

use brush_parser::ast;

use crate::ctx::Io;
use crate::interp::{Flow, Interp};
use crate::io::{input, output, InputRef, Output, Sink};
use crate::system::FsError;

/// An open descriptor above 2.
#[derive(Debug, Clone)]
pub enum Fd {
    In(InputRef),
    Out(Output),
}

/// A command's descriptors above 2, shared until one is changed.
pub type Fds = Rc<BTreeMap<i32, Fd>>;

/// The highest descriptor a script may name (bash's own start at 10 for
/// `{var}>` and use 63 and below for process substitution).
pub const MAX_FD: i32 = 255;

/// What a `/dev/fd/N` path of a process substitution holds.
#[derive(Debug)]
pub(crate) enum ProcFile {
    /// The output of `<(list)`.
    Read(Vec<u8>),
    /// What is written to `>(list)`, read by the list afterwards.
    Write(Output),
}

/// A `>(list)` waiting for the command that writes to it to finish.
pub(crate) struct PendingProc {
    list: ast::CompoundList,
    sink: Output,
}

fn same(a: &Io, b: &Io) -> bool {
    Rc::ptr_eq(&a.stdin, &b.stdin)
        && Rc::ptr_eq(&a.stdout, &b.stdout)
        && Rc::ptr_eq(&a.stderr, &b.stderr)
        && Rc::ptr_eq(&a.fds, &b.fds)
}

/// `N` of a `/dev/fd/N` path.
fn dev_fd(path: &str) -> Option<i32> {
    path.strip_prefix("/dev/fd/").and_then(|n| n.parse().ok())
}

impl Interp<'_> {
    /// The streams a command given `io` really has, after `exec`.
    pub(crate) fn effective_io(&self, io: &Io) -> Io {
        let mut current = io.clone();
        for _ in 0..self.exec_io.len() {
            match self.exec_io.iter().rev().find(|(from, _)| same(from, &current)) {
                Some((_, to)) => current = to.clone(),
                None => break,
            }
        }
        current
    }

    /// `exec` with redirections only: they hold for the rest of the script
    /// (of this subshell).
    pub(crate) fn exec_redirects(&mut self, redirects: &[&ast::IoRedirect], io: &Io) -> i32 {
        let mut new = io.clone();
        let mut files = Vec::new();
        for r in redirects {
            if let Err(status) = self.redirect(r, &mut new, &mut files) {
                self.exec_files.extend(files);
                return status;
            }
        }
        self.exec_files.extend(files);
        self.exec_io.push((io.clone(), new));
        0
    }

    /// Writes what `exec`-opened files collected, and forgets the closed.
    pub(crate) fn flush_exec_files(&mut self) {
        if self.exec_files.is_empty() {
            return;
        }
        let files = std::mem::take(&mut self.exec_files);
        let mut keep = Vec::with_capacity(files.len());
        for file in files {
            let open = Rc::strong_count(&file.sink) > 1;
            let data = match &mut *file.sink.borrow_mut() {
                Sink::Buffer(buf) => std::mem::take(buf),
                _ => Vec::new(),
            };
            if !data.is_empty() {
                if let Err(e) = self.sys.write(&file.path, &data, crate::system::WriteMode::Append) {
                    self.report(&format!("{}: {}", file.path, e.describe()));
                }
            }
            if open {
                keep.push(file);
            }
        }
        self.exec_files = keep;
    }

    /// Runs `<(list)` now, or sets up `>(list)`; returns the path that
    /// names it.
    pub(crate) fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
        io: &Io,
    ) -> String {
        let fd = 63 - i32::try_from(self.proc_files.len()).unwrap_or(0);
        let path = format!("/dev/fd/{fd}");
        match kind {
            ast::ProcessSubstitutionKind::Read => {
                let data = self.run_captured(&sub.list, io);
                self.proc_files.push((path.clone(), ProcFile::Read(data)));
            }
            ast::ProcessSubstitutionKind::Write => {
                let sink = output(Sink::Buffer(Vec::new()));
                self.proc_files.push((path.clone(), ProcFile::Write(sink.clone())));
                self.proc_pending.push(PendingProc { list: sub.list.clone(), sink });
            }
        }
        path
    }

    /// The output of `list` run in a subshell with `io`'s input and errors.
    pub(crate) fn run_captured(&mut self, list: &ast::CompoundList, io: &Io) -> Vec<u8> {
        let stdout = output(Sink::Buffer(Vec::new()));
        let inner = Io { stdout: stdout.clone(), ..io.clone() };
        let saved = self.subst_status;
        self.subshell(|me| me.exec_list(list, &inner));
        self.subst_status = saved;
        let data = match &mut *stdout.borrow_mut() {
            Sink::Buffer(buf) => std::mem::take(buf),
            _ => Vec::new(),
        };
        data
    }

    /// Runs the `>(list)`s of a finished command on what it wrote, and
    /// forgets the `/dev/fd` paths it named.
    pub(crate) fn finish_process_substitutions(&mut self, mark: (usize, usize), io: &Io) {
        self.proc_files.truncate(mark.0);
        if self.proc_pending.len() <= mark.1 {
            return;
        }
        let pending = self.proc_pending.split_off(mark.1);
        for proc in pending {
            let data = match &mut *proc.sink.borrow_mut() {
                Sink::Buffer(buf) => std::mem::take(buf),
                _ => Vec::new(),
            };
            let inner = Io { stdin: input(data), ..io.clone() };
            self.subshell(|me| me.exec_list(&proc.list, &inner));
            if matches!(self.flow, Some(Flow::Exit(_))) {
                break;
            }
        }
    }

    /// A special input path (`/dev/null`, `/dev/stdin`, `/dev/fd/N`), or
    /// `None` for an ordinary file.
    pub(crate) fn special_input(&mut self, path: &str, io: &Io) -> Option<Result<Vec<u8>, FsError>> {
        match path {
            "/dev/null" => return Some(Ok(Vec::new())),
            "/dev/stdin" | "/dev/fd/0" => return Some(Ok(io.stdin.borrow_mut().read_all())),
            _ => {}
        }
        let fd = dev_fd(path)?;
        if let Some(Fd::In(data)) = io.fds.get(&fd) {
            return Some(Ok(data.borrow_mut().read_all()));
        }
        match self.proc_files.iter().rev().find(|(p, _)| p == path) {
            Some((_, ProcFile::Read(data))) => Some(Ok(data.clone())),
            Some((_, ProcFile::Write(_))) => Some(Ok(Vec::new())),
            None => Some(Err(FsError::new("EBADF", path.to_string()))),
        }
    }

    /// A special output path (`/dev/null`, `/dev/stdout`, `/dev/stderr`,
    /// `/dev/fd/N`), or `None` for an ordinary file.
    pub(crate) fn special_output(&mut self, path: &str, io: &Io) -> Option<Result<Output, FsError>> {
        match path {
            "/dev/null" => return Some(Ok(output(Sink::Null))),
            "/dev/stdout" | "/dev/fd/1" => return Some(Ok(io.stdout.clone())),
            "/dev/stderr" | "/dev/fd/2" => return Some(Ok(io.stderr.clone())),
            _ => {}
        }
        let fd = dev_fd(path)?;
        if let Some(Fd::Out(sink)) = io.fds.get(&fd) {
            return Some(Ok(sink.clone()));
        }
        match self.proc_files.iter().rev().find(|(p, _)| p == path) {
            Some((_, ProcFile::Write(sink))) => Some(Ok(sink.clone())),
            Some((_, ProcFile::Read(_))) => Some(Ok(output(Sink::Null))),
            None => Some(Err(FsError::new("EBADF", path.to_string()))),
        }
    }

    /// Makes descriptor `fd` read `data`.
    pub(crate) fn set_fd_input(&mut self, fd: i32, data: InputRef, io: &mut Io) -> Result<(), i32> {
        match fd {
            0 => io.stdin = data,
            3..=MAX_FD => {
                Rc::make_mut(&mut io.fds).insert(fd, Fd::In(data));
            }
            _ => return self.bad_fd(fd),
        }
        Ok(())
    }

    /// Makes descriptor `fd` write to `sink`.
    pub(crate) fn set_fd_output(&mut self, fd: i32, sink: Output, io: &mut Io) -> Result<(), i32> {
        match fd {
            1 => io.stdout = sink,
            2 => io.stderr = sink,
            3..=MAX_FD => {
                Rc::make_mut(&mut io.fds).insert(fd, Fd::Out(sink));
            }
            _ => return self.bad_fd(fd),
        }
        Ok(())
    }

    fn bad_fd<T>(&mut self, fd: i32) -> Result<T, i32> {
        self.report(&format!("{fd}: Bad file descriptor"));
        Err(1)
    }

    /// `fd<&target` or `fd>&target` with a numeric target or `-`.
    pub(crate) fn duplicate_fd(
        &mut self,
        fd: i32,
        target: &str,
        io: &mut Io,
        input_kind: bool,
    ) -> Result<(), i32> {
        if target == "-" {
            return match fd {
                0 => {
                    io.stdin = input(Vec::new());
                    Ok(())
                }
                1 | 2 => self.set_fd_output(fd, output(Sink::Closed), io),
                _ => {
                    Rc::make_mut(&mut io.fds).remove(&fd);
                    Ok(())
                }
            };
        }
        let Ok(n) = target.parse::<i32>() else {
            return self.bad_fd(-1);
        };
        let source = match n {
            0 => Fd::In(io.stdin.clone()),
            1 => Fd::Out(io.stdout.clone()),
            2 => Fd::Out(io.stderr.clone()),
            _ => match io.fds.get(&n) {
                Some(found) => found.clone(),
                None => return self.bad_fd(n),
            },
        };
        match (source, input_kind || fd == 0) {
            (Fd::In(data), _) => self.set_fd_input(fd, data, io),
            (Fd::Out(sink), false) => self.set_fd_output(fd, sink, io),
            // `1<&2` is `1>&2`: a descriptor is copied whatever the arrow.
            (Fd::Out(sink), true) if fd == 1 || fd == 2 => self.set_fd_output(fd, sink, io),
            // `<&1`: reading an output gets nothing.
            (Fd::Out(_), true) => self.set_fd_input(fd, input(Vec::new()), io),
        }
    }
}

/// `name` of a `{name}` word (before a redirection: `exec {fd}>file`).
pub(crate) fn named_fd(word: &str) -> Option<String> {
    let name = word.strip_prefix('{')?.strip_suffix('}')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| name.to_string())
}

impl Interp<'_> {
    /// The redirections with each `{name}` one given a descriptor: a new
    /// one (the lowest free from 10, stored in `name`), or for `{name}>&-`
    /// the one `name` holds.
    pub(crate) fn named_fd_redirects(
        &mut self,
        redirects: &[&ast::IoRedirect],
        named: &[(usize, String)],
        io: &Io,
    ) -> Result<Vec<ast::IoRedirect>, i32> {
        let mut taken: Vec<i32> = io.fds.keys().copied().collect();
        let mut out = Vec::with_capacity(redirects.len());
        for (i, r) in redirects.iter().enumerate() {
            let r = (*r).clone();
            let Some((_, name)) = named.iter().find(|(k, _)| *k == i) else {
                out.push(r);
                continue;
            };
            let ast::IoRedirect::File(_, kind, target) = r else {
                out.push(r);
                continue;
            };
            let closing = matches!(&target, ast::IoFileRedirectTarget::Duplicate(w) if w.value == "-");
            let fd = if closing {
                match self.state.get(name).and_then(|v| v.parse::<i32>().ok()) {
                    Some(fd) => fd,
                    None => {
                        self.report(&format!("{name}: ambiguous redirect"));
                        return Err(1);
                    }
                }
            } else {
                let Some(fd) = (10..=MAX_FD).find(|n| !taken.contains(n)) else {
                    return self.bad_fd(MAX_FD);
                };
                taken.push(fd);
                self.state.set(name, fd.to_string());
                fd
            };
            out.push(ast::IoRedirect::File(Some(fd), kind, target));
        }
        Ok(out)
    }
}

/// An empty descriptor table.
pub fn no_fds() -> Fds {
    Rc::new(BTreeMap::new())
}
