#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! A process's first use of the engine, through the module cache, as it
//! happens in production: the cache file is checked on another thread while
//! the engine is made. Each step runs in a fresh child process (this test
//! binary, re-run with `CORDON_WARM_UP_CHILD`), since a process makes its
//! engine once.

use std::process::Command;

const CHILD: &str = "CORDON_WARM_UP_CHILD";

fn warm_up_in_child(dir: &std::path::Path) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "warm_up_loads_from_the_cache_and_recompiles_a_corrupt_file", "--nocapture"])
        .env(CHILD, "1")
        .env("CORDON_CACHE_DIR", dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("source: "))
        .unwrap_or_else(|| panic!("no source line in: {stdout}"))
        .to_string()
}

#[test]
fn warm_up_loads_from_the_cache_and_recompiles_a_corrupt_file() {
    if std::env::var_os(CHILD).is_some() {
        println!("source: {:?}", cordon_runtime::engine::warm_up().unwrap());
        return;
    }
    let dir = std::env::temp_dir().join(format!("cordon-warm-up-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(warm_up_in_child(&dir), "Compiled");
    assert_eq!(warm_up_in_child(&dir), "Hit");
    assert_eq!(warm_up_in_child(&dir), "Hit");
    let module = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "cwasm"))
        .unwrap();
    let mut bytes = std::fs::read(&module).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&module, &bytes).unwrap();
    assert_eq!(warm_up_in_child(&dir), "Recompiled");
    assert_eq!(warm_up_in_child(&dir), "Hit");
    std::fs::remove_dir_all(&dir).unwrap();
}
