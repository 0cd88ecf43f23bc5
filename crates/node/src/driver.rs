//! Where a run's future is polled, and how tool calls reach JavaScript.
//!
//! A run starts on the JavaScript thread (its first slice, inside `run()`).
//! After that, whoever wakes it decides where it goes on:
//! - A tool's reply arrives on the JavaScript thread (`settleToolCall`). The
//!   run is queued on that thread and polled from a microtask
//!   (`drainReady`), so a call costs no thread switch at all, and the replies
//!   of a `Promise.all` that settle together are taken in one poll.
//! - A wake anywhere else (a timer, a cancel), or during the run's own poll
//!   (the guest yields at an epoch tick because it is computing), sends the
//!   next poll to the runtime's thread pool.
//!
//! The JavaScript thread never runs a run for more than one turn budget per
//! turn of its event loop: past it, ready runs go on in the pool, and a
//! flood of instantly-answering tools cannot starve the loop's timers.
//!
//! Tool messages made while a run is polled are collected and, once the
//! poll returns, put in their dispatcher's inbox (never served from inside
//! the poll: the guest's stack is a wasmtime fiber, where V8 must not run).
//! The JavaScript thread serves every inbox of its own, in order, whenever
//! it enters the driver: after a poll there, once the run is handed on (a
//! run that goes on in the pool computes while the thread serves), on a
//! reply, on a drain. A poll in the pool also makes a threadsafe call, for
//! an event loop that may be idle. A poll ends when the guest waits or at its next
//! epoch tick, so a message waits at most one tick, and a `Promise.all` of a
//! thousand calls costs one wake of the event loop rather than a thousand.
//! Replies come back by token through `settleToolCall`.

use std::{
    cell::RefCell,
    collections::{HashMap, VecDeque},
    future::Future,
    hash::{BuildHasherDefault, Hasher},
    sync::{
        atomic::{AtomicBool, AtomicU8, Ordering},
        Arc, Mutex,
    },
    task::{Context, Poll, Wake, Waker},
    time::{Duration, Instant},
};

use napi::{
    bindgen_prelude::{
        spawn, within_runtime_if_available, Either, Float64Array, FnArgs, FunctionRef, JsValue, PromiseRaw,
        ToNapiValue,
    },
    threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode},
    Env, Result, Status,
};
use napi_derive::napi;

use crate::wire::{MessageKind, Next, Reply};

/// How long runs may go on on the JavaScript thread within one turn of its
/// event loop (the same bound as a guest's slice: one epoch tick).
const TURN_BUDGET: Duration = Duration::from_millis(1);

/// A run on the JavaScript thread whose poll made this many tool messages
/// and that goes on computing is handed to the pool at once, to make more
/// while this thread serves these (a `Promise.all` of a thousand calls),
/// rather than after the turn's budget. A poll that made fewer (an epoch
/// tick in a loop of awaited calls) stays.
const HAND_OFF_CALLS: usize = 64;

/// The JavaScript dispatcher's arguments (its type in `native.d.ts` is
/// `DISPATCH_TS` in the tests below): `(kind, tool, payload, token)` for one message; for
/// the messages of one poll, `(meta, 0, payloads, 0)`, where `meta` holds
/// `kind, tool, token` of each message in turn ([`META`] numbers each) and
/// `payloads` their payloads. `tool` is the tool's index in the policy's
/// list as `js/` gave it. A non-zero token is answered through
/// [`settle_tool_call`]. One typed array for a batch's numbers costs a
/// thousand messages two napi calls rather than three thousand.
pub(crate) type DispatchArgs = FnArgs<(Either<MessageKind, Float64Array>, u32, Either<String, Vec<String>>, f64)>;

/// Numbers per message in a batch's `meta`.
pub(crate) const META: usize = 3;


/// Where a message's answer goes: the reply and its text.
pub(crate) type ReplySender = tokio::sync::oneshot::Sender<(Reply, String)>;

/// The dispatcher's arguments for no message.
fn no_messages() -> DispatchArgs {
    FnArgs::from((Either::B(Float64Array::new(Vec::new())), 0, Either::B(Vec::new()), 0.0))
}
/// Wakes the JavaScript thread to take the messages in its dispatchers'
/// inboxes (it calls the dispatcher with no messages itself).
type Queued = ThreadsafeFunction<(), (), DispatchArgs, Status, false, true>;

/// A message to the dispatcher, with where its reply goes.
pub(crate) struct Message {
    pub(crate) kind: MessageKind,
    /// The tool's index in the policy's list as `js/` gave it (0 for a record).
    pub(crate) tool: u32,
    /// The arguments' JSON, or the record.
    pub(crate) payload: String,
    pub(crate) reply: Option<ReplySender>,
}

/// One sandbox's JavaScript dispatcher, reachable from any thread.
pub(crate) struct Dispatcher {
    direct: FunctionRef<DispatchArgs, ()>,
    queued: Queued,
    /// Messages of polls, in order, until the JavaScript thread serves them:
    /// when it next enters the driver (a poll there, a reply, a drain) or
    /// when a threadsafe call made for them reaches it, whichever comes
    /// first. The threadsafe call waits in the event loop's queue behind
    /// whatever the thread is doing, a run's poll there included (up to a
    /// turn's budget): a `Promise.all` of a thousand calls had its last
    /// hundred wait 2 ms that way.
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
    /// Made on the JavaScript thread that owns `function`.
    pub(crate) fn new(function: &napi::bindgen_prelude::Function<'_, DispatchArgs, ()>) -> Result<Self> {
        let queued = function
            .build_threadsafe_function::<()>()
            .callee_handled::<false>()
            .weak::<true>()
            .build_callback(|ctx| {
                // Replies settled at once while these are served queue their
                // runs, as inside any other call of the driver.
                let _scope = Scope::enter();
                take_inboxes(&ctx.env);
                Ok(no_messages())
            })?;
        let owner = JS.with(|js| Arc::clone(&js.borrow().inboxes));
        Ok(Self {
            direct: function.create_ref()?,
            queued,
            inbox: Mutex::new(Vec::new()),
            owner,
            serving: AtomicBool::new(false),
        })
    }

    fn take_inbox(&self) -> Vec<Message> {
        std::mem::take(&mut *self.inbox.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Sends a message: after the poll in progress on this thread, if any,
    /// else at once through the threadsafe function.
    pub(crate) fn send(self: &Arc<Self>, message: Message) {
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
    /// inbox, and a threadsafe call that takes it, for an event loop that
    /// may be idle.
    fn queue(self: &Arc<Self>, messages: Vec<Message>) {
        self.put(messages);
        // A call for every batch (one per poll), not only for a first one:
        // a call accepted just before the environment went away may never
        // run, and only the next call tells. Refused: the inbox's messages
        // and their replies' senders drop, the calls fail as "could not be
        // reached", and the thread's list lets the dispatcher go.
        if self.queued.call((), ThreadsafeFunctionCallMode::NonBlocking) != Status::Ok {
            drop(self.take_inbox());
            self.owner.lock().unwrap_or_else(|e| e.into_inner()).retain(|d| !Arc::ptr_eq(d, self));
        }
    }
}

/// Serves, on the JavaScript thread, the messages pool polls left in this
/// thread's dispatchers' inboxes.
fn take_inboxes(env: &Env) {
    let waiting =
        JS.with(|js| std::mem::take(&mut *js.borrow().inboxes.lock().unwrap_or_else(|e| e.into_inner())));
    for dispatcher in waiting {
        serve(env, &dispatcher);
    }
}

/// The dispatcher's arguments for `messages`, their reply senders
/// registered (on the JavaScript thread).
fn arguments(messages: Vec<Message>) -> DispatchArgs {
    if messages.len() == 1 {
        if let Some(m) = messages.into_iter().next() {
            return FnArgs::from((Either::A(m.kind), m.tool, Either::A(m.payload), register(m.reply)));
        }
        return no_messages();
    }
    let (meta, payloads) = encode(messages, register);
    FnArgs::from((Either::B(Float64Array::new(meta)), 0, Either::B(payloads), 0.0))
}

/// A batch's `meta` and payloads (see [`DispatchArgs`]), each message's
/// token from `token`.
fn encode(messages: Vec<Message>, mut token: impl FnMut(Option<ReplySender>) -> f64) -> (Vec<f64>, Vec<String>) {
    let mut meta = Vec::with_capacity(messages.len() * META);
    let mut payloads = Vec::with_capacity(messages.len());
    for m in messages {
        meta.extend([f64::from(m.kind as u32), f64::from(m.tool), token(m.reply)]);
        payloads.push(m.payload);
    }
    (meta, payloads)
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
    /// here after the event loop turned (`drainLater`, from `setImmediate`).
    later: Vec<Arc<dyn Runnable>>,
    /// Whether a `drainLater` is queued.
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
    /// The event loop's time at the turn's first poll here, and when that was.
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

/// A tool's answer, from the dispatcher. `last` says no other call of the
/// sandbox is in flight: then nothing else will settle in this microtask
/// round, and the runs this answer made ready go on at once (a sequence of
/// awaited calls costs no extra microtask). Otherwise they wait for one
/// `drainReady` microtask, which takes every reply settled before it.
/// Returns what to queue.
#[napi]
pub fn settle_tool_call(env: Env, token: f64, reply: Reply, text: String, last: bool) -> Next {
    // Inside another call from JavaScript (a tool answered synchronously
    // while its call was sent), runs only queue.
    let nested = JS.with(|js| js.borrow().depth > 0);
    let _scope = Scope::enter();
    send_reply(token, reply, text);
    after_replies(&env, last && !nested)
}

/// [`settle_tool_call`] for several answers of one sandbox, in the order
/// they settled (`tokens[i]` answered by `replies[i]` and `texts[i]`): one
/// crossing for the replies of a `Promise.all` that settle together.
#[napi]
pub fn settle_tool_calls(
    env: Env,
    tokens: Vec<f64>,
    replies: Vec<Reply>,
    texts: Vec<String>,
    last: bool,
) -> Next {
    let nested = JS.with(|js| js.borrow().depth > 0);
    let _scope = Scope::enter();
    for ((token, reply), text) in tokens.into_iter().zip(replies).zip(texts) {
        send_reply(token, reply, text);
    }
    after_replies(&env, last && !nested)
}

/// Hands a reply to its run, which it wakes; the run lands in `ready` (it
/// never runs in here).
fn send_reply(token: f64, reply: Reply, text: String) {
    let sender = JS.with(|js| js.borrow_mut().replies.remove(&(token as u64)));
    if let Some(sender) = sender {
        let _ = sender.send((reply, text));
    }
}

/// After replies: drains at once when `now`, else says what to queue.
fn after_replies(env: &Env, now: bool) -> Next {
    if now {
        drain(env, true);
        return if later_wanted() { Next::Later } else { Next::Nothing };
    }
    JS.with(|js| {
        let mut js = js.borrow_mut();
        let queue = !js.ready.is_empty() && !js.drain_queued;
        js.drain_queued |= queue;
        if queue {
            Next::Drain
        } else {
            Next::Nothing
        }
    })
}

/// Polls the runs that became ready on this thread (from a microtask).
/// Returns `true` when the caller should queue `drainLater` with
/// `setImmediate`.
#[napi]
pub fn drain_ready(env: Env) -> bool {
    let _scope = Scope::enter();
    JS.with(|js| js.borrow_mut().drain_queued = false);
    drain(&env, true);
    later_wanted()
}

/// Goes on with the runs deferred past the last turn's budget (from
/// `setImmediate`). Returns `true` when it should be queued again.
#[napi]
pub fn drain_later(env: Env) -> bool {
    let _scope = Scope::enter();
    JS.with(|js| {
        let mut js = js.borrow_mut();
        js.later_queued = false;
        // Called from `setImmediate`: the loop has turned.
        js.turn = None;
        let later = std::mem::take(&mut js.later);
        js.ready.extend(later.into_iter().map(|run| (run, false)));
    });
    drain(&env, true);
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
/// (its caller then queues `drainLater`), else goes to the pool as well.
fn drain(env: &Env, defer: bool) {
    take_inboxes(env);
    // The loop cannot turn while this runs: look its turn up once.
    let turn = loop_turn(env);
    while let Some((run, computing)) = JS.with(|js| js.borrow_mut().ready.pop_front()) {
        if !over_budget(turn) {
            run.poll_here(Some(env));
        } else if defer && !computing {
            JS.with(|js| js.borrow_mut().later.push(run));
        } else {
            to_pool(run);
        }
    }
}

/// libuv's loop metrics (`uv_metrics_t`, libuv 1.45+, which Node 20 and
/// later ship and export to addons).
#[cfg(unix)]
#[repr(C)]
struct UvMetrics {
    loop_count: u64,
    events: u64,
    events_waiting: u64,
    reserved: [*mut u64; 13],
}

/// Whether libuv's loop metrics may be used: `native.js` turns them off in
/// Bun, whose `uv_metrics_info` is a stub that ends the process.
pub(crate) static LOOP_METRICS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// `uv_metrics_info`, looked up in the process at run time: it is libuv's,
/// not Node-API, so the addon must not import it (Node 20.0-20.2, Deno and
/// older Electron builds do not export it, and a strong import would keep the
/// addon from loading there).
#[cfg(unix)]
type UvMetricsInfo = unsafe extern "C" fn(*mut std::ffi::c_void, *mut UvMetrics) -> std::ffi::c_int;

#[cfg(unix)]
fn uv_metrics_info() -> Option<UvMetricsInfo> {
    static FOUND: std::sync::OnceLock<Option<UvMetricsInfo>> = std::sync::OnceLock::new();
    if !LOOP_METRICS.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    *FOUND.get_or_init(|| {
        // SAFETY: `dlsym` gets the default handle and a NUL-terminated literal and only looks the
        // name up. A non-null result is the process's `uv_metrics_info`, which in the runtimes that
        // get here (Node, Electron: Bun turns `LOOP_METRICS` off first) is libuv 1.45+'s
        // `int uv_metrics_info(uv_loop_t*, uv_metrics_t*)`. `UvMetricsInfo` is that signature with
        // the C ABI, so the transmuted address (a function's, of pointer size) is callable as it.
        unsafe {
            let symbol = libc::dlsym(libc::RTLD_DEFAULT, c"uv_metrics_info".as_ptr());
            (!symbol.is_null()).then(|| std::mem::transmute::<*mut libc::c_void, UvMetricsInfo>(symbol))
        }
    })
}

/// Which turn of the event loop this is. The loop's iteration count, not
/// its cached time: Node refreshes that time whenever JavaScript arms a
/// timer, which would make one turn look like many.
#[cfg(unix)]
fn loop_turn(env: &Env) -> Option<u64> {
    let metrics_info = uv_metrics_info()?;
    let event_loop = env.get_uv_event_loop().ok()?;
    let mut metrics =
        UvMetrics { loop_count: 0, events: 0, events_waiting: 0, reserved: [std::ptr::null_mut(); 13] };
    // SAFETY: `metrics_info` is libuv's `uv_metrics_info` (see `uv_metrics_info`); the loop is the
    // one `napi_get_uv_event_loop` gives for `env`, whose thread this is (`Env` is not `Send`), so
    // libuv reads it without a race. `metrics` is a live, writable `UvMetrics` laid out as
    // `uv_metrics_t` (three u64 and 13 pointers), and libuv writes only within it.
    let status = unsafe { metrics_info(event_loop.cast(), &mut metrics) };
    (status == 0).then_some(metrics.loop_count)
}

/// Without libuv's metrics, only `drainLater` (after the loop turned)
/// starts a new turn.
#[cfg(not(unix))]
fn loop_turn(_env: &Env) -> Option<u64> {
    None
}

/// Whether this turn of the event loop (from [`loop_turn`]) has had its
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
    /// Polls once, here; `env` is given on the JavaScript thread.
    fn poll_here(self: Arc<Self>, env: Option<&Env>);
}

fn to_pool(run: Arc<dyn Runnable>) {
    // napi's `spawn` panics once the runtime is gone (the last environment
    // tore down): then the run is dropped with the process.
    let spawned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        drop(spawn(async move { run.poll_here(None) }));
    }));
    drop(spawned);
}

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const RUNNING: u8 = 2;
/// Running, and woken during that poll.
const NOTIFIED: u8 = 3;
const DONE: u8 = 4;

type Resolver<T> = Box<dyn FnOnce(Env) -> Result<T> + Send>;

/// One run's future and the Promise it settles when it outlives its first
/// slice.
struct Driver<T: 'static + Send + ToNapiValue> {
    state: AtomicU8,
    task: Mutex<Task<T>>,
}

struct Task<T: 'static + Send + ToNapiValue> {
    future: Option<cordon_runtime::BoxFuture<Result<T>>>,
    deferred: Option<napi::JsDeferred<T, Resolver<T>>>,
}

/// A value now, or a Promise of it.
pub(crate) type Now<'env, T> = napi::Either<T, PromiseRaw<'env, T>>;

/// Runs `future` on the JavaScript thread for its first slice; returns the
/// value when it finishes there, else a Promise the driver settles.
pub(crate) fn start<'env, T, F>(env: &'env Env, future: F) -> Result<Now<'env, T>>
where
    T: 'static + Send + ToNapiValue,
    F: 'static + Send + Future<Output = Result<T>>,
{
    let scope = Scope::enter();
    // The first slice counts against this turn's budget.
    let _ = over_budget(loop_turn(env));
    let driver = Arc::new(Driver {
        state: AtomicU8::new(RUNNING),
        task: Mutex::new(Task { future: None, deferred: None }),
    });
    // Outside tokio's cooperative budget: a task's poll would otherwise find
    // every tool reply past its 128th "not ready" (a `Promise.all`'s replies
    // taken in one poll) and end, to be spawned again. The guest yields at
    // its epoch ticks itself, so the executor's other tasks still get turns.
    driver.lock().future = Some(Box::pin(tokio::task::unconstrained(future)));
    let out = match driver.step(Some(env), true) {
        Ok(Step::Ready(value)) => value.map(napi::Either::A),
        Ok(Step::Pending(Some(promise))) => Ok(napi::Either::B(promise)),
        Ok(Step::Pending(None)) => Err(napi::Error::new(Status::GenericFailure, "the run has no promise")),
        Err(error) => Err(error),
    };
    // Runs woken during this one's first slice go on now (past the budget,
    // in the pool: nothing here would queue `drainLater`).
    drain(env, false);
    drop(scope);
    out
}

enum Step<'env, T> {
    Ready(Result<T>),
    /// The Promise, on the first poll.
    Pending(Option<PromiseRaw<'env, T>>),
}

impl<T: 'static + Send + ToNapiValue> Driver<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Task<T>> {
        self.task.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One poll; the state is `RUNNING` on entry. `first` is the poll
    /// inside `run()`, which returns a finished run's value itself.
    fn step<'env>(self: &Arc<Self>, env: Option<&'env Env>, first: bool) -> Result<Step<'env, T>> {
        let waker = Waker::from(Arc::clone(self));
        let mut cx = Context::from_waker(&waker);
        let mut task = self.lock();
        let Some(future) = task.future.as_mut() else {
            self.state.store(DONE, Ordering::Release);
            return Ok(Step::Pending(None));
        };
        let outer = JS.with(|js| js.borrow_mut().outbox.replace(Vec::new()));
        let poll = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            within_runtime_if_available(|| future.as_mut().poll(&mut cx))
        }))
        .unwrap_or_else(|_| {
            // A bug, not a guest's doing: the run ends with an error rather
            // than staying RUNNING with its Promise never settled.
            Poll::Ready(Err(napi::Error::new(Status::GenericFailure, "the run panicked")))
        });
        let outgoing =
            JS.with(|js| std::mem::replace(&mut js.borrow_mut().outbox, outer)).unwrap_or_default();
        match poll {
            Poll::Ready(value) => {
                task.future = None;
                let deferred = task.deferred.take();
                drop(task);
                self.state.store(DONE, Ordering::Release);
                flush(env, outgoing);
                if let Some(env) = env {
                    take_inboxes(env);
                }
                match deferred {
                    Some(deferred) => {
                        match value {
                            Ok(value) => deferred.resolve(Box::new(move |_| Ok(value))),
                            Err(error) => deferred.reject(error),
                        }
                        Ok(Step::Pending(None))
                    }
                    None => Ok(Step::Ready(value)),
                }
            }
            Poll::Pending => {
                let mut promise = None;
                if first {
                    if let Some(env) = env {
                        match env.create_deferred::<T, Resolver<T>>() {
                            Ok((deferred, object)) => {
                                task.deferred = Some(deferred);
                                promise = Some(PromiseRaw::new(env.raw(), object.raw()));
                            }
                            Err(error) => {
                                // No Promise to settle (the environment is
                                // going away): the run ends here, and its
                                // guest instance and limits with it.
                                task.future = None;
                                drop(task);
                                self.state.store(DONE, Ordering::Release);
                                return Err(error);
                            }
                        }
                    }
                }
                drop(task);
                let many_calls = outgoing.len() >= HAND_OFF_CALLS;
                // Into the inboxes before the run is handed on (newer
                // messages of its next poll go after these), served once it
                // is: a run that goes on in the pool computes there while
                // this thread serves them.
                flush(env, outgoing);
                if self.state.compare_exchange(RUNNING, IDLE, Ordering::AcqRel, Ordering::Acquire).is_err() {
                    // Woken during its own poll: the guest yielded at an
                    // epoch tick or after many calls, or a wake came from
                    // another thread. On the JavaScript thread it goes on
                    // here while the turn's budget lasts, else in the pool;
                    // one that made many calls goes to the pool at once, to
                    // go on while this thread serves them.
                    self.state.store(SCHEDULED, Ordering::Release);
                    let run = Arc::clone(self) as Arc<dyn Runnable>;
                    match env {
                        Some(env) if !many_calls && !over_budget(loop_turn(env)) => {
                            JS.with(|js| js.borrow_mut().ready.push_back((run, true)))
                        }
                        _ => to_pool(run),
                    }
                }
                if let Some(env) = env {
                    take_inboxes(env);
                }
                Ok(Step::Pending(promise))
            }
        }
    }
}

/// Puts the messages of a poll in their dispatchers' inboxes, one batch for
/// each run of messages to the same dispatcher: on the JavaScript thread
/// (`env`) for its caller's [`take_inboxes`], else with a threadsafe call.
fn flush(env: Option<&Env>, outgoing: Vec<(Arc<Dispatcher>, Message)>) {
    let mut outgoing = outgoing.into_iter().peekable();
    while let Some((dispatcher, first)) = outgoing.next() {
        let mut batch = vec![first];
        while let Some((_, message)) = outgoing.next_if(|(next, _)| Arc::ptr_eq(next, &dispatcher)) {
            batch.push(message);
        }
        match env {
            Some(_) => dispatcher.put(batch),
            None => dispatcher.queue(batch),
        }
    }
}

/// Calls `dispatcher` with the messages in its inbox, on the JavaScript
/// thread, until it is empty. Inside that call JavaScript may enter the
/// driver again (a tool that starts another sandbox's run at once): the
/// inbox then only grows, and the loop here serves what came after, so one
/// sandbox's messages reach JavaScript in the order they were made.
fn serve(env: &Env, dispatcher: &Dispatcher) {
    if dispatcher.serving.swap(true, Ordering::AcqRel) {
        return;
    }
    loop {
        let batch = dispatcher.take_inbox();
        if batch.is_empty() {
            break;
        }
        let args = arguments(batch);
        // Kept to forget the reply senders should the call fail; one
        // message (the common case) needs no copy on the heap.
        let (token, tokens) = match &args.data.0 {
            Either::A(_) => (args.data.3, Vec::new()),
            Either::B(meta) => (0.0, meta.iter().skip(META - 1).step_by(META).copied().collect()),
        };
        let sent = dispatcher.direct.borrow_back(env).and_then(|dispatch| dispatch.call(args));
        if sent.is_err() {
            // The calls fail as "could not be reached".
            JS.with(|js| {
                let mut js = js.borrow_mut();
                // Token 0 (a batch, or no reply) was never registered.
                for token in std::iter::once(token).chain(tokens) {
                    js.replies.remove(&(token as u64));
                }
            });
        }
    }
    dispatcher.serving.store(false, Ordering::Release);
}

impl<T: 'static + Send + ToNapiValue> Runnable for Driver<T> {
    fn poll_here(self: Arc<Self>, env: Option<&Env>) {
        if self.state.compare_exchange(SCHEDULED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            // A poll after the first settles the Promise itself; an error
            // here (no Promise could be made) cannot happen past the first.
            let _ = self.step(env, false);
        }
    }
}

impl<T: 'static + Send + ToNapiValue> Wake for Driver<T> {
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
    use super::*;

    /// The dispatcher's TypeScript type, as `create` and `restore` write it
    /// into `native.d.ts`.
    const DISPATCH_TS: &str = "((kind: MessageKind | Float64Array, tool: number, payload: string | string[], token: number) => void) | undefined | null";

    #[test]
    fn a_batch_is_kind_tool_token_per_message_and_its_payloads() {
        let message = |kind, tool, payload: &str, reply: bool| Message {
            kind,
            tool,
            payload: payload.into(),
            reply: reply.then(|| tokio::sync::oneshot::channel().0),
        };
        let batch = vec![
            message(MessageKind::Call, 2, "{\"a\":1}", true),
            message(MessageKind::RecordText, 0, "[{}]", false),
            message(MessageKind::ApproveTool, 7, "{}", true),
        ];
        let mut next = 40.0;
        let (meta, payloads) = encode(batch, |reply| {
            reply.map_or(0.0, |_| {
                next += 1.0;
                next
            })
        });
        // The order `js/dispatch.ts` reads: kind, tool, token.
        assert_eq!(meta, [0.0, 2.0, 41.0, 4.0, 0.0, 0.0, 2.0, 7.0, 42.0]);
        assert_eq!(payloads, ["{\"a\":1}", "[{}]", "{}"]);
        assert_eq!(META, 3);
        // napi's attribute takes a literal: `create` and `restore` repeat it.
        assert_eq!(include_str!("lib.rs").matches(&format!("ts_arg_type = \"{DISPATCH_TS}\"")).count(), 2);
        assert_eq!(
            [MessageKind::Call, MessageKind::Approve, MessageKind::ApproveTool, MessageKind::Record, MessageKind::RecordText]
                .map(|k| k as u32),
            [0, 1, 2, 3, 4]
        );
    }
}
