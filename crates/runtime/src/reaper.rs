//! Drops the guests of closed sandboxes on a thread of its own, and runs the
//! idle work scheduled with [`schedule`] (trimming idle sandboxes' memory).
//!
//! Dropping a guest gives its memory slot back to the pooling allocator,
//! which copies the pages the guest wrote back from the image: tens of
//! microseconds for a small run, that `close()` need not spend on the
//! caller's thread.
//! The backlog is bounded: past [`BACKLOG`] guests waiting, or without the
//! thread, a guest is dropped where it was handed over. An instantiation
//! that finds every slot taken waits for the backlog ([`drain`]) and tries
//! again, so deferring never makes a sandbox fail to start.

use std::{
    any::Any,
    sync::{Condvar, Mutex, MutexGuard, OnceLock},
    thread,
    time::{Duration, Instant},
};

/// Guests waiting to be dropped, at most. Each keeps its memory slot taken
/// until then, and the next sandbox takes another slot (which then stays
/// resident too), so the backlog bounds how many slots a loop of
/// create/close keeps warm.
const BACKLOG: usize = 16;
/// How often the thread looks at the queue while sandboxes are being closed.
/// Waking it for every guest would cost `close()` a system call and, on a
/// VM, an interrupt to another core: several microseconds, a large share of
/// what the thread saves it. It is woken only when [`WAKE_AT`] guests wait.
const POLL: Duration = Duration::from_millis(1);
/// Guests waiting at which the thread is woken before its next poll.
const WAKE_AT: usize = 4;
/// Polls without finding anything before the thread waits to be woken.
const LINGER_POLLS: u32 = 100;

type Item = Box<dyn Any + Send>;
/// Work to do at a given time; it returns when to run it again, if ever.
pub(crate) type Task = Box<dyn FnMut() -> Option<Instant> + Send>;

#[derive(Default)]
struct Queue {
    items: Vec<Item>,
    /// Tasks and when they are due.
    timed: Vec<(Instant, Task)>,
    /// Batches the thread has taken, and of those, dropped: [`drain`] waits
    /// for the batches taken before it, not for later ones.
    taken: u64,
    finished: u64,
    /// The thread waits for items (and must be woken for them), or until
    /// its earliest task is due; otherwise it looks at the queue at least
    /// every [`POLL`].
    parked: bool,
}

impl Queue {
    fn next_due(&self) -> Option<Instant> {
        self.timed.iter().map(|(at, _)| *at).min()
    }
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
            loop {
                let now = Instant::now();
                let next_due = queue.next_due();
                if !queue.items.is_empty() || next_due.is_some_and(|at| at <= now) {
                    break;
                }
                let until_due = next_due.map(|at| at - now);
                if empty_polls >= LINGER_POLLS {
                    queue.parked = true;
                    queue = match until_due {
                        Some(wait) => {
                            self.changed.wait_timeout(queue, wait).unwrap_or_else(|e| e.into_inner()).0
                        }
                        None => self.changed.wait(queue).unwrap_or_else(|e| e.into_inner()),
                    };
                    queue.parked = false;
                } else {
                    let wait = until_due.map_or(POLL, |d| d.min(POLL));
                    queue = self.changed.wait_timeout(queue, wait).unwrap_or_else(|e| e.into_inner()).0;
                    if queue.items.is_empty() {
                        empty_polls += 1;
                    }
                }
            }
            let now = Instant::now();
            let (due, later): (Vec<_>, Vec<_>) =
                std::mem::take(&mut queue.timed).into_iter().partition(|(at, _)| *at <= now);
            queue.timed = later;
            let batch = std::mem::take(&mut queue.items);
            let dropping = !batch.is_empty();
            if dropping {
                empty_polls = 0;
                queue.taken += 1;
            }
            drop(queue);
            // A panicking drop (an embedder's tool future, say) must neither
            // end the thread nor leave `drain` waiting for this batch.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(batch)));
            if dropping {
                // Before the tasks: `drain` waits for the drops, not for them.
                self.lock().finished += 1;
                self.changed.notify_all();
            }
            let mut again = Vec::new();
            for (_, mut task) in due {
                let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(&mut task));
                if let Ok(Some(at)) = next {
                    again.push((at, task));
                }
            }
            self.lock().timed.extend(again);
        }
    }
}

/// Runs `task` on the reaper's thread at `at` (and again at the time it
/// returns, until it returns `None`); without the thread, never.
pub(crate) fn schedule(at: Instant, task: Task) {
    let Some(reaper) = reaper() else { return };
    let mut queue = reaper.lock();
    // A parked thread wakes by itself for a task due before this one.
    let wake = queue.parked && queue.next_due().is_none_or(|due| at < due);
    queue.timed.push((at, task));
    drop(queue);
    if wake {
        reaper.changed.notify_all();
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

    #[test]
    fn a_scheduled_task_runs_when_due_and_again_when_it_asks() {
        let runs = Arc::new(Mutex::new(Vec::new()));
        let start = Instant::now();
        let seen = Arc::clone(&runs);
        schedule(
            start + Duration::from_millis(30),
            Box::new(move || {
                let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
                seen.push(Instant::now());
                // Twice more, 20 ms apart, then done.
                (seen.len() < 3).then(|| Instant::now() + Duration::from_millis(20))
            }),
        );
        while runs.lock().unwrap_or_else(|e| e.into_inner()).len() < 3
            && start.elapsed() < Duration::from_secs(10)
        {
            thread::sleep(Duration::from_millis(1));
        }
        // Nothing runs it a fourth time.
        thread::sleep(Duration::from_millis(100));
        let runs = runs.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(runs.len(), 3);
        assert!(runs[0] >= start + Duration::from_millis(30), "ran before it was due");
        assert!(runs[1] >= runs[0] + Duration::from_millis(20));
        assert!(runs[2] >= runs[1] + Duration::from_millis(20));
    }

    #[test]
    fn a_parked_thread_wakes_for_a_task_due_sooner_than_the_others() {
        // Let the thread go past its polls and park (LINGER_POLLS × POLL).
        thread::sleep(POLL * (LINGER_POLLS + 50));
        let ran = Arc::new(AtomicUsize::new(0));
        let far = Arc::clone(&ran);
        schedule(
            Instant::now() + Duration::from_secs(3600),
            Box::new(move || {
                far.fetch_add(100, Ordering::SeqCst);
                None
            }),
        );
        let near = Arc::clone(&ran);
        let start = Instant::now();
        schedule(
            start + Duration::from_millis(20),
            Box::new(move || {
                near.fetch_add(1, Ordering::SeqCst);
                None
            }),
        );
        while ran.load(Ordering::SeqCst) == 0 && start.elapsed() < Duration::from_secs(10) {
            thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(ran.load(Ordering::SeqCst), 1, "the near task ran once, the far one not");
        assert!(start.elapsed() < Duration::from_secs(2), "woken late: {:?}", start.elapsed());
    }

    struct Panics;

    impl Drop for Panics {
        fn drop(&mut self) {
            panic!("a drop that panics (expected by this test)");
        }
    }
}
