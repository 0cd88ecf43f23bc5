//! Timings of number-heavy pipelines (`seq` and `awk` formatting floats),
//! for comparing changes to `%e %f %g`: run with
//! `cargo test --release -p cordon-shell --test float_bench -- --ignored --nocapture`.
//! Besides wall time it reports the thread's CPU time (Linux's
//! `/proc/thread-self/schedstat`), which other work on a busy machine
//! disturbs less.

use cordon_shell::testing::TestSystem;
use cordon_shell::Shell;
use std::time::{Duration, Instant};

const RUNS: usize = 21;

/// Nanoseconds this thread has run on a CPU, where Linux tells.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

#[test]
#[ignore]
fn float_formatting() {
    let mut sys = TestSystem::new();
    let mut shell = Shell::new();
    // 120,000 lines of numbers with fractions.
    shell.run(&mut sys, "seq 1 0.5 60000.5 > nums");
    for script in [
        "seq 1 0.5 60000.5 > /dev/null",
        "awk '{printf \"%.3f\\n\", $1*1.1}' nums > /dev/null",
        "awk '{printf \"%e %g\\n\", $1/7, $1/7}' nums > /dev/null",
        "awk '{print $1/7}' nums > /dev/null",
    ] {
        let (mut wall, mut cpu) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
        for _ in 0..RUNS {
            let (start, start_cpu) = (Instant::now(), cpu_ns());
            shell.run(&mut sys, script);
            wall.push(start.elapsed());
            if let (Some(a), Some(b)) = (start_cpu, cpu_ns()) {
                cpu.push(Duration::from_nanos(b.saturating_sub(a)));
            }
        }
        println!("{script}: median wall {:?}, cpu {:?} over {RUNS} runs", median(wall), median(cpu));
    }
    assert!(sys.stderr.is_empty(), "{}", String::from_utf8_lossy(&sys.stderr));
}
