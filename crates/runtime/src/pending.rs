//! The set of a run's tool calls in flight: each is polled when it was
//! woken, and the run is woken when any of them is.
//!
//! `futures::stream::FuturesUnordered` would do, except that it wakes its
//! own task whenever one poll reaches every future in the set (to yield to
//! other tasks). A single new call always does, and a self-wake reads to the
//! Node binding as a guest that is computing, which sends the run off the
//! JavaScript thread. This set never wakes itself.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
    task::{Context, Poll, Wake, Waker},
};

use crate::tools::BoxFuture;

type Slot<T> = Option<BoxFuture<T>>;

/// Slots [`Pending::clear`] keeps for the next run, at most (a sandbox that
/// once had a hundred thousand calls in flight does not keep their wakers).
const KEEP_SLOTS: usize = 4096;

/// Indices woken since the last poll, and the waker of the run.
#[derive(Default)]
struct Woken {
    indices: Mutex<Vec<usize>>,
    run: Mutex<Option<Waker>>,
}

/// Wakes one slot of the set.
struct SlotWaker {
    index: usize,
    woken: Arc<Woken>,
}

impl Wake for SlotWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let first = {
            let mut indices = self.woken.indices.lock().unwrap_or_else(|e| e.into_inner());
            indices.push(self.index);
            indices.len() == 1
        };
        // Only the first index since the run last took them wakes it: the
        // run takes every index at once, after these, and until it has
        // taken them whoever added the first has woken it (a thousand
        // replies settled together are one wake, not a thousand, each
        // touching what the run's thread is reading).
        if !first {
            return;
        }
        let run = self.woken.run.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(run) = run {
            run.wake();
        }
    }
}

/// Futures in flight, polled only when woken.
pub(crate) struct Pending<T> {
    slots: Vec<Slot<T>>,
    wakers: Vec<Waker>,
    free: Vec<usize>,
    /// Slots to poll in this call or the next.
    due: VecDeque<usize>,
    woken: Arc<Woken>,
    len: usize,
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            wakers: Vec::new(),
            free: Vec::new(),
            due: VecDeque::new(),
            woken: Arc::default(),
            len: 0,
        }
    }
}

impl<T> Pending<T> {
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds a future, first polled by the next [`Self::poll_next`]; returns its
    /// slot (for [`Self::cancel`]), which is free again once it completed.
    pub(crate) fn push(&mut self, future: BoxFuture<T>) -> usize {
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                let index = self.slots.len();
                self.slots.push(None);
                self.wakers.push(Waker::from(Arc::new(SlotWaker { index, woken: Arc::clone(&self.woken) })));
                index
            }
        };
        if let Some(slot) = self.slots.get_mut(index) {
            *slot = Some(future);
            self.len += 1;
            self.due.push_back(index);
        }
        index
    }

    /// Drops the future in `slot`, if one is there.
    pub(crate) fn cancel(&mut self, slot: usize) {
        if let Some(future @ Some(_)) = self.slots.get_mut(slot) {
            *future = None;
            self.free.push(slot);
            self.len -= 1;
        }
    }

    /// Drops every future and forgets every wake, keeping the slots and
    /// their wakers for the next run (a thousand calls need no thousand new
    /// wakers). A wake that comes late, from a reply to a dropped call,
    /// only makes the slot's next future polled once more than needed.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.slots.resize_with(self.wakers.len().min(KEEP_SLOTS), || None);
        self.wakers.truncate(KEEP_SLOTS);
        self.free.clear();
        // Reused lowest first, as a new set would hand them out.
        self.free.extend((0..self.slots.len()).rev());
        self.due.clear();
        self.woken.indices.lock().unwrap_or_else(|e| e.into_inner()).clear();
        *self.woken.run.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.len = 0;
    }

    /// The next output of a future woken since the last call, or of a new
    /// one; `None` when the set is empty. Registers `cx`'s waker for the rest.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if self.len == 0 {
            return Poll::Ready(None);
        }
        {
            // Registered before the woken indices are read, so no wake is lost.
            let mut run = self.woken.run.lock().unwrap_or_else(|e| e.into_inner());
            if !run.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *run = Some(cx.waker().clone());
            }
        }
        self.due.extend(self.woken.indices.lock().unwrap_or_else(|e| e.into_inner()).drain(..));
        while let Some(index) = self.due.pop_front() {
            let (Some(Some(future)), Some(waker)) = (self.slots.get_mut(index), self.wakers.get(index))
            else {
                // Woken twice, or already done.
                continue;
            };
            if let Poll::Ready(out) = future.as_mut().poll(&mut Context::from_waker(waker)) {
                if let Some(slot) = self.slots.get_mut(index) {
                    *slot = None;
                }
                self.free.push(index);
                self.len -= 1;
                return Poll::Ready(Some(out));
            }
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts wakes of the run.
    struct Count(std::sync::atomic::AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// A future in `set` that waits for the returned sender; and its slot.
    fn waiting(set: &mut Pending<u32>) -> (tokio::sync::oneshot::Sender<u32>, usize) {
        let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
        (tx, set.push(Box::pin(async move { rx.await.unwrap_or(0) })))
    }

    #[test]
    fn never_wakes_itself_and_delivers_each_output_once() {
        let count = Arc::new(Count(0.into()));
        let waker = Waker::from(Arc::clone(&count));
        let mut cx = Context::from_waker(&waker);
        let mut set: Pending<u32> = Pending::default();
        let (tx1, _) = waiting(&mut set);
        let (tx2, _) = waiting(&mut set);
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!(
            count.0.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "polling every future must not wake the run"
        );
        tx2.send(2).unwrap_or_default();
        assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(2)));
        assert!(set.poll_next(&mut cx).is_pending());
        tx1.send(1).unwrap_or_default();
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(1)));
        assert!(set.is_empty());
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(None));
        // Replies settled together wake the run once; it takes them all.
        let (tx3, _) = waiting(&mut set);
        let (tx4, _) = waiting(&mut set);
        assert!(set.poll_next(&mut cx).is_pending());
        tx3.send(3).unwrap_or_default();
        tx4.send(4).unwrap_or_default();
        assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 3, "two replies, one wake");
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(3)));
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(4)));
        assert!(set.is_empty());
        // A freed slot is reused and its future polled.
        set.push(Box::pin(async { 7 }));
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(7)));
    }

    #[test]
    fn cancel_and_clear_drop_futures_and_keep_slots() {
        let waker = Waker::from(Arc::new(Count(0.into())));
        let mut cx = Context::from_waker(&waker);
        let mut set: Pending<u32> = Pending::default();
        let (tx1, first) = waiting(&mut set);
        let (tx2, second) = waiting(&mut set);
        assert_eq!((first, second), (0, 1));
        assert!(set.poll_next(&mut cx).is_pending());
        set.cancel(first);
        assert!(tx1.is_closed(), "a cancelled call's future is dropped");
        set.cancel(first);
        tx2.send(2).unwrap_or_default();
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(2)));
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(None), "cancelling twice counts once");
        // A cleared set drops what is in flight, forgets its wakes, and
        // hands out the same slots again, lowest first.
        let (tx3, _) = waiting(&mut set);
        set.push(Box::pin(async { 4 }));
        set.clear();
        assert!(tx3.is_closed());
        assert!(set.is_empty());
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(None));
        assert_eq!(set.push(Box::pin(async { 5 })), 0);
        assert_eq!(set.push(Box::pin(async { 6 })), 1);
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(5)));
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(6)));
        assert_eq!(set.wakers.len(), 2, "no new wakers");
    }
}
