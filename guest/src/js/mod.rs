//! JavaScript through QuickJS: one runtime and context per instance, kept
//! across runs so a sandbox behaves like a REPL session.
//!
//! A run evaluates the script as the body of an async function and then
//! drives it: it drains QuickJS's job queue, and while the script's promise
//! is pending it waits on the host for tool results and on its timers.

use std::{
    cell::{Cell, RefCell},
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
    rc::Rc,
};

use cordon_protocol::{RunOutcome, RunRequest, ScriptError, ToolEvent, ToolResult};
use rquickjs::{
    promise::PromiseState, qjs, Context, Ctx, FromJs, Function, Object, Persistent, Promise, Runtime, Value,
};

use crate::host::{self, Stream, Waited};

mod bytes;
mod json;
mod url;

/// The JavaScript half of the console, tools, timers and value formatting.
/// Its files are one function's body, in this order: prelude.js (primordials,
/// inspect, console, tools, fs, randomness, timers), prelude/console.js (the
/// rest of Node's console), prelude/web.js (Web APIs), prelude/url.js (URL,
/// URLSearchParams), prelude/process.js (`process`) and prelude/end.js (the
/// helpers returned to the native side).
const PRELUDE: &str = concat!(
    include_str!("prelude.js"),
    include_str!("prelude/console.js"),
    include_str!("prelude/web.js"),
    include_str!("prelude/url.js"),
    include_str!("prelude/process.js"),
    include_str!("prelude/end.js"),
);
/// `require`, the node: modules and `Buffer`, installed after the prelude.
const MODULES: &str = include_str!("modules.js");
/// The file name guest stack traces show for the script.
const SCRIPT_NAME: &str = "main.js";

struct Engine {
    runtime: Runtime,
    context: Context,
    /// The helpers object the prelude returns.
    helpers: Persistent<Object<'static>>,
    /// The helpers every run calls, looked up once: `begin`, `nextTimer`
    /// (on every turn of the run loop), `end` and `render`.
    begin: Persistent<Function<'static>>,
    next_timer: Persistent<Function<'static>>,
    end: Persistent<Function<'static>>,
    render: Persistent<Function<'static>>,
    /// Tool names whose bindings are installed.
    tools: Vec<String>,
}

/// A tool call whose event has not arrived: how to settle its promise.
struct Waiting {
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
    name: Rc<str>,
}

/// Hashes a call id. The host numbers a run's calls from 0 up; multiplying
/// by 2^64/φ spreads them over the high bits, which the table's probes read.
/// (The default hasher would draw its keys from the host's random source on
/// first use, in the middle of a run.)
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type InFlight = HashMap<u32, Waiting, BuildHasherDefault<IdHasher>>;

thread_local! {
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
    /// The run's calls in flight, by the id the host gave them.
    static WAITING: RefCell<InFlight> = const { RefCell::new(HashMap::with_hasher(BuildHasherDefault::new())) };
    /// Whether the prelude's `nextTimer` can answer anything but "no timer":
    /// set when a script arms a timer and after timers ran (one may have
    /// thrown), cleared when `nextTimer` says there is none. While it is
    /// clear, waiting for a tool result skips that call into JavaScript.
    static TIMERS: Cell<bool> = const { Cell::new(true) };
    /// Whether `process.nextTick` queued callbacks the prelude's `runTicks`
    /// has not run yet: they run before the next promise jobs, as in Node.
    static TICKS: Cell<bool> = const { Cell::new(false) };
    /// Reasons of the promises rejected with no handler since the last turn
    /// of the run loop, with their promises; a handler added later (in the
    /// same turn) takes its promise off the list, as in Node.
    static REJECTED: RefCell<Vec<(Persistent<Value<'static>>, Persistent<Value<'static>>)>> =
        const { RefCell::new(Vec::new()) };
    /// The run's standard input not read yet (`fs.readFileSync(0)` and
    /// `process.stdin` take it whole).
    static STDIN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The status `process.exit` ended the run with.
    static EXITED: Cell<Option<i32>> = const { Cell::new(None) };
    /// `process.exitCode`: the run's exit code if it ends normally.
    static EXIT_CODE: Cell<i32> = const { Cell::new(0) };
}

/// The native half of `process.exitCode = status` (`now` false) and of
/// `process.exit(status)` (`now` true), which throws an error no `catch` or
/// `finally` of the script sees, so nothing of it runs after.
fn exit_now(ctx: Ctx<'_>, status: i32, now: bool) -> rquickjs::Result<()> {
    EXIT_CODE.set(status);
    if !now {
        return Ok(());
    }
    EXITED.set(Some(status));
    let error = Value::from_exception(rquickjs::Exception::from_message(ctx.clone(), "process.exit")?);
    // SAFETY: the context is live for the call (`ctx` borrows it) and `error` is a live value
    // of it; QuickJS only flags the error object, which `throw` then takes a reference to.
    unsafe { qjs::JS_SetUncatchableError(ctx.as_raw().as_ptr(), error.as_raw()) };
    Err(ctx.throw(error))
}

/// Takes what is left of the run's standard input.
fn take_stdin<'js>(ctx: Ctx<'js>) -> rquickjs::Result<rquickjs::TypedArray<'js, u8>> {
    let bytes = STDIN.with(|s| std::mem::take(&mut *s.borrow_mut()));
    rquickjs::TypedArray::<u8>::new(ctx, bytes)
}

/// QuickJS's rejection tracker: notes a promise rejected with no handler,
/// and forgets it when a handler comes.
fn track_rejection<'js>(ctx: Ctx<'js>, promise: Value<'js>, reason: Value<'js>, handled: bool) {
    REJECTED.with(|list| {
        let Ok(mut list) = list.try_borrow_mut() else { return };
        if handled {
            list.retain(|(p, _)| p.clone().restore(&ctx).ok().as_ref() != Some(&promise));
        } else {
            list.push((Persistent::save(&ctx, promise), Persistent::save(&ctx, reason)));
        }
    });
}

/// The native half of a tool call: `(name, argsJson) -> Promise`. The host
/// decides the call at once; its promise settles when the event arrives.
fn start_call<'js>(
    ctx: Ctx<'js>,
    name: rquickjs::String<'js>,
    args: rquickjs::String<'js>,
) -> rquickjs::Result<Promise<'js>> {
    let args = args.to_string().unwrap_or_default();
    begin_call(ctx, name.to_string().unwrap_or_default().into(), &args)
}

/// `(name, args) -> Promise | undefined`: starts the call when `args` is
/// plain data, its JSON text written by [`json::stringify`]; `undefined`
/// leaves the arguments to `JSON.stringify`.
fn start_call_data<'js>(
    ctx: Ctx<'js>,
    name: rquickjs::String<'js>,
    args: Value<'js>,
) -> rquickjs::Result<Option<Promise<'js>>> {
    let Some(text) = json::stringify_value(&ctx, &args) else {
        return Ok(None);
    };
    begin_call(ctx, name.to_string().unwrap_or_default().into(), &text).map(Some)
}

thread_local! {
    /// The prelude's `callTool`, for the calls a tool's binding does not
    /// start itself.
    static CALL_TOOL: RefCell<Option<Persistent<Function<'static>>>> = const { RefCell::new(None) };
}

/// `(name, last, callTool) -> function`: the binding of the tool `name`, a
/// native function named `last` of length 0. Called with one argument that
/// is plain data, it starts the call itself (what `callTool` would do, with
/// no JavaScript frame and no rest array on the way); any other call, with no
/// argument, more than one, or one that is not plain data, goes to
/// `callTool(name, args, extra)`, which checks and reports it.
fn tool_function<'js>(
    ctx: Ctx<'js>,
    name: rquickjs::String<'js>,
    last: rquickjs::String<'js>,
    call_tool: Function<'js>,
) -> rquickjs::Result<Function<'js>> {
    CALL_TOOL.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(Persistent::save(&ctx, call_tool));
        }
    });
    let tool: Rc<str> = name.to_string()?.into();
    let binding = move |ctx: Ctx<'js>,
                        args: rquickjs::function::Opt<Value<'js>>,
                        rest: rquickjs::function::Rest<Value<'js>>|
          -> rquickjs::Result<Value<'js>> {
        let extra = !rest.0.is_empty();
        if let (false, Some(args)) = (extra, args.0.as_ref()) {
            if let Some(text) = json::stringify_value(&ctx, args) {
                return begin_call(ctx, Rc::clone(&tool), &text).map(Promise::into_value);
            }
        }
        let call_tool = CALL_TOOL
            .with(|slot| slot.borrow().clone())
            .ok_or_else(|| rquickjs::Error::new_from_js("tool", "binding"))?
            .restore(&ctx)?;
        let args = args.0.unwrap_or_else(|| Value::new_undefined(ctx.clone()));
        call_tool.call((&*tool, args, extra))
    };
    Function::new(ctx, binding)?.with_name(last.to_string()?)?.with_length(0)
}

fn begin_call<'js>(ctx: Ctx<'js>, name: Rc<str>, args: &str) -> rquickjs::Result<Promise<'js>> {
    // The host's id is a u32 passed as an i32.
    let id = u32::from_ne_bytes(host::tool_call(&name, args).to_ne_bytes());
    let (promise, resolve, reject) = ctx.promise()?;
    let waiting =
        Waiting { resolve: Persistent::save(&ctx, resolve), reject: Persistent::save(&ctx, reject), name };
    WAITING.with(|w| w.borrow_mut().insert(id, waiting));
    Ok(promise)
}

fn new_engine() -> Result<Engine, String> {
    let runtime = Runtime::new().map_err(|e| format!("cannot start QuickJS: {e}"))?;
    let context = Context::full(&runtime).map_err(|e| format!("cannot create a context: {e}"))?;
    runtime.set_host_promise_rejection_tracker(Some(Box::new(track_rejection)));
    let helpers = context.with(|ctx| -> Result<_, String> {
        let write = Function::new(ctx.clone(), |stream: i32, text: rquickjs::String<'_>| -> f64 {
            let stream = if stream == 2 { Stream::Stderr } else { Stream::Stdout };
            let text = text.to_string().unwrap_or_else(|_| "\u{FFFD}".to_string());
            host::write(stream, &text) as f64
        })
        .map_err(|e| e.to_string())?;
        let call = Function::new(ctx.clone(), start_call).map_err(|e| e.to_string())?;
        let call_data = Function::new(ctx.clone(), start_call_data).map_err(|e| e.to_string())?;
        let fs = Function::new(ctx.clone(), fs_op).map_err(|e| e.to_string())?;
        let random = Function::new(ctx.clone(), random_bytes).map_err(|e| e.to_string())?;
        // `armed()`: a timer was set; `armed(1)`: a tick was queued.
        let armed = Function::new(ctx.clone(), |kind: rquickjs::function::Opt<i32>| match kind.0 {
            Some(1) => TICKS.set(true),
            _ => TIMERS.set(true),
        })
        .map_err(|e| e.to_string())?;
        let shell = Function::new(ctx.clone(), |script: rquickjs::String<'_>| -> Vec<String> {
            let script = script.to_string().unwrap_or_default();
            let (stdout, stderr, status) = crate::shell::run_captured(&script);
            vec![
                String::from_utf8_lossy(&stdout).into_owned(),
                String::from_utf8_lossy(&stderr).into_owned(),
                status.to_string(),
            ]
        })
        .map_err(|e| e.to_string())?;
        let tool_function = Function::new(ctx.clone(), tool_function).map_err(|e| e.to_string())?;
        let urlop = Function::new(ctx.clone(), url::urlop).map_err(|e| e.to_string())?;
        let exit = Function::new(ctx.clone(), exit_now).map_err(|e| e.to_string())?;
        let install: Function = ctx.eval(PRELUDE).map_err(|e| format!("prelude: {e}"))?;
        let mut args = rquickjs::function::Args::new(ctx.clone(), 10);
        for helper in [write, call, fs, random, shell, call_data, armed, tool_function, urlop, exit] {
            args.push_arg(helper).map_err(|e| format!("prelude: {e}"))?;
        }
        let helpers: Object = install.call_arg(args).map_err(|e| format!("prelude: {e}"))?;
        let get = |name: &str| -> Result<Persistent<Function<'static>>, String> {
            let f: Function = helpers.get(name).map_err(|e| format!("prelude: {name}: {e}"))?;
            Ok(Persistent::save(&ctx, f))
        };
        let (begin, next_timer, end, render) =
            (get("begin")?, get("nextTimer")?, get("end")?, get("render")?);
        install_json_stringify(&ctx).map_err(|e| format!("JSON.stringify: {e}"))?;
        install_modules(&ctx, &helpers).map_err(|e| format!("modules: {e}"))?;
        Ok((Persistent::save(&ctx, helpers), begin, next_timer, end, render))
    })?;
    let (helpers, begin, next_timer, end, render) = helpers;
    Ok(Engine { runtime, context, helpers, begin, next_timer, end, render, tools: Vec::new() })
}

/// Evaluates `modules.js` with its native helpers (UTF-8 both ways, digests,
/// standard input) and the prelude's util.inspect.
fn install_modules<'js>(ctx: &Ctx<'js>, helpers: &Object<'js>) -> rquickjs::Result<()> {
    // Its frames read `node:internal/modules:LINE:COL`, as Node's own do.
    let mut options = rquickjs::context::EvalOptions::default();
    options.filename = Some("node:internal/modules".into());
    let install: Function = ctx.eval_with_options(MODULES, options)?;
    let encode = Function::new(ctx.clone(), bytes::utf8_encode)?;
    let decode = Function::new(ctx.clone(), bytes::utf8_decode)?;
    let digest = Function::new(ctx.clone(), bytes::digest)?;
    let stdin = Function::new(ctx.clone(), take_stdin)?;
    let inspect: Function = helpers.get("inspect")?;
    let inspect_as: Function = helpers.get("inspectAs")?;
    let on_run: Function = helpers.get("onRun")?;
    let format: Function = helpers.get("formatArgs")?;
    let process_events: Function = helpers.get("processEvents")?;
    let mut args = rquickjs::function::Args::new(ctx.clone(), 9);
    for helper in [encode, decode, digest, stdin, inspect, inspect_as, on_run, format, process_events] {
        args.push_arg(helper)?;
    }
    install.call_arg(args)
}

thread_local! {
    /// QuickJS's own `JSON.stringify`, for what the native path leaves to it.
    static JSON_STRINGIFY: RefCell<Option<Persistent<Function<'static>>>> = const { RefCell::new(None) };
}

/// Replaces `JSON.stringify` (after the prelude kept the original) with a
/// native function that writes plain data with [`json::stringify`], the
/// same text without QuickJS's generic machinery, and hands anything else,
/// or a replacer or indent, to the original. The property keeps its
/// attributes; the function its name and length.
fn install_json_stringify(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    let json: Object = ctx.globals().get("JSON")?;
    let original: Function = json.get("stringify")?;
    JSON_STRINGIFY.with(|slot| *slot.borrow_mut() = Some(Persistent::save(ctx, original)));
    let fast = Function::new(ctx.clone(), json_stringify)?.with_name("stringify")?.with_length(3)?;
    json.set("stringify", fast)
}

fn json_stringify<'js>(
    ctx: Ctx<'js>,
    value: rquickjs::function::Opt<Value<'js>>,
    rest: rquickjs::function::Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let value = value.0.unwrap_or_else(|| Value::new_undefined(ctx.clone()));
    if rest.0.iter().all(Value::is_undefined) {
        if let Some(text) = json::stringify_value(&ctx, &value) {
            match rquickjs::String::from_str(ctx.clone(), &text) {
                Ok(string) => return Ok(string.into_value()),
                // Out of memory with the text still held: QuickJS's own,
                // which builds its string in place, may still manage.
                Err(_) => {
                    drop(text);
                    let _ = ctx.catch();
                }
            }
        }
    }
    let original = JSON_STRINGIFY
        .with(|slot| slot.borrow().clone())
        .ok_or_else(|| rquickjs::Error::new_from_js("JSON", "stringify"))?
        .restore(&ctx)?;
    original.call((value, rquickjs::function::Rest(rest.0)))
}

/// The native half of `fs`: `(requestJson, data?, asText) -> [replyJson, payload]`.
/// `data` is a string (written as UTF-8) or a Uint8Array; the payload of a
/// read is a string when `asText` (invalid UTF-8 replaced) or a Uint8Array.
fn fs_op<'js>(
    ctx: Ctx<'js>,
    request: rquickjs::String<'js>,
    data: rquickjs::function::Opt<Value<'js>>,
    as_text: rquickjs::function::Opt<bool>,
) -> rquickjs::Result<rquickjs::Array<'js>> {
    let request = request.to_string()?;
    let bytes: Vec<u8> = match data.0 {
        Some(v) if v.is_string() => {
            v.as_string().map(|s| s.to_string()).transpose()?.unwrap_or_default().into_bytes()
        }
        Some(v) if v.is_object() => match rquickjs::TypedArray::<u8>::from_value(v) {
            // SAFETY: `as_bytes`'s contract: no JavaScript runs while the slice lives, as it is
            // copied (`to_vec`) at once, before anything else touches the engine.
            Ok(array) => unsafe { array.as_bytes() }.map(<[u8]>::to_vec).unwrap_or_default(),
            Err(_) => Vec::new(),
        },
        _ => Vec::new(),
    };
    let (json, payload) = host::fs(&request, &bytes);
    let out = rquickjs::Array::new(ctx.clone())?;
    out.set(0, String::from_utf8_lossy(&json).into_owned())?;
    if as_text.0.unwrap_or(false) {
        out.set(1, String::from_utf8_lossy(&payload).into_owned())?;
    } else {
        out.set(1, rquickjs::TypedArray::<u8>::new(ctx, payload)?)?;
    }
    Ok(out)
}

/// `len` (at most 65 536) bytes from the host's random source, as a
/// Uint8Array; an `Error` when the host could not read its source.
fn random_bytes<'js>(ctx: Ctx<'js>, len: u32) -> rquickjs::Result<rquickjs::TypedArray<'js, u8>> {
    match host::random(len.min(65_536) as usize) {
        Some(bytes) => rquickjs::TypedArray::<u8>::new(ctx, bytes),
        None => Err(rquickjs::Exception::throw_message(&ctx, "the host's random source failed")),
    }
}

/// Bytes of QuickJS's heap at which its cycle collector first runs (it then
/// moves the mark to half again the heap it finds). QuickJS starts at 256
/// KiB, which the pre-initialised heap (about 190 KiB) leaves little room
/// under: a fresh sandbox's first run of a thousand calls in flight
/// collected several times over a growing heap, and the same run was
/// a third slower than its second. Objects without cycles are freed when
/// their last reference goes, whatever this says.
const GC_THRESHOLD: usize = 4 << 20;

/// Starts QuickJS and evaluates the prelude now (for the pre-initialised
/// snapshot), then collects the garbage of start-up.
pub fn init() {
    ENGINE.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else { return };
        if slot.is_none() {
            *slot = new_engine().ok();
        }
        if let Some(engine) = slot.as_ref() {
            engine.runtime.run_gc();
            engine.runtime.set_gc_threshold(GC_THRESHOLD);
        }
    });
}

/// Runs `f` on the instance's engine, started on first use; `None` when
/// JavaScript is already running (a nested call).
fn with_engine(f: impl FnOnce(&mut Engine) -> RunOutcome) -> Option<RunOutcome> {
    ENGINE.with(|slot| {
        let mut slot = slot.try_borrow_mut().ok()?;
        if slot.is_none() {
            match new_engine() {
                Ok(engine) => *slot = Some(engine),
                Err(message) => return Some(internal_error(message)),
            }
        }
        slot.as_mut().map(f)
    })
}

/// Runs one script to completion.
pub fn run(request: &RunRequest) -> RunOutcome {
    with_engine(|engine| run_in(engine, request))
        .unwrap_or_else(|| internal_error("JavaScript is already running".into()))
}

/// Runs JavaScript from the shell (`js -e`), unless JavaScript is already
/// running (the shell was itself started by `await shell(…)`).
pub fn run_nested(request: &RunRequest) -> Option<RunOutcome> {
    with_engine(|engine| run_in(engine, request))
}

fn internal_error(message: String) -> RunOutcome {
    RunOutcome {
        exit_code: 1,
        value: None,
        error: Some(ScriptError { name: "InternalError".into(), message, stack: String::new() }),
    }
}

fn helper<'js, T: FromJs<'js>>(helpers: &Object<'js>, name: &str) -> Result<T, RunOutcome> {
    helpers.get(name).map_err(|e| internal_error(format!("helper {name}: {e}")))
}

fn run_in(engine: &mut Engine, request: &RunRequest) -> RunOutcome {
    crate::shell::set_tools(request);
    STDIN.with(|s| s.borrow_mut().clone_from(&request.stdin));
    EXITED.set(None);
    EXIT_CODE.set(0);
    TICKS.set(false);
    let tools_changed = engine.tools != request.tools;
    let started = engine.context.with(|ctx| -> Result<Persistent<Promise<'static>>, RunOutcome> {
        let helpers = restore(&ctx, &engine.helpers)?;
        let begin = engine.begin.clone().restore(&ctx).map_err(|e| internal_error(e.to_string()))?;
        let tools: Option<Vec<String>> = tools_changed.then(|| request.tools.clone());
        begin
            .call::<_, ()>((request.output_limit as f64, tools))
            .map_err(|e| internal_error(e.to_string()))?;
        let function = match compile(&ctx, &request.code) {
            Ok(function) => function,
            Err(err) => {
                return Err(thrown(&ctx, &helpers, at_end_of_input(&request.code, caught(&ctx, err))))
            }
        };
        match function.call::<_, Promise>(()) {
            Ok(promise) => Ok(Persistent::save(&ctx, promise)),
            Err(err) => {
                let error = caught(&ctx, err);
                match EXITED.get() {
                    Some(status) => Err(exited(engine, &ctx, status)),
                    None => Err(thrown(&ctx, &helpers, error)),
                }
            }
        }
    });
    if tools_changed {
        engine.tools = request.tools.clone();
    }
    let promise = match started {
        Ok(promise) => promise,
        Err(outcome) => return outcome,
    };
    if let Err(outcome) = drive(engine, &promise, request.leave_pending) {
        return outcome;
    }
    finish(engine, promise)
}

/// Runs jobs, timers and tool results until the script's promise settles and
/// nothing it started is pending (unless the request leaves what is pending:
/// then until the promise settles), or nothing can settle it any more. A
/// rejected promise, a callback that threw and an unhandled rejection end
/// the loop at once.
fn drive(
    engine: &Engine,
    promise: &Persistent<Promise<'static>>,
    leave_pending: bool,
) -> Result<(), RunOutcome> {
    // One entry into the context for the whole loop: waiting on the host
    // inside it is fine, since nothing else uses this runtime meanwhile.
    engine.context.with(|ctx| {
        let promise = promise.clone().restore(&ctx).map_err(|e| internal_error(e.to_string()))?;
        let next_timer =
            engine.next_timer.clone().restore(&ctx).map_err(|e| internal_error(e.to_string()))?;
        loop {
            run_jobs(engine, &ctx)?;
            if EXITED.get().is_some() {
                return Ok(());
            }
            let settled = match promise.state() {
                PromiseState::Pending => false,
                PromiseState::Rejected => return Ok(()),
                PromiseState::Resolved => true,
            };
            if REJECTED.with(|list| !list.borrow().is_empty()) {
                unhandled(engine, &ctx)?;
            }
            if settled && leave_pending {
                return Ok(());
            }
            // Ms until the next timer, -1 without timers, -2 once a timer
            // threw or a rejection went unhandled.
            let next = if TIMERS.get() {
                let next =
                    next_timer.call::<_, f64>((settled,)).map_err(|e| internal_error(e.to_string()))?;
                TIMERS.set(next != -1.0);
                next
            } else {
                -1.0
            };
            if next == 0.0 {
                fire_timers(engine, &ctx)?;
                continue;
            }
            if next <= -2.0 {
                return Ok(());
            }
            if settled && next < 0.0 && WAITING.with(|w| w.borrow().is_empty()) {
                return Ok(());
            }
            // Without a timer, the host answers "idle" when no call is
            // pending: then nothing can settle the script's promise any more.
            let timeout = if next < 0.0 { -1 } else { next.ceil() as i64 };
            match host::wait(timeout) {
                Waited::Event(bytes) => deliver(engine, &ctx, &bytes)?,
                Waited::Timeout => fire_timers(engine, &ctx)?,
                Waited::Idle => return Ok(()),
            }
        }
    })
}

/// Runs `process.nextTick` callbacks, then promise jobs, until neither is
/// left (ticks queued by a job run after the jobs queued before them), as
/// Node does between two callbacks of its loop.
fn run_jobs(engine: &Engine, ctx: &Ctx<'_>) -> Result<(), RunOutcome> {
    loop {
        if TICKS.replace(false) {
            let helpers = restore(ctx, &engine.helpers)?;
            let run: Function = helper(&helpers, "runTicks")?;
            match run.call::<_, ()>(()) {
                // `process.exit` in a callback: the loop sees it next.
                Err(_) if EXITED.get().is_some() => {
                    let _ = ctx.catch();
                }
                result => result.map_err(|e| internal_error(e.to_string()))?,
            }
        }
        while EXITED.get().is_none() && ctx.execute_pending_job() {}
        if EXITED.get().is_some() || !TICKS.get() {
            return Ok(());
        }
    }
}

/// Hands the first unhandled rejection to the prelude, which makes it the
/// run's uncaught error (the next `nextTimer` then answers -2).
fn unhandled(engine: &Engine, ctx: &Ctx<'_>) -> Result<(), RunOutcome> {
    let rejected = REJECTED.with(|list| std::mem::take(&mut *list.borrow_mut()));
    if rejected.is_empty() {
        return Ok(());
    }
    let helpers = restore(ctx, &engine.helpers)?;
    let report: Function = helper(&helpers, "unhandled")?;
    TIMERS.set(true);
    for (promise, reason) in rejected {
        let promise = promise.restore(ctx).map_err(|e| internal_error(e.to_string()))?;
        let reason = reason.restore(ctx).map_err(|e| internal_error(e.to_string()))?;
        match report.call::<_, ()>((reason, promise)) {
            // `process.exit` in a listener: the loop sees it next.
            Err(_) if EXITED.get().is_some() => {
                let _ = ctx.catch();
                return Ok(());
            }
            result => result.map_err(|e| internal_error(e.to_string()))?,
        }
    }
    Ok(())
}

fn fire_timers(engine: &Engine, ctx: &Ctx<'_>) -> Result<(), RunOutcome> {
    // An interval stays, and a callback may throw or arm another timer.
    TIMERS.set(true);
    let helpers = restore(ctx, &engine.helpers)?;
    let run: Function = helper(&helpers, "runTimers")?;
    match run.call::<_, ()>(()) {
        // `process.exit` in the callback: the loop sees it next.
        Err(_) if EXITED.get().is_some() => {
            let _ = ctx.catch();
            Ok(())
        }
        result => result.map_err(|e| internal_error(e.to_string())),
    }
}

fn deliver(engine: &Engine, ctx: &Ctx<'_>, bytes: &[u8]) -> Result<(), RunOutcome> {
    // A result is read where it lies; only failures are decoded into a copy.
    let owned;
    let (id, result) = match ToolEvent::ok_from_wire(bytes) {
        Some((id, json)) => (id, Ok(json)),
        None => match ToolEvent::from_wire(bytes).map_err(|e| internal_error(e.to_string()))? {
            ToolEvent { id, result: ToolResult::Ok { json } } => {
                owned = json;
                (id, Ok(owned.as_str()))
            }
            ToolEvent { id, result: failed } => (id, Err(failed)),
        },
    };
    let Some(waiting) = WAITING.with(|w| w.borrow_mut().remove(&id)) else {
        // A call of a run that ended (its promise is gone).
        return Ok(());
    };
    // A number answer (`1001`) needs no parser.
    let settled = result.and_then(|json| match json::int_literal(json.as_bytes()) {
        Some(n) => Ok(Value::new_int(ctx.clone(), n)),
        None => ctx.json_parse(json).map_err(|_| {
            // The host checked the JSON; this is a guard, not a path.
            let _ = ctx.catch();
            let message = format!("{}: the tool's result is not JSON", waiting.name);
            ToolResult::error("TOOL_RESULT_INVALID", None, message)
        }),
    });
    let settled = match settled {
        Ok(value) => Ok(value),
        Err(failed) => {
            let ToolResult::Error { code, reason, message, tool_code, http_status } = failed else {
                return Err(internal_error("a tool's result read as a failure".into()));
            };
            let helpers = restore(ctx, &engine.helpers)?;
            let tool_error: Function = helper(&helpers, "toolError")?;
            let error = tool_error
                .call::<_, Value>((message, code, reason, &*waiting.name, tool_code, http_status))
                .map_err(|e| internal_error(e.to_string()))?;
            Err(error)
        }
    };
    let result = match settled {
        Ok(value) => waiting.resolve.restore(ctx).and_then(|f| f.call::<_, ()>((value,))),
        Err(error) => waiting.reject.restore(ctx).and_then(|f| f.call::<_, ()>((error,))),
    };
    result.map_err(|e| internal_error(e.to_string()))
}

/// Ends a run that called `process.exit`: what it left pending goes, and the
/// status is the run's exit code (no value, no error).
fn exited(engine: &Engine, ctx: &Ctx<'_>, status: i32) -> RunOutcome {
    EXITED.set(None);
    REJECTED.with(|list| list.borrow_mut().clear());
    WAITING.with(|w| w.borrow_mut().clear());
    if let Ok(end) = engine.end.clone().restore(ctx) {
        let _ = end.call::<_, Value>(());
    }
    RunOutcome { exit_code: status, value: None, error: None }
}

fn finish(engine: &Engine, promise: Persistent<Promise<'static>>) -> RunOutcome {
    engine.context.with(|ctx| -> RunOutcome {
        if let Some(status) = EXITED.get() {
            return exited(engine, &ctx, status);
        }
        let helpers = match restore(&ctx, &engine.helpers) {
            Ok(helpers) => helpers,
            Err(outcome) => return outcome,
        };
        // Calls and timers the script left behind end with the run; an
        // exception thrown by a timer callback is the run's uncaught error.
        REJECTED.with(|list| list.borrow_mut().clear());
        WAITING.with(|w| {
            let mut w = w.borrow_mut();
            // A run with a great many calls in flight does not leave its
            // table's room to every later run.
            if w.capacity() > 4096 {
                *w = InFlight::default();
            } else {
                w.clear();
            }
        });
        let promise = match promise.restore(&ctx) {
            Ok(promise) => promise,
            Err(e) => return internal_error(e.to_string()),
        };
        // `end` emits the script's 'exit' listeners, with 1 for a run that failed.
        let failed = !matches!(promise.state(), PromiseState::Resolved);
        let end = engine.end.clone().restore(&ctx);
        match end.and_then(|f| f.call::<_, Option<rquickjs::Array>>((failed,))) {
            Ok(Some(thrown_by_timer)) => {
                let value =
                    thrown_by_timer.get::<Value>(0).unwrap_or_else(|_| Value::new_undefined(ctx.clone()));
                return thrown(&ctx, &helpers, value);
            }
            // `process.exit` in an 'exit' listener.
            Err(_) if EXITED.get().is_some() => {
                let _ = ctx.catch();
                let status = EXITED.get().unwrap_or(0);
                return exited(engine, &ctx, status);
            }
            _ => {}
        }
        match promise.state() {
            PromiseState::Resolved => {
                let value: Value = match promise.result() {
                    Some(Ok(value)) => value,
                    _ => return internal_error("settled promise has no value".into()),
                };
                let render = engine.render.clone().restore(&ctx);
                let rendered = render.and_then(|f| f.call::<_, Option<String>>((value,)));
                match rendered {
                    Ok(value) => RunOutcome { exit_code: EXIT_CODE.get(), value, error: None },
                    Err(e) => internal_error(e.to_string()),
                }
            }
            PromiseState::Rejected => {
                let reason = match promise.result::<Value>() {
                    Some(Ok(value)) => value,
                    Some(Err(err)) => caught(&ctx, err),
                    None => Value::new_undefined(ctx.clone()),
                };
                thrown(&ctx, &helpers, reason)
            }
            PromiseState::Pending => {
                let message = "the script awaited a promise that can never settle".to_string();
                host::write(Stream::Stderr, &format!("Error: {message}\n"));
                RunOutcome {
                    exit_code: 1,
                    value: None,
                    error: Some(ScriptError { name: "Error".into(), message, stack: String::new() }),
                }
            }
        }
    })
}

/// Compiles `code` as the body of an async function. The wrapper takes lines
/// -1 and 0 (QuickJS reads a first line of 0 as "default"), so the script's
/// lines and columns are its own. It does not start with a parenthesis:
/// QuickJS would scan the whole script ahead to the closing one, to see
/// whether an arrow follows.
fn compile<'js>(ctx: &Ctx<'js>, code: &str) -> rquickjs::Result<Function<'js>> {
    let source = std::ffi::CString::new(format!("void 0, async function () {{\n\n{code}\n}}"))?;
    let len = source.as_bytes().len();
    let filename = std::ffi::CString::new(SCRIPT_NAME)?;
    let mut options = qjs::JSEvalOptions {
        version: qjs::JS_EVAL_OPTIONS_VERSION as _,
        eval_flags: qjs::JS_EVAL_TYPE_GLOBAL as _,
        filename: filename.as_ptr(),
        line_num: -1,
    };
    // SAFETY: the context is live for 'js (`ctx` borrows it). `source` is `len` bytes followed by
    // a NUL, as `JS_Eval2` requires, and it and `filename` (NUL-terminated) outlive the call;
    // QuickJS copies what it keeps of them. `options` is a live `JSEvalOptions` of the version
    // this QuickJS expects, with a global eval. The value returned is a new reference: an
    // exception is left pending for `ctx.catch()`, anything else is owned by the `Value` made.
    let value = unsafe {
        let raw = qjs::JS_Eval2(ctx.as_raw().as_ptr(), source.as_ptr(), len as _, &mut options);
        if qjs::JS_IsException(raw) {
            return Err(rquickjs::Error::Exception);
        }
        Value::from_raw(ctx.clone(), raw)
    };
    Function::from_js(ctx, value)
}

/// A syntax error QuickJS found at or after the wrapper's closing brace
/// (`return 1 +`) is the script ending too early: said so, at the script's
/// own end, instead of at a `}` the script does not have.
fn at_end_of_input<'js>(code: &str, error: Value<'js>) -> Value<'js> {
    let Some(object) = error.as_object() else { return error };
    let (lines, last) = code.split('\n').fold((0usize, ""), |(n, _), line| (n + 1, line));
    // The stack of a syntax error is one frame, `    at main.js:LINE:COLUMN`.
    let line_of = |stack: &str| -> Option<usize> {
        let at = stack.strip_prefix("    at ")?.strip_prefix(SCRIPT_NAME)?.strip_prefix(':')?;
        at.split(':').next()?.parse().ok()
    };
    let past_the_script = object.get::<_, String>("name").is_ok_and(|n| n == "SyntaxError")
        && object.get::<_, String>("stack").ok().and_then(|s| line_of(&s)).is_some_and(|line| line > lines);
    if past_the_script {
        let end = format!("    at {SCRIPT_NAME}:{lines}:{}\n", last.encode_utf16().count() + 1);
        let _ = object.set("message", "unexpected end of input");
        let _ = object.set("stack", end);
    }
    error
}

/// The thrown value behind an rquickjs error (or the error's text).
fn caught<'js>(ctx: &Ctx<'js>, err: rquickjs::Error) -> Value<'js> {
    if matches!(err, rquickjs::Error::Exception) {
        return ctx.catch();
    }
    rquickjs::String::from_str(ctx.clone(), &err.to_string())
        .map(|s| s.into_value())
        .unwrap_or_else(|_| Value::new_undefined(ctx.clone()))
}

fn restore<'js>(ctx: &Ctx<'js>, helpers: &Persistent<Object<'static>>) -> Result<Object<'js>, RunOutcome> {
    helpers.clone().restore(ctx).map_err(|e| internal_error(e.to_string()))
}

/// Reports an uncaught exception: printed to stderr the way Node prints it,
/// and returned as plain data.
fn thrown<'js>(_ctx: &Ctx<'js>, helpers: &Object<'js>, value: Value<'js>) -> RunOutcome {
    let describe: Result<Function, _> = helpers.get("describe");
    let parts = describe.and_then(|f| f.call::<_, Vec<String>>((value,)));
    let (name, message, stack) = match parts.ok().as_deref() {
        Some([name, message, stack, printed]) => {
            host::write(Stream::Stderr, printed);
            (name.clone(), message.clone(), stack.clone())
        }
        _ => ("Error".to_string(), "uncaught exception".to_string(), String::new()),
    };
    RunOutcome { exit_code: 1, value: None, error: Some(ScriptError { name, message, stack }) }
}
