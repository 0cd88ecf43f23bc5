//! CPU time of a run: the thread CPU time spent inside each poll of the
//! guest's future, so time spent waiting (for the host, or while another
//! sandbox has the thread) never counts.

use std::{
    future::Future,
    pin::Pin,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    task::{Context, Poll},
};

/// CPU time consumed by the current thread, in nanoseconds.
#[cfg(unix)]
pub(crate) fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // every supported unix provides.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    u64::try_from(ts.tv_sec)
        .unwrap_or(0)
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::try_from(ts.tv_nsec).unwrap_or(0))
}

/// Without a per-thread CPU clock, wall time inside the polls stands in.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_ns() -> u64 {
    use std::{sync::OnceLock, time::Instant};
    static START: OnceLock<Instant> = OnceLock::new();
    u64::try_from(START.get_or_init(Instant::now).elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// CPU used by one run, shared between the poll wrapper and the epoch
/// callback (which runs inside a poll, on the polling thread).
#[derive(Debug, Default)]
pub(crate) struct CpuMeter {
    /// CPU of the polls that have finished.
    used_ns: AtomicU64,
    /// Thread CPU clock when the poll in progress began.
    poll_start_ns: AtomicU64,
}

impl CpuMeter {
    /// CPU used so far, counting the poll in progress. Call only from inside
    /// a poll of the metered future.
    pub(crate) fn used_ns_in_poll(&self) -> u64 {
        let start = self.poll_start_ns.load(Ordering::Relaxed);
        self.used_ns.load(Ordering::Relaxed).saturating_add(thread_cpu_ns().saturating_sub(start))
    }

    /// CPU used by finished polls.
    pub(crate) fn used_ns(&self) -> u64 {
        self.used_ns.load(Ordering::Relaxed)
    }
}

/// Wraps a future and charges the CPU of each of its polls to a meter.
pub(crate) struct Metered<F> {
    inner: Pin<Box<F>>,
    meter: Arc<CpuMeter>,
}

impl<F> Metered<F> {
    pub(crate) fn new(inner: F, meter: Arc<CpuMeter>) -> Self {
        Self { inner: Box::pin(inner), meter }
    }
}

impl<F: Future> Future for Metered<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let start = thread_cpu_ns();
        self.meter.poll_start_ns.store(start, Ordering::Relaxed);
        let out = self.inner.as_mut().poll(cx);
        let spent = thread_cpu_ns().saturating_sub(start);
        self.meter.used_ns.fetch_add(spent, Ordering::Relaxed);
        out
    }
}
