//! A sandbox: one guest instance in its own store, run under [`Limits`].

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use cordon_policy::Budgets;
use cordon_protocol::{abi, decode, encode, Language, RunOutcome, RunRequest, ScriptError};
use cordon_vfs::{MemFs, Quotas};
use tokio::sync::Notify;
use wasmtime::{Global, Memory, Store, Trap, TypedFunc};

use crate::{
    cpu::{CpuMeter, Metered},
    engine,
    entropy::{Determinism, Entropy},
    error::Stop,
    host::{self, HostState, RunControl},
    mounts::{MountSpec, Tree},
    output::Captured,
    reaper, ticker,
    tools::{ToolCallRecord, ToolLimits, ToolState, Tools},
    trace::{Divergence, Trace, Tracer, TRACE_VERSION},
    trim,
    wasi::ProcExit,
    ErrorCode, Limits, RunFailure,
};

#[derive(Debug, Default)]
struct CancelInner {
    flag: AtomicBool,
    notify: Notify,
}

/// Cancels a run from another thread (an `AbortSignal`, `close()`).
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<CancelInner>);

impl CancelFlag {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.flag.store(true, Ordering::SeqCst);
        self.0.notify.notify_one();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.flag.load(Ordering::SeqCst)
    }

    /// Resolves once [`cancel`](Self::cancel) was called.
    pub(crate) async fn cancelled(&self) {
        while !self.is_cancelled() {
            self.0.notify.notified().await;
        }
    }
}

/// Whether a run records its nondeterministic inputs, or replays a trace.
#[derive(Debug, Clone, Default)]
pub enum TraceMode {
    #[default]
    Off,
    Record,
    Replay(Box<Trace>),
}

/// How a run ended when the sandbox did not stop it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// 0 when the script completed, 1 when it threw.
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The top-level `return` value (strings as they are, else JSON).
    pub value: Option<String>,
    /// The uncaught exception.
    pub error: Option<ScriptError>,
    /// Every tool call of the run, allowed or denied, in the order made.
    pub tool_calls: Vec<ToolCallRecord>,
    /// The recorded trace, for [`TraceMode::Record`].
    pub trace: Option<Trace>,
    /// The first mismatch, for [`TraceMode::Replay`].
    pub divergence: Option<Divergence>,
    pub stats: RunStats,
}

/// Measurements of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    /// Wall-clock time of the run, in milliseconds.
    pub wall_ms: f64,
    /// CPU time the guest used, in milliseconds.
    pub cpu_ms: f64,
    /// Size of the guest's linear memory at the end of the run, in bytes.
    pub memory_bytes: u64,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// The guest instance was created anew for this run because a limit ended
    /// the previous one: JavaScript globals from earlier runs are gone.
    pub instance_restarted: bool,
}

struct Guest {
    store: Store<HostState>,
    memory: Memory,
    /// The shadow-stack pointer, to tell a stack overflow from another
    /// out-of-bounds access after a trap.
    stack_pointer: Option<Global>,
    run: TypedFunc<i32, i64>,
}

#[derive(Default)]
struct Slot {
    guest: Option<Guest>,
    busy: bool,
    /// A previous instance was lost to a trap.
    lost: bool,
    closed: bool,
    current: Option<CancelFlag>,
    /// When the last run ended (or the memory was restored), whether a trim
    /// of the idle guest's memory is scheduled (see `trim`), and the offset
    /// its next pass starts at.
    last_end: Option<Instant>,
    trim_scheduled: bool,
    trim_from: usize,
}

impl Slot {
    /// Notes that the guest went idle now, and has the reaper trim it once
    /// it has stayed idle (unless that is already arranged).
    fn idle_from_now(&mut self, slot: &Arc<Mutex<Slot>>, pristine: Option<trim::Pristine>) {
        let now = Instant::now();
        self.last_end = Some(now);
        self.trim_from = 0;
        let Some(pristine) = pristine else { return };
        if !self.trim_scheduled {
            self.trim_scheduled = true;
            let slot = Arc::downgrade(slot);
            reaper::schedule(now + pristine.idle, Box::new(move || trim_when_idle(&slot, pristine)));
        }
    }
}

/// An isolated JavaScript environment with its own memory and limits.
pub struct Sandbox {
    limits: Limits,
    /// Shared with the reaper's trim task, which holds it weakly.
    slot: Arc<Mutex<Slot>>,
    tools: Option<Tools>,
    /// Capability budgets: they outlive runs and instance restarts.
    budgets: Arc<Mutex<Budgets>>,
    /// The file system: it outlives runs and instance restarts.
    fs: Arc<Mutex<Tree>>,
    /// Deterministic clock and randomness, when asked for.
    determinism: Option<Determinism>,
    /// Runs may not start the other language (`shell()`, `js`).
    single_language: std::sync::atomic::AtomicBool,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let mut slot = self.lock();
        if let Some(guest) = slot.guest.take() {
            reaper::discard(guest);
        }
    }
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox").field("limits", &self.limits).finish_non_exhaustive()
    }
}

/// Gives the slot back when a run ends, however it ends (also when its
/// future is dropped half-way, which loses the instance).
struct Lease<'a> {
    sandbox: &'a Sandbox,
    guest: Option<Guest>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let mut slot = self.sandbox.lock();
        slot.busy = false;
        slot.current = None;
        if slot.closed {
            if let Some(guest) = self.guest.take() {
                reaper::discard(guest);
            }
            return;
        }
        match self.guest.take() {
            Some(guest) => {
                slot.guest = Some(guest);
                slot.idle_from_now(&self.sandbox.slot, self.sandbox.pristine());
            }
            None => slot.lost = true,
        }
    }
}

/// The reaper's task for an idle sandbox: trims its guest's memory once no
/// run has ended for `pristine.idle`, a pass at a time; otherwise asks to be run
/// again then.
fn trim_when_idle(slot: &std::sync::Weak<Mutex<Slot>>, pristine: trim::Pristine) -> Option<Instant> {
    let idle = pristine.idle;
    let slot = slot.upgrade()?;
    let mut slot = match slot.try_lock() {
        Ok(slot) => slot,
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
        // Someone is starting or ending a run: look again later.
        Err(std::sync::TryLockError::WouldBlock) => return Some(Instant::now() + idle),
    };
    if slot.busy {
        return Some(Instant::now() + idle);
    }
    if let Some(at) = slot.last_end.map(|end| end + idle).filter(|at| *at > Instant::now()) {
        return Some(at);
    }
    // Cleared first: should the pass panic, a later run schedules another.
    slot.trim_scheduled = false;
    let (base, len) = slot.guest.as_ref()?.memory_range();
    let mut dropped = 0;
    // SAFETY: `trim`'s contract. `base` and `len` were just read from the store of the guest in
    // `slot.guest`, a wasmtime linear memory (page-aligned, whole 64 KiB pages). The store is
    // reachable only through the slot's lock, held here until the call returns (a run takes the
    // guest out of the slot under it first), so nothing reads or writes that memory meanwhile.
    match unsafe { trim::trim(pristine, base, len, slot.trim_from, &mut dropped) } {
        trim::Pass::Done => None,
        trim::Pass::From(offset) => {
            // Let runs and closes take the slot between passes.
            slot.trim_from = offset;
            slot.trim_scheduled = true;
            Some(Instant::now() + Duration::from_millis(1))
        }
    }
}

/// How a sandbox is made: [`Sandbox::builder`], the settings that differ
/// from the defaults, then [`build`](Self::build) or
/// [`restore`](Self::restore). The defaults: [`Limits::default`], no tools
/// (every call is denied), the real clock and randomness, and no mounts.
#[derive(Default)]
pub struct SandboxBuilder<'a> {
    limits: Limits,
    tools: Option<Tools>,
    determinism: Option<Determinism>,
    mounts: &'a [MountSpec],
}

impl<'a> SandboxBuilder<'a> {
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The tools the guest may call, as their policy allows.
    pub fn tools(mut self, tools: impl Into<Option<Tools>>) -> Self {
        self.tools = tools.into();
        self
    }

    /// A deterministic clock and randomness: a fresh instance then starts
    /// from the same state.
    pub fn determinism(mut self, determinism: impl Into<Option<Determinism>>) -> Self {
        self.determinism = determinism.into();
        self
    }

    /// Host directories mounted into the tree.
    pub fn mounts(mut self, mounts: &'a [MountSpec]) -> Self {
        self.mounts = mounts;
        self
    }

    /// Creates the sandbox after checking its settings. The guest is
    /// instantiated by the first run.
    pub fn build(self) -> Result<Sandbox, RunFailure> {
        Sandbox::build(self.limits, self.tools, self.determinism, self.mounts)
    }

    /// Rebuilds a session from [`Sandbox::snapshot`] bytes, its MAC checked
    /// against `key` when one is given. The snapshot holds the in-memory
    /// files, overlays included, not mounts. The tools' policy must be the
    /// one the snapshot was taken with (the same digest), so that its
    /// budgets are those of the same capabilities.
    pub async fn restore(self, bytes: &[u8], key: Option<&[u8]>) -> Result<Sandbox, RunFailure> {
        Sandbox::restore(bytes, self.limits, self.tools, self.determinism, self.mounts, key).await
    }
}

impl Sandbox {
    /// A sandbox with `limits` and the other defaults of [`SandboxBuilder`].
    pub fn new(limits: Limits) -> Result<Self, RunFailure> {
        Self::builder().limits(limits).build()
    }

    /// Starts a [`SandboxBuilder`], with the defaults.
    pub fn builder<'a>() -> SandboxBuilder<'a> {
        SandboxBuilder::default()
    }

    fn build(
        limits: Limits,
        tools: Option<Tools>,
        determinism: Option<Determinism>,
        mounts: &[MountSpec],
    ) -> Result<Self, RunFailure> {
        limits.validate()?;
        engine::shared(determinism.is_some())?;
        let budgets = match &tools {
            Some(tools) => Budgets::new(&tools.policy),
            None => Budgets::new(
                &cordon_policy::Policy::compile(Default::default())
                    .map_err(|e| RunFailure::new(ErrorCode::Internal, format!("empty policy: {e}")))?,
            ),
        };
        let budgets = Arc::new(Mutex::new(budgets.with_run_max(limits.tool_calls)));
        let quotas = Quotas {
            total_bytes: limits.fs_bytes,
            files: limits.fs_files,
            file_bytes: limits.fs_bytes.min(Quotas::default().file_bytes),
            ..Quotas::default()
        };
        let tree = Tree::new(quotas, mounts).map_err(|e| RunFailure::new(ErrorCode::InvalidOptions, e))?;
        let fs = Arc::new(Mutex::new(tree));
        Ok(Self {
            limits,
            slot: Arc::default(),
            tools,
            budgets,
            fs,
            determinism,
            single_language: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Deterministic sandboxes count CPU in fuel.
    fn metered(&self) -> bool {
        self.determinism.is_some()
    }

    /// Starts the session over: a fresh guest (no globals), an empty file
    /// system and unused budgets. Refused while a run is in progress.
    pub fn reset(&self) -> Result<(), RunFailure> {
        let mut slot = self.lock();
        if slot.closed {
            return Err(RunFailure::new(ErrorCode::Closed, "the sandbox is closed"));
        }
        if slot.busy {
            return Err(RunFailure::new(ErrorCode::Busy, "a run is in progress on this sandbox"));
        }
        if let Some(guest) = slot.guest.take() {
            reaper::discard(guest);
        }
        slot.lost = false;
        self.fs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reset()
            .map_err(|e| RunFailure::new(ErrorCode::InvalidOptions, e))?;
        let mut budgets = self.budgets.lock().unwrap_or_else(|e| e.into_inner());
        let zero = vec![0; budgets.used().len()];
        budgets.restore_used(&zero);
        Ok(())
    }

    /// Captures the session: file system, budgets and the guest's memory
    /// (its JavaScript heap). Refused while a run is in progress.
    pub fn snapshot(&self) -> Result<Vec<u8>, RunFailure> {
        self.snapshot_keyed(None)
    }

    /// [`snapshot`](Self::snapshot), with a MAC under `key` (at least 16
    /// bytes) that [`SandboxBuilder::restore`] checks
    /// when given the same key.
    pub fn snapshot_keyed(&self, key: Option<&[u8]>) -> Result<Vec<u8>, RunFailure> {
        let slot = self.lock();
        if slot.closed {
            return Err(RunFailure::new(ErrorCode::Closed, "the sandbox is closed"));
        }
        if slot.busy {
            return Err(RunFailure::new(ErrorCode::Busy, "a run is in progress on this sandbox"));
        }
        let memory = slot.guest.as_ref().map(|g| g.memory.data(&g.store).to_vec()).unwrap_or_default();
        let fs = self.fs.lock().unwrap_or_else(|e| e.into_inner()).memory().export();
        let budgets = self.budgets.lock().unwrap_or_else(|e| e.into_inner()).used().to_vec();
        let policy = policy_digest(self.tools.as_ref());
        crate::snapshot::encode(&crate::snapshot::Parts { policy, fs, budgets, memory }, key)
    }

    async fn restore(
        bytes: &[u8],
        limits: Limits,
        tools: Option<Tools>,
        determinism: Option<Determinism>,
        mounts: &[MountSpec],
        key: Option<&[u8]>,
    ) -> Result<Self, RunFailure> {
        let parts = crate::snapshot::decode(bytes, policy_digest(tools.as_ref()), key)?;
        let sandbox = Self::build(limits, tools, determinism, mounts)?;
        {
            let mut tree = sandbox.fs.lock().unwrap_or_else(|e| e.into_inner());
            let quotas = *tree.memory().quotas();
            let fs = MemFs::import(&parts.fs, quotas).map_err(|e| {
                RunFailure::new(ErrorCode::InvalidSnapshot, format!("the snapshot's files do not fit: {e}"))
            })?;
            tree.replace_memory(fs);
        }
        let budgets_fit = {
            let mut budgets = sandbox.budgets.lock().unwrap_or_else(|e| e.into_inner());
            parts.budgets.is_empty() || budgets.restore_used(&parts.budgets)
        };
        if !budgets_fit {
            return Err(RunFailure::new(
                ErrorCode::InvalidSnapshot,
                "the snapshot was taken with other capabilities; restore it with the same ones",
            ));
        }
        if !parts.memory.is_empty() {
            if u64::try_from(parts.memory.len()).unwrap_or(u64::MAX) > limits.memory_bytes {
                return Err(RunFailure::new(
                    ErrorCode::InvalidSnapshot,
                    format!(
                        "the snapshot's memory of {} bytes exceeds limits.memoryBytes",
                        parts.memory.len()
                    ),
                ));
            }
            let mut guest = sandbox.instantiate().await?;
            let have = guest.memory.data_size(&guest.store);
            let page = 65_536;
            if parts.memory.len() % page != 0 || parts.memory.len() < have {
                return Err(RunFailure::new(
                    ErrorCode::InvalidSnapshot,
                    "the snapshot's memory has a wrong size",
                ));
            }
            let grow = u64::try_from((parts.memory.len() - have) / page).unwrap_or(u64::MAX);
            guest.memory.grow(&mut guest.store, grow).map_err(|e| {
                RunFailure::new(ErrorCode::InvalidSnapshot, format!("cannot restore the memory: {e}"))
            })?;
            guest.memory.data_mut(&mut guest.store).copy_from_slice(&parts.memory);
            let pristine = sandbox.pristine();
            let mut slot = sandbox.lock();
            slot.guest = Some(guest);
            // Every page of the copy is the sandbox's own until trimmed.
            slot.idle_from_now(&sandbox.slot, pristine);
        }
        Ok(sandbox)
    }

    /// Serves one encoded file-system request from the embedder (see
    /// [`crate::fs::serve`]); works whether or not a run is in progress.
    pub fn fs_request(&self, request: &[u8], data: &[u8]) -> Vec<u8> {
        let mut tree = self.fs.lock().unwrap_or_else(|e| e.into_inner());
        // A deterministic sandbox's files written from outside get its
        // clock's start, never the host's time.
        let start = self.determinism.as_ref().map(|d| d.start_ms);
        crate::fs::serve(&mut tree, request, data, || start.unwrap_or_else(crate::fs::wall_ms))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the sandbox: a run in progress is cancelled (it fails with
    /// `CLOSED`), later runs fail with `CLOSED`, and the instance is freed.
    pub fn close(&self) {
        let mut slot = self.lock();
        slot.closed = true;
        if let Some(guest) = slot.guest.take() {
            reaper::discard(guest);
        }
        if let Some(current) = &slot.current {
            current.cancel();
        }
    }

    /// Gives back, now, the memory pages the guest wrote but left as they
    /// were in the image (the reaper does it once the sandbox has been idle
    /// for 100 ms); returns how many. `None` when there is nothing to trim
    /// (no instance yet, a run in progress) or it cannot be done here (a
    /// deterministic sandbox, or a kernel without `PAGEMAP_SCAN`).
    pub fn trim_memory(&self) -> Option<usize> {
        let pristine = self.pristine()?;
        let slot = self.lock();
        let (base, len) = slot.guest.as_ref().filter(|_| !slot.busy)?.memory_range();
        let (mut dropped, mut from) = (0, 0);
        // SAFETY: `trim`'s contract. `base` and `len` were just read from the store of the guest
        // in `slot.guest`, a wasmtime linear memory (page-aligned, whole 64 KiB pages). The store
        // is reachable only through the slot's lock, held by `slot` for the whole loop (a run takes
        // the guest out of the slot under it first), so nothing reads or writes that memory meanwhile.
        while let trim::Pass::From(next) = unsafe { trim::trim(pristine, base, len, from, &mut dropped) } {
            from = next;
        }
        Some(dropped)
    }

    /// The guest memory pages this sandbox holds on its own (written since
    /// its instance was made, not shared with the image); `None` as for
    /// [`trim_memory`](Self::trim_memory). For tests and diagnostics.
    pub fn private_pages(&self) -> Option<usize> {
        self.pristine()?;
        let slot = self.lock();
        let (base, len) = slot.guest.as_ref().filter(|_| !slot.busy)?.memory_range();
        trim::private_pages(base, len)
    }

    fn pristine(&self) -> Option<trim::Pristine> {
        if self.metered() {
            return None;
        }
        engine::shared(false).ok()?.pristine
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Runs `code` to completion. Errors of the script are part of the
    /// report; a limit, a cancellation or a closed sandbox is a [`RunFailure`]
    /// that carries the output produced until then.
    /// Restricts later runs to the language they are started in: a
    /// JavaScript run has no `shell()`, a shell run no `js`.
    pub fn set_single_language(&self, single: bool) {
        self.single_language.store(single, std::sync::atomic::Ordering::Relaxed);
    }

    pub async fn run(
        &self,
        code: &str,
        language: Language,
        cancel: CancelFlag,
    ) -> Result<RunReport, RunFailure> {
        self.run_traced(code, language, Vec::new(), cancel, TraceMode::Off, false).await
    }

    /// [`run`](Self::run) with `stdin` as the script's standard input,
    /// recording its nondeterministic inputs or replaying a trace (no tool is
    /// called then; the trace answers). `stdin` counts against
    /// `limits.codeBytes`, like the code.
    pub async fn run_traced(
        &self,
        code: &str,
        language: Language,
        stdin: Vec<u8>,
        cancel: CancelFlag,
        mode: TraceMode,
        leave_pending: bool,
    ) -> Result<RunReport, RunFailure> {
        // A replay runs with the recorded run's own settings.
        let (stdin, leave_pending) = match &mode {
            TraceMode::Replay(trace) => (trace.stdin_bytes(), trace.leave_pending),
            _ => (stdin, leave_pending),
        };
        let code_len = u64::try_from(code.len()).unwrap_or(u64::MAX);
        if code_len > self.limits.code_bytes {
            return Err(RunFailure::new(
                ErrorCode::InvalidCode,
                format!(
                    "the code is {code_len} bytes, over the limit of {} (limits.codeBytes)",
                    self.limits.code_bytes
                ),
            ));
        }
        let stdin_len = u64::try_from(stdin.len()).unwrap_or(u64::MAX);
        if stdin_len > self.limits.code_bytes {
            return Err(RunFailure::new(
                ErrorCode::InvalidOptions,
                format!(
                    "stdin is {stdin_len} bytes, over the limit of {} (limits.codeBytes)",
                    self.limits.code_bytes
                ),
            ));
        }
        let (guest, restarted) = {
            let mut slot = self.lock();
            if slot.closed {
                return Err(RunFailure::new(ErrorCode::Closed, "the sandbox is closed"));
            }
            if slot.busy {
                return Err(RunFailure::new(ErrorCode::Busy, "another run is in progress on this sandbox"));
            }
            if cancel.is_cancelled() {
                return Err(RunFailure::new(ErrorCode::Cancelled, "the run was cancelled before it started"));
            }
            slot.busy = true;
            slot.current = Some(cancel.clone());
            let restarted = slot.lost && slot.guest.is_none();
            slot.lost = false;
            (slot.guest.take(), restarted)
        };
        let mut lease = Lease { sandbox: self, guest: None };
        let started = Instant::now();
        let mut guest = match guest {
            Some(guest) => guest,
            None => self.instantiate().await?,
        };
        let tools = match &mode {
            TraceMode::Replay(trace) => trace.tool_names.clone(),
            _ => guest.store.data().tools.names(),
        };
        let tool_docs = match &mode {
            TraceMode::Replay(_) => Vec::new(),
            _ => guest.store.data().tools.docs(),
        };
        guest.store.data_mut().tracer = match mode {
            TraceMode::Off => Tracer::Off,
            TraceMode::Record => {
                let mut trace = Trace {
                    version: TRACE_VERSION,
                    tool_names: tools.clone(),
                    max_bytes: self.limits.trace_bytes,
                    ..Trace::default()
                };
                trace.note_run(&stdin, leave_pending);
                Tracer::Record(Box::new(trace))
            }
            TraceMode::Replay(trace) => Tracer::replay(*trace),
        };
        let request = RunRequest {
            language,
            code: code.to_owned(),
            output_limit: self.limits.output_bytes,
            tools,
            tool_docs,
            single_language: self.single_language.load(std::sync::atomic::Ordering::Relaxed),
            stdin,
            leave_pending,
        };
        let meter = Arc::new(CpuMeter::default());
        let result = self.call(&mut guest, &request, &meter, &cancel, started).await;

        let state = guest.store.data_mut();
        state.run = None;
        let tracer = std::mem::take(&mut state.tracer);
        let tool_calls = state.tools.end_run();
        let stdout = std::mem::take(&mut state.stdout);
        let stderr = std::mem::take(&mut state.stderr);
        let memory_hit = state.limiter.hit;
        let stats = RunStats {
            wall_ms: started.elapsed().as_secs_f64() * 1000.0,
            cpu_ms: Duration::from_nanos(meter.used_ns()).as_secs_f64() * 1000.0,
            memory_bytes: u64::try_from(guest.memory.data_size(&guest.store)).unwrap_or(u64::MAX),
            stdout_truncated: stdout.truncated(),
            stderr_truncated: stderr.truncated(),
            instance_restarted: restarted,
        };
        let mut report = RunReport {
            exit_code: 0,
            stdout: stdout.finish(),
            stderr: stderr.finish(),
            value: None,
            error: None,
            tool_calls,
            trace: None,
            divergence: None,
            stats,
        };
        match result {
            Ok(outcome) => {
                lease.guest = Some(guest);
                // The value and the error are output too: each is cut at
                // `limits.outputBytes`, like a stream.
                let limit = usize::try_from(self.limits.output_bytes).unwrap_or(usize::MAX);
                report.exit_code = outcome.exit_code;
                report.value = outcome.value.map(|v| capped(v, limit));
                report.error = outcome.error.map(|e| ScriptError {
                    name: capped(e.name, limit),
                    message: capped(e.message, limit),
                    stack: capped(e.stack, limit),
                });
                (report.trace, report.divergence) =
                    tracer.finish(&report.stdout, &report.stderr, report.exit_code);
                Ok(report)
            }
            Err(err) => {
                let stack_overflowed = guest.stack_overflowed();
                // The instance may be in any state after a trap: drop it
                // (on the reaper's thread, like a closed sandbox's).
                reaper::discard(guest);
                let (code, message) =
                    classify(&err, memory_hit, stack_overflowed, &self.limits, self.is_closed());
                report.exit_code = 1;
                Err(RunFailure { code, message, partial: Some(Box::new(report)) })
            }
        }
    }

    /// Takes a slot in the first part of the pool. When it is full, waits
    /// for the slots of sandboxes closed a moment ago (they may still be on
    /// their way back) and tries again; then takes one in the rest of the
    /// pool, whose engine is made, off this thread, when first needed.
    async fn instantiate(&self) -> Result<Guest, RunFailure> {
        let metered = self.metered();
        let first = engine::shared(metered)?;
        let mut attempt = self.instantiate_with(first).await;
        if matches!(&attempt, Err(failure) if failure.code == ErrorCode::TooManySandboxes) {
            reaper::drain();
            attempt = self.instantiate_with(first).await;
        }
        let full = match attempt {
            Err(failure) if failure.code == ErrorCode::TooManySandboxes => failure,
            other => return other,
        };
        match engine::rest_off_thread(metered).await {
            Ok(Some(rest)) => self.instantiate_with(rest).await,
            Ok(None) => Err(full),
            Err(cannot) => Err(RunFailure::new(
                ErrorCode::TooManySandboxes,
                format!("{}; the rest of the pool cannot be made: {}", full.message, cannot.message),
            )),
        }
    }

    async fn instantiate_with(&self, shared: &engine::Shared) -> Result<Guest, RunFailure> {
        let memory_limit = usize::try_from(self.limits.memory_bytes).unwrap_or(usize::MAX);
        let tool_limits = ToolLimits {
            timeout: Duration::from_millis(self.limits.tool_timeout_ms),
            result_bytes: usize::try_from(self.limits.tool_result_bytes).unwrap_or(usize::MAX),
        };
        // What the instance takes must leave the host its headroom.
        if engine::short_of_address_space(shared.instance_space) {
            return Err(no_address_space());
        }
        let tools = self.tools.clone().map(|t| (t, Arc::clone(&self.budgets)));
        let entropy = Entropy::new(self.determinism);
        let state =
            HostState::new(memory_limit, ToolState::new(tools, tool_limits), Arc::clone(&self.fs), entropy);
        let mut store = Store::new(&shared.engine, state);
        if self.metered() {
            // Instantiation and the version check are not the script's:
            // each run sets its own budget.
            store
                .set_fuel(u64::MAX)
                .map_err(|e| RunFailure::new(ErrorCode::Internal, format!("fuel: {e}")))?;
        }
        store.limiter(|state| &mut state.limiter);
        store.epoch_deadline_callback(host::on_epoch);
        store.set_epoch_deadline(1);
        let internal =
            |what: &str, e: wasmtime::Error| RunFailure::new(ErrorCode::Internal, format!("{what}: {e}"));
        let instance = shared.pre.instantiate_async(&mut store).await.map_err(|e| {
            if e.downcast_ref::<wasmtime::PoolConcurrencyLimitError>().is_some() {
                RunFailure::new(
                    ErrorCode::TooManySandboxes,
                    format!(
                        "every instance slot of this process is in use ({} sandboxes hold one); \
                         close sandboxes or raise CORDON_POOL_SIZE",
                        engine::pool_size()
                    ),
                )
            } else if out_of_address_space(&e) {
                no_address_space()
            } else if store.data().limiter.hit {
                RunFailure::new(
                    ErrorCode::MemoryLimit,
                    "the memory limit is too small for the guest to start",
                )
            } else {
                internal("cannot instantiate the guest", e)
            }
        })?;
        let memory = instance
            .get_memory(&mut store, abi::EXPORT_MEMORY)
            .ok_or_else(|| RunFailure::new(ErrorCode::Internal, "the guest exports no memory"))?;
        let version: TypedFunc<(), i32> = instance
            .get_typed_func(&mut store, abi::EXPORT_VERSION)
            .map_err(|e| internal("the guest has no version export", e))?;
        let found =
            version.call_async(&mut store, ()).await.map_err(|e| internal("version check failed", e))?;
        if u32::try_from(found).ok() != Some(cordon_protocol::PROTOCOL_VERSION) {
            return Err(RunFailure::new(
                ErrorCode::Internal,
                format!("the guest speaks protocol {found}, the host {}", cordon_protocol::PROTOCOL_VERSION),
            ));
        }
        let run = instance
            .get_typed_func(&mut store, abi::EXPORT_RUN)
            .map_err(|e| internal("the guest has no run", e))?;
        let stack_pointer = instance.get_global(&mut store, abi::EXPORT_STACK_POINTER);
        Ok(Guest { store, memory, stack_pointer, run })
    }

    /// Sends one request and waits for its outcome under the run's limits.
    async fn call(
        &self,
        guest: &mut Guest,
        request: &RunRequest,
        meter: &Arc<CpuMeter>,
        cancel: &CancelFlag,
        started: Instant,
    ) -> wasmtime::Result<RunOutcome> {
        let output_limit = usize::try_from(self.limits.output_bytes).unwrap_or(usize::MAX);
        let state = guest.store.data_mut();
        state.stdout = Captured::new(output_limit);
        state.stderr = Captured::new(output_limit);
        state.limiter.hit = false;
        state.tools.begin_run();
        // A deterministic run is metered in fuel, which counts the same on
        // every run; thread CPU time does not, so it is not a limit there.
        let metered = self.metered();
        if metered {
            guest.store.set_fuel(self.limits.cpu_ms.saturating_mul(engine::FUEL_PER_CPU_MS))?;
        }
        let state = guest.store.data_mut();
        let deadline = started + Duration::from_millis(self.limits.timeout_ms);
        state.run = Some(RunControl {
            deadline,
            deadline_timer: Box::pin(tokio::time::sleep_until(deadline.into())),
            cpu_limit_ns: if metered { u64::MAX } else { self.limits.cpu_ms.saturating_mul(1_000_000) },
            meter: Arc::clone(meter),
            cancel: cancel.clone(),
        });
        let Some(_active) = ticker::Active::new(guest.store.engine()) else {
            return Err(wasmtime::Error::msg("the epoch ticker thread could not start"));
        };
        guest.store.set_epoch_deadline(1);

        // The guest copies the request in with `take`: one call per run.
        let bytes = encode(request)?;
        let len = i32::try_from(bytes.len())?;
        guest.store.data_mut().taken = Some(bytes);
        let packed = Metered::new(guest.run.call_async(&mut guest.store, len), Arc::clone(meter)).await?;
        // The epoch callback checks the budget at each tick; CPU spent after
        // the last one counts too.
        if !metered && meter.used_ns() > self.limits.cpu_ms.saturating_mul(1_000_000) {
            return Err(Stop(ErrorCode::CpuLimit).into());
        }

        let out_ptr = i32::try_from((packed >> 32) & 0xffff_ffff).unwrap_or(-1);
        let out_len = i32::try_from(packed & 0xffff_ffff).unwrap_or(-1);
        let data = guest.memory.data(&guest.store);
        let bytes = host::guest_range(out_ptr, out_len, data.len())
            .and_then(|r| data.get(r))
            .ok_or_else(|| wasmtime::Error::msg("the guest returned an outcome outside its memory"))?;
        Ok(decode(bytes)?)
    }
}

impl Drop for Guest {
    fn drop(&mut self) {
        if engine::pooled() {
            let (base, len) = self.memory_range();
            // SAFETY: `coalesce`'s contract: `base..base + len` is this instance's linear memory
            // (wasmtime's, page-aligned, whole wasm pages), still mapped as the store is dropped
            // after this; being dropped, the instance runs nothing, and no reference into its
            // memory is alive (every borrow of the store has ended).
            unsafe { trim::coalesce(base, len) };
        }
    }
}

impl Guest {
    /// Where the guest's linear memory is in this process, and its size.
    fn memory_range(&self) -> (*mut u8, usize) {
        (self.memory.data_ptr(&self.store), self.memory.data_size(&self.store))
    }

    /// Whether the shadow-stack pointer ran off the bottom of the stack (it
    /// wraps past address 0 to beyond the end of memory).
    fn stack_overflowed(&mut self) -> bool {
        let Some(global) = self.stack_pointer else { return false };
        let sp = global.get(&mut self.store).i32().map(|v| v as u32 as usize).unwrap_or(0);
        sp < 1024 || sp > self.memory.data_size(&self.store)
    }
}

/// Maps the error of a failed guest call to its code and message.
/// The digest a snapshot records for `tools`' policy (zeros without tools).
/// Whether `e` is the kernel refusing address space (`ENOMEM` from `mmap`),
/// as a finite `RLIMIT_AS` does once the sandboxes' memories fill it.
fn no_address_space() -> RunFailure {
    RunFailure::new(
        ErrorCode::TooManySandboxes,
        "the process's address space (ulimit -v) has no room for another sandbox's memory; \
         close sandboxes or raise the limit",
    )
}

#[cfg(unix)]
fn out_of_address_space(e: &wasmtime::Error) -> bool {
    e.chain()
        .filter_map(|cause| cause.downcast_ref::<rustix::io::Errno>())
        .any(|errno| *errno == rustix::io::Errno::NOMEM)
}

#[cfg(not(unix))]
fn out_of_address_space(_: &wasmtime::Error) -> bool {
    false
}

fn policy_digest(tools: Option<&Tools>) -> [u8; 32] {
    tools.map_or([0; 32], |t| t.policy.digest())
}

/// `text`, or its first `limit` bytes (at a character boundary) and the
/// output marker.
fn capped(text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[cordon: output truncated at {limit} bytes]", text.get(..end).unwrap_or_default())
}

fn classify(
    err: &wasmtime::Error,
    memory_hit: bool,
    stack_overflowed: bool,
    limits: &Limits,
    closed: bool,
) -> (ErrorCode, String) {
    let stop = err.downcast_ref::<Stop>().map(|s| s.0);
    let code = match (stop, err.downcast_ref::<Trap>()) {
        (Some(ErrorCode::Cancelled), _) if closed => ErrorCode::Closed,
        (Some(code), _) => code,
        _ if memory_hit => ErrorCode::MemoryLimit,
        (None, Some(Trap::StackOverflow)) => ErrorCode::StackOverflow,
        (None, Some(Trap::OutOfFuel)) => ErrorCode::CpuLimit,
        // QuickJS's shadow stack sits at the bottom of linear memory: running
        // off it wraps to an address past the end of memory. Any other
        // out-of-bounds access is a fault of the guest.
        (None, Some(Trap::MemoryOutOfBounds)) if stack_overflowed => ErrorCode::StackOverflow,
        _ => ErrorCode::Internal,
    };
    let message = match code {
        ErrorCode::Timeout => {
            format!("the run exceeded its time limit of {} ms (limits.timeoutMs)", limits.timeout_ms)
        }
        ErrorCode::CpuLimit if matches!(err.downcast_ref::<Trap>(), Some(Trap::OutOfFuel)) => format!(
            "the run exceeded its CPU limit of {} ms (limits.cpuMs), metered as {} units of fuel in deterministic mode",
            limits.cpu_ms,
            limits.cpu_ms.saturating_mul(engine::FUEL_PER_CPU_MS)
        ),
        ErrorCode::CpuLimit => {
            format!("the run exceeded its CPU limit of {} ms (limits.cpuMs)", limits.cpu_ms)
        }
        ErrorCode::MemoryLimit => {
            format!("the run exceeded its memory limit of {} bytes (limits.memoryBytes)", limits.memory_bytes)
        }
        ErrorCode::StackOverflow => "the run overflowed its stack (too deep recursion)".to_string(),
        ErrorCode::ToolCallLimit => format!(
            "the run kept calling tools after {} of its calls were denied",
            crate::tools::MAX_DENIED_PER_RUN
        ),
        ErrorCode::TraceLimit => {
            format!("the run's trace grew past {} bytes (limits.traceBytes)", limits.trace_bytes)
        }
        ErrorCode::Cancelled => "the run was cancelled".to_string(),
        ErrorCode::Closed => "the sandbox was closed during the run".to_string(),
        _ => match (err.downcast_ref::<Trap>(), err.downcast_ref::<ProcExit>()) {
            (Some(trap), _) => format!("the guest failed: {trap}"),
            (None, Some(exit)) => format!("the guest failed: {exit}"),
            (None, None) => format!("the guest failed: {}", err.root_cause()),
        },
    };
    (code, message)
}
