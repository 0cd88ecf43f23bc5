//! napi-rs binding of cordon. Thin by design: it converts `Binding*` types to
//! the runtime's types and back, and nothing else. The public API (option
//! validation, `CordonError`, the run queue) is TypeScript in `js/`; behaviour
//! lives in `cordon-runtime`.

pub mod driver;
mod wire;

use std::{cell::RefCell, collections::HashMap, sync::Arc};

use cordon_runtime::driver::{Dispatcher, Message, MessageKind, Reply};
use cordon_runtime::{
    policy::{Policy, PolicySpec, ToolName},
    BoxFuture, CancelFlag, Determinism, Language, Limits, MountSpec, RunFailure, RunReport, Sandbox,
    ToolCallRecord, ToolFailure, ToolHost, ToolInvocation, Tools, Trace, TraceMode, TRACE_VERSION,
};
use driver::{DispatchArgs, Now};
use napi::{
    bindgen_prelude::{
        Buffer, Either, Float64Array, FnArgs, Function, FunctionRef, JsValue, PromiseRaw, ToNapiValue,
        Unknown,
    },
    Env, Error, Result, Status,
};
use napi_derive::napi;
use wire::{BindingFailure, ErrorCode};

/// The JavaScript side of tool calls (`js/dispatch.ts`): see [`DispatchArgs`].
type Dispatch<'env> = Function<'env, DispatchArgs, ()>;

/// A sandbox, or why it could not be made.
type Made = Either<NativeSandbox, BindingFailure>;

/// Limits as JavaScript numbers; `js/` validates them first, this checks again.
#[napi(object)]
pub struct BindingLimits {
    pub timeout_ms: Option<f64>,
    pub cpu_ms: Option<f64>,
    pub memory_bytes: Option<f64>,
    pub output_bytes: Option<f64>,
    pub code_bytes: Option<f64>,
    pub tool_calls: Option<f64>,
    pub tool_timeout_ms: Option<f64>,
    pub tool_result_bytes: Option<f64>,
    pub fs_bytes: Option<f64>,
    pub fs_files: Option<f64>,
    pub trace_bytes: Option<f64>,
}

/// Deterministic clock and randomness (`js/` fills in the defaults).
#[napi(object)]
pub struct BindingDeterminism {
    pub seed: f64,
    pub start_ms: f64,
}

fn to_determinism(d: Option<BindingDeterminism>) -> Result<Option<Determinism>> {
    let Some(d) = d else { return Ok(None) };
    let seed = whole(d.seed, || "seed".into())?;
    let start_ms = whole(d.start_ms, || "startTime".into())?;
    Ok(Some(Determinism { seed, start_ms }))
}

/// A host directory mounted into the sandbox (`js/` validates the shape).
#[napi(object)]
pub struct BindingMount {
    pub host_path: String,
    pub guest_path: String,
    pub writable: bool,
    pub write_through: bool,
}

fn to_mounts(mounts: Option<Vec<BindingMount>>) -> Vec<MountSpec> {
    mounts
        .unwrap_or_default()
        .into_iter()
        .map(|m| MountSpec {
            host_path: m.host_path.into(),
            guest_path: m.guest_path,
            writable: m.writable,
            write_through: m.write_through,
        })
        .collect()
}

#[napi(object)]
pub struct BindingScriptError {
    pub name: String,
    pub message: String,
    pub stack: String,
}

#[napi(object)]
pub struct BindingStats {
    pub wall_ms: f64,
    pub cpu_ms: f64,
    pub memory_bytes: f64,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub instance_restarted: bool,
}

/// A run's report; `failure` is set when the sandbox ended the run. It
/// reaches JavaScript as the object `makeRunResult` in `js/binding.ts` makes
/// from its fields in one call (`setRunResultMaker`): napi-rs would set its
/// eighteen properties one by one, about 2 µs of every run.
#[napi(object, object_to_js = false)]
pub struct BindingRunResult {
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    pub value: Option<String>,
    pub error: Option<BindingScriptError>,
    /// Every tool call of the run as a JSON array (see `records`).
    pub tool_calls: String,
    /// Indices of the records whose `args` is text for JavaScript to parse.
    pub tool_call_texts: Vec<u32>,
    /// JSON of the recorded `Trace`, for `record`.
    pub trace: Option<String>,
    /// JSON of the first `Divergence`, for `replay`.
    pub divergence: Option<String>,
    pub stats: BindingStats,
    pub failure_code: Option<ErrorCode>,
    pub failure_message: Option<String>,
}

/// `makeRunResult`'s arguments: a [`BindingRunResult`]'s fields in order,
/// the script error's and the stats' flattened.
type MakeRunResultArgs = FnArgs<(
    i32,
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
    Vec<u32>,
    Option<String>,
    Option<String>,
    f64,
    f64,
    f64,
    bool,
    bool,
    bool,
    Option<ErrorCode>,
    Option<String>,
)>;

thread_local! {
    /// `makeRunResult` of this thread's `js/binding.ts` (each worker thread
    /// loads its own).
    static MAKE_RUN_RESULT: RefCell<Option<FunctionRef<MakeRunResultArgs, Unknown<'static>>>> =
        const { RefCell::new(None) };
}

/// Registers the function that makes a run's result object from its fields
/// (`js/binding.ts` calls this once, when it loads).
#[napi(ts_args_type = "make: (...fields: any[]) => unknown")]
pub fn set_run_result_maker(make: Function<'_, MakeRunResultArgs, Unknown<'static>>) -> Result<()> {
    let make = make.create_ref()?;
    MAKE_RUN_RESULT.with(|slot| *slot.borrow_mut() = Some(make));
    Ok(())
}

/// Where the guest compiled at build time lies: the directory of the addon
/// (`native.js` calls this as it loads it). False if a different directory
/// was set before.
#[napi]
pub fn set_prebuilt_dir(dir: String) -> bool {
    cordon_runtime::prebuilt::set_dir(dir.into())
}

/// Whether the driver may ask libuv which turn of the event loop this is
/// (`native.js` says no in Bun, whose libuv functions are stubs).
#[napi]
pub fn set_loop_metrics(enabled: bool) {
    driver::LOOP_METRICS.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

/// Compiles the guest ahead of time for `target` (a Rust target triple; this
/// addon's own when absent) and the CPU features `cpuFlags` (Cranelift flags
/// or presets; the target's baseline when absent), and writes the modules
/// its package ships into `dir`; returns their paths. A build step
/// (`scripts/precompile.mjs`), not an API: it takes seconds.
#[napi]
pub fn precompile_guest(
    dir: String,
    target: Option<String>,
    cpu_flags: Option<Vec<String>>,
) -> Result<Vec<String>> {
    let dir = std::path::Path::new(&dir);
    let written = cordon_runtime::engine::write_prebuilt(dir, target.as_deref(), cpu_flags.as_deref())
        .map_err(|e| Error::new(Status::GenericFailure, format!("cannot precompile the guest: {e:#}")))?;
    Ok(written.into_iter().map(|path| path.display().to_string()).collect())
}

impl ToNapiValue for BindingRunResult {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        let env = Env::from_raw(env);
        // Taken out of the slot first: the slot is not borrowed while
        // JavaScript runs.
        let make =
            MAKE_RUN_RESULT
                .with(|slot| slot.borrow().as_ref().map(|make| make.borrow_back(&env)))
                .ok_or_else(|| Error::new(Status::GenericFailure, "no run result maker is registered"))??;
        let (name, message, stack) = match val.error {
            Some(e) => (Some(e.name), Some(e.message), Some(e.stack)),
            None => (None, None, None),
        };
        let s = val.stats;
        let made = make.call(FnArgs::from((
            val.exit_code,
            val.stdout,
            val.stderr,
            val.value,
            name,
            message,
            stack,
            val.tool_calls,
            val.tool_call_texts,
            val.trace,
            val.divergence,
            s.wall_ms,
            s.cpu_ms,
            s.memory_bytes,
            s.stdout_truncated,
            s.stderr_truncated,
            s.instance_restarted,
            val.failure_code,
            val.failure_message,
        )))?;
        Ok(made.raw())
    }
}

fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

/// A JavaScript number as a limit (or seed), `what` naming it in the error;
/// its range is the runtime's to check.
fn whole(value: f64, what: impl FnOnce() -> String) -> Result<u64> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 {
        Ok(value as u64)
    } else {
        Err(invalid(format!("{} must be a non-negative integer, got {value}", what())))
    }
}

fn to_limits(limits: Option<BindingLimits>) -> Result<Limits> {
    let Some(l) = limits else { return Ok(Limits::default()) };
    let given = [
        ("timeoutMs", l.timeout_ms),
        ("cpuMs", l.cpu_ms),
        ("memoryBytes", l.memory_bytes),
        ("outputBytes", l.output_bytes),
        ("codeBytes", l.code_bytes),
        ("toolCalls", l.tool_calls),
        ("toolTimeoutMs", l.tool_timeout_ms),
        ("toolResultBytes", l.tool_result_bytes),
        ("fsBytes", l.fs_bytes),
        ("fsFiles", l.fs_files),
        ("traceBytes", l.trace_bytes),
    ];
    let values = given
        .into_iter()
        .filter_map(|(name, value)| value.map(|v| whole(v, || format!("limits.{name}")).map(|v| (name, v))))
        .collect::<Result<Vec<_>>>()?;
    Limits::from_named(values).map_err(|f| invalid(f.message))
}

fn from_report(report: RunReport, failure: Option<(ErrorCode, String)>) -> BindingRunResult {
    let (failure_code, failure_message) = failure.unzip();
    let (tool_calls, tool_call_texts) = cordon_runtime::records::to_json(&report.tool_calls);
    BindingRunResult {
        exit_code: report.exit_code,
        stdout: report.stdout,
        stderr: report.stderr,
        value: report.value,
        error: report.error.map(|e| BindingScriptError { name: e.name, message: e.message, stack: e.stack }),
        tool_calls,
        tool_call_texts,
        trace: report.trace.and_then(|t| serde_json::to_string(&t).ok()),
        divergence: report.divergence.and_then(|d| serde_json::to_string(&d).ok()),
        stats: BindingStats {
            wall_ms: report.stats.wall_ms,
            cpu_ms: report.stats.cpu_ms,
            memory_bytes: report.stats.memory_bytes as f64,
            stdout_truncated: report.stats.stdout_truncated,
            stderr_truncated: report.stats.stderr_truncated,
            instance_restarted: report.stats.instance_restarted,
        },
        failure_code,
        failure_message,
    }
}

fn from_failure(failure: RunFailure) -> BindingRunResult {
    let (report, code, message) = failure.into_partial();
    from_report(report, Some((code.into(), message)))
}

/// Tool calls served by JavaScript (see `driver`).
struct NodeTools {
    dispatcher: Arc<Dispatcher>,
    record_hook: bool,
    /// Each tool's index in the policy's list as `js/` gave it, by its
    /// canonical name: a message names its tool by index.
    index: HashMap<String, u32>,
}

impl NodeTools {
    /// Sends at once (not when the reply is first awaited), so tools run
    /// while the guest goes on. The receiver goes straight into the caller's
    /// one boxed future.
    fn send(
        &self,
        kind: MessageKind,
        call: &ToolInvocation,
    ) -> tokio::sync::oneshot::Receiver<(Reply, String)> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.dispatcher.send(Message {
            kind,
            // Every allowed call names a registered tool; `u32::MAX` would
            // find no handler.
            tool: self.index.get(&call.name).copied().unwrap_or(u32::MAX),
            payload: call.args_json.clone(),
            reply: Some(tx),
        });
        rx
    }
}

/// A tool's error with its own code or status, as `dispatch.ts` sends it;
/// the runtime decides what of it the guest sees.
fn thrown(text: &str) -> ToolFailure {
    #[derive(serde::Deserialize)]
    struct Thrown {
        message: String,
        code: Option<String>,
        status: Option<f64>,
    }
    match serde_json::from_str::<Thrown>(text) {
        Ok(Thrown { message, code, status }) => ToolFailure::FailedWith {
            message,
            code,
            // Only a whole number can be a status; the runtime checks its range.
            status: status.filter(|s| s.fract() == 0.0 && s.abs() < 1e9).map(|s| s as i64),
        },
        Err(_) => ToolFailure::Failed("the tool's error could not be read".into()),
    }
}

impl ToolHost for NodeTools {
    fn call(&self, call: &ToolInvocation) -> BoxFuture<std::result::Result<String, ToolFailure>> {
        let reply = self.send(MessageKind::Call, call);
        Box::pin(async move {
            let Ok((reply, text)) = reply.await else {
                return Err(ToolFailure::Failed("the tool could not be reached".into()));
            };
            // The runtime checks the result's size and that it is JSON.
            match reply {
                Reply::Result => Ok(text),
                Reply::InvalidResult => Err(ToolFailure::InvalidResult(text)),
                Reply::InvalidArguments => Err(ToolFailure::InvalidArguments(text)),
                Reply::ToolErrorDetail => Err(thrown(&text)),
                Reply::ToolError | Reply::Approved | Reply::Refused => Err(ToolFailure::Failed(text)),
            }
        })
    }

    fn approve(&self, call: &ToolInvocation, capability_asks: bool) -> BoxFuture<bool> {
        let kind = if capability_asks { MessageKind::Approve } else { MessageKind::ApproveTool };
        let reply = self.send(kind, call);
        Box::pin(async move { matches!(reply.await, Ok((Reply::Approved, _))) })
    }

    fn record(&self, record: &ToolCallRecord) {
        if self.record_hook {
            // The run's log and the hook write records the same way.
            let (payload, texts) = cordon_runtime::records::to_json(std::slice::from_ref(record));
            let kind = if texts.is_empty() { MessageKind::Record } else { MessageKind::RecordText };
            self.dispatcher.send(Message { kind, tool: 0, payload, reply: None });
        }
    }
}

fn to_tools(
    policy: Option<String>,
    dispatch: Option<Dispatch<'_>>,
    record_hook: Option<bool>,
) -> Result<Option<Tools>> {
    let (Some(policy), Some(dispatch)) = (policy, dispatch) else {
        return Ok(None);
    };
    let spec = policy_spec(&policy).map_err(invalid)?;
    let index = spec
        .tools
        .iter()
        .zip(0u32..)
        .filter_map(|(tool, i)| Some((ToolName::parse(&tool.name).ok()?.into_string(), i)))
        .collect();
    let policy = Policy::compile(spec).map_err(|e| invalid(e.message))?;
    Ok(Some(Tools {
        policy: Arc::new(policy),
        host: Arc::new(NodeTools {
            dispatcher: driver::dispatcher(&dispatch)?,
            record_hook: record_hook.unwrap_or(false),
            index,
        }),
    }))
}

fn policy_spec(json: &str) -> std::result::Result<PolicySpec, String> {
    serde_json::from_str(json).map_err(|e| format!("invalid tools or capabilities: {e}"))
}

/// One capability as `describe()` states it (`Policy::grant_docs`).
#[napi(object)]
pub struct BindingGrant {
    pub method: String,
    /// The constraint's own readable form.
    pub constraints: Option<String>,
    pub params: Option<Vec<String>>,
    pub max_calls: Option<f64>,
    pub require_approval: bool,
}

/// What `describe()` says of a policy.
#[napi(object)]
pub struct BindingPolicyDoc {
    /// The capabilities, in the order calls consult them.
    pub grants: Vec<BindingGrant>,
    /// Registered tools no capability grants, sorted.
    pub ungranted: Vec<String>,
    /// Registered tools every call of which asks for approval, sorted.
    pub approval: Vec<String>,
}

/// Compiles `policy` (the JSON `create` takes) and states what it grants.
#[napi]
pub fn describe_policy(policy: String) -> Either<BindingPolicyDoc, BindingFailure> {
    let policy = match policy_spec(&policy).and_then(|spec| Policy::compile(spec).map_err(|e| e.message)) {
        Ok(policy) => policy,
        Err(message) => return Either::B(BindingFailure { code: ErrorCode::InvalidOptions, message }),
    };
    let ungranted =
        policy.tool_names().filter(|n| !policy.grants(n)).map(|n| n.as_str().to_owned()).collect();
    let approval = policy.approval_tools().map(|n| n.as_str().to_owned()).collect();
    Either::A(BindingPolicyDoc {
        grants: policy
            .grant_docs()
            .map(|g| BindingGrant {
                method: g.method.to_owned(),
                constraints: g.constraints,
                params: g.params.map(<[String]>::to_vec),
                max_calls: g.max_calls.map(|n| n as f64),
                require_approval: g.require_approval,
            })
            .collect(),
        ungranted,
        approval,
    })
}

/// The commands the shell runs (its builtins that are programs), sorted.
#[napi]
pub fn shell_commands() -> Vec<&'static str> {
    cordon_shell::builtins::PROGRAMS.to_vec()
}

/// A sandbox from the runtime, or its failure as data.
fn made(sandbox: std::result::Result<Sandbox, RunFailure>) -> Made {
    match sandbox {
        Ok(inner) => Either::A(NativeSandbox { inner: Arc::new(inner) }),
        Err(failure) => Either::B(failure.into()),
    }
}

/// The names of the values `NativeSandbox.limits()` returns, in order.
#[napi(ts_return_type = "Array<keyof BindingLimits>")]
pub fn limit_keys() -> Vec<&'static str> {
    Limits::default().named().iter().map(|&(name, _)| name).collect()
}

/// Cancels one run (wired to an `AbortSignal` by `js/`).
#[napi]
pub struct NativeCancel {
    flag: CancelFlag,
}

#[napi]
impl NativeCancel {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self { flag: CancelFlag::new() }
    }

    #[napi]
    pub fn cancel(&self) {
        self.flag.cancel();
    }
}

#[napi]
pub struct NativeSandbox {
    inner: Arc<Sandbox>,
}

#[napi]
impl NativeSandbox {
    /// Creates a sandbox: at once when the guest is ready, else a Promise
    /// (the guest is compiled or loaded on first use, off this thread).
    /// `policy` is the JSON of a `PolicySpec`; `dispatch` serves tool calls.
    #[napi(ts_return_type = "NativeSandbox | BindingFailure | Promise<NativeSandbox | BindingFailure>")]
    pub fn create<'env>(
        env: &'env Env,
        limits: Option<BindingLimits>,
        policy: Option<String>,
        #[napi(
            ts_arg_type = "((kind: MessageKind | Float64Array, tool: number, payload: string | string[], token: number) => void) | undefined | null"
        )]
        dispatch: Option<Dispatch<'env>>,
        record_hook: Option<bool>,
        deterministic: Option<BindingDeterminism>,
        mounts: Option<Vec<BindingMount>>,
    ) -> Result<Now<'env, Made>> {
        let limits = to_limits(limits)?;
        let tools = to_tools(policy, dispatch, record_hook)?;
        let determinism = to_determinism(deterministic)?;
        let mounts = to_mounts(mounts);
        let build = move || {
            made(
                Sandbox::builder()
                    .limits(limits)
                    .tools(tools)
                    .determinism(determinism)
                    .mounts(&mounts)
                    .build(),
            )
        };
        if cordon_runtime::engine::is_ready(determinism.is_some()) {
            Ok(Either::A(build()))
        } else {
            env.spawn_future(async move { Ok(build()) }).map(Either::B)
        }
    }

    /// Rebuilds a sandbox from `snapshot()` bytes, with the same arguments as `create`.
    #[napi(ts_return_type = "Promise<NativeSandbox | BindingFailure>")]
    #[allow(clippy::too_many_arguments)]
    pub fn restore<'env>(
        env: &'env Env,
        #[napi(ts_arg_type = "Uint8Array")] snapshot: Buffer,
        limits: Option<BindingLimits>,
        policy: Option<String>,
        #[napi(
            ts_arg_type = "((kind: MessageKind | Float64Array, tool: number, payload: string | string[], token: number) => void) | undefined | null"
        )]
        dispatch: Option<Dispatch<'env>>,
        record_hook: Option<bool>,
        deterministic: Option<BindingDeterminism>,
        mounts: Option<Vec<BindingMount>>,
        #[napi(ts_arg_type = "Uint8Array | undefined | null")] key: Option<Buffer>,
    ) -> Result<PromiseRaw<'env, Made>> {
        let limits = to_limits(limits)?;
        let tools = to_tools(policy, dispatch, record_hook)?;
        let determinism = to_determinism(deterministic)?;
        let mounts = to_mounts(mounts);
        let key = key.map(|k| k.to_vec());
        env.spawn_future(async move {
            Ok(made(
                Sandbox::builder()
                    .limits(limits)
                    .tools(tools)
                    .determinism(determinism)
                    .mounts(&mounts)
                    .restore(&snapshot, key.as_deref())
                    .await,
            ))
        })
    }

    /// Captures the session, with a MAC under `key` when given.
    #[napi]
    pub fn snapshot(
        &self,
        #[napi(ts_arg_type = "Uint8Array | undefined | null")] key: Option<Buffer>,
    ) -> Either<Buffer, BindingFailure> {
        match self.inner.snapshot_keyed(key.as_deref()) {
            Ok(bytes) => Either::A(bytes.into()),
            Err(failure) => Either::B(failure.into()),
        }
    }

    /// Starts the session over; returns why it could not.
    #[napi]
    pub fn reset(&self) -> Option<BindingFailure> {
        self.inner.reset().err().map(BindingFailure::from)
    }

    /// Runs code; never rejects for a sandbox failure (see `failureCode`).
    /// `cancel` is given when the run can be cancelled by an `AbortSignal`.
    /// `record` asks for a trace; `replay` (a trace's JSON) answers every
    /// nondeterministic input from it; `stdin` is the script's standard
    /// input. `leavePending` ends the run when the script's promise settles,
    /// dropping pending timers and calls (by default the run waits for
    /// them). The result comes at once when the run finishes in its first
    /// slice, else as a Promise.
    #[napi(ts_return_type = "BindingRunResult | Promise<BindingRunResult>")]
    #[allow(
        clippy::too_many_arguments,
        reason = "napi-rs passes each argument of the JavaScript call as one"
    )]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        code: String,
        language: String,
        cancel: Option<&NativeCancel>,
        record: Option<bool>,
        replay: Option<String>,
        #[napi(ts_arg_type = "Uint8Array | undefined | null")] stdin: Option<Buffer>,
        leave_pending: Option<bool>,
    ) -> Result<Now<'env, BindingRunResult>> {
        let Some(language) = Language::parse(&language) else {
            return Err(invalid(format!("unknown language {language:?}")));
        };
        let mode = match (record.unwrap_or(false), replay) {
            (_, Some(json)) => {
                let trace: Trace =
                    serde_json::from_str(&json).map_err(|e| invalid(format!("malformed trace: {e}")))?;
                if trace.version != TRACE_VERSION {
                    return Err(invalid(format!(
                        "the trace has version {}, expected {TRACE_VERSION}",
                        trace.version
                    )));
                }
                TraceMode::Replay(Box::new(trace))
            }
            (true, None) => TraceMode::Record,
            (false, None) => TraceMode::Off,
        };
        let sandbox = Arc::clone(&self.inner);
        let cancel = cancel.map(|c| c.flag.clone()).unwrap_or_default();
        let stdin = stdin.map(|b| b.to_vec()).unwrap_or_default();
        let leave_pending = leave_pending.unwrap_or(false);
        driver::start(env, async move {
            Ok(match sandbox.run_traced(&code, language, stdin, cancel, mode, leave_pending).await {
                Ok(report) => from_report(report, None),
                Err(failure) => from_failure(failure),
            })
        })
    }

    /// One file-system request (JSON of `FsRequest`, plus the bytes of a
    /// write); returns the encoded reply (u32 LE length, JSON, read bytes).
    #[napi]
    pub fn fs_request(
        &self,
        request: String,
        #[napi(ts_arg_type = "Uint8Array | undefined | null")] data: Option<Buffer>,
    ) -> Buffer {
        let data = data.as_deref().unwrap_or_default();
        self.inner.fs_request(request.as_bytes(), data).into()
    }

    /// The sandbox's effective limits as numbers, in the order of
    /// `limitKeys()`: one typed array costs a fraction of an object of
    /// eleven properties built through napi, which `Sandbox.create` pays for
    /// every sandbox.
    #[napi]
    pub fn limits(&self) -> Float64Array {
        let values = self.inner.limits().named();
        Float64Array::new(values.iter().map(|&(_, v)| v as f64).collect())
    }

    /// Restricts later runs to the language each is started in (no
    /// `shell()` from JavaScript, no `js` from the shell).
    #[napi]
    pub fn set_single_language(&self, single: bool) {
        self.inner.set_single_language(single);
    }

    #[napi]
    pub fn close(&self) {
        self.inner.close();
    }
}
