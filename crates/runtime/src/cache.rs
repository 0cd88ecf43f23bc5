//! The on-disk cache of the compiled guest.
//!
//! A cache file is named by a key that covers the guest build, the wasmtime
//! version and the engine configuration, so a stale artifact is never looked
//! up. Its contents carry a SHA-256 of the serialized module, checked before
//! wasmtime sees the bytes: a truncated or corrupt file is recompiled and
//! rewritten, never loaded. Files are written to a temporary name and renamed,
//! so concurrent processes never read half a file.

use std::{
    fs,
    hash::{Hash, Hasher},
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

const MAGIC: &[u8; 8] = b"CORDONM1";
const WASMTIME_VERSION: &str = "48.0.8";

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
        .finalize();
    let hex: String = key.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("guest-{hex}.cwasm")
}

/// Loads the compiled guest from `dir`, or compiles it and stores it there.
pub fn load_or_compile(
    engine: &Engine,
    wasm: &[u8],
    guest_sha256: &str,
    dir: Option<&Path>,
) -> wasmtime::Result<(Module, CacheOutcome)> {
    let Some(dir) = dir else {
        return Ok((Module::new(engine, wasm)?, CacheOutcome::Uncached));
    };
    let path = dir.join(file_name(engine, guest_sha256));
    let mut outcome = CacheOutcome::Compiled;
    if let Ok(bytes) = fs::read(&path) {
        if let Some(payload) = verified_payload(&bytes) {
            // SAFETY: the checksum proves these are exactly the bytes a
            // previous `Module::serialize` of this engine configuration wrote
            // (the file name is keyed by it); wasmtime re-checks its own
            // version and configuration header before use.
            if let Ok(module) = unsafe { Module::deserialize(engine, payload) } {
                return Ok((module, CacheOutcome::Hit));
            }
        }
        outcome = CacheOutcome::Recompiled;
    }
    let module = Module::new(engine, wasm)?;
    if let Ok(serialized) = module.serialize() {
        // A cache that cannot be written only costs the next process a compile.
        let _ = store(dir, &path, &serialized);
    }
    Ok((module, outcome))
}

fn verified_payload(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (digest, payload) = rest.split_at_checked(32)?;
    (Sha256::digest(payload).as_slice() == digest).then_some(payload)
}

fn store(dir: &Path, path: &Path, serialized: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let mut framed = Vec::with_capacity(MAGIC.len() + 32 + serialized.len());
    framed.extend_from_slice(MAGIC);
    framed.extend_from_slice(&Sha256::digest(serialized));
    framed.extend_from_slice(serialized);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&tmp, &framed)?;
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}
