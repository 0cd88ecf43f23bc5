#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! The on-disk module cache: keyed by engine and guest, and a corrupt file is
//! recompiled rather than loaded.

use cordon_runtime::engine::{self, ModuleSource};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cordon-cache-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn second_load_hits_the_cache() {
    let dir = temp_dir("hit");
    let engine = engine::new_engine().unwrap();
    let (wasm, sha) = engine::guest();
    let (_, first) = engine::load_or_compile(&engine, wasm, sha, Some(&dir)).unwrap();
    assert_eq!(first, ModuleSource::Compiled);
    let (_, second) = engine::load_or_compile(&engine, wasm, sha, Some(&dir)).unwrap();
    assert_eq!(second, ModuleSource::Hit);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_or_truncated_files_are_recompiled() {
    let dir = temp_dir("corrupt");
    let engine = engine::new_engine().unwrap();
    let (wasm, sha) = engine::guest();
    engine::load_or_compile(&engine, wasm, sha, Some(&dir)).unwrap();
    let path = dir.join(engine::cache_file_name(&engine, sha));
    let good = std::fs::read(&path).unwrap();

    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    for bad in [flipped, good[..good.len() / 3].to_vec(), b"garbage".to_vec(), Vec::new()] {
        std::fs::write(&path, &bad).unwrap();
        let (_, source) = engine::load_or_compile(&engine, wasm, sha, Some(&dir)).unwrap();
        assert_eq!(source, ModuleSource::Recompiled);
        // The rewritten file is valid again.
        let (_, again) = engine::load_or_compile(&engine, wasm, sha, Some(&dir)).unwrap();
        assert_eq!(again, ModuleSource::Hit);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_key_changes_with_the_guest() {
    let engine = engine::new_engine().unwrap();
    let (_, sha) = engine::guest();
    assert_ne!(engine::cache_file_name(&engine, sha), engine::cache_file_name(&engine, "another-guest"));
}

#[test]
fn an_engine_without_the_pool_names_the_same_file() {
    // A process's first sandbox checks the cache file on another thread while
    // the pooled engine is made, naming it with an engine without the pool;
    // the check is only used if both name the same file.
    let (_, sha) = engine::guest();
    let pooled = engine::new_engine().unwrap();
    let unpooled = engine::compile_engine().unwrap();
    assert_eq!(engine::cache_file_name(&unpooled, sha), engine::cache_file_name(&pooled, sha));
}

#[test]
fn modules_unused_for_two_weeks_are_pruned_and_used_ones_kept() {
    let dir = temp_dir("prune");
    std::fs::create_dir_all(&dir).unwrap();
    let now = std::time::SystemTime::now();
    let old = now - engine::CACHE_UNUSED_FOR - std::time::Duration::from_secs(60);
    let recent = now - std::time::Duration::from_secs(3600);
    let make = |name: &str, used: Option<std::time::SystemTime>| {
        std::fs::write(dir.join(format!("{name}.cwasm")), b"module").unwrap();
        if let Some(used) = used {
            let sum = std::fs::File::create(dir.join(format!("{name}.sum"))).unwrap();
            sum.set_modified(used).unwrap();
        }
    };
    make("guest-old", Some(old));
    make("guest-recent", Some(recent));
    make("guest-nosum", None);
    make("guest-current", Some(old));
    std::fs::write(dir.join("unrelated.txt"), b"x").unwrap();
    engine::prune_cache(&dir, &dir.join("guest-current.cwasm"), now);
    let mut left: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    left.sort();
    assert_eq!(
        left,
        [
            "guest-current.cwasm",
            "guest-current.sum",
            "guest-recent.cwasm",
            "guest-recent.sum",
            "unrelated.txt"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
