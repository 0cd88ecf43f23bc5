#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! An idle sandbox gives back the guest memory pages it wrote but left as
//! they were in the image, and works as before afterwards.

use std::time::{Duration, Instant};

use cordon_runtime::{CancelFlag, Determinism, Language, Limits, RunReport, Sandbox};

fn run(rt: &tokio::runtime::Runtime, sb: &Sandbox, code: &str) -> RunReport {
    rt.block_on(sb.run(code, Language::Javascript, CancelFlag::new())).unwrap()
}

fn can_trim() -> bool {
    wasmtime::PoolingAllocationConfig::is_pagemap_scan_available()
}

#[test]
fn trimming_drops_only_unchanged_pages_and_keeps_the_session() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sb = Sandbox::new(Limits::default()).unwrap();
    // No instance yet: nothing to trim.
    assert_eq!(sb.trim_memory(), None);
    let report = run(&rt, &sb, "globalThis.kept = [1, 2, 3].map((x) => x * 2); console.log('hi')");
    assert_eq!((report.exit_code, report.stdout.as_str(), report.stderr.as_str()), (0, "hi\n", ""));
    if !can_trim() {
        assert_eq!(sb.trim_memory(), None);
        assert_eq!(sb.private_pages(), None);
        return;
    }
    let before = sb.private_pages().unwrap();
    let dropped = sb.trim_memory().unwrap();
    assert!(dropped > 0 && dropped < before, "dropped {dropped} of {before} private pages");
    assert_eq!(sb.private_pages(), Some(before - dropped));
    // What is left differs from the image: a second pass finds nothing.
    assert_eq!(sb.trim_memory(), Some(0));
    let report = run(&rt, &sb, "console.log(kept.join(',')); return kept.length");
    assert_eq!(
        (report.exit_code, report.stdout.as_str(), report.stderr.as_str(), report.value.as_deref()),
        (0, "2,4,6\n3\n", "", Some("3"))
    );
}

#[test]
fn an_idle_sandbox_is_trimmed_by_the_reaper() {
    if !can_trim() {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sb = Sandbox::new(Limits::default()).unwrap();
    let report = run(&rt, &sb, "console.log('hi')");
    assert_eq!((report.exit_code, report.stdout.as_str()), (0, "hi\n"));
    let written = sb.private_pages().unwrap();
    let start = Instant::now();
    let mut now = written;
    while now >= written && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
        now = sb.private_pages().unwrap();
    }
    assert!(now < written, "still {now} of {written} private pages after {:?}", start.elapsed());
    assert!(
        start.elapsed() >= Duration::from_millis(90),
        "trimmed after {:?}, before 100 ms idle",
        start.elapsed()
    );
    // Already trimmed: nothing is left to give back.
    assert_eq!(sb.trim_memory(), Some(0));
    let report = run(&rt, &sb, "console.log('again')");
    assert_eq!((report.exit_code, report.stdout.as_str(), report.stderr.as_str()), (0, "again\n", ""));
}

#[test]
fn a_deterministic_sandbox_is_not_trimmed() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sb = Sandbox::build(Limits::default(), None, Some(Determinism { seed: 7, start_ms: 0 })).unwrap();
    let report = run(&rt, &sb, "console.log('hi')");
    assert_eq!((report.exit_code, report.stdout.as_str()), (0, "hi\n"));
    assert_eq!(sb.trim_memory(), None);
    assert_eq!(sb.private_pages(), None);
}
