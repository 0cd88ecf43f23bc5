//! The guest compiled at build time and shipped beside the addon, so that
//! no process compiles it: the first sandbox of a process maps this file
//! instead of spending seconds in Cranelift, and nothing is written to disk.
//!
//! `engine::precompile` makes both modules (plain and fuel-metered) from the
//! pre-initialised guest, for a baseline CPU of the target's architecture
//! ([`BASELINE`]); [`write`] stores each with a summary file: a magic, the key
//! of the build it belongs to (guest, wasmtime, cordon, preparation, metering),
//! and the length and XXH3-128 of the module. [`check`] verifies the summary
//! before wasmtime sees the module, and wasmtime itself refuses a module whose
//! CPU features this machine lacks; either way the caller falls back to the
//! cache and compiles, once, saying why.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::OnceLock,
};

use sha2::{Digest, Sha256};

use crate::cache;

const MAGIC: &[u8; 8] = b"CORDONP1";
const KEY_BYTES: usize = 16;

/// The file name of the shipped module (`metered`: the deterministic
/// engine's).
pub fn file_name(metered: bool) -> &'static str {
    if metered {
        "cordon-guest-metered.cwasm"
    } else {
        "cordon-guest.cwasm"
    }
}

/// The CPU features the shipped module may use, as a Cranelift preset or
/// flag per architecture: x86-64-v2 (SSE4.2, POPCNT, CMPXCHG16B: every
/// x86-64 CPU since 2009 and every Intel Mac) and the plain Armv8.0-A
/// instruction set.
pub const BASELINE: &[(&str, &[&str])] = &[("x86_64", &["x86-64-v2"]), ("aarch64", &[])];

/// The baseline flags for `target` (a triple); `None` for an architecture
/// without a shipped module.
pub fn baseline(target: &str) -> Option<&'static [&'static str]> {
    let arch = target.split('-').next()?;
    BASELINE.iter().find(|(name, _)| *name == arch).map(|(_, flags)| *flags)
}

static DIR: OnceLock<PathBuf> = OnceLock::new();

/// Where the shipped modules are: the directory of the addon, set once by
/// the binding before the first sandbox. Returns false if already set to
/// another directory.
pub fn set_dir(dir: PathBuf) -> bool {
    DIR.get_or_init(|| dir.clone()) == &dir
}

/// The directory set by [`set_dir`], unless `CORDON_PREBUILT=off`.
pub(crate) fn dir() -> Option<&'static Path> {
    if std::env::var_os("CORDON_PREBUILT").is_some_and(|v| v == "off") {
        return None;
    }
    DIR.get().map(PathBuf::as_path)
}

/// Which build a shipped module belongs to.
fn key(guest_sha256: &str, metered: bool) -> [u8; KEY_BYTES] {
    let digest = Sha256::new()
        .chain_update(guest_sha256.as_bytes())
        .chain_update(cache::WASMTIME_VERSION.as_bytes())
        .chain_update(env!("CARGO_PKG_VERSION").as_bytes())
        .chain_update(cache::PREPARATION.as_bytes())
        .chain_update([u8::from(metered)])
        .finalize();
    let mut key = [0; KEY_BYTES];
    key.copy_from_slice(digest.get(..KEY_BYTES).unwrap_or(&[0; KEY_BYTES]));
    key
}

fn sum_path(path: &Path) -> PathBuf {
    path.with_extension("sum")
}

/// Writes a module made by `engine::precompile` into `dir`, with its summary.
pub fn write(dir: &Path, guest_sha256: &str, metered: bool, module: &[u8]) -> std::io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join(file_name(metered));
    let mut sum = Vec::from(*MAGIC);
    sum.extend_from_slice(&key(guest_sha256, metered));
    sum.extend_from_slice(&cache::summary(module));
    // Replaced whole, by rename: a process that mapped the old file keeps it.
    cache::write_whole(&path, module)?;
    cache::write_whole(&sum_path(&path), &sum)?;
    Ok(path)
}

/// The shipped module's path if its summary names this build and matches
/// its bytes (read whole, mapped); otherwise why it cannot be used.
pub(crate) fn check(dir: &Path, guest_sha256: &str, metered: bool) -> Result<PathBuf, String> {
    let path = dir.join(file_name(metered));
    let sum = fs::read(sum_path(&path))
        .map_err(|e| format!("{} cannot be read ({e})", sum_path(&path).display()))?;
    let (magic, rest) = sum.split_at(MAGIC.len().min(sum.len()));
    let (found_key, expected) = rest.split_at(KEY_BYTES.min(rest.len()));
    if magic != MAGIC || found_key != key(guest_sha256, metered) {
        return Err(format!("{} belongs to another build of cordon", path.display()));
    }
    let matches = cache::with_contents(&path, |bytes| cache::summary(bytes) == expected);
    match matches {
        Some(true) => Ok(path),
        Some(false) => Err(format!("{} does not match its summary (damaged)", path.display())),
        None => Err(format!("{} cannot be read", path.display())),
    }
}
