#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! One test per limit against the real engine and guest: each ends the run
//! with its code, and the same sandbox works afterwards.

use std::time::{Duration, Instant};

use cordon_runtime::{CancelFlag, ErrorCode, Language, Limits, RunFailure, RunReport, Sandbox};

const MIB: u64 = 1024 * 1024;

async fn run(sb: &Sandbox, code: &str) -> Result<RunReport, RunFailure> {
    sb.run(code, Language::Javascript, CancelFlag::new()).await
}

async fn assert_usable(sb: &Sandbox) -> RunReport {
    let after = run(sb, "console.log('ok')").await.unwrap();
    assert_eq!(after.stdout, "ok\n");
    assert_eq!(after.exit_code, 0);
    after
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wall_time_limit_stops_an_endless_loop() {
    let sb = Sandbox::new(Limits { timeout_ms: 100, ..Limits::default() }).unwrap();
    let started = Instant::now();
    let err = run(&sb, "for (;;) { try {} catch {} }").await.unwrap_err();
    assert!(started.elapsed() < Duration::from_millis(150), "took {:?}", started.elapsed());
    assert_eq!(err.code, ErrorCode::Timeout);
    assert_eq!(err.message, "the run exceeded its time limit of 100 ms (limits.timeoutMs)");
    let after = assert_usable(&sb).await;
    assert!(after.stats.instance_restarted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpu_limit_stops_a_busy_guest() {
    let sb = Sandbox::new(Limits { cpu_ms: 30, timeout_ms: 10_000, ..Limits::default() }).unwrap();
    let err = run(&sb, "while (true) {}").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::CpuLimit);
    let stats = err.partial.unwrap().stats;
    assert!(stats.cpu_ms >= 30.0 && stats.cpu_ms < 1000.0, "cpu {}", stats.cpu_ms);
    assert_usable(&sb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_limit_traps_growth() {
    let sb = Sandbox::new(Limits { memory_bytes: 24 * MIB, ..Limits::default() }).unwrap();
    let err = run(&sb, "const a = []; while (true) a.push(new Array(1e5).fill(0))").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MemoryLimit);
    assert!(err.partial.unwrap().stats.memory_bytes <= 24 * MIB);
    assert_usable(&sb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_recursion_is_a_stack_overflow() {
    let sb = Sandbox::new(Limits::default()).unwrap();
    let err = run(&sb, "function f(n) { return f(n + 1) + 1 } f(0)").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::StackOverflow);
    assert_usable(&sb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_is_capped_with_a_marker() {
    let sb = Sandbox::new(Limits { output_bytes: 8, ..Limits::default() }).unwrap();
    let report = run(&sb, "for (let i = 0; i < 1000; i++) console.log('abcdef')").await.unwrap();
    assert_eq!(report.stdout, "abcdef\na\n[cordon: output truncated at 8 bytes]\n");
    assert!(report.stats.stdout_truncated);
    assert_usable(&sb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_code_is_refused_before_running() {
    let sb = Sandbox::new(Limits { code_bytes: 4, ..Limits::default() }).unwrap();
    let err = run(&sb, "return 1").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidCode);
    assert!(err.partial.is_none());
    assert_eq!(run(&sb, "1").await.unwrap().exit_code, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_flag_stops_a_run() {
    let sb = Sandbox::new(Limits::default()).unwrap();
    let cancel = CancelFlag::new();
    let remote = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        remote.cancel();
    });
    let err = sb.run("while (true) {}", Language::Javascript, cancel).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
    assert_usable(&sb).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_sandbox_refuses_runs() {
    let sb = Sandbox::new(Limits::default()).unwrap();
    sb.close();
    assert_eq!(run(&sb, "1").await.unwrap_err().code, ErrorCode::Closed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn globals_persist_until_a_trap() {
    let sb = Sandbox::new(Limits { timeout_ms: 50, ..Limits::default() }).unwrap();
    run(&sb, "globalThis.kept = 41").await.unwrap();
    assert_eq!(run(&sb, "return kept + 1").await.unwrap().value.as_deref(), Some("42"));
    run(&sb, "while (true) {}").await.unwrap_err();
    let after = run(&sb, "return typeof kept").await.unwrap();
    assert_eq!(after.value.as_deref(), Some("undefined"));
    assert!(after.stats.instance_restarted);
}
