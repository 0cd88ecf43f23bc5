//! cordon's file system: one in-memory tree per sandbox, shared by guest
//! JavaScript, the shell and the Node host.
//!
//! Pure: no host file is ever opened and no path maps to one. Paths are
//! normalised once, in [`path`]; only `/workspace` and `/tmp` (and what is
//! below them) are writable; every limit is a [`Quotas`] field; every error
//! carries a POSIX-style [`Errno`].
//!
//! ```
//! use cordon_vfs::{Errno, FileSystem, MemFs, Quotas, WriteMode};
//! let mut fs = MemFs::new(Quotas::default());
//! fs.write("/workspace/a.txt", b"hi", WriteMode::Truncate).unwrap();
//! assert_eq!(fs.read("a.txt").unwrap(), b"hi"); // relative to /workspace
//! assert_eq!(fs.write("/etc/passwd", b"x", WriteMode::Truncate).unwrap_err().errno, Errno::EROFS);
//! assert_eq!(fs.read("/workspace/../../workspace/a.txt").unwrap(), b"hi");
//! ```

#[cfg(feature = "contract")]
pub mod contract;
mod error;
mod memfs;
pub mod path;

pub use error::{Errno, FsError};
pub use memfs::{MemFs, Usage};
pub use path::VPath;

/// Limits of one file system. Exceeding a byte or file quota is `ENOSPC`;
/// a path, name or depth over its limit is `ENAMETOOLONG`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    /// Bytes of file content in all. Default 64 MiB.
    pub total_bytes: u64,
    /// Files and directories in all (the three built-in directories count). Default 10 000.
    pub files: u64,
    /// Bytes of one file. Default 16 MiB.
    pub file_bytes: u64,
    /// Bytes of a normalised path. Default 4096.
    pub path_bytes: usize,
    /// Bytes of one path component. Default 255.
    pub name_bytes: usize,
    /// Components of a path. Default 64.
    pub depth: usize,
}

impl Default for Quotas {
    fn default() -> Self {
        Self {
            total_bytes: 64 * 1024 * 1024,
            files: 10_000,
            file_bytes: 16 * 1024 * 1024,
            path_bytes: 4096,
            name_bytes: 255,
            depth: 64,
        }
    }
}

/// What a directory entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
}

/// Metadata of a file or directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub kind: Kind,
    /// Content bytes of a file; entries of a directory.
    pub size: u64,
    /// Last modification, in ms since the epoch of the file system's clock.
    pub mtime_ms: u64,
    /// Permission bits (`0o7777` at most). Metadata only: they never make a
    /// read-only area writable.
    pub mode: u32,
}

/// How `write` treats an existing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// Create or replace.
    Truncate,
    /// Create or add to the end.
    Append,
    /// Create; `EEXIST` when it exists.
    CreateNew,
}

/// The operations every cordon file system implements (the in-memory tree
/// here, a host-mount overlay later). Paths are guest paths, absolute or
/// relative to the working directory; they are normalised by the
/// implementation.
pub trait FileSystem {
    fn read(&self, path: &str) -> Result<Vec<u8>, FsError>;
    fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError>;
    fn mkdir(&mut self, path: &str, recursive: bool) -> Result<(), FsError>;
    /// Names and kinds, sorted by name.
    fn readdir(&self, path: &str) -> Result<Vec<(String, Kind)>, FsError>;
    fn stat(&self, path: &str) -> Result<Stat, FsError>;
    fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError>;
    fn rename(&mut self, from: &str, to: &str) -> Result<(), FsError>;
    /// Sets the permission bits (`mode & 0o7777`) of a file or directory.
    fn chmod(&mut self, path: &str, mode: u32) -> Result<(), FsError>;
    /// Sets the working directory relative paths resolve against.
    fn chdir(&mut self, path: &str) -> Result<(), FsError>;
    fn cwd(&self) -> String;
}
