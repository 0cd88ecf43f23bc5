//! Drops the guests of closed sandboxes on a thread of its own.
//!
//! Dropping a guest gives its memory slot back to the pooling allocator,
//! which copies the pages the guest wrote back from the image: about 20 µs
//! for a small run, that `close()` need not spend on the caller's thread.
//! The backlog is bounded: past [`BACKLOG`] guests waiting, or without the
//! thread, a guest is dropped where it was handed over. An instantiation
//! that finds every slot taken waits for the backlog ([`drain`]) and tries
//! again, so deferring never makes a sandbox fail to start.

use std::{
    any::Any,
    sync::{Condvar, Mutex, MutexGuard, OnceLock},
    thread,
    time::Duration,
};

/// Guests waiting to be dropped, at most. Each keeps its memory slot taken
/// until then, and the next sandbox takes another slot (which then stays
/// resident too), so the backlog bounds how many slots a loop of
/// create/close keeps warm.
const BACKLOG: usize = 16;
/// How often the thread looks at the queue while sandboxes are being closed.
/// Waking it for every guest would cost `close()` a system call and, on a
/// VM, an interrupt to another core (about 9 µs on the 2-core machine of
/// BENCHMARKS.md), half of what the thread saves it; it is woken only when
/// [`WAKE_AT`] guests wait.
const POLL: Duration = Duration::from_millis(1);
/// Guests waiting at which the thread is woken before its next poll.
const WAKE_AT: usize = 4;
/// Polls without finding anything before the thread waits to be woken.
const LINGER_POLLS: u32 = 100;

type Item = Box<dyn Any + Send>;

#[derive(Default)]
struct Queue {
    items: Vec<Item>,
    /// Batches the thread has taken, and of those, dropped: [`drain`] waits
    /// for the batches taken before it, not for later ones.
    taken: u64,
    finished: u64,
    /// The thread waits for items (and must be woken for them); otherwise
    /// it looks at the queue at least every [`POLL`].
    parked: bool,
}

struct Reaper {
    queue: Mutex<Queue>,
    /// Signalled when items arrive (to the thread) and when a batch has been
    /// dropped (to [`drain`]).
    changed: Condvar,
}

static REAPER: OnceLock<Option<&'static Reaper>> = OnceLock::new();

fn reaper() -> Option<&'static Reaper> {
    *REAPER.get_or_init(|| {
        let reaper: &'static Reaper =
            Box::leak(Box::new(Reaper { queue: Mutex::default(), changed: Condvar::new() }));
        thread::Builder::new().name("cordon-reaper".into()).spawn(move || reaper.work()).ok().map(|_| reaper)
    })
}

impl Reaper {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self) {
        let mut empty_polls = 0;
        loop {
            let mut queue = self.lock();
            while queue.items.is_empty() {
                if empty_polls >= LINGER_POLLS {
                    queue.parked = true;
                    queue = self.changed.wait(queue).unwrap_or_else(|e| e.into_inner());
                    queue.parked = false;
                } else {
                    queue = self.changed.wait_timeout(queue, POLL).unwrap_or_else(|e| e.into_inner()).0;
                    if queue.items.is_empty() {
                        empty_polls += 1;
                    }
                }
            }
            empty_polls = 0;
            let batch = std::mem::take(&mut queue.items);
            queue.taken += 1;
            drop(queue);
            // A panicking drop (an embedder's tool future, say) must neither
            // end the thread nor leave `drain` waiting for this batch.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(batch)));
            self.lock().finished += 1;
            self.changed.notify_all();
        }
    }
}

/// Drops `item` soon, on the reaper's thread (or now, when the backlog is
/// full or the thread could not be started).
pub(crate) fn discard<T: Send + 'static>(item: T) {
    let Some(reaper) = reaper() else { return drop(item) };
    let mut queue = reaper.lock();
    if queue.items.len() >= BACKLOG {
        drop(queue);
        return drop(item);
    }
    queue.items.push(Box::new(item));
    let wake = queue.parked || queue.items.len() >= WAKE_AT;
    drop(queue);
    if wake {
        reaper.changed.notify_all();
    }
}

/// Waits until every guest handed to [`discard`] so far has been dropped
/// (its memory slot is free again). It blocks the calling thread, at most for
/// one batch of the reaper's (16 instances); only an instantiation that
/// found the pool full calls it.
pub fn drain() {
    let Some(reaper) = REAPER.get().copied().flatten() else { return };
    // What the thread has not taken yet is dropped here; then only the batch
    // it is dropping is waited for.
    let (waiting, taken) = {
        let mut queue = reaper.lock();
        (std::mem::take(&mut queue.items), queue.taken)
    };
    drop(waiting);
    let mut queue = reaper.lock();
    while queue.finished < taken {
        queue = reaper.changed.wait(queue).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    use super::*;

    struct Counted(Arc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn the_thread_drops_what_it_is_given_and_drain_waits_for_the_rest() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let item = Counted(Arc::clone(&dropped));
        discard(item);
        // Not dropped in place: the thread takes it within a few polls.
        let start = std::time::Instant::now();
        while dropped.load(Ordering::SeqCst) == 0 && start.elapsed() < Duration::from_secs(10) {
            thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 1);

        // More than the backlog, so some are dropped in place.
        for _ in 0..(3 * BACKLOG) {
            discard(Counted(Arc::clone(&dropped)));
        }
        drain();
        assert_eq!(dropped.load(Ordering::SeqCst), 1 + 3 * BACKLOG);

        // A drop that panics ends neither the thread nor `drain`.
        discard(Panics);
        let start = std::time::Instant::now();
        while !REAPER.get().copied().flatten().is_some_and(|r| r.lock().items.is_empty())
            && start.elapsed() < Duration::from_secs(10)
        {
            thread::sleep(Duration::from_millis(1));
        }
        drain();
        discard(Counted(Arc::clone(&dropped)));
        let start = std::time::Instant::now();
        while dropped.load(Ordering::SeqCst) == 1 + 3 * BACKLOG && start.elapsed() < Duration::from_secs(10) {
            thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 2 + 3 * BACKLOG);
    }

    struct Panics;

    impl Drop for Panics {
        fn drop(&mut self) {
            panic!("a drop that panics (expected by this test)");
        }
    }
}
