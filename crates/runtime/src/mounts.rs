//! The sandbox's file system: the in-memory tree, plus host directories the
//! embedder mounts into it (off unless asked for).
//!
//! - A read-only mount reads through to the host; every write is `EROFS`.
//! - A writable mount is an overlay: the host directory is copied into the
//!   in-memory tree when the sandbox is created (within the file-system
//!   quotas), and writes stay in memory.
//! - A write-through mount reads and writes the host directory itself; what
//!   the guest adds there counts against the tree's quotas.
//!
//! Only regular files and directories are served: anything else (a FIFO, a
//! socket, a device) is `EACCES`, hidden from listings and skipped by the
//! overlay copy. Files are opened non-blocking and checked on the opened
//! descriptor, so no host call a guest triggers waits on another process.
//!
//! A guest path below a mount point becomes a host path only here, one
//! component at a time: a symbolic link is followed only when its target,
//! fully resolved, stays inside the mount's (canonical) root, the last
//! component is opened with `O_NOFOLLOW`, and nothing outside the root is
//! ever named. The in-memory tree (`cordon-vfs`) knows nothing of this.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    time::UNIX_EPOCH,
};

use cordon_vfs::{Errno, FileSystem, FsError, Kind, MemFs, Quotas, Stat, Usage, VPath, WriteMode};

/// One mount as the embedder asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountSpec {
    pub host_path: PathBuf,
    pub guest_path: String,
    pub writable: bool,
    pub write_through: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    ReadOnly,
    Overlay,
    WriteThrough,
}

#[derive(Debug, Clone)]
struct Mount {
    guest: VPath,
    /// Canonical host directory.
    root: PathBuf,
    mode: Mode,
}

/// Where a guest path leads.
enum Route<'a> {
    Memory,
    Host(&'a Mount, Vec<String>),
}

/// The in-memory tree and the mounts over it.
pub struct Tree {
    mem: MemFs,
    mounts: Vec<Mount>,
    /// The working directory when it is inside a host mount (the tree's own
    /// working directory must exist in the tree).
    cwd_in_mount: Option<VPath>,
    /// Bytes and entries the guest added to write-through mounts, net of
    /// what it removed there, never below zero; counted with the tree's own
    /// usage against the quotas for the sandbox's life (a reset or a
    /// replaced tree leaves the host files, so it keeps the count).
    /// Because credit never goes below zero, the mounts never hold more than
    /// this above what they held at create.
    through: Usage,
}

impl Tree {
    /// The tree with these mounts: host paths must be existing directories;
    /// guest paths absolute, not overlapping, directly below `/` or below
    /// `/workspace` or `/tmp` (writable ones only there). Overlays are
    /// copied in now.
    pub fn new(quotas: Quotas, specs: &[MountSpec]) -> Result<Self, String> {
        // The confinement (`O_NOFOLLOW`, non-blocking opens, link counts) is
        // built on Unix file APIs; elsewhere no host directory is served.
        if cfg!(not(unix)) && !specs.is_empty() {
            return Err("mounts: host mounts are supported on Unix only".to_owned());
        }
        let mut mounts: Vec<Mount> = Vec::new();
        let writable_roots = [VPath::root().join("workspace"), VPath::root().join("tmp")];
        for spec in specs {
            let shown = &spec.guest_path;
            if !shown.starts_with('/') {
                return Err(format!("mounts: guestPath {shown:?} must be absolute"));
            }
            let guest = VPath::parse(&VPath::root(), shown, &quotas)
                .map_err(|e| format!("mounts: guestPath: {e}"))?;
            let under_writable = writable_roots.iter().any(|r| guest.starts_with(r) && &guest != r);
            if guest.is_root()
                || writable_roots.contains(&guest)
                || !(under_writable || guest.components().len() == 1)
            {
                return Err(format!(
                    "mounts: guestPath {shown:?} must be a directory directly below / or inside /workspace or /tmp"
                ));
            }
            if spec.write_through && !spec.writable {
                return Err(format!("mounts: {shown:?} has writeThrough without writable"));
            }
            if spec.writable && !under_writable {
                return Err(format!(
                    "mounts: the writable mount {shown:?} must be inside /workspace or /tmp"
                ));
            }
            if let Some(other) =
                mounts.iter().find(|m| m.guest.starts_with(&guest) || guest.starts_with(&m.guest))
            {
                return Err(format!("mounts: {shown:?} overlaps the mount at {}", other.guest));
            }
            let root = fs::canonicalize(&spec.host_path)
                .map_err(|e| format!("mounts: hostPath {:?}: {e}", spec.host_path.display().to_string()))?;
            if !root.is_dir() {
                return Err(format!(
                    "mounts: hostPath {:?} is not a directory",
                    spec.host_path.display().to_string()
                ));
            }
            let mode = match (spec.writable, spec.write_through) {
                (false, _) => Mode::ReadOnly,
                (true, false) => Mode::Overlay,
                (true, true) => Mode::WriteThrough,
            };
            mounts.push(Mount { guest, root, mode });
        }
        let mut tree =
            Self { mem: MemFs::new(quotas), mounts, cwd_in_mount: None, through: Usage::default() };
        tree.prepare()?;
        Ok(tree)
    }

    /// Creates the mount points' parents in memory and copies the overlays in.
    fn prepare(&mut self) -> Result<(), String> {
        let mounts = self.mounts.clone();
        for mount in &mounts {
            if let Some((parent, _)) = mount.guest.split_last() {
                if parent.components().len() > 1 {
                    self.mem.mkdir(&parent.to_string(), true).map_err(|e| format!("mounts: {e}"))?;
                }
            }
            if mount.mode == Mode::Overlay {
                self.copy_in(&mount.root, &mount.root, &mount.guest)
                    .map_err(|e| format!("mounts: copying {} into the sandbox: {e}", mount.guest))?;
            }
        }
        Ok(())
    }

    /// Copies the host directory `dir` (inside `root`) to `at`, skipping
    /// links that leave `root` and whatever is not a regular file or a
    /// directory (never opened).
    fn copy_in(&mut self, root: &Path, dir: &Path, at: &VPath) -> Result<(), FsError> {
        let shown = at.to_string();
        self.room(0, 1, &shown)?;
        self.mem.mkdir(&shown, true)?;
        let entries = fs::read_dir(dir).map_err(|_| FsError::new(Errno::EACCES, &shown))?;
        let mut names: Vec<_> = entries.filter_map(Result::ok).map(|e| e.file_name()).collect();
        names.sort();
        for name in names {
            let Some(name) = name.to_str() else { continue };
            let Some(host) = inside(root, &dir.join(name)) else { continue };
            let guest = at.join(name);
            let Ok(meta) = fs::symlink_metadata(&host) else { continue };
            if meta.is_dir() {
                self.copy_in(root, &host, &guest)?;
            } else if meta.is_file() {
                let shown = guest.to_string();
                let bytes = read_capped(&host, self.mem.quotas().file_bytes, &shown)?;
                self.room(u64::try_from(bytes.len()).unwrap_or(u64::MAX), 1, &shown)?;
                self.mem.write(&shown, &bytes, WriteMode::Truncate)?;
            }
        }
        Ok(())
    }

    /// `ENOSPC` unless `bytes` and `files` more fit the quotas, counting the
    /// in-memory tree and what was written through mounts together.
    fn room(&self, bytes: u64, files: u64, shown: &str) -> Result<(), FsError> {
        let quotas = self.mem.quotas();
        let used = self.mem.usage();
        if bytes > 0
            && used.bytes.saturating_add(self.through.bytes).saturating_add(bytes) > quotas.total_bytes
        {
            return Err(FsError::new(Errno::ENOSPC, shown)
                .with(format!("all files together are at most {} bytes", quotas.total_bytes)));
        }
        if files > 0 && used.files.saturating_add(self.through.files).saturating_add(files) > quotas.files {
            return Err(FsError::new(Errno::ENOSPC, shown)
                .with(format!("at most {} files and directories", quotas.files)));
        }
        Ok(())
    }

    /// Counts what was added through a mount.
    fn charge(&mut self, bytes: u64, files: u64) {
        self.through.bytes = self.through.bytes.saturating_add(bytes);
        self.through.files = self.through.files.saturating_add(files);
    }

    /// Takes back what was removed through a mount, never below zero.
    fn credit(&mut self, (bytes, files): (u64, u64)) {
        self.through.bytes = self.through.bytes.saturating_sub(bytes);
        self.through.files = self.through.files.saturating_sub(files);
    }

    /// Once something was written through a mount, the in-memory tree's own
    /// quota check no longer sees everything: checks that a write of `len`
    /// bytes to `p` in memory fits both together.
    fn room_in_memory(&self, p: &VPath, len: usize, mode: WriteMode, shown: &str) -> Result<(), FsError> {
        if self.through == Usage::default() {
            return Ok(());
        }
        let len = u64::try_from(len).unwrap_or(u64::MAX);
        match self.mem.stat(&p.to_string()) {
            Ok(Stat { kind: Kind::File, size, .. }) => {
                let grows = if mode == WriteMode::Append { len } else { len.saturating_sub(size) };
                self.room(grows, 0, shown)
            }
            _ => self.room(len, 1, shown),
        }
    }

    /// As [`room_in_memory`](Self::room_in_memory), for the directories a
    /// `mkdir` of `p` would create.
    fn room_for_dirs(&self, p: &VPath, shown: &str) -> Result<(), FsError> {
        if self.through == Usage::default() {
            return Ok(());
        }
        let mut at = VPath::root();
        let mut missing = 0;
        for part in p.components() {
            at = at.join(part);
            if self.mem.stat(&at.to_string()).is_err() {
                missing += 1;
            }
        }
        self.room(0, missing, shown)
    }

    /// Writes `data` to the host file `host` of a write-through mount: only
    /// a regular file with no other hard link is written, within the
    /// quotas.
    fn write_host(
        &mut self,
        host: &Path,
        exists: bool,
        data: &[u8],
        mode: WriteMode,
        shown: &str,
    ) -> Result<(), FsError> {
        let cap = self.mem.quotas().file_bytes;
        let too_big = || FsError::new(Errno::ENOSPC, shown).with(format!("a file is at most {cap} bytes"));
        let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
        let mut options = fs::OpenOptions::new();
        options.write(true);
        if !exists {
            if len > cap {
                return Err(too_big());
            }
            self.room(len, 1, shown)?;
            options.create_new(true);
            let (mut file, _) = open_regular(host, &mut options, shown)?;
            self.charge(len, 1);
            return file.write_all(data).map_err(|e| io_error(&e, shown));
        }
        if mode == WriteMode::CreateNew {
            return Err(FsError::new(Errno::EEXIST, shown));
        }
        // Checked before opening, so a FIFO or a device is never opened;
        // checked again on the opened file in case it was swapped.
        if served(&lstat(host, shown)?, shown)? == Kind::Dir {
            return Err(FsError::new(Errno::EISDIR, shown));
        }
        let append = mode == WriteMode::Append;
        options.append(append);
        let (mut file, meta) = open_regular(host, &mut options, shown)?;
        if links(&meta) > 1 {
            return Err(FsError::new(Errno::EACCES, shown).with("a file with other hard links"));
        }
        let old = meta.len();
        let new = if append { old.saturating_add(len) } else { len };
        if new > cap {
            return Err(too_big());
        }
        self.room(new.saturating_sub(old), 0, shown)?;
        self.charge(new.saturating_sub(old), 0);
        if !append {
            file.set_len(0).map_err(|e| io_error(&e, shown))?;
        }
        file.write_all(data).map_err(|e| io_error(&e, shown))?;
        self.credit((old.saturating_sub(new), 0));
        Ok(())
    }

    /// The in-memory tree (snapshots, usage).
    pub fn memory(&self) -> &MemFs {
        &self.mem
    }

    /// Replaces the in-memory tree (a restored snapshot); mounts stay.
    pub fn replace_memory(&mut self, mem: MemFs) {
        self.mem = mem;
        self.cwd_in_mount = None;
    }

    /// Starts over: an empty tree, overlays copied in again.
    pub fn reset(&mut self) -> Result<(), String> {
        self.mem = MemFs::new(*self.mem.quotas());
        self.cwd_in_mount = None;
        self.prepare()
    }

    pub fn set_time(&mut self, now_ms: u64) {
        self.mem.set_time(now_ms);
    }

    fn cwd_path(&self) -> VPath {
        self.cwd_in_mount.clone().unwrap_or_else(|| {
            VPath::parse(&VPath::root(), &self.mem.cwd(), self.mem.quotas()).unwrap_or_else(|_| VPath::root())
        })
    }

    fn resolve(&self, path: &str) -> Result<VPath, FsError> {
        VPath::parse(&self.cwd_path(), path, self.mem.quotas())
    }

    /// The path to hand to the in-memory tree: as the guest wrote it (so
    /// errors show it), unless the working directory is in a mount, which
    /// the tree does not know.
    fn in_memory<'a>(&self, written: &'a str, resolved: &'a str) -> &'a str {
        if self.cwd_in_mount.is_none() {
            written
        } else {
            resolved
        }
    }

    fn route(&self, path: &VPath) -> Route<'_> {
        for mount in &self.mounts {
            if mount.mode != Mode::Overlay && path.starts_with(&mount.guest) {
                let rest =
                    path.components().get(mount.guest.components().len()..).unwrap_or_default().to_vec();
                return Route::Host(mount, rest);
            }
        }
        Route::Memory
    }

    /// Host mount points directly inside `dir`.
    fn mount_points_in(&self, dir: &VPath) -> Vec<(String, Kind)> {
        self.mounts
            .iter()
            .filter(|m| m.mode != Mode::Overlay)
            .filter_map(|m| {
                m.guest.split_last().filter(|(parent, _)| parent == dir).map(|(_, n)| n.to_string())
            })
            .map(|name| (name, Kind::Dir))
            .collect()
    }

    /// Refuses to move or remove a directory a host mount sits in.
    fn holds_mount(&self, path: &VPath, shown: &str) -> Result<(), FsError> {
        if self.mounts.iter().any(|m| m.mode != Mode::Overlay && m.guest.starts_with(path)) {
            return Err(FsError::new(Errno::EACCES, shown).with("a mount is inside"));
        }
        Ok(())
    }
}

/// `path` if it (resolved) stays inside `root`, else `None`. Links whose
/// target leaves `root`, or that cannot be resolved, count as outside.
fn inside(root: &Path, path: &Path) -> Option<PathBuf> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return Some(path.to_path_buf());
    }
    let target = fs::canonicalize(path).ok()?;
    target.starts_with(root).then_some(target)
}

/// The host path of `rest` below `mount`, each component checked, and
/// whether it exists (only the last component may be missing, for a write);
/// `EACCES` for a link that leaves the mount.
fn host_path(mount: &Mount, rest: &[String], shown: &str) -> Result<(PathBuf, bool), FsError> {
    let mut at = mount.root.clone();
    for (i, part) in rest.iter().enumerate() {
        let next = at.join(part);
        match fs::symlink_metadata(&next) {
            Ok(_) => {
                at = inside(&mount.root, &next).ok_or_else(|| {
                    FsError::new(Errno::EACCES, shown).with("a link leads out of the mount")
                })?;
            }
            Err(_) if i + 1 == rest.len() => return Ok((next, false)),
            Err(_) => return Err(FsError::new(Errno::ENOENT, shown)),
        }
    }
    Ok((at, true))
}

/// The host path of the last component of `rest`, its parents resolved as
/// [`host_path`] does but itself not followed: a link is removed, never its
/// target.
fn unfollowed(mount: &Mount, rest: &[String], shown: &str) -> Result<PathBuf, FsError> {
    let (last, parents) = rest.split_last().ok_or_else(|| FsError::new(Errno::EACCES, shown))?;
    Ok(host_path(mount, parents, shown)?.0.join(last))
}

fn io_error(err: &std::io::Error, shown: &str) -> FsError {
    use std::io::ErrorKind as K;
    let errno = match err.kind() {
        K::NotFound => Errno::ENOENT,
        K::AlreadyExists => Errno::EEXIST,
        K::NotADirectory => Errno::ENOTDIR,
        K::IsADirectory => Errno::EISDIR,
        K::DirectoryNotEmpty => Errno::ENOTEMPTY,
        K::ReadOnlyFilesystem => Errno::EROFS,
        K::StorageFull => Errno::ENOSPC,
        K::InvalidInput | K::InvalidFilename => Errno::EINVAL,
        _ => Errno::EACCES,
    };
    FsError::new(errno, shown)
}

/// Opens never follow a last link and never wait: a FIFO opens at once (and
/// is then refused), a lease held by another process fails instead of
/// blocking, and a terminal never becomes the controlling one.
#[cfg(unix)]
fn open_flags(options: &mut fs::OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
}

#[cfg(not(unix))]
fn open_flags(_: &mut fs::OpenOptions) {}

#[cfg(unix)]
fn links(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn links(_: &fs::Metadata) -> u64 {
    1
}

fn lstat(path: &Path, shown: &str) -> Result<fs::Metadata, FsError> {
    fs::symlink_metadata(path).map_err(|e| io_error(&e, shown))
}

/// A host entry's kind, if it is one the mounts serve: `EACCES` for
/// anything but a regular file or a directory (links are resolved before).
fn served(meta: &fs::Metadata, shown: &str) -> Result<Kind, FsError> {
    if meta.is_dir() {
        Ok(Kind::Dir)
    } else if meta.is_file() {
        Ok(Kind::File)
    } else {
        Err(FsError::new(Errno::EACCES, shown).with("not a regular file or directory"))
    }
}

/// Opens a host file with [`open_flags`] and refuses it, from the opened
/// descriptor, unless it is a regular file.
fn open_regular(
    path: &Path,
    options: &mut fs::OpenOptions,
    shown: &str,
) -> Result<(fs::File, fs::Metadata), FsError> {
    open_flags(options);
    let file = options.open(path).map_err(|e| io_error(&e, shown))?;
    let meta = file.metadata().map_err(|e| io_error(&e, shown))?;
    if served(&meta, shown)? == Kind::Dir {
        return Err(FsError::new(Errno::EISDIR, shown));
    }
    Ok((file, meta))
}

/// Reads a host regular file, refusing one larger than `cap` (also one that
/// grows past it while read: at most `cap + 1` bytes are read).
fn read_capped(path: &Path, cap: u64, shown: &str) -> Result<Vec<u8>, FsError> {
    if served(&lstat(path, shown)?, shown)? == Kind::Dir {
        return Err(FsError::new(Errno::EISDIR, shown));
    }
    let (file, meta) = open_regular(path, fs::OpenOptions::new().read(true), shown)?;
    let too_big = || FsError::new(Errno::ENOSPC, shown).with(format!("a file is at most {cap} bytes"));
    if meta.len() > cap {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, cap.saturating_add(1)), &mut bytes)
        .map_err(|e| io_error(&e, shown))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > cap {
        return Err(too_big());
    }
    Ok(bytes)
}

/// What removing the host entry `path` (not followed) gives back: bytes of
/// regular files with no other hard link, and entries. A directory is
/// walked without following links; what cannot be read counts as nothing.
fn measure(path: &Path, meta: &fs::Metadata) -> (u64, u64) {
    let mut bytes = 0u64;
    let mut entries = 0u64;
    let mut count = |meta: &fs::Metadata| {
        entries = entries.saturating_add(1);
        if meta.is_file() && links(meta) == 1 {
            bytes = bytes.saturating_add(meta.len());
        }
    };
    count(meta);
    if !meta.is_dir() {
        return (bytes, entries);
    }
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(list) = fs::read_dir(&dir) else { continue };
        for entry in list.filter_map(Result::ok) {
            let Ok(meta) = fs::symlink_metadata(entry.path()) else { continue };
            count(&meta);
            if meta.is_dir() {
                dirs.push(entry.path());
            }
        }
    }
    (bytes, entries)
}

fn read_only(mount: &Mount, shown: &str) -> Result<(), FsError> {
    match mount.mode {
        Mode::WriteThrough => Ok(()),
        _ => Err(FsError::new(Errno::EROFS, shown).with("a read-only mount")),
    }
}

impl FileSystem for Tree {
    fn read(&self, path: &str) -> Result<Vec<u8>, FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => self.mem.read(self.in_memory(path, &p.to_string())),
            Route::Host(mount, rest) => match host_path(mount, &rest, path)? {
                (host, true) => read_capped(&host, self.mem.quotas().file_bytes, path),
                (_, false) => Err(FsError::new(Errno::ENOENT, path)),
            },
        }
    }

    fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => {
                self.room_in_memory(&p, data.len(), mode, path)?;
                self.mem.write(self.in_memory(path, &p.to_string()), data, mode)
            }
            Route::Host(mount, rest) => {
                read_only(mount, path)?;
                if rest.is_empty() {
                    return Err(FsError::new(Errno::EISDIR, path));
                }
                let (host, exists) = host_path(mount, &rest, path)?;
                self.write_host(&host, exists, data, mode, path)
            }
        }
    }

    fn mkdir(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => {
                self.room_for_dirs(&p, path)?;
                self.mem.mkdir(self.in_memory(path, &p.to_string()), recursive)
            }
            Route::Host(mount, rest) => {
                read_only(mount, path)?;
                if rest.is_empty() {
                    return if recursive { Ok(()) } else { Err(FsError::new(Errno::EEXIST, path)) };
                }
                let mount = mount.clone();
                for i in 0..rest.len() {
                    let (at, exists) = host_path(&mount, rest.get(..=i).unwrap_or_default(), path)?;
                    let last = i + 1 == rest.len();
                    if exists {
                        if !at.is_dir() {
                            return Err(FsError::new(Errno::ENOTDIR, path));
                        }
                        if last && !recursive {
                            return Err(FsError::new(Errno::EEXIST, path));
                        }
                    } else if last || recursive {
                        self.room(0, 1, path)?;
                        fs::create_dir(&at).map_err(|e| io_error(&e, path))?;
                        self.charge(0, 1);
                    } else {
                        return Err(FsError::new(Errno::ENOENT, path));
                    }
                }
                Ok(())
            }
        }
    }

    fn readdir(&self, path: &str) -> Result<Vec<(String, Kind)>, FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => {
                let mut entries = self.mem.readdir(self.in_memory(path, &p.to_string()))?;
                for point in self.mount_points_in(&p) {
                    if !entries.iter().any(|(n, _)| *n == point.0) {
                        entries.push(point);
                    }
                }
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Ok(entries)
            }
            Route::Host(mount, rest) => {
                let (host, exists) = host_path(mount, &rest, path)?;
                if !exists {
                    return Err(FsError::new(Errno::ENOENT, path));
                }
                if !host.is_dir() {
                    return Err(FsError::new(Errno::ENOTDIR, path));
                }
                let mut entries = Vec::new();
                for entry in fs::read_dir(&host).map_err(|e| io_error(&e, path))?.filter_map(Result::ok) {
                    let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
                    let Some(target) = inside(&mount.root, &entry.path()) else { continue };
                    let Ok(meta) = fs::symlink_metadata(&target) else { continue };
                    let Ok(kind) = served(&meta, path) else { continue };
                    entries.push((name, kind));
                }
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Ok(entries)
            }
        }
    }

    fn stat(&self, path: &str) -> Result<Stat, FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => self.mem.stat(self.in_memory(path, &p.to_string())),
            Route::Host(mount, rest) => {
                let (host, exists) = host_path(mount, &rest, path)?;
                if !exists {
                    return Err(FsError::new(Errno::ENOENT, path));
                }
                let meta = lstat(&host, path)?;
                let kind = served(&meta, path)?;
                let size = if kind == Kind::Dir {
                    u64::try_from(fs::read_dir(&host).map(Iterator::count).unwrap_or(0)).unwrap_or(0)
                } else {
                    meta.len()
                };
                let mtime_ms = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
                // Host files show the default bits: the host's own bits are
                // neither revealed nor changed from inside.
                let mode = if kind == Kind::Dir { 0o755 } else { 0o644 };
                Ok(Stat { kind, size, mtime_ms, mode })
            }
        }
    }

    fn chmod(&mut self, path: &str, mode: u32) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => self.mem.chmod(self.in_memory(path, &p.to_string()), mode),
            Route::Host(mount, rest) => {
                read_only(mount, path)?;
                if !host_path(mount, &rest, path)?.1 {
                    return Err(FsError::new(Errno::ENOENT, path));
                }
                Err(FsError::new(Errno::EACCES, path).with("permission bits of host-mounted files are fixed"))
            }
        }
    }

    fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => {
                self.holds_mount(&p, path)?;
                self.mem.remove(self.in_memory(path, &p.to_string()), recursive)
            }
            Route::Host(mount, rest) => {
                read_only(mount, path)?;
                if rest.is_empty() {
                    return Err(FsError::new(Errno::EACCES, path).with("a mount point"));
                }
                if !host_path(mount, &rest, path)?.1 {
                    return Err(FsError::new(Errno::ENOENT, path));
                }
                let target = unfollowed(mount, &rest, path)?;
                let meta = lstat(&target, path)?;
                if !meta.file_type().is_symlink() {
                    served(&meta, path)?;
                }
                // Measured first; a removal that fails gives nothing back.
                let freed = if meta.is_dir() && !recursive { (0, 1) } else { measure(&target, &meta) };
                if meta.is_dir() {
                    if recursive {
                        fs::remove_dir_all(&target)
                    } else {
                        fs::remove_dir(&target)
                    }
                } else {
                    fs::remove_file(&target)
                }
                .map_err(|e| io_error(&e, path))?;
                self.credit(freed);
                Ok(())
            }
        }
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), FsError> {
        let src = self.resolve(from)?;
        let dst = self.resolve(to)?;
        match (self.route(&src), self.route(&dst)) {
            (Route::Memory, Route::Memory) => {
                self.holds_mount(&src, from)?;
                self.mem.rename(self.in_memory(from, &src.to_string()), self.in_memory(to, &dst.to_string()))
            }
            (Route::Host(a, src_rest), Route::Host(b, dst_rest)) if a.guest == b.guest => {
                read_only(a, from)?;
                if src_rest.is_empty() || dst_rest.is_empty() {
                    return Err(FsError::new(Errno::EACCES, from).with("a mount point"));
                }
                let (src_host, exists) = host_path(a, &src_rest, from)?;
                if !exists {
                    return Err(FsError::new(Errno::ENOENT, from));
                }
                served(&lstat(&src_host, from)?, from)?;
                let (dst_host, dst_exists) = host_path(b, &dst_rest, to)?;
                // What the move replaces is given back (an empty directory,
                // or a file, never a directory's contents: that move fails).
                let replaced = match dst_exists {
                    true => {
                        let meta = lstat(&dst_host, to)?;
                        served(&meta, to)?;
                        if meta.is_dir() {
                            (0, 1)
                        } else {
                            measure(&dst_host, &meta)
                        }
                    }
                    false => (0, 0),
                };
                fs::rename(src_host, dst_host).map_err(|e| io_error(&e, from))?;
                self.credit(replaced);
                Ok(())
            }
            _ => {
                Err(FsError::new(Errno::EINVAL, from).with("moving between a mount and the rest of the tree"))
            }
        }
    }

    fn chdir(&mut self, path: &str) -> Result<(), FsError> {
        let p = self.resolve(path)?;
        match self.route(&p) {
            Route::Memory => {
                self.mem.chdir(self.in_memory(path, &p.to_string()))?;
                self.cwd_in_mount = None;
                Ok(())
            }
            Route::Host(mount, rest) => match host_path(mount, &rest, path)? {
                (host, true) if host.is_dir() => {
                    self.cwd_in_mount = Some(p);
                    Ok(())
                }
                (_, true) => Err(FsError::new(Errno::ENOTDIR, path)),
                (_, false) => Err(FsError::new(Errno::ENOENT, path)),
            },
        }
    }

    fn cwd(&self) -> String {
        self.cwd_path().to_string()
    }
}
