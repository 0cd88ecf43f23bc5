#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
//! An idle sandbox gives back the guest memory pages it wrote but left as
//! they were in the image, and works as before afterwards. Each test runs in
//! a child process of this binary with its own `CORDON_TRIM_IDLE_MS` (read
//! once per process).

use std::{
    process::Command,
    time::{Duration, Instant},
};

use cordon_runtime::{CancelFlag, Determinism, ErrorCode, Language, Limits, RunReport, Sandbox};

const CHILD: &str = "CORDON_TRIM_TEST_CHILD";

/// In the child, true (run the test's body); otherwise runs `test` in a
/// child with `CORDON_TRIM_IDLE_MS=idle`, checks it passed, and returns false.
fn in_child(test: &str, idle: &str) -> bool {
    in_child_with(test, idle, &[])
}

/// [`in_child`], with more environment for the child.
fn in_child_with(test: &str, idle: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os(CHILD).is_some() {
        return true;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("CORDON_TRIM_IDLE_MS", idle)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test} in a child:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

fn run(rt: &tokio::runtime::Runtime, sb: &Sandbox, code: &str) -> RunReport {
    rt.block_on(sb.run(code, Language::Javascript, CancelFlag::new())).unwrap()
}

fn can_trim() -> bool {
    wasmtime::PoolingAllocationConfig::is_pagemap_scan_available()
}

#[test]
fn trimming_drops_only_unchanged_pages_and_keeps_the_session() {
    // Idle for an hour first: only the explicit trim runs.
    if !in_child("trimming_drops_only_unchanged_pages_and_keeps_the_session", "3600000") {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sb = Sandbox::new(Limits::default()).unwrap();
    // No instance yet: nothing to trim.
    assert_eq!(sb.trim_memory(), None);
    // Memory grown past the image: zeros written (calloc) and two bytes set.
    let report = run(
        &rt,
        &sb,
        "globalThis.kept = [1, 2, 3].map((x) => x * 2); globalThis.big = new Uint8Array(32 << 20); \
         big[5] = 1; big[20 << 20] = 7; console.log('hi')",
    );
    assert_eq!((report.exit_code, report.stdout.as_str(), report.stderr.as_str()), (0, "hi\n", ""));
    if !can_trim() {
        assert_eq!(sb.trim_memory(), None);
        assert_eq!(sb.private_pages(), None);
        return;
    }
    let image = sb.snapshot().unwrap();
    let before = sb.private_pages().unwrap();
    let dropped = sb.trim_memory().unwrap();
    assert!(dropped > 0 && dropped < before, "dropped {dropped} of {before} private pages");
    assert_eq!(sb.private_pages(), Some(before - dropped));
    // Not a byte of the session changed.
    assert!(sb.snapshot().unwrap() == image, "the snapshot changed across the trim");
    // What is left differs from the image: a second pass finds nothing.
    assert_eq!(sb.trim_memory(), Some(0));
    let report = run(
        &rt,
        &sb,
        "console.log(kept.join(',')); return [big[5], big[20 << 20], big.length, big.reduce((a, b) => a + b, 0)]",
    );
    assert_eq!(
        (report.exit_code, report.stdout.as_str(), report.stderr.as_str(), report.value.as_deref()),
        (0, "2,4,6\n[1,7,33554432,8]\n", "", Some("[1,7,33554432,8]"))
    );

    // A restored session's memory is a copy, every page its own until trimmed.
    let restored = rt.block_on(Sandbox::builder().restore(&image, None)).unwrap();
    let copied = restored.private_pages().unwrap();
    let dropped = restored.trim_memory().unwrap();
    assert!(dropped > copied / 2, "dropped {dropped} of {copied} pages of a restored session");
    let report = run(&rt, &restored, "return [kept.join(','), big[5], big[20 << 20]]");
    assert_eq!((report.exit_code, report.value.as_deref()), (0, Some("[\"2,4,6\",1,7]")));
}

#[test]
fn an_idle_sandbox_is_trimmed_by_the_reaper_once_idle() {
    if !in_child("an_idle_sandbox_is_trimmed_by_the_reaper_once_idle", "500") || !can_trim() {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sb = Sandbox::new(Limits::default()).unwrap();
    let report = run(&rt, &sb, "console.log('hi')");
    assert_eq!((report.exit_code, report.stdout.as_str()), (0, "hi\n"));
    let ended = Instant::now();
    let written = sb.private_pages().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(sb.private_pages(), Some(written), "trimmed before it was idle for 500 ms");
    let mut now = written;
    while now >= written && ended.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
        now = sb.private_pages().unwrap();
    }
    assert!(now < written, "still {now} of {written} private pages after {:?}", ended.elapsed());
    assert!(ended.elapsed() >= Duration::from_millis(500), "trimmed after {:?}", ended.elapsed());
    // Already trimmed: nothing is left to give back.
    assert_eq!(sb.trim_memory(), Some(0));
    let report = run(&rt, &sb, "console.log('again')");
    assert_eq!((report.exit_code, report.stdout.as_str(), report.stderr.as_str()), (0, "again\n", ""));
}

#[test]
fn sandboxes_in_the_rest_of_the_pool_are_trimmed_against_the_first_parts_pristine_instance() {
    // 256 slots come with the engine, the other 2 with a second engine.
    let test = "sandboxes_in_the_rest_of_the_pool_are_trimmed_against_the_first_parts_pristine_instance";
    if !in_child_with(test, "3600000", &[("CORDON_POOL_SIZE", "258")]) || !can_trim() {
        return;
    }
    assert_eq!(cordon_runtime::engine::FIRST_POOL, 256);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut held = Vec::new();
    for i in 0..257 {
        let sb = Sandbox::new(Limits::default()).unwrap();
        let report = run(&rt, &sb, &format!("globalThis.mine = {i}; console.log('hi')"));
        assert_eq!((report.exit_code, report.stdout.as_str()), (0, "hi\n"), "sandbox {i}");
        held.push(sb);
    }
    // The last one holds a slot of the second engine's.
    let (first, rest) = (&held[0], &held[256]);
    let image = rest.snapshot().unwrap();
    let before = rest.private_pages().unwrap();
    let dropped = rest.trim_memory().unwrap();
    assert!(dropped > 0 && dropped < before, "dropped {dropped} of {before} private pages");
    assert!(rest.snapshot().unwrap() == image, "the snapshot changed across the trim");
    let report = run(&rt, rest, "return mine");
    assert_eq!((report.exit_code, report.value.as_deref()), (0, Some("256")));
    // Had a dropped page not read back the same, trimming would have stopped
    // for the whole process; it goes on in the first part.
    assert!(first.trim_memory().unwrap() > 0);
    let report = run(&rt, first, "return mine");
    assert_eq!((report.exit_code, report.value.as_deref()), (0, Some("0")));
    // 258 slots: one more sandbox, then none.
    let last = Sandbox::new(Limits::default()).unwrap();
    assert_eq!(run(&rt, &last, "return 1").exit_code, 0);
    let refused = Sandbox::new(Limits::default()).unwrap();
    let err = rt.block_on(refused.run("return 1", Language::Javascript, CancelFlag::new())).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooManySandboxes);
}

#[test]
fn trimming_can_be_turned_off() {
    if !in_child("trimming_can_be_turned_off", "off") {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sb = Sandbox::new(Limits::default()).unwrap();
    let report = run(&rt, &sb, "console.log('hi')");
    assert_eq!((report.exit_code, report.stdout.as_str()), (0, "hi\n"));
    assert_eq!(sb.trim_memory(), None);
    assert_eq!(sb.private_pages(), None);
}

#[test]
fn a_bad_idle_setting_is_refused_at_create() {
    if !in_child("a_bad_idle_setting_is_refused_at_create", "soon") {
        return;
    }
    let err = Sandbox::new(Limits::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::Internal);
    assert_eq!(err.message, "CORDON_TRIM_IDLE_MS must be a number of milliseconds or off, got \"soon\"");
}

#[test]
fn a_deterministic_sandbox_is_not_trimmed() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let sb = Sandbox::builder().determinism(Determinism { seed: 7, start_ms: 0 }).build().unwrap();
    let report = run(&rt, &sb, "console.log('hi')");
    assert_eq!((report.exit_code, report.stdout.as_str()), (0, "hi\n"));
    assert_eq!(sb.trim_memory(), None);
    assert_eq!(sb.private_pages(), None);
}
