//! The on-disk cache of the compiled guest.
//!
//! A cache file is named by a key that covers the guest build, the wasmtime
//! version and the engine configuration, so a stale artifact is never looked
//! up. Beside each module file sits a checksum file (its length and a
//! 128-bit XXH3), checked before wasmtime sees the module: a truncated or
//! corrupt file is recompiled and rewritten, never loaded. The module is
//! mapped from the page cache, not copied into the process. (The checksum
//! guards against accidents, not an attacker: whoever can write the user's
//! cache directory can already run code as the user. XXH3 reads the 15 MB
//! module in about a millisecond where SHA-256 took nine, on every process
//! start.) Files are written to a temporary name and renamed, so concurrent
//! processes never read half a file. A hit marks its entry as used; storing
//! a new module removes the entries unused for two weeks (other guest builds,
//! cordon or wasmtime versions), so the directory does not grow forever.

use std::{
    fs,
    hash::{Hash, Hasher},
    path::{Path, PathBuf},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

const MAGIC: &[u8; 8] = b"CORDONS1";
const SUM_BYTES: usize = 16;
pub(crate) const WASMTIME_VERSION: &str = "48.0.8";
/// How the cached module was made from the guest (pre-initialised by
/// `cordon_init`); change it when that changes.
pub(crate) const PREPARATION: &str = "preinit-1";

/// How the module was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from a valid cache file.
    Hit,
    /// No cache file: compiled (and stored when the directory is writable).
    Compiled,
    /// A cache file existed but was invalid: compiled and rewritten.
    Recompiled,
    /// No cache directory: compiled in memory.
    Uncached,
    /// Mapped from the module shipped beside the addon (`prebuilt`).
    Shipped,
}

/// The default cache directory: `$CORDON_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/cordon`, else `~/.cache/cordon`, else the temp dir.
/// `CORDON_CACHE_DIR=off` disables the cache.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CORDON_CACHE_DIR") {
        if dir == "off" || dir.is_empty() {
            return None;
        }
        return Some(PathBuf::from(dir));
    }
    if let Some(xdg) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(xdg).join("cordon"));
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(home).join(".cache").join("cordon"));
    }
    Some(std::env::temp_dir().join("cordon-cache"))
}

/// The cache file name for this guest under this engine.
pub fn file_name(engine: &Engine, guest_sha256: &str) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let key = Sha256::new()
        .chain_update(guest_sha256.as_bytes())
        .chain_update(hasher.finish().to_le_bytes())
        .chain_update(WASMTIME_VERSION.as_bytes())
        .chain_update(env!("CARGO_PKG_VERSION").as_bytes())
        .chain_update(PREPARATION.as_bytes())
        .finalize();
    let hex: String = key.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("guest-{hex}.cwasm")
}

/// Loads the compiled guest from `dir`, or compiles the module `prepare`
/// makes and stores it there.
/// `checked`, if given, is the result of [`check`] made beforehand; it is
/// used only if it is about the file `engine` names.
pub fn load_or_compile(
    engine: &Engine,
    guest_sha256: &str,
    dir: Option<&Path>,
    checked: Option<Checked>,
    prepare: impl FnOnce() -> wasmtime::Result<Vec<u8>>,
) -> wasmtime::Result<(Module, CacheOutcome)> {
    let Some(dir) = dir else {
        return Ok((Module::new(engine, prepare()?)?, CacheOutcome::Uncached));
    };
    let path = dir.join(file_name(engine, guest_sha256));
    let checked = checked.filter(|checked| checked.path == path).unwrap_or_else(|| check_path(path));
    let path = checked.path;
    let mut outcome = CacheOutcome::Compiled;
    if checked.found {
        if checked.valid {
            // SAFETY: `checked.valid` means the file's length and XXH3 matched its checksum file,
            // so it holds what `Module::serialize` wrote for an engine whose compilation settings,
            // wasmtime and cordon version the file name is keyed by (the checksum guards against
            // damage, not an attacker: whoever can write the user's cache directory can already
            // run code as the user). wasmtime checks its header, settings and CPU features before
            // using it. The mapped file never changes: `store` only ever puts a new file in place
            // by rename and `prune` unlinks, neither of which touches the inode mapped here.
            if let Ok(module) = unsafe { Module::deserialize_file(engine, &path) } {
                // Marks the entry as in use, for pruning (best effort).
                let _ = fs::File::options()
                    .write(true)
                    .open(sum_path(&path))
                    .and_then(|f| f.set_modified(SystemTime::now()));
                return Ok((module, CacheOutcome::Hit));
            }
        }
        outcome = CacheOutcome::Recompiled;
    }
    let module = Module::new(engine, prepare()?)?;
    if let Ok(serialized) = module.serialize() {
        // A cache that cannot be written only costs the next process a compile.
        let _ = store(dir, &path, &serialized);
    }
    prune(dir, &path, SystemTime::now());
    Ok((module, outcome))
}

/// What [`check`] found in the cache directory.
#[derive(Debug)]
pub struct Checked {
    path: PathBuf,
    /// A module file or a checksum file exists.
    found: bool,
    /// The module file matches its checksum file.
    valid: bool,
}

/// Checks the cache file that engines with `engine`'s compilation settings
/// use for this guest (reading all of it), so that the check can happen
/// while the engine that will load it is still being made.
pub fn check(engine: &Engine, guest_sha256: &str, dir: &Path) -> Checked {
    check_path(dir.join(file_name(engine, guest_sha256)))
}

fn check_path(path: PathBuf) -> Checked {
    let found = path.exists() || sum_path(&path).exists();
    let valid = found && verified(&path);
    Checked { path, found, valid }
}

/// Entries unused for this long are removed when a new one is stored.
pub const UNUSED_FOR: Duration = Duration::from_secs(14 * 24 * 3600);

/// Removes the other modules of `dir` (other guest builds, wasmtime
/// versions or settings) whose checksum file was last used before
/// `now - UNUSED_FOR`, or that have none. A hit marks its entry as used, so
/// builds in use on this machine stay.
pub fn prune(dir: &Path, keep: &Path, now: SystemTime) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let cutoff = now.checked_sub(UNUSED_FOR).unwrap_or(UNIX_EPOCH);
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with("guest-") || !name.ends_with(".cwasm") || path == keep {
            continue;
        }
        let used = fs::metadata(sum_path(&path)).and_then(|m| m.modified()).unwrap_or(UNIX_EPOCH);
        if used < cutoff {
            let _ = fs::remove_file(sum_path(&path));
            let _ = fs::remove_file(&path);
        }
    }
}

/// The checksum file beside a module: magic, length (u64 LE), XXH3-128.
fn sum_path(path: &Path) -> PathBuf {
    path.with_extension("sum")
}

pub(crate) fn summary(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + 8 + SUM_BYTES);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(bytes).to_le_bytes());
    out
}

/// Whether the module file matches its checksum file.
fn verified(path: &Path) -> bool {
    let Ok(expected) = fs::read(sum_path(path)) else { return false };
    with_contents(path, |bytes| summary(bytes) == expected).unwrap_or(false)
}

/// Runs `f` over the file's bytes, mapped rather than copied.
#[cfg(unix)]
pub(crate) fn with_contents<T>(path: &Path, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
    use std::os::fd::AsRawFd;
    let file = fs::File::open(path).ok()?;
    let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
    if len == 0 {
        return Some(f(&[]));
    }
    // SAFETY: `mmap` of `len` (> 0) bytes of a file opened here, read-only and private: a valid
    // request. The result is checked against MAP_FAILED, so `ptr` is the start of `len` readable
    // bytes (page-aligned, so aligned for u8), and the slice lives only for `f`, before `munmap`.
    // The bytes do not change while `f` reads them as long as nobody writes the file in place:
    // cache files and shipped modules are both replaced only by rename (`write_whole`).
    unsafe {
        let ptr =
            libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0);
        if ptr == libc::MAP_FAILED {
            return None;
        }
        let out = f(std::slice::from_raw_parts(ptr.cast::<u8>(), len));
        libc::munmap(ptr, len);
        Some(out)
    }
}

#[cfg(not(unix))]
pub(crate) fn with_contents<T>(path: &Path, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
    fs::read(path).ok().map(|bytes| f(&bytes))
}

/// Writes the module, then its checksum, each to a temporary name renamed
/// into place.
fn store(dir: &Path, path: &Path, serialized: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    write_whole(path, serialized)?;
    write_whole(&sum_path(path), &summary(serialized))
}

/// Writes `bytes` to a temporary name beside `path`, then renames it over
/// `path`: a reader, or a process that mapped the old file, never sees a
/// file half written.
pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}
