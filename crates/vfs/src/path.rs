//! Path normalisation: the one place a guest path becomes a [`VPath`].
//!
//! `.` and empty components vanish, `..` pops a component and never climbs
//! above `/`, NUL and control characters are refused (`EINVAL`), and every
//! other character — a backslash, `%2e`, a look-alike slash — is just part
//! of a name. Nothing here knows of host paths.

use crate::{Errno, FsError, Quotas};

/// A normalised absolute path: its components, none empty, `.` or `..`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct VPath(Vec<String>);

impl VPath {
    /// The root, `/`.
    pub fn root() -> Self {
        Self(Vec::new())
    }

    /// Normalises `input`, relative to `cwd` unless it starts with `/`.
    pub fn parse(cwd: &VPath, input: &str, quotas: &Quotas) -> Result<Self, FsError> {
        if input.is_empty() {
            return Err(FsError::new(Errno::ENOENT, input));
        }
        if input.chars().any(|c| c.is_control()) {
            return Err(
                FsError::new(Errno::EINVAL, input).with("paths cannot contain NUL or control characters")
            );
        }
        if input.len() > quotas.path_bytes {
            return Err(FsError::new(Errno::ENAMETOOLONG, input)
                .with(format!("a path is at most {} bytes", quotas.path_bytes)));
        }
        let mut parts = if input.starts_with('/') { Vec::new() } else { cwd.0.clone() };
        for part in input.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                name => {
                    if name.len() > quotas.name_bytes {
                        return Err(FsError::new(Errno::ENAMETOOLONG, input)
                            .with(format!("a name is at most {} bytes", quotas.name_bytes)));
                    }
                    parts.push(name.to_owned());
                }
            }
        }
        let path = Self(parts);
        if path.0.len() > quotas.depth {
            return Err(FsError::new(Errno::ENAMETOOLONG, input)
                .with(format!("a path is at most {} deep", quotas.depth)));
        }
        if path.to_string().len() > quotas.path_bytes {
            return Err(FsError::new(Errno::ENAMETOOLONG, input)
                .with(format!("a path is at most {} bytes", quotas.path_bytes)));
        }
        Ok(path)
    }

    pub fn components(&self) -> &[String] {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The parent and the last component; `None` for the root.
    pub fn split_last(&self) -> Option<(VPath, &str)> {
        let (last, parent) = self.0.split_last()?;
        Some((Self(parent.to_vec()), last.as_str()))
    }

    /// Whether `self` is `other` or below it.
    pub fn starts_with(&self, other: &VPath) -> bool {
        self.0.starts_with(&other.0)
    }

    pub fn join(&self, name: &str) -> VPath {
        let mut parts = self.0.clone();
        parts.push(name.to_owned());
        Self(parts)
    }
}

impl std::fmt::Display for VPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for part in &self.0 {
            write!(f, "/{part}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(cwd: &str, input: &str) -> Result<String, Errno> {
        let q = Quotas::default();
        let cwd = VPath::parse(&VPath::root(), cwd, &q).unwrap();
        VPath::parse(&cwd, input, &q).map(|p| p.to_string()).map_err(|e| e.errno)
    }

    #[test]
    fn normalises_once_and_never_climbs_above_root() {
        assert_eq!(norm("/workspace", "a/./b//c/").unwrap(), "/workspace/a/b/c");
        assert_eq!(norm("/workspace", "../../../../etc/passwd").unwrap(), "/etc/passwd");
        assert_eq!(norm("/", "/..").unwrap(), "/");
        assert_eq!(norm("/workspace", "..\\..\\x").unwrap(), "/workspace/..\\..\\x");
        assert_eq!(norm("/workspace", "%2e%2e/x").unwrap(), "/workspace/%2e%2e/x");
        assert_eq!(norm("/workspace", "a\u{2215}..\u{2215}b").unwrap(), "/workspace/a\u{2215}..\u{2215}b");
        assert_eq!(norm("/tmp", ".").unwrap(), "/tmp");
    }

    #[test]
    fn refuses_control_characters_and_overlong_paths() {
        assert_eq!(norm("/", "/workspace/a\0b"), Err(Errno::EINVAL));
        assert_eq!(norm("/", "/workspace/a\nb"), Err(Errno::EINVAL));
        assert_eq!(norm("/", ""), Err(Errno::ENOENT));
        assert_eq!(norm("/", &format!("/{}", "a".repeat(256))), Err(Errno::ENAMETOOLONG));
        assert_eq!(norm("/", &"/a".repeat(65)), Err(Errno::ENAMETOOLONG));
        assert!(norm("/", &"/a".repeat(64)).is_ok());
        assert_eq!(norm("/", &"x/".repeat(3000)), Err(Errno::ENAMETOOLONG));
    }
}
