//! Where a run's future is polled, and how tool messages reach the embedder's
//! JavaScript thread and their replies come back. The embedder (the Node
//! binding) supplies what only it can do through [`Js`], [`Outlet`] and
//! [`set_pool`]; everything else is here.
//!
//! A run starts on the JavaScript thread (its first slice, inside
//! [`start`]). After that, whoever wakes it decides where it goes on:
//! - A tool's reply arrives on the JavaScript thread ([`settle`]). The run
//!   is queued on that thread and polled from a microtask ([`drain_ready`]),
//!   so a call costs no thread switch at all, and the replies of a
//!   `Promise.all` that settle together are taken in one poll.
//! - A wake anywhere else (a timer, a cancel), or during the run's own poll
//!   (the guest yields at an epoch tick because it is computing), sends the
//!   next poll to the pool.
//!
//! The JavaScript thread never runs a run for more than one turn budget per
//! turn of its event loop: past it, ready runs go on in the pool, and a
//! flood of instantly-answering tools cannot starve the loop's timers.
//!
//! Tool messages made while a run is polled are collected and, once the
//! poll returns, put in their dispatcher's inbox (never delivered from
//! inside the poll: the guest's stack is a wasmtime fiber, where JavaScript
//! must not run). The JavaScript thread serves every inbox of its own, in
//! order, whenever it enters the driver: after a poll there, once the run is
//! handed on (a run that goes on in the pool computes while the thread
//! serves), on a reply, on a drain. A poll in the pool also nudges the
//! thread ([`Outlet::nudge`]), for an event loop that may be idle. A poll
//! ends when the guest waits or at its next epoch tick, so a message waits
//! at most one tick, and a `Promise.all` of a thousand calls costs one wake
//! of the event loop rather than a thousand. Replies come back by token.

use std::{
    cell::RefCell,
    collections::{HashMap, VecDeque},
    future::Future,
    hash::{BuildHasherDefault, Hasher},
    sync::{
        atomic::{AtomicBool, AtomicU8, Ordering},
        Arc, Mutex, OnceLock,
    },
    task::{Context, Poll, Wake, Waker},
    time::{Duration, Instant},
};

use crate::BoxFuture;

/// How long runs may go on on the JavaScript thread within one turn of its
/// event loop (the same bound as a guest's slice: one epoch tick).
const TURN_BUDGET: Duration = Duration::from_millis(1);

/// A run on the JavaScript thread whose poll made this many tool messages
/// and that goes on computing is handed to the pool at once, to make more
/// while this thread serves these (a `Promise.all` of a thousand calls),
/// rather than after the turn's budget. A poll that made fewer (an epoch
/// tick in a loop of awaited calls) stays.
const HAND_OFF_CALLS: usize = 64;

/// What a message to the dispatcher asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// Run the tool with the payload, the arguments' JSON; answered.
    Call,
    /// Ask whether a call of a capability that requires approval may go on; answered.
    Approve,
    /// The same for a tool that requires approval, whose own rule may waive it.
    ApproveTool,
    /// A finished call's record (a log of one, as [`crate::records`] writes
    /// it); not answered.
    Record,
    /// The same, with the record's `args` the text of the arguments.
    RecordText,
}

/// How the dispatcher answers a message; a text goes beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The tool's result; the text is its JSON (checked by the runtime).
    Result,
    /// The call is approved; no text.
    Approved,
    /// The call is not approved; no text.
    Refused,
    /// The tool threw or rejected; the text is its message.
    ToolError,
    /// The tool threw or rejected an error naming its own `code` or
    /// `status`; the text is JSON: `{"message", "code"?, "status"?}`,
    /// checked by the runtime before the guest sees any of it.
    ToolErrorDetail,
    /// The tool's own schema (or its adapter) refused the arguments.
    InvalidArguments,
    /// The tool returned something JSON cannot hold.
    InvalidResult,
}

/// What the embedder queues after replies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Nothing: the runs went on already, or nothing is ready.
    Nothing,
    /// [`drain_ready`] in a microtask.
    Drain,
    /// [`drain_later`] after the event loop turned.
    Later,
}

/// Where a message's answer goes.
pub type ReplySender = tokio::sync::oneshot::Sender<(Reply, String)>;

/// A message to a dispatcher, with where its reply goes.
pub struct Message {
    pub kind: MessageKind,
    /// The tool's index in the embedder's list (0 for a record).
    pub tool: u32,
    /// The arguments' JSON, or the record.
    pub payload: String,
    pub reply: Option<ReplySender>,
}

/// A message as the JavaScript thread delivers it: its reply is kept here
/// under `token` (0: no reply).
pub struct Delivery {
    pub kind: MessageKind,
    pub tool: u32,
    pub payload: String,
    pub token: f64,
}

/// The embedder's JavaScript thread, given to every entry point called on it.
pub trait Js {
    /// Which turn of the event loop this is, when the embedder can tell;
    /// else only [`drain_later`] (after the loop turned) starts a new turn.
    fn loop_turn(&self) -> Option<u64>;

    /// The embedder's own type, for its [`Outlet`].
    fn as_any(&self) -> &dyn std::any::Any;
}

/// One dispatcher's way to JavaScript.
pub trait Outlet: Send + Sync + 'static {
    /// Hands messages to JavaScript, on its thread; `false` when the call
    /// failed (the calls then fail as "could not be reached").
    fn deliver(&self, js: &dyn Js, messages: Vec<Delivery>) -> bool;

    /// From another thread: asks the JavaScript thread to call
    /// [`take_inboxes`]; `false` when it refused (the environment is gone).
    fn nudge(&self) -> bool;
}

/// What the embedder runs polls on off the JavaScript thread.
#[derive(Clone, Copy)]
pub struct Pool {
    /// Runs a job on a worker thread (a run's next poll).
    pub spawn: fn(Box<dyn FnOnce() + Send>),
    /// Runs `poll` on this thread inside the workers' async runtime (its
    /// timers), for polls on the JavaScript thread.
    pub enter: fn(&mut dyn FnMut()),
}

static POOL: OnceLock<Pool> = OnceLock::new();

/// Sets the pool, once per process; without one, a poll off the JavaScript
/// thread runs on a thread of its own, with no async runtime entered.
pub fn set_pool(pool: Pool) {
    let _ = POOL.set(pool);
}

/// One sandbox's dispatcher, reachable from any thread.
pub struct Dispatcher {
    outlet: Box<dyn Outlet>,
    /// Messages of polls, in order, until the JavaScript thread serves them:
    /// when it next enters the driver (a poll there, a reply, a drain) or
    /// when a nudge reaches it, whichever comes first. The nudge waits in
    /// the event loop's queue behind whatever the thread is doing, a run's
    /// poll there included (up to a turn's budget).
    inbox: Mutex<Vec<Message>>,
    /// The dispatchers of this JavaScript thread whose inbox is not empty.
    owner: Inboxes,
    /// Set while the JavaScript thread serves this dispatcher's inbox (see
    /// [`serve`]); touched on that thread only.
    serving: AtomicBool,
}

/// The dispatchers with messages waiting, of one JavaScript thread.
type Inboxes = Arc<Mutex<Vec<Arc<Dispatcher>>>>;

impl Dispatcher {
    /// Made on the JavaScript thread that `outlet` delivers to.
    pub fn new(outlet: Box<dyn Outlet>) -> Arc<Self> {
        let owner = JS.with(|js| Arc::clone(&js.borrow().inboxes));
        Arc::new(Self { outlet, inbox: Mutex::new(Vec::new()), owner, serving: AtomicBool::new(false) })
    }

    fn take_inbox(&self) -> Vec<Message> {
        std::mem::take(&mut *self.inbox.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Sends a message: after the poll in progress on this thread, if any,
    /// else at once through a nudge.
    pub fn send(self: &Arc<Self>, message: Message) {
        let mut message = Some(message);
        let _ = JS.try_with(|js| {
            if let Ok(mut js) = js.try_borrow_mut() {
                if let Some(outbox) = js.outbox.as_mut() {
                    if let Some(message) = message.take() {
                        outbox.push((Arc::clone(self), message));
                    }
                }
            }
        });
        if let Some(message) = message {
            self.queue(vec![message]);
        }
    }

    /// Appends messages to the inbox; notes the dispatcher for its thread's
    /// next [`take_inboxes`] when the inbox was empty.
    fn put(self: &Arc<Self>, messages: Vec<Message>) {
        let first = {
            let mut inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
            let first = inbox.is_empty();
            inbox.extend(messages);
            first
        };
        if first {
            self.owner.lock().unwrap_or_else(|e| e.into_inner()).push(Arc::clone(self));
        }
    }

    /// Hands messages to the JavaScript thread from another: into the
    /// inbox, and a nudge, for an event loop that may be idle.
    fn queue(self: &Arc<Self>, messages: Vec<Message>) {
        self.put(messages);
        // A nudge for every batch (one per poll), not only for a first one:
        // one accepted just before the environment went away may never
        // arrive, and only the next tells. Refused: the inbox's messages and
        // their replies' senders drop, the calls fail as "could not be
        // reached", and the thread's list lets the dispatcher go.
        if !self.outlet.nudge() {
            drop(self.take_inbox());
            self.owner.lock().unwrap_or_else(|e| e.into_inner()).retain(|d| !Arc::ptr_eq(d, self));
        }
    }
}

/// Serves, on the JavaScript thread, the messages pool polls left in this
/// thread's dispatchers' inboxes (the embedder calls it when a nudge
/// arrives).
pub fn take_inboxes(js: &dyn Js) {
    let _scope = Scope::enter();
    serve_inboxes(js);
}

fn serve_inboxes(js: &dyn Js) {
    let waiting = JS
        .with(|state| std::mem::take(&mut *state.borrow().inboxes.lock().unwrap_or_else(|e| e.into_inner())));
    for dispatcher in waiting {
        serve(js, &dispatcher);
    }
}

/// What this thread knows. Only the JavaScript thread queues runs or keeps
/// reply senders; a pool thread uses only `outbox`, during its polls.
#[derive(Default)]
struct JsThread {
    /// Above zero while inside a call from JavaScript that drains `ready`.
    depth: u32,
    /// Runs woken here, to be polled here, and whether each was computing
    /// (it yielded at an epoch tick) rather than woken by a reply.
    ready: VecDeque<(Arc<dyn Runnable>, bool)>,
    /// Whether a microtask will drain `ready`.
    drain_queued: bool,
    /// Runs woken by a reply once the turn's budget was spent: they go on
    /// here after the event loop turned ([`drain_later`]).
    later: Vec<Arc<dyn Runnable>>,
    /// Whether a [`drain_later`] is queued.
    later_queued: bool,
    /// Messages of the poll in progress on this thread (the JavaScript
    /// thread or one of the pool's).
    outbox: Option<Vec<(Arc<Dispatcher>, Message)>>,
    /// Dispatchers of this thread with messages from pool polls waiting.
    inboxes: Inboxes,
    /// Reply senders by token; tokens are never reused.
    replies: HashMap<u64, ReplySender, BuildHasherDefault<TokenHasher>>,
    next_token: u64,
    /// Size of `replies` at which abandoned senders are swept.
    sweep_at: usize,
    /// The event loop's turn at the turn's first poll here, and when that was.
    turn: Option<(u64, Instant)>,
}

thread_local! {
    static JS: RefCell<JsThread> = RefCell::new(JsThread::default());
}

/// Tokens are distinct counters: they are their own hash.
#[derive(Default)]
struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Keeps a reply sender for JavaScript; 0 stands for "no reply".
fn register(reply: Option<ReplySender>) -> f64 {
    let Some(reply) = reply else { return 0.0 };
    JS.with(|js| {
        let mut js = js.borrow_mut();
        if js.replies.len() >= js.sweep_at {
            // Senders whose run ended (a tool that never answered) go.
            js.replies.retain(|_, sender| !sender.is_closed());
            js.sweep_at = (js.replies.len() * 2).max(64);
        }
        js.next_token += 1;
        let token = js.next_token;
        js.replies.insert(token, reply);
        token as f64
    })
}

/// Marks a call from JavaScript during which wakes queue runs on this thread.
struct Scope;

impl Scope {
    fn enter() -> Self {
        JS.with(|js| js.borrow_mut().depth += 1);
        Scope
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let _ = JS.try_with(|js| js.borrow_mut().depth -= 1);
    }
}

/// Tools' answers, from the dispatcher, in the order they settled. `last`
/// says no other call of the sandbox is in flight: then nothing else will
/// settle in this microtask round, and the runs these answers made ready go
/// on at once (a sequence of awaited calls costs no extra microtask).
/// Otherwise they wait for one [`drain_ready`] microtask, which takes every
/// reply settled before it. Returns what to queue.
pub fn settle(js: &dyn Js, replies: impl IntoIterator<Item = (f64, Reply, String)>, last: bool) -> Next {
    // Inside another call from JavaScript (a tool answered synchronously
    // while its call was sent), runs only queue.
    let nested = JS.with(|state| state.borrow().depth > 0);
    let _scope = Scope::enter();
    for (token, reply, text) in replies {
        // Wakes the run, which lands in `ready` (it never runs in here).
        let sender = JS.with(|state| state.borrow_mut().replies.remove(&(token as u64)));
        if let Some(sender) = sender {
            let _ = sender.send((reply, text));
        }
    }
    if last && !nested {
        drain(js, true);
        return if later_wanted() { Next::Later } else { Next::Nothing };
    }
    JS.with(|state| {
        let mut state = state.borrow_mut();
        let queue = !state.ready.is_empty() && !state.drain_queued;
        state.drain_queued |= queue;
        if queue {
            Next::Drain
        } else {
            Next::Nothing
        }
    })
}

/// Polls the runs that became ready on this thread (from a microtask).
/// Returns `true` when the embedder should queue [`drain_later`] after the
/// event loop turned.
pub fn drain_ready(js: &dyn Js) -> bool {
    let _scope = Scope::enter();
    JS.with(|state| state.borrow_mut().drain_queued = false);
    drain(js, true);
    later_wanted()
}

/// Goes on with the runs deferred past the last turn's budget (after the
/// event loop turned). Returns `true` when it should be queued again.
pub fn drain_later(js: &dyn Js) -> bool {
    let _scope = Scope::enter();
    JS.with(|state| {
        let mut state = state.borrow_mut();
        state.later_queued = false;
        // The loop has turned.
        state.turn = None;
        let later = std::mem::take(&mut state.later);
        state.ready.extend(later.into_iter().map(|run| (run, false)));
    });
    drain(js, true);
    later_wanted()
}

fn later_wanted() -> bool {
    JS.with(|js| {
        let mut js = js.borrow_mut();
        let wanted = !js.later.is_empty() && !js.later_queued;
        js.later_queued |= wanted;
        wanted
    })
}

/// Polls the ready runs. Past the turn's budget, a computing run goes on in
/// the pool, and one woken by a reply waits for the next turn when `defer`
/// (its caller then queues [`drain_later`]), else goes to the pool as well.
fn drain(js: &dyn Js, defer: bool) {
    serve_inboxes(js);
    // The loop cannot turn while this runs: look its turn up once.
    let turn = js.loop_turn();
    while let Some((run, computing)) = JS.with(|state| state.borrow_mut().ready.pop_front()) {
        if !over_budget(turn) {
            run.poll_here(Some(js));
        } else if defer && !computing {
            JS.with(|state| state.borrow_mut().later.push(run));
        } else {
            to_pool(run);
        }
    }
}

/// Whether this turn of the event loop (from [`Js::loop_turn`]) has had its
/// share of runs.
fn over_budget(turn: Option<u64>) -> bool {
    JS.with(|js| {
        let mut js = js.borrow_mut();
        match js.turn {
            Some((t, started)) if turn.is_none_or(|turn| turn == t) => started.elapsed() > TURN_BUDGET,
            _ => {
                js.turn = Some((turn.unwrap_or(0), Instant::now()));
                false
            }
        }
    })
}

trait Runnable: Send + Sync {
    /// Polls once, here; `js` is given on the JavaScript thread.
    fn poll_here(self: Arc<Self>, js: Option<&dyn Js>);
}

fn to_pool(run: Arc<dyn Runnable>) {
    let job: Box<dyn FnOnce() + Send> = Box::new(move || run.poll_here(None));
    match POOL.get() {
        Some(pool) => (pool.spawn)(job),
        None => drop(std::thread::spawn(job)),
    }
}

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const RUNNING: u8 = 2;
/// Running, and woken during that poll.
const NOTIFIED: u8 = 3;
const DONE: u8 = 4;

/// Settles the embedder's Promise of a run that outlived its first slice.
pub type Settle<T> = Box<dyn FnOnce(T) + Send>;

/// One run's future and what settles its Promise.
struct Driver<T: 'static + Send> {
    state: AtomicU8,
    task: Mutex<Task<T>>,
    /// The run's value when its poll panicked (a bug, not a guest's doing):
    /// the run ends with it rather than staying `RUNNING` with its Promise
    /// never settled.
    panicked: fn() -> T,
}

struct Task<T: 'static + Send> {
    future: Option<BoxFuture<T>>,
    settle: Option<Settle<T>>,
}

/// How a run's first slice ended.
pub enum Started<T> {
    /// The run finished within it.
    Ready(T),
    /// It goes on; the `Settle` from `promise` will get its value.
    Pending,
}

/// Runs `future` on the JavaScript thread for its first slice. When it does
/// not finish there, `promise` is called (once, before anything else can
/// finish the run) for what settles the embedder's Promise; its error ends
/// the run and is returned. A poll that panics ends the run with
/// `panicked()`.
pub fn start<T, F, E>(
    js: &dyn Js,
    future: F,
    panicked: fn() -> T,
    promise: impl FnOnce() -> Result<Settle<T>, E>,
) -> Result<Started<T>, E>
where
    T: 'static + Send,
    F: 'static + Send + Future<Output = T>,
{
    let scope = Scope::enter();
    // The first slice counts against this turn's budget.
    let _ = over_budget(js.loop_turn());
    let driver = Arc::new(Driver {
        state: AtomicU8::new(RUNNING),
        task: Mutex::new(Task { future: None, settle: None }),
        panicked,
    });
    // Outside tokio's cooperative budget: a task's poll would otherwise find
    // every tool reply past its 128th "not ready" (a `Promise.all`'s replies
    // taken in one poll) and end, to be spawned again. The guest yields at
    // its epoch ticks itself, so the executor's other tasks still get turns.
    driver.lock().future = Some(Box::pin(tokio::task::unconstrained(future)));
    let out = driver.step(Some(js), Some(promise));
    // Runs woken during this one's first slice go on now (past the budget,
    // in the pool: nothing here would queue `drain_later`).
    drain(js, false);
    drop(scope);
    out
}

impl<T: 'static + Send> Driver<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Task<T>> {
        self.task.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One poll; the state is `RUNNING` on entry. `promise` is given on the
    /// first poll, inside [`start`], which returns a finished run's value.
    fn step<E>(
        self: &Arc<Self>,
        js: Option<&dyn Js>,
        promise: Option<impl FnOnce() -> Result<Settle<T>, E>>,
    ) -> Result<Started<T>, E> {
        let waker = Waker::from(Arc::clone(self));
        let mut cx = Context::from_waker(&waker);
        let mut task = self.lock();
        let Some(future) = task.future.as_mut() else {
            self.state.store(DONE, Ordering::Release);
            return Ok(Started::Pending);
        };
        let outer = JS.with(|state| state.borrow_mut().outbox.replace(Vec::new()));
        let poll = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut poll = Poll::Pending;
            let mut once = || poll = future.as_mut().poll(&mut cx);
            match (js, POOL.get()) {
                // On the JavaScript thread, inside the pool's runtime (timers).
                (Some(_), Some(pool)) => (pool.enter)(&mut once),
                _ => once(),
            }
            poll
        }))
        .unwrap_or_else(|_| Poll::Ready((self.panicked)()));
        let outgoing =
            JS.with(|state| std::mem::replace(&mut state.borrow_mut().outbox, outer)).unwrap_or_default();
        match poll {
            Poll::Ready(value) => {
                task.future = None;
                let settle = task.settle.take();
                drop(task);
                self.state.store(DONE, Ordering::Release);
                flush(js, outgoing);
                if let Some(js) = js {
                    serve_inboxes(js);
                }
                match settle {
                    Some(settle) => {
                        settle(value);
                        Ok(Started::Pending)
                    }
                    None => Ok(Started::Ready(value)),
                }
            }
            Poll::Pending => {
                if let Some(promise) = promise {
                    match promise() {
                        Ok(settle) => task.settle = Some(settle),
                        Err(error) => {
                            // No Promise to settle (the environment is going
                            // away): the run ends here, and its guest
                            // instance and limits with it.
                            task.future = None;
                            drop(task);
                            self.state.store(DONE, Ordering::Release);
                            return Err(error);
                        }
                    }
                }
                drop(task);
                let many_calls = outgoing.len() >= HAND_OFF_CALLS;
                // Into the inboxes before the run is handed on (newer
                // messages of its next poll go after these), served once it
                // is: a run that goes on in the pool computes there while
                // this thread serves them.
                flush(js, outgoing);
                if self.state.compare_exchange(RUNNING, IDLE, Ordering::AcqRel, Ordering::Acquire).is_err() {
                    // Woken during its own poll: the guest yielded at an
                    // epoch tick or after many calls, or a wake came from
                    // another thread. On the JavaScript thread it goes on
                    // here while the turn's budget lasts, else in the pool;
                    // one that made many calls goes to the pool at once, to
                    // go on while this thread serves them.
                    self.state.store(SCHEDULED, Ordering::Release);
                    let run = Arc::clone(self) as Arc<dyn Runnable>;
                    match js {
                        Some(js) if !many_calls && !over_budget(js.loop_turn()) => {
                            JS.with(|state| state.borrow_mut().ready.push_back((run, true)))
                        }
                        _ => to_pool(run),
                    }
                }
                if let Some(js) = js {
                    serve_inboxes(js);
                }
                Ok(Started::Pending)
            }
        }
    }
}

/// Puts the messages of a poll in their dispatchers' inboxes, one batch for
/// each run of messages to the same dispatcher: on the JavaScript thread
/// (`js`) for its caller's [`serve_inboxes`], else with a nudge.
fn flush(js: Option<&dyn Js>, outgoing: Vec<(Arc<Dispatcher>, Message)>) {
    let mut outgoing = outgoing.into_iter().peekable();
    while let Some((dispatcher, first)) = outgoing.next() {
        let mut batch = vec![first];
        while let Some((_, message)) = outgoing.next_if(|(next, _)| Arc::ptr_eq(next, &dispatcher)) {
            batch.push(message);
        }
        match js {
            Some(_) => dispatcher.put(batch),
            None => dispatcher.queue(batch),
        }
    }
}

/// Delivers the messages in `dispatcher`'s inbox, on the JavaScript thread,
/// until it is empty. Inside that call JavaScript may enter the driver again
/// (a tool that starts another sandbox's run at once): the inbox then only
/// grows, and the loop here serves what came after, so one sandbox's
/// messages reach JavaScript in the order they were made.
fn serve(js: &dyn Js, dispatcher: &Dispatcher) {
    if dispatcher.serving.swap(true, Ordering::AcqRel) {
        return;
    }
    loop {
        let batch = dispatcher.take_inbox();
        if batch.is_empty() {
            break;
        }
        let deliveries: Vec<Delivery> = batch
            .into_iter()
            .map(|m| Delivery { kind: m.kind, tool: m.tool, payload: m.payload, token: register(m.reply) })
            .collect();
        // Kept to forget the reply senders should the call fail; one
        // message (the common case) needs no copy on the heap.
        let (token, tokens) = match deliveries.as_slice() {
            [one] => (one.token, Vec::new()),
            many => (0.0, many.iter().map(|d| d.token).collect()),
        };
        if !dispatcher.outlet.deliver(js, deliveries) {
            // The calls fail as "could not be reached" (token 0 was never
            // registered).
            JS.with(|state| {
                let mut state = state.borrow_mut();
                for token in std::iter::once(token).chain(tokens) {
                    state.replies.remove(&(token as u64));
                }
            });
        }
    }
    dispatcher.serving.store(false, Ordering::Release);
}

impl<T: 'static + Send> Runnable for Driver<T> {
    fn poll_here(self: Arc<Self>, js: Option<&dyn Js>) {
        if self.state.compare_exchange(SCHEDULED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            // A poll after the first settles the Promise itself.
            let _ = self.step::<()>(js, None::<fn() -> Result<Settle<T>, ()>>);
        }
    }
}

impl<T: 'static + Send> Wake for Driver<T> {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            let next = match state {
                IDLE => SCHEDULED,
                RUNNING => NOTIFIED,
                _ => return,
            };
            match self.state.compare_exchange_weak(state, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(actual) => state = actual,
            }
        }
        if state != IDLE {
            return;
        }
        let run: Arc<dyn Runnable> = Arc::clone(self) as Arc<dyn Runnable>;
        let queued = JS
            .try_with(|js| {
                let Ok(mut js) = js.try_borrow_mut() else { return false };
                if js.depth == 0 {
                    return false;
                }
                js.ready.push_back((Arc::clone(&run), false));
                true
            })
            .unwrap_or(false);
        if !queued {
            to_pool(run);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The driver with a fake embedder: this test's thread is the JavaScript
    //! thread, and an outlet that records what it is given is the dispatcher.

    use std::{
        cell::Cell,
        sync::{atomic::AtomicUsize, mpsc},
    };

    use super::*;

    struct FakeJs {
        turn: Cell<Option<u64>>,
    }

    impl Js for FakeJs {
        fn loop_turn(&self) -> Option<u64> {
            self.turn.get()
        }

        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    type Delivered = Arc<Mutex<Vec<Vec<(MessageKind, u32, String, f64)>>>>;

    #[derive(Default)]
    struct FakeOutlet {
        delivered: Delivered,
        nudges: Arc<AtomicUsize>,
        refuse: bool,
    }

    impl Outlet for FakeOutlet {
        fn deliver(&self, js: &dyn Js, messages: Vec<Delivery>) -> bool {
            assert!(js.as_any().is::<FakeJs>());
            let batch = messages.into_iter().map(|m| (m.kind, m.tool, m.payload, m.token)).collect();
            self.delivered.lock().unwrap().push(batch);
            !self.refuse
        }

        fn nudge(&self) -> bool {
            self.nudges.fetch_add(1, Ordering::SeqCst);
            true
        }
    }

    fn js() -> FakeJs {
        FakeJs { turn: Cell::new(Some(1)) }
    }

    /// A run that sends `n` calls in one poll and awaits their replies.
    fn calls(dispatcher: &Arc<Dispatcher>, n: u32) -> impl Future<Output = String> + Send + 'static {
        let dispatcher = Arc::clone(dispatcher);
        async move {
            let mut replies = Vec::new();
            for tool in 0..n {
                let (tx, rx) = tokio::sync::oneshot::channel();
                dispatcher.send(Message {
                    kind: MessageKind::Call,
                    tool,
                    payload: format!("{{\"n\":{tool}}}"),
                    reply: Some(tx),
                });
                replies.push(rx);
            }
            let mut out = Vec::new();
            for rx in replies {
                out.push(match rx.await {
                    Ok((reply, text)) => format!("{reply:?}:{text}"),
                    Err(_) => "unreached".into(),
                });
            }
            out.join(" ")
        }
    }

    /// `start` with a Promise whose value arrives on the returned channel.
    fn started<F: Future<Output = String> + Send + 'static>(
        js: &FakeJs,
        run: F,
    ) -> (Started<String>, mpsc::Receiver<String>) {
        let (tx, rx) = mpsc::channel();
        let started = start(
            js,
            run,
            || "panicked".to_string(),
            || Ok::<_, ()>(Box::new(move |value: String| tx.send(value).unwrap()) as Settle<String>),
        );
        (started.unwrap(), rx)
    }

    #[test]
    fn a_run_that_ends_in_its_first_slice_has_no_promise() {
        let js = js();
        let started =
            start(&js, async { 7 }, || 0, || -> Result<Settle<i32>, ()> { panic!("no promise wanted") });
        assert!(matches!(started, Ok(Started::Ready(7))));
    }

    #[test]
    fn a_call_reaches_the_outlet_after_the_poll_and_its_reply_finishes_the_run_at_once() {
        let js = js();
        let outlet = FakeOutlet::default();
        let delivered = Arc::clone(&outlet.delivered);
        let dispatcher = Dispatcher::new(Box::new(outlet));
        let (started, value) = started(&js, calls(&dispatcher, 1));
        assert!(matches!(started, Started::Pending));
        let batches = delivered.lock().unwrap().clone();
        assert_eq!(batches.len(), 1);
        let (kind, tool, payload, token) = batches[0][0].clone();
        assert_eq!((kind, tool, payload.as_str()), (MessageKind::Call, 0, "{\"n\":0}"));
        assert!(token > 0.0);
        // The sandbox's last call in flight: the run goes on inside `settle`.
        assert_eq!(settle(&js, [(token, Reply::Result, "42".into())], true), Next::Nothing);
        assert_eq!(value.try_recv().unwrap(), "Result:42");
    }

    #[test]
    fn the_calls_of_one_poll_cross_as_one_batch_and_replies_that_settle_together_take_one_drain() {
        let js = js();
        let outlet = FakeOutlet::default();
        let delivered = Arc::clone(&outlet.delivered);
        let dispatcher = Dispatcher::new(Box::new(outlet));
        let (_, value) = started(&js, calls(&dispatcher, 3));
        let batches = delivered.lock().unwrap().clone();
        assert_eq!(batches.len(), 1, "{batches:?}");
        assert_eq!(batches[0].iter().map(|m| m.1).collect::<Vec<_>>(), [0, 1, 2]);
        let tokens: Vec<f64> = batches[0].iter().map(|m| m.3).collect();
        assert!(tokens.windows(2).all(|t| t[0] < t[1]));
        let replies =
            [(tokens[2], Reply::ToolError, "no".to_string()), (tokens[0], Reply::Result, "1".into())];
        // Other calls are in flight: a microtask drains.
        assert_eq!(settle(&js, replies, false), Next::Drain);
        // Asked once per round, however many replies come before it.
        assert_eq!(settle(&js, [(tokens[1], Reply::Refused, String::new())], false), Next::Nothing);
        assert!(value.try_recv().is_err());
        assert!(!drain_ready(&js));
        assert_eq!(value.try_recv().unwrap(), "Result:1 Refused: ToolError:no");
    }

    #[test]
    fn past_the_turns_budget_a_replied_run_waits_for_the_next_turn() {
        let js = js();
        let outlet = FakeOutlet::default();
        let delivered = Arc::clone(&outlet.delivered);
        let dispatcher = Dispatcher::new(Box::new(outlet));
        let (_, value) = started(&js, calls(&dispatcher, 1));
        let token = delivered.lock().unwrap()[0][0].3;
        // This turn has run for longer than its budget already.
        JS.with(|state| state.borrow_mut().turn = Some((1, Instant::now() - TURN_BUDGET * 5)));
        assert_eq!(settle(&js, [(token, Reply::Result, "1".into())], true), Next::Later);
        assert!(value.try_recv().is_err());
        assert!(!drain_later(&js));
        assert_eq!(value.try_recv().unwrap(), "Result:1");
    }

    #[test]
    fn a_message_sent_outside_a_poll_nudges_the_thread_and_waits_in_the_inbox() {
        let js = js();
        let outlet = FakeOutlet::default();
        let (delivered, nudges) = (Arc::clone(&outlet.delivered), Arc::clone(&outlet.nudges));
        let dispatcher = Dispatcher::new(Box::new(outlet));
        let sender = Arc::clone(&dispatcher);
        std::thread::spawn(move || {
            sender.send(Message { kind: MessageKind::Record, tool: 0, payload: "[]".into(), reply: None });
        })
        .join()
        .unwrap();
        assert_eq!(nudges.load(Ordering::SeqCst), 1);
        assert!(delivered.lock().unwrap().is_empty());
        take_inboxes(&js);
        assert_eq!(*delivered.lock().unwrap(), [vec![(MessageKind::Record, 0, "[]".to_string(), 0.0)]]);
    }

    #[test]
    fn calls_an_outlet_refused_fail_as_unreached_and_unknown_tokens_are_ignored() {
        let js = js();
        let dispatcher = Dispatcher::new(Box::new(FakeOutlet { refuse: true, ..FakeOutlet::default() }));
        let (started, value) = started(&js, calls(&dispatcher, 2));
        assert!(matches!(started, Started::Pending));
        assert_eq!(JS.with(|state| state.borrow().replies.len()), 0);
        assert_eq!(settle(&js, [(12345.0, Reply::Result, "1".into())], true), Next::Nothing);
        // The senders dropped: the run ends, its calls unreached.
        drain_ready(&js);
        let value = value.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(value, "unreached unreached");
    }

    #[test]
    fn senders_whose_runs_ended_are_swept() {
        for _ in 0..200 {
            let (tx, rx) = tokio::sync::oneshot::channel();
            drop(rx);
            register(Some(tx));
        }
        assert!(JS.with(|state| state.borrow().replies.len()) <= 64);
        assert_eq!(register(None), 0.0);
    }

    #[test]
    fn a_poll_that_panics_ends_the_run_with_its_panic_value() {
        let js = js();
        let started =
            start(&js, async { panic!("bug") }, || "panicked", || -> Result<Settle<&str>, ()> { Err(()) });
        assert!(matches!(started, Ok(Started::Ready("panicked"))));
    }
}
