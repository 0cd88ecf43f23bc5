//! Embeds the guest module. The guest is built from source by
//! `scripts/build-guest.sh` (or `CORDON_GUEST_WASM` points at it); a missing
//! guest fails the build with a message saying how to make it.

use std::{env, fs, path::PathBuf, process};

use sha2::{Digest, Sha256};

fn main() {
    println!("cargo:rerun-if-env-changed=CORDON_GUEST_WASM");
    let path = match env::var_os("CORDON_GUEST_WASM") {
        Some(path) => PathBuf::from(path),
        None => {
            let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
            manifest.join("../../target/wasm32-wasip1/guest/cordon_guest.wasm")
        }
    };
    println!("cargo:rerun-if-changed={}", path.display());
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!(
                "cordon-runtime: the guest module {} cannot be read ({err}); build it with \
                 `bash scripts/build-guest.sh` or point CORDON_GUEST_WASM at it",
                path.display()
            );
            process::exit(1);
        }
    };
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=CORDON_GUEST_WASM_PATH={}", path.display());
    println!("cargo:rustc-env=CORDON_GUEST_SHA256={hex}");
    // The target this runtime is built for: the one its shipped guest is
    // compiled for by default (`engine::precompile`).
    println!("cargo:rustc-env=CORDON_TARGET={}", env::var("TARGET").unwrap_or_default());
}
