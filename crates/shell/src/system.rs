//! What the shell needs from the world, and nothing more: the sandbox's file
//! system, its two output streams, a clock, host tools and JavaScript.
//!
//! The guest implements [`System`] over its imports; tests implement it over
//! `cordon-vfs` directly. The shell never sees a host path, a process or a
//! socket because this trait has none.

/// A failed file-system operation, with its POSIX-style code (`ENOENT`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsError {
    pub errno: String,
    pub message: String,
}

impl FsError {
    pub fn new(errno: &str, message: impl Into<String>) -> Self {
        Self { errno: errno.to_string(), message: message.into() }
    }

    /// The text GNU tools print for this error (`No such file or directory`).
    pub fn describe(&self) -> &'static str {
        strerror(&self.errno)
    }
}

/// `strerror` for the codes the file system produces.
pub fn strerror(errno: &str) -> &'static str {
    match errno {
        "ENOENT" => "No such file or directory",
        "EACCES" => "Permission denied",
        "EROFS" => "Read-only file system",
        "EEXIST" => "File exists",
        "ENOTDIR" => "Not a directory",
        "EISDIR" => "Is a directory",
        "ENOTEMPTY" => "Directory not empty",
        "ENAMETOOLONG" => "File name too long",
        "ENOSPC" => "No space left on device",
        "EINVAL" => "Invalid argument",
        "EBUSY" => "Device or resource busy",
        "EFBIG" => "File too large",
        "EPERM" => "Operation not permitted",
        "EBADF" => "Bad file descriptor",
        _ => "Input/output error",
    }
}

/// What a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
}

/// The metadata the file system keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    pub size: u64,
    pub mtime_ms: u64,
    /// Permission bits (`0o644` files, `0o755` directories by default).
    pub mode: u32,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub kind: Kind,
}

/// How a write treats an existing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    Truncate,
    Append,
    CreateNew,
}

/// A tool call that did not produce a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// Stable code (`DENIED`, `BUDGET_EXHAUSTED`, `TOOL_ERROR`, …).
    pub code: String,
    pub reason: Option<String>,
    pub message: String,
}

/// A host tool as the shell may describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// The JSON Schema of its arguments, as JSON text (empty: none).
    pub schema: String,
}

/// How a nested JavaScript run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsOutcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
}

/// An output stream of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The world as the shell sees it. Paths may be relative: the system
/// resolves them against its working directory, which `chdir` changes.
pub trait System {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, FsError>;
    fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError>;
    fn mkdir(&mut self, path: &str, recursive: bool) -> Result<(), FsError>;
    /// Entries in name order.
    fn readdir(&mut self, path: &str) -> Result<Vec<DirEntry>, FsError>;
    fn stat(&mut self, path: &str) -> Result<Meta, FsError>;
    fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError>;
    fn rename(&mut self, from: &str, to: &str) -> Result<(), FsError>;
    /// Sets the permission bits of a path (metadata only: a read-only area
    /// stays read-only).
    fn chmod(&mut self, path: &str, mode: u32) -> Result<(), FsError>;
    /// Changes the working directory; returns the new one.
    fn chdir(&mut self, path: &str) -> Result<String, FsError>;
    fn cwd(&mut self) -> String;

    /// Appends to an output stream of the run. `false` once the stream has
    /// reached its limit: writers stop.
    fn output(&mut self, stream: Stream, bytes: &[u8]) -> bool;

    /// Milliseconds since the Unix epoch (the sandbox's clock, which may be
    /// virtual).
    fn now_ms(&mut self) -> u64;
    /// Waits `ms` milliseconds (bounded by the run's limits on the host).
    fn sleep(&mut self, ms: u64);

    /// Calls a host tool with JSON arguments; returns its JSON result.
    fn tool_call(&mut self, name: &str, args_json: &str) -> Result<String, ToolError>;
    /// The tools this run may name, sorted by name.
    fn tools(&mut self) -> Vec<ToolInfo>;

    /// Runs JavaScript in the same sandbox, with `stdin` readable by it.
    fn javascript(&mut self, code: &str, args: &[String], stdin: &[u8]) -> JsOutcome;

    /// Whether the run should stop now. The sandbox stops runaway guests
    /// from the host (epoch interruption), so the guest never needs this;
    /// embedders without preemption (tests, fuzzing) use it to bound work.
    /// Checked before every command and loop iteration.
    fn interrupted(&mut self) -> bool {
        false
    }
}
