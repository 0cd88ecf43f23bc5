//! The in-memory tree.

use std::collections::BTreeMap;

use crate::{Errno, FileSystem, FsError, Kind, Quotas, Stat, VPath, WriteMode};

#[derive(Debug, Clone)]
enum Node {
    File { data: Vec<u8>, mtime_ms: u64, mode: u32 },
    Dir { entries: BTreeMap<String, Node>, mtime_ms: u64, mode: u32 },
}

/// Permission bits of a new file and a new directory (umask 022).
pub const FILE_MODE: u32 = 0o644;
pub const DIR_MODE: u32 = 0o755;

impl Node {
    fn dir(mtime_ms: u64) -> Self {
        Self::Dir { entries: BTreeMap::new(), mtime_ms, mode: DIR_MODE }
    }

    /// (content bytes, nodes) of this node and everything below it.
    fn measure(&self) -> (u64, u64) {
        match self {
            Self::File { data, .. } => (data.len() as u64, 1),
            Self::Dir { entries, .. } => entries.values().fold((0, 1), |(b, n), child| {
                let (cb, cn) = child.measure();
                (b + cb, n + cn)
            }),
        }
    }
}

/// Bytes and nodes in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub bytes: u64,
    pub files: u64,
}

/// The in-memory file system of one sandbox.
#[derive(Debug, Clone)]
pub struct MemFs {
    root: Node,
    cwd: VPath,
    quotas: Quotas,
    usage: Usage,
    writable: [VPath; 2],
    now_ms: u64,
}

const BUILT_IN: [&str; 2] = ["workspace", "tmp"];

impl MemFs {
    /// `/`, `/workspace` (the working directory) and `/tmp`, all empty.
    pub fn new(quotas: Quotas) -> Self {
        let mut entries = BTreeMap::new();
        for name in BUILT_IN {
            entries.insert(name.to_owned(), Node::dir(0));
        }
        let workspace = VPath::root().join("workspace");
        let tmp = VPath::root().join("tmp");
        Self {
            root: Node::Dir { entries, mtime_ms: 0, mode: DIR_MODE },
            cwd: workspace.clone(),
            quotas,
            usage: Usage { bytes: 0, files: 3 },
            writable: [workspace, tmp],
            now_ms: 0,
        }
    }

    pub fn quotas(&self) -> &Quotas {
        &self.quotas
    }

    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Sets the time stamped on what is written next (ms since the epoch).
    pub fn set_time(&mut self, now_ms: u64) {
        self.now_ms = now_ms;
    }

    fn resolve(&self, path: &str) -> Result<VPath, FsError> {
        VPath::parse(&self.cwd, path, &self.quotas)
    }

    fn is_writable(&self, path: &VPath) -> bool {
        self.writable.iter().any(|root| path.starts_with(root))
    }

    fn is_built_in(&self, path: &VPath) -> bool {
        path.is_root() || self.writable.iter().any(|root| root == path)
    }

    fn lookup(&self, path: &VPath, shown: &str) -> Result<&Node, FsError> {
        let mut node = &self.root;
        for part in path.components() {
            match node {
                Node::Dir { entries, .. } => {
                    node = entries.get(part).ok_or_else(|| FsError::new(Errno::ENOENT, shown))?;
                }
                Node::File { .. } => return Err(FsError::new(Errno::ENOTDIR, shown)),
            }
        }
        Ok(node)
    }

    fn lookup_mut(&mut self, path: &VPath, shown: &str) -> Result<&mut Node, FsError> {
        let mut node = &mut self.root;
        for part in path.components() {
            match node {
                Node::Dir { entries, .. } => {
                    node = entries.get_mut(part).ok_or_else(|| FsError::new(Errno::ENOENT, shown))?;
                }
                Node::File { .. } => return Err(FsError::new(Errno::ENOTDIR, shown)),
            }
        }
        Ok(node)
    }

    /// The entries of the directory at `path`.
    fn dir_mut(&mut self, path: &VPath, shown: &str) -> Result<&mut BTreeMap<String, Node>, FsError> {
        let now_ms = self.now_ms;
        match self.lookup_mut(path, shown)? {
            Node::Dir { entries, mtime_ms, .. } => {
                *mtime_ms = now_ms;
                Ok(entries)
            }
            Node::File { .. } => Err(FsError::new(Errno::ENOTDIR, shown)),
        }
    }

    fn check_writable(&self, path: &VPath, shown: &str) -> Result<(), FsError> {
        if self.is_writable(path) {
            Ok(())
        } else {
            Err(FsError::new(Errno::EROFS, shown).with("only /workspace and /tmp are writable"))
        }
    }

    fn no_space(&self, shown: &str, what: String) -> FsError {
        FsError::new(Errno::ENOSPC, shown).with(what)
    }

    fn check_new_node(&self, shown: &str) -> Result<(), FsError> {
        if self.usage.files >= self.quotas.files {
            return Err(self.no_space(shown, format!("at most {} files and directories", self.quotas.files)));
        }
        Ok(())
    }
}

/// Format version of [`MemFs::export`].
/// Version 2 adds each node's permission bits after its mtime; version 1
/// images (no bits) still import, with the default bits.
const EXPORT_VERSION: u32 = 2;

fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, rest) = bytes.split_at_checked(n)?;
    *bytes = rest;
    Some(head)
}

fn take_u64(bytes: &mut &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(take(bytes, 8)?.try_into().ok()?))
}

impl MemFs {
    /// The whole tree as bytes: version, working directory, then every file
    /// and directory below `/` (depth first, parents first).
    pub fn export(&self) -> Vec<u8> {
        fn put(out: &mut Vec<u8>, bytes: &[u8]) {
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        fn walk(out: &mut Vec<u8>, path: &VPath, node: &Node) {
            if let Node::Dir { entries, .. } = node {
                for (name, child) in entries {
                    let child_path = path.join(name);
                    match child {
                        Node::File { data, mtime_ms, mode } => {
                            out.push(b'f');
                            put(out, child_path.to_string().as_bytes());
                            out.extend_from_slice(&mtime_ms.to_le_bytes());
                            out.extend_from_slice(&mode.to_le_bytes());
                            put(out, data);
                        }
                        Node::Dir { mtime_ms, mode, .. } => {
                            out.push(b'd');
                            put(out, child_path.to_string().as_bytes());
                            out.extend_from_slice(&mtime_ms.to_le_bytes());
                            out.extend_from_slice(&mode.to_le_bytes());
                            walk(out, &child_path, child);
                        }
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(self.usage.bytes as usize + 64);
        out.extend_from_slice(&EXPORT_VERSION.to_le_bytes());
        put(&mut out, self.cwd.to_string().as_bytes());
        walk(&mut out, &VPath::root(), &self.root);
        out
    }

    /// Rebuilds a tree from [`export`](Self::export) bytes under `quotas`,
    /// through the same checks as any write: a malformed or over-quota
    /// export is an error, never a partial tree.
    pub fn import(bytes: &[u8], quotas: Quotas) -> Result<Self, String> {
        let bad = || "the file-system image is malformed".to_string();
        let mut rest = bytes;
        let version = u32::from_le_bytes(take(&mut rest, 4).ok_or_else(bad)?.try_into().map_err(|_| bad())?);
        if version != 1 && version != EXPORT_VERSION {
            return Err(format!("the file-system image has version {version}, expected {EXPORT_VERSION}"));
        }
        let text = |rest: &mut &[u8]| -> Result<String, String> {
            let len = usize::try_from(take_u64(rest).ok_or_else(bad)?).map_err(|_| bad())?;
            String::from_utf8(take(rest, len).ok_or_else(bad)?.to_vec()).map_err(|_| bad())
        };
        let cwd = text(&mut rest)?;
        let mut fs = Self::new(quotas);
        let builtin = ["/workspace", "/tmp"];
        while let Some((&tag, tail)) = rest.split_first() {
            rest = tail;
            let path = text(&mut rest)?;
            let mtime = take_u64(&mut rest).ok_or_else(bad)?;
            let mode = if version >= 2 {
                u32::from_le_bytes(take(&mut rest, 4).ok_or_else(bad)?.try_into().map_err(|_| bad())?)
            } else if tag == b'd' {
                DIR_MODE
            } else {
                FILE_MODE
            };
            fs.set_time(mtime);
            match tag {
                b'd' if builtin.contains(&path.as_str()) => {}
                b'd' => fs.mkdir(&path, false).map_err(|e| e.to_string())?,
                b'f' => {
                    let len = usize::try_from(take_u64(&mut rest).ok_or_else(bad)?).map_err(|_| bad())?;
                    let data = take(&mut rest, len).ok_or_else(bad)?;
                    fs.write(&path, data, WriteMode::CreateNew).map_err(|e| e.to_string())?;
                }
                _ => return Err(bad()),
            }
            if !builtin.contains(&path.as_str()) {
                fs.chmod(&path, mode).map_err(|e| e.to_string())?;
            }
        }
        fs.chdir(&cwd).map_err(|e| e.to_string())?;
        fs.set_time(0);
        Ok(fs)
    }
}

impl FileSystem for MemFs {
    fn read(&self, path: &str) -> Result<Vec<u8>, FsError> {
        let p = self.resolve(path)?;
        match self.lookup(&p, path)? {
            Node::File { data, .. } => Ok(data.clone()),
            Node::Dir { .. } => Err(FsError::new(Errno::EISDIR, path)),
        }
    }

    fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        let Some((parent, name)) = p.split_last() else {
            return Err(FsError::new(Errno::EISDIR, path));
        };
        self.check_writable(&p, path)?;
        let old = match self.lookup(&parent, path)? {
            Node::Dir { entries, .. } => match entries.get(name) {
                Some(Node::Dir { .. }) => return Err(FsError::new(Errno::EISDIR, path)),
                Some(Node::File { .. }) if mode == WriteMode::CreateNew => {
                    return Err(FsError::new(Errno::EEXIST, path))
                }
                Some(Node::File { data, .. }) => Some(data.len() as u64),
                None => None,
            },
            Node::File { .. } => return Err(FsError::new(Errno::ENOTDIR, path)),
        };
        let new_len = match (mode, old) {
            (WriteMode::Append, Some(old)) => old + data.len() as u64,
            _ => data.len() as u64,
        };
        if new_len > self.quotas.file_bytes {
            return Err(self.no_space(path, format!("a file is at most {} bytes", self.quotas.file_bytes)));
        }
        let total = self.usage.bytes - old.unwrap_or(0) + new_len;
        if total > self.quotas.total_bytes {
            return Err(self.no_space(
                path,
                format!("all files together are at most {} bytes", self.quotas.total_bytes),
            ));
        }
        if old.is_none() {
            self.check_new_node(path)?;
        }
        let now = self.now_ms;
        let name = name.to_owned();
        let entries = self.dir_mut(&parent, path)?;
        match (entries.get_mut(&name), mode) {
            (Some(Node::File { data: existing, mtime_ms, .. }), WriteMode::Append) => {
                existing.extend_from_slice(data);
                *mtime_ms = now;
            }
            (Some(Node::File { data: existing, mtime_ms, .. }), _) => {
                *existing = data.to_vec();
                *mtime_ms = now;
            }
            _ => {
                entries.insert(name, Node::File { data: data.to_vec(), mtime_ms: now, mode: FILE_MODE });
            }
        }
        self.usage.bytes = total;
        if old.is_none() {
            self.usage.files += 1;
        }
        Ok(())
    }

    fn mkdir(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        if recursive {
            let mut at = VPath::root();
            for part in p.components() {
                let next = at.join(part);
                match self.lookup(&next, path) {
                    Ok(Node::Dir { .. }) => {}
                    Ok(Node::File { .. }) => return Err(FsError::new(Errno::ENOTDIR, path)),
                    Err(e) if e.errno == Errno::ENOENT => {
                        self.check_writable(&next, path)?;
                        self.check_new_node(path)?;
                        let now = self.now_ms;
                        self.dir_mut(&at, path)?.insert(part.clone(), Node::dir(now));
                        self.usage.files += 1;
                    }
                    Err(e) => return Err(e),
                }
                at = next;
            }
            return Ok(());
        }
        let Some((parent, name)) = p.split_last() else {
            return Err(FsError::new(Errno::EEXIST, path));
        };
        if self.lookup(&p, path).is_ok() {
            return Err(FsError::new(Errno::EEXIST, path));
        }
        self.check_writable(&p, path)?;
        match self.lookup(&parent, path)? {
            Node::Dir { .. } => {}
            Node::File { .. } => return Err(FsError::new(Errno::ENOTDIR, path)),
        }
        self.check_new_node(path)?;
        let now = self.now_ms;
        let name = name.to_owned();
        self.dir_mut(&parent, path)?.insert(name, Node::dir(now));
        self.usage.files += 1;
        Ok(())
    }

    fn readdir(&self, path: &str) -> Result<Vec<(String, Kind)>, FsError> {
        let p = self.resolve(path)?;
        match self.lookup(&p, path)? {
            Node::Dir { entries, .. } => Ok(entries
                .iter()
                .map(|(name, node)| {
                    let kind = match node {
                        Node::File { .. } => Kind::File,
                        Node::Dir { .. } => Kind::Dir,
                    };
                    (name.clone(), kind)
                })
                .collect()),
            Node::File { .. } => Err(FsError::new(Errno::ENOTDIR, path)),
        }
    }

    fn stat(&self, path: &str) -> Result<Stat, FsError> {
        let p = self.resolve(path)?;
        Ok(match self.lookup(&p, path)? {
            Node::File { data, mtime_ms, mode } => {
                Stat { kind: Kind::File, size: data.len() as u64, mtime_ms: *mtime_ms, mode: *mode }
            }
            Node::Dir { entries, mtime_ms, mode } => {
                Stat { kind: Kind::Dir, size: entries.len() as u64, mtime_ms: *mtime_ms, mode: *mode }
            }
        })
    }

    fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        if self.is_built_in(&p) {
            return Err(FsError::new(Errno::EACCES, path).with("/, /workspace and /tmp cannot be removed"));
        }
        self.check_writable(&p, path)?;
        let (bytes, nodes) = match self.lookup(&p, path)? {
            Node::Dir { entries, .. } if !entries.is_empty() && !recursive => {
                return Err(FsError::new(Errno::ENOTEMPTY, path));
            }
            node => node.measure(),
        };
        let Some((parent, name)) = p.split_last() else {
            return Err(FsError::new(Errno::EACCES, path));
        };
        let name = name.to_owned();
        self.dir_mut(&parent, path)?.remove(&name);
        self.usage.bytes -= bytes;
        self.usage.files -= nodes;
        // INVARIANT: the working directory always exists; removing it (or a
        // parent of it) moves it back to /workspace.
        if self.cwd.starts_with(&p) {
            self.cwd = self.writable[0].clone();
        }
        Ok(())
    }

    fn chmod(&mut self, path: &str, mode: u32) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        self.lookup(&p, path)?;
        self.check_writable(&p, path)?;
        match self.lookup_mut(&p, path)? {
            Node::File { mode: m, .. } | Node::Dir { mode: m, .. } => *m = mode & 0o7777,
        }
        Ok(())
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), FsError> {
        let src = self.resolve(from)?;
        let dst = self.resolve(to)?;
        for (p, shown) in [(&src, from), (&dst, to)] {
            if self.is_built_in(p) {
                return Err(FsError::new(Errno::EACCES, shown).with("/, /workspace and /tmp cannot be moved"));
            }
            self.check_writable(p, shown)?;
        }
        let src_is_dir = matches!(self.lookup(&src, from)?, Node::Dir { .. });
        if src == dst {
            return Ok(());
        }
        if dst.starts_with(&src) {
            return Err(FsError::new(Errno::EINVAL, to).with("cannot move a directory into itself"));
        }
        let (dst_parent, dst_name) = dst.split_last().ok_or_else(|| FsError::new(Errno::EACCES, to))?;
        match self.lookup(&dst_parent, to)? {
            Node::Dir { .. } => {}
            Node::File { .. } => return Err(FsError::new(Errno::ENOTDIR, to)),
        }
        let replaced = match self.lookup(&dst, to) {
            Ok(Node::Dir { entries, .. }) => {
                if !src_is_dir {
                    return Err(FsError::new(Errno::EISDIR, to));
                }
                if !entries.is_empty() {
                    return Err(FsError::new(Errno::ENOTEMPTY, to));
                }
                Some((0, 1))
            }
            Ok(node @ Node::File { .. }) => {
                if src_is_dir {
                    return Err(FsError::new(Errno::ENOTDIR, to));
                }
                Some(node.measure())
            }
            Err(e) if e.errno == Errno::ENOENT => None,
            Err(e) => return Err(e),
        };
        let (src_parent, src_name) = src.split_last().ok_or_else(|| FsError::new(Errno::EACCES, from))?;
        let src_name = src_name.to_owned();
        let dst_name = dst_name.to_owned();
        let node = self
            .dir_mut(&src_parent, from)?
            .remove(&src_name)
            .ok_or_else(|| FsError::new(Errno::ENOENT, from))?;
        self.dir_mut(&dst_parent, to)?.insert(dst_name, node);
        if let Some((bytes, nodes)) = replaced {
            self.usage.bytes -= bytes;
            self.usage.files -= nodes;
        }
        // The working directory moves with the directory it is in.
        if self.cwd.starts_with(&src) {
            let rest = self.cwd.components().get(src.components().len()..).unwrap_or_default().to_vec();
            self.cwd = rest.iter().fold(dst.clone(), |at, part| at.join(part));
        }
        Ok(())
    }

    fn chdir(&mut self, path: &str) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        match self.lookup(&p, path)? {
            Node::Dir { .. } => {
                self.cwd = p;
                Ok(())
            }
            Node::File { .. } => Err(FsError::new(Errno::ENOTDIR, path)),
        }
    }

    fn cwd(&self) -> String {
        self.cwd.to_string()
    }
}
