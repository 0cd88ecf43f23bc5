//! POSIX-style errors.

use std::fmt;

/// The error codes a cordon file system reports; the names are public API.
#[allow(clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Errno {
    ENOENT,
    EACCES,
    EROFS,
    EEXIST,
    ENOTDIR,
    EISDIR,
    ENOTEMPTY,
    ENAMETOOLONG,
    ENOSPC,
    EINVAL,
}

impl Errno {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ENOENT => "ENOENT",
            Self::EACCES => "EACCES",
            Self::EROFS => "EROFS",
            Self::EEXIST => "EEXIST",
            Self::ENOTDIR => "ENOTDIR",
            Self::EISDIR => "EISDIR",
            Self::ENOTEMPTY => "ENOTEMPTY",
            Self::ENAMETOOLONG => "ENAMETOOLONG",
            Self::ENOSPC => "ENOSPC",
            Self::EINVAL => "EINVAL",
        }
    }

    /// The usual description (`no such file or directory`).
    pub fn describe(self) -> &'static str {
        match self {
            Self::ENOENT => "no such file or directory",
            Self::EACCES => "permission denied",
            Self::EROFS => "read-only file system",
            Self::EEXIST => "file exists",
            Self::ENOTDIR => "not a directory",
            Self::EISDIR => "is a directory",
            Self::ENOTEMPTY => "directory not empty",
            Self::ENAMETOOLONG => "file name too long",
            Self::ENOSPC => "no space left on device",
            Self::EINVAL => "invalid argument",
        }
    }
}

/// An error of one operation on one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsError {
    pub errno: Errno,
    /// The path as the caller wrote it (cut to 200 bytes).
    pub path: String,
    /// What was exceeded or expected, when the description alone is not enough.
    pub detail: Option<String>,
}

impl FsError {
    /// An error about the guest path `path` (shown cut at 200 characters).
    pub fn new(errno: Errno, path: &str) -> Self {
        let mut shown = path.chars().take(200).collect::<String>();
        if shown.len() < path.len() {
            shown.push('…');
        }
        Self { errno, path: shown, detail: None }
    }

    /// Adds what was exceeded or expected.
    pub fn with(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

impl fmt::Display for FsError {
    /// `ENOENT: no such file or directory, '/workspace/x'` (Node's form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.errno.as_str(), self.errno.describe())?;
        if let Some(detail) = &self.detail {
            write!(f, " ({detail})")?;
        }
        write!(f, ", '{}'", self.path.escape_debug())
    }
}

impl std::error::Error for FsError {}
