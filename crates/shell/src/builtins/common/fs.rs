//! The file system as the file builtins show it, and path arithmetic.
//!
//! The sandbox file system keeps only a kind, a size and a modification
//! time; the rest is emulated the way an ext4 file system with 4 KiB blocks
//! shows it to its owner (see `stat`). Paths are joined and normalised
//! lexically, as the sandbox resolves them.

use crate::system::{FsError, Kind, Meta, System};

/// The size GNU tools show for a directory (an ext4 directory block).
pub(crate) const DIR_SIZE: u64 = 4096;
/// The emulated owner.
pub(crate) const OWNER: &str = "user";
pub(crate) const UID: u32 = 1000;

/// The size `ls -l`, `stat` and `du -b` show.
pub(crate) fn apparent_size(meta: &Meta) -> u64 {
    match meta.kind {
        Kind::Dir => DIR_SIZE,
        Kind::File => meta.size,
    }
}

/// Disk usage in 1 KiB units, as on ext4 with 4 KiB blocks: a directory is
/// one block, a file `ceil(size / 4096)` blocks (an empty file none).
pub(crate) fn disk_kib(meta: &Meta) -> u64 {
    match meta.kind {
        Kind::Dir => 4,
        Kind::File => meta.size.div_ceil(4096) * 4,
    }
}

/// `-rw-r--r--` or `drwxr-xr-x`.
pub(crate) fn mode_string(meta: &Meta) -> String {
    let m = meta.mode;
    let mut s = String::with_capacity(10);
    s.push(if meta.kind == Kind::Dir { 'd' } else { '-' });
    for (shift, special, lower, upper) in
        [(6, 0o4000, 's', 'S'), (3, 0o2000, 's', 'S'), (0, 0o1000, 't', 'T')]
    {
        let bits = (m >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        s.push(match (bits & 1 != 0, m & special != 0) {
            (true, true) => lower,
            (false, true) => upper,
            (true, false) => 'x',
            (false, false) => '-',
        });
    }
    s
}

/// The link count: 1 for a file, 2 plus its subdirectories for a directory.
pub(crate) fn nlink(sys: &mut dyn System, path: &str, meta: &Meta) -> u64 {
    match meta.kind {
        Kind::File => 1,
        Kind::Dir => {
            let subdirs =
                sys.readdir(path).map(|v| v.iter().filter(|e| e.kind == Kind::Dir).count()).unwrap_or(0);
            2 + subdirs as u64
        }
    }
}

/// `stat`, but a trailing slash on a file is `ENOTDIR` as on a real system.
pub(crate) fn stat_path(sys: &mut dyn System, path: &str) -> Result<Meta, FsError> {
    let meta = sys.stat(path)?;
    if meta.kind == Kind::File && (path.ends_with('/') || path.ends_with("/.")) {
        return Err(FsError::new("ENOTDIR", format!("ENOTDIR: {path}")));
    }
    Ok(meta)
}

/// `dir/name`, without doubling a slash the directory already ends with.
pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The last component of a path, trailing slashes ignored (`/` for `/`).
pub(crate) fn base_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.is_empty() { "" } else { "/" };
    }
    match trimmed.rfind('/') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    }
}

/// `path` made absolute against `cwd` and normalised lexically (`.` and
/// empty components dropped, `..` popping one), as the sandbox resolves it.
pub(crate) fn absolute(cwd: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if !path.starts_with('/') {
        parts.extend(cwd.split('/').filter(|p| !p.is_empty()));
    }
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return "/".to_string();
    }
    let mut out = String::new();
    for p in parts {
        out.push('/');
        out.push_str(p);
    }
    out
}

/// Whether absolute path `inner` is `outer` or below it.
pub(crate) fn is_within(inner: &str, outer: &str) -> bool {
    inner == outer
        || outer == "/"
        || (inner.starts_with(outer) && inner.as_bytes().get(outer.len()) == Some(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(absolute("/workspace", "a/../b/./c/"), "/workspace/b/c");
        assert_eq!(absolute("/workspace", "/.."), "/");
        assert_eq!(base_name("a/b/"), "b");
        assert_eq!(base_name("//"), "/");
        assert_eq!(join("d/", "x"), "d/x");
        assert!(is_within("/a/b", "/a"));
        assert!(!is_within("/ab", "/a"));
    }
}
