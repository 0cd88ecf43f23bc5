//! The Node side of `cordon_runtime::driver`, which decides where a run is
//! polled and how tool messages and replies travel: here are the JavaScript
//! thread (`NodeJs`: its `Env`, and libuv's count of the event loop's
//! turns), each sandbox's way to its dispatcher (`NodeOutlet`: a direct call
//! on that thread, a threadsafe call from others), the pool (napi-rs's
//! tokio runtime), and the functions `js/binding.ts` calls.

use std::future::Future;

use cordon_runtime::driver::{self as core, Delivery, Js, Outlet, Pool, Started};
use napi::{
    bindgen_prelude::{
        spawn, within_runtime_if_available, Either, Float64Array, FnArgs, Function, FunctionRef, JsValue,
        PromiseRaw, ToNapiValue,
    },
    threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode},
    Env, Result, Status,
};
use napi_derive::napi;

use crate::wire::{MessageKind, Next, Reply};

/// The JavaScript dispatcher's arguments (its type in `native.d.ts` is
/// `DISPATCH_TS` in the tests below): `(kind, tool, payload, token)` for one
/// message; for the messages of one poll, `(meta, 0, payloads, 0)`, where
/// `meta` holds `kind, tool, token` of each message in turn ([`META`]
/// numbers each) and `payloads` their payloads. `tool` is the tool's index
/// in the policy's list as `js/` gave it. A non-zero token is answered
/// through [`settle_tool_call`]. One typed array for a batch's numbers costs
/// a thousand messages two napi calls rather than three thousand.
pub(crate) type DispatchArgs =
    FnArgs<(Either<MessageKind, Float64Array>, u32, Either<String, Vec<String>>, f64)>;

/// Numbers per message in a batch's `meta`.
pub(crate) const META: usize = 3;

/// Wakes the JavaScript thread to take the messages in its dispatchers'
/// inboxes (it calls the dispatcher with no messages itself).
type Queued = ThreadsafeFunction<(), (), DispatchArgs, Status, false, true>;

/// The dispatcher's arguments for no message.
fn no_messages() -> DispatchArgs {
    FnArgs::from((Either::B(Float64Array::new(Vec::new())), 0, Either::B(Vec::new()), 0.0))
}

/// The dispatcher's arguments for `messages`.
fn arguments(messages: Vec<Delivery>) -> DispatchArgs {
    if messages.len() == 1 {
        if let Some(m) = messages.into_iter().next() {
            return FnArgs::from((Either::A(m.kind.into()), m.tool, Either::A(m.payload), m.token));
        }
        return no_messages();
    }
    let (meta, payloads) = encode(messages);
    FnArgs::from((Either::B(Float64Array::new(meta)), 0, Either::B(payloads), 0.0))
}

/// A batch's `meta` and payloads (see [`DispatchArgs`]).
fn encode(messages: Vec<Delivery>) -> (Vec<f64>, Vec<String>) {
    let mut meta = Vec::with_capacity(messages.len() * META);
    let mut payloads = Vec::with_capacity(messages.len());
    for m in messages {
        meta.extend([f64::from(MessageKind::from(m.kind) as u32), f64::from(m.tool), m.token]);
        payloads.push(m.payload);
    }
    (meta, payloads)
}

/// The JavaScript thread, in a call from it.
pub(crate) struct NodeJs(pub(crate) Env);

impl Js for NodeJs {
    fn loop_turn(&self) -> Option<u64> {
        loop_turn(&self.0)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// One sandbox's JavaScript dispatcher.
struct NodeOutlet {
    direct: FunctionRef<DispatchArgs, ()>,
    queued: Queued,
}

impl Outlet for NodeOutlet {
    fn deliver(&self, js: &dyn Js, messages: Vec<Delivery>) -> bool {
        let Some(NodeJs(env)) = js.as_any().downcast_ref::<NodeJs>() else { return false };
        let args = arguments(messages);
        self.direct.borrow_back(env).and_then(|dispatch| dispatch.call(args)).is_ok()
    }

    fn nudge(&self) -> bool {
        self.queued.call((), ThreadsafeFunctionCallMode::NonBlocking) == Status::Ok
    }
}

/// A dispatcher for `function`, made on the JavaScript thread that owns it.
pub(crate) fn dispatcher(
    function: &Function<'_, DispatchArgs, ()>,
) -> Result<std::sync::Arc<core::Dispatcher>> {
    let queued =
        function.build_threadsafe_function::<()>().callee_handled::<false>().weak::<true>().build_callback(
            |ctx| {
                core::take_inboxes(&NodeJs(ctx.env));
                Ok(no_messages())
            },
        )?;
    Ok(core::Dispatcher::new(Box::new(NodeOutlet { direct: function.create_ref()?, queued })))
}

/// A tool's answer, from the dispatcher (see `cordon_runtime::driver::settle`):
/// `last` says no other call of the sandbox is in flight. Returns what to
/// queue.
#[napi]
pub fn settle_tool_call(env: Env, token: f64, reply: Reply, text: String, last: bool) -> Next {
    core::settle(&NodeJs(env), [(token, reply.into(), text)], last).into()
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
    let answers =
        tokens.into_iter().zip(replies).zip(texts).map(|((token, reply), text)| (token, reply.into(), text));
    core::settle(&NodeJs(env), answers, last).into()
}

/// Polls the runs that became ready on this thread (from a microtask).
/// Returns `true` when the caller should queue `drainLater` with
/// `setImmediate`.
#[napi]
pub fn drain_ready(env: Env) -> bool {
    core::drain_ready(&NodeJs(env))
}

/// Goes on with the runs deferred past the last turn's budget (from
/// `setImmediate`). Returns `true` when it should be queued again.
#[napi]
pub fn drain_later(env: Env) -> bool {
    core::drain_later(&NodeJs(env))
}

/// A value now, or a Promise of it.
pub(crate) type Now<'env, T> = napi::Either<T, PromiseRaw<'env, T>>;

type Resolver<T> = Box<dyn FnOnce(Env) -> Result<T> + Send>;

/// Runs `future` on the JavaScript thread for its first slice; returns the
/// value when it finishes there, else a Promise the driver settles.
pub(crate) fn start<'env, T, F>(env: &'env Env, future: F) -> Result<Now<'env, T>>
where
    T: 'static + Send + ToNapiValue,
    F: 'static + Send + Future<Output = Result<T>>,
{
    core::set_pool(Pool { spawn: spawn_job, enter: enter_runtime });
    let mut promise = None;
    let started = core::start(&NodeJs(*env), future, panicked::<T>, || {
        let (deferred, object) = env.create_deferred::<T, Resolver<T>>()?;
        promise = Some(PromiseRaw::new(env.raw(), object.raw()));
        let settle: core::Settle<Result<T>> = Box::new(move |value| match value {
            Ok(value) => deferred.resolve(Box::new(move |_| Ok(value))),
            Err(error) => deferred.reject(error),
        });
        Ok::<_, napi::Error>(settle)
    })?;
    match started {
        Started::Ready(value) => value.map(Either::A),
        Started::Pending => promise
            .map(Either::B)
            .ok_or_else(|| napi::Error::new(Status::GenericFailure, "the run has no promise")),
    }
}

fn panicked<T>() -> Result<T> {
    Err(napi::Error::new(Status::GenericFailure, "the run panicked"))
}

fn spawn_job(job: Box<dyn FnOnce() + Send>) {
    // napi's `spawn` panics once the runtime is gone (the last environment
    // tore down): then the job is dropped with the process.
    let spawned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        drop(spawn(async move { job() }));
    }));
    drop(spawned);
}

fn enter_runtime(poll: &mut dyn FnMut()) {
    within_runtime_if_available(poll);
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

#[cfg(test)]
mod tests {
    use super::*;
    use cordon_runtime::driver::MessageKind as Kind;

    /// The dispatcher's TypeScript type, as `create` and `restore` write it
    /// into `native.d.ts`.
    const DISPATCH_TS: &str = "((kind: MessageKind | Float64Array, tool: number, payload: string | string[], token: number) => void) | undefined | null";

    #[test]
    fn a_batch_is_kind_tool_token_per_message_and_its_payloads() {
        let delivery =
            |kind, tool, payload: &str, token| Delivery { kind, tool, payload: payload.into(), token };
        let (meta, payloads) = encode(vec![
            delivery(Kind::Call, 2, "{\"a\":1}", 41.0),
            delivery(Kind::RecordText, 0, "[{}]", 0.0),
            delivery(Kind::ApproveTool, 7, "{}", 42.0),
        ]);
        // The order `js/dispatch.ts` reads: kind, tool, token.
        assert_eq!(meta, [0.0, 2.0, 41.0, 4.0, 0.0, 0.0, 2.0, 7.0, 42.0]);
        assert_eq!(payloads, ["{\"a\":1}", "[{}]", "{}"]);
        assert_eq!(META, 3);
        // napi's attribute takes a literal: `create` and `restore` repeat it.
        assert_eq!(include_str!("lib.rs").matches(&format!("ts_arg_type = \"{DISPATCH_TS}\"")).count(), 2);
    }
}
