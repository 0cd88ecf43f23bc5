//! CPU time of a run: the time spent inside each poll of the guest's future,
//! so time spent waiting (for the host, or while another sandbox has the
//! thread) never counts.

use std::{
    future::Future,
    pin::Pin,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, OnceLock,
    },
    task::{Context, Poll},
    time::Instant,
};

/// CPU time consumed by the current thread, in nanoseconds; `None` when the
/// clock cannot be read (the poll is then charged wall time).
#[cfg(unix)]
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes one `timespec` through its pointer, and `ts` is a live,
    // writable `libc::timespec`; an unknown clock id only makes it return -1, handled below.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    let ns = u64::try_from(ts.tv_sec)
        .ok()?
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::try_from(ts.tv_nsec).ok()?);
    Some(ns.max(1))
}

/// Without a per-thread CPU clock, wall time inside the polls stands in.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    None
}

/// CPU used by one run, shared between the poll wrapper and the epoch
/// callback (which runs inside a poll, on the polling thread).
///
/// Reading the thread's CPU clock is a system call (a microsecond or so on a
/// VM), so a poll does not read it up front. Until
/// the poll's first epoch tick its time is charged at wall time, an upper
/// bound of its CPU time (the two differ only while the thread is
/// descheduled); the tick reads the CPU clock, and from there on the poll is
/// charged its exact CPU time. A short poll (a tool call's turn, a tiny
/// script) thus costs two monotonic-clock reads instead of two system calls.
#[derive(Debug, Default)]
pub(crate) struct CpuMeter {
    /// CPU of the polls that have finished.
    used_ns: AtomicU64,
    /// Monotonic clock when the poll in progress began.
    poll_start_wall_ns: AtomicU64,
    /// Thread CPU clock at the poll's first tick; 0 until then (a reading is
    /// never 0).
    poll_anchor_cpu_ns: AtomicU64,
    /// Wall time of the poll charged before that tick.
    poll_before_anchor_ns: AtomicU64,
}

/// Nanoseconds on a process-wide monotonic clock (a vDSO read).
fn wall_ns() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    u64::try_from(ORIGIN.get_or_init(Instant::now).elapsed().as_nanos()).unwrap_or(u64::MAX)
}

impl CpuMeter {
    fn begin_poll(&self) {
        self.poll_start_wall_ns.store(wall_ns(), Ordering::Relaxed);
        self.poll_anchor_cpu_ns.store(0, Ordering::Relaxed);
    }

    /// Wall time of the poll in progress so far.
    fn poll_wall_ns(&self) -> u64 {
        wall_ns().saturating_sub(self.poll_start_wall_ns.load(Ordering::Relaxed))
    }

    /// CPU of the poll in progress so far.
    fn poll_spent_ns(&self) -> u64 {
        let anchor = self.poll_anchor_cpu_ns.load(Ordering::Relaxed);
        if anchor == 0 {
            return self.poll_wall_ns();
        }
        match thread_cpu_ns() {
            Some(now) => {
                self.poll_before_anchor_ns.load(Ordering::Relaxed).saturating_add(now.saturating_sub(anchor))
            }
            // The clock failed since the anchor: wall time, an upper bound.
            None => self.poll_wall_ns(),
        }
    }

    /// CPU used so far, counting the poll in progress. Call only from inside
    /// a poll of the metered future (the epoch callback): the first call of a
    /// poll anchors it to the thread's CPU clock (when that can be read).
    pub(crate) fn used_ns_in_poll(&self) -> u64 {
        if self.poll_anchor_cpu_ns.load(Ordering::Relaxed) == 0 {
            let before = self.poll_wall_ns();
            if let Some(now) = thread_cpu_ns() {
                self.poll_before_anchor_ns.store(before, Ordering::Relaxed);
                self.poll_anchor_cpu_ns.store(now, Ordering::Relaxed);
            }
        }
        self.used_ns.load(Ordering::Relaxed).saturating_add(self.poll_spent_ns())
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
        self.meter.begin_poll();
        let out = self.inner.as_mut().poll(cx);
        let spent = self.meter.poll_spent_ns();
        self.meter.used_ns.fetch_add(spent, Ordering::Relaxed);
        out
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use super::*;

    /// Burns about `ms` of this thread's CPU.
    #[cfg(unix)]
    fn spin(ms: u64) {
        let cpu = || thread_cpu_ns().unwrap_or(0);
        let start = cpu();
        while cpu().saturating_sub(start) < ms * 1_000_000 {
            std::hint::black_box(0);
        }
    }

    #[test]
    #[cfg(unix)]
    fn a_poll_is_charged_wall_time_until_anchored_and_cpu_time_after() {
        let meter = CpuMeter::default();
        meter.begin_poll();
        // Asleep before the anchor: charged, as wall time.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let at_anchor = meter.used_ns_in_poll();
        assert!(at_anchor >= 20_000_000, "{at_anchor}");
        // Asleep after it: not charged.
        std::thread::sleep(std::time::Duration::from_millis(50));
        spin(5);
        let spent = meter.poll_spent_ns();
        assert!(spent >= at_anchor + 5_000_000, "{spent} after {at_anchor}");
        assert!(spent < at_anchor + 40_000_000, "the sleep after the anchor was charged: {spent}");
    }
}
