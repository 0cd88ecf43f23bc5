//! The state a store carries for the host (`HostState`), the limits wasmtime
//! consults (memory, epoch deadlines) and the `cordon` imports.

use std::{
    pin::Pin,
    sync::{Arc, Mutex},
    task::Poll,
    time::{Duration, Instant},
};

use cordon_protocol::abi;
use wasmtime::{
    AsContextMut, Caller, Extern, Linker, Memory, ResourceLimiter, StoreContextMut, UpdateDeadline,
};

use crate::{
    cpu::CpuMeter, entropy::Entropy, error::Stop, fs, mounts::Tree, output::Captured, sandbox::CancelFlag,
    tools::ToolState, trace::Tracer, ErrorCode,
};

/// Per-store host state.
pub(crate) struct HostState {
    pub(crate) limiter: MemoryLimiter,
    pub(crate) stdout: Captured,
    pub(crate) stderr: Captured,
    /// Deadlines of the run in progress; `None` between runs.
    pub(crate) run: Option<RunControl>,
    /// The guest's clock and random source.
    pub(crate) entropy: Entropy,
    pub(crate) tools: ToolState,
    /// The sandbox's file system (it outlives this store).
    pub(crate) fs: Arc<Mutex<Tree>>,
    /// A reply announced by `wait` or `fs`, copied out by `take`.
    pub(crate) taken: Option<Vec<u8>>,
    /// Record or replay of this run's nondeterministic inputs.
    pub(crate) tracer: Tracer,
    /// The guest's memory, once a host call looked it up.
    pub(crate) memory: Option<Memory>,
    /// Tool calls since the guest last yielded or waited (see
    /// [`CALLS_PER_SLICE`]).
    calls_in_slice: u32,
}

/// A guest that starts this many tool calls without waiting yields at its
/// next epoch check, as at a tick: whoever polls the run gets the calls so
/// far and can have them served while the guest goes on (the Node binding
/// serves them on the JavaScript thread while the run goes on in its
/// pool), instead of after the guest's whole slice.
const CALLS_PER_SLICE: u32 = 256;

impl HostState {
    pub(crate) fn new(memory_limit: usize, tools: ToolState, fs: Arc<Mutex<Tree>>, entropy: Entropy) -> Self {
        Self {
            limiter: MemoryLimiter { limit: memory_limit, hit: false },
            stdout: Captured::new(0),
            stderr: Captured::new(0),
            run: None,
            entropy,
            tools,
            fs,
            taken: None,
            tracer: Tracer::Off,
            memory: None,
            calls_in_slice: 0,
        }
    }

    /// Appends guest text to a stream; returns the bytes it may still take,
    /// or -1 once text was dropped from it.
    pub(crate) fn write(&mut self, stream: i32, text: &str) -> i64 {
        let out = match stream {
            abi::STREAM_STDERR => &mut self.stderr,
            _ => &mut self.stdout,
        };
        let room = out.push(text);
        if out.truncated() {
            -1
        } else {
            i64::try_from(room).unwrap_or(i64::MAX)
        }
    }
}

/// What the epoch callback checks while a run is in progress.
pub(crate) struct RunControl {
    pub(crate) deadline: Instant,
    /// Fires at `deadline` while the guest waits; one timer for the whole
    /// run, not one per wait.
    pub(crate) deadline_timer: Pin<Box<tokio::time::Sleep>>,
    pub(crate) cpu_limit_ns: u64,
    pub(crate) meter: Arc<CpuMeter>,
    pub(crate) cancel: CancelFlag,
}

/// Caps the guest's linear memory; growing past the cap traps (it is not a
/// `memory.grow` failure the guest could observe and work around).
pub(crate) struct MemoryLimiter {
    limit: usize,
    /// Set when the guest asked for more than the limit.
    pub(crate) hit: bool,
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit {
            self.hit = true;
            return Err(Stop(ErrorCode::MemoryLimit).into());
        }
        // Under `ulimit -v`, a growth that would leave the host too little
        // address space fails (the guest's allocation fails, catchably).
        let more = u64::try_from(desired.saturating_sub(current)).unwrap_or(u64::MAX);
        Ok(current == 0 || !crate::engine::short_of_address_space(more))
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // The guest's function table never grows; a bound keeps a rogue guest honest.
        Ok(desired <= 65_536)
    }

    fn instances(&self) -> usize {
        1
    }

    fn tables(&self) -> usize {
        1
    }

    fn memories(&self) -> usize {
        1
    }
}

/// Called by wasmtime on every epoch tick while the guest runs.
pub(crate) fn on_epoch(mut ctx: StoreContextMut<'_, HostState>) -> wasmtime::Result<UpdateDeadline> {
    ctx.data_mut().calls_in_slice = 0;
    let Some(run) = &ctx.data().run else {
        return Ok(UpdateDeadline::Continue(1));
    };
    if run.cancel.is_cancelled() {
        return Err(Stop(ErrorCode::Cancelled).into());
    }
    if Instant::now() >= run.deadline {
        return Err(Stop(ErrorCode::Timeout).into());
    }
    if run.meter.used_ns_in_poll() > run.cpu_limit_ns {
        return Err(Stop(ErrorCode::CpuLimit).into());
    }
    // Let other sandboxes on this executor thread make progress.
    Ok(UpdateDeadline::Yield(1))
}

/// The guest's exported linear memory (kept once found: the lookup by name
/// would otherwise run on every host call).
pub(crate) fn memory(caller: &mut Caller<'_, HostState>) -> Option<Memory> {
    if let Some(memory) = caller.data().memory {
        return Some(memory);
    }
    let memory = match caller.get_export(abi::EXPORT_MEMORY) {
        Some(Extern::Memory(memory)) => memory,
        _ => return None,
    };
    caller.data_mut().memory = Some(memory);
    Some(memory)
}

/// A guest pointer and length as a range, when it lies inside `len` bytes.
pub(crate) fn guest_range(ptr: i32, len: i32, memory_len: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(u32::try_from(ptr).ok()?).ok()?;
    let len = usize::try_from(u32::try_from(len).ok()?).ok()?;
    let end = start.checked_add(len)?;
    (end <= memory_len).then_some(start..end)
}

/// Two guest buffers (pointer, length) inside `data`; a trap when either
/// lies outside the guest's memory.
fn two_buffers(data: &[u8], a: (i32, i32), b: (i32, i32)) -> wasmtime::Result<(&[u8], &[u8])> {
    let get = |(ptr, len): (i32, i32)| guest_range(ptr, len, data.len()).and_then(|r| data.get(r));
    match (get(a), get(b)) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(wasmtime::Error::msg("an import's buffer lies outside guest memory")),
    }
}

/// Adds the `cordon` imports.
pub(crate) fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.func_wrap(
        abi::IMPORT_MODULE,
        abi::IMPORT_OUTPUT,
        |mut caller: Caller<'_, HostState>, stream: i32, ptr: i32, len: i32| -> wasmtime::Result<i64> {
            let memory =
                memory(&mut caller).ok_or_else(|| wasmtime::Error::msg("guest exports no memory"))?;
            let (data, state) = memory.data_and_store_mut(&mut caller);
            let range = guest_range(ptr, len, data.len())
                .ok_or_else(|| wasmtime::Error::msg("output buffer outside guest memory"))?;
            let bytes = data.get(range).unwrap_or_default();
            let text = String::from_utf8_lossy(bytes);
            Ok(state.write(stream, &text))
        },
    )?;
    linker.func_wrap(
        abi::IMPORT_MODULE,
        abi::IMPORT_TOOL_CALL,
        |mut caller: Caller<'_, HostState>, name_ptr: i32, name_len: i32, args_ptr: i32, args_len: i32| {
            let memory =
                memory(&mut caller).ok_or_else(|| wasmtime::Error::msg("guest exports no memory"))?;
            let (data, state) = memory.data_and_store_mut(&mut caller);
            let (name, args) = two_buffers(data, (name_ptr, name_len), (args_ptr, args_len))?;
            let id = match state.tracer.replay_call(name, args) {
                Some(id) => id,
                None => {
                    state.tracer.record_call(name, args);
                    if state.tracer.over_limit() {
                        return Err(Stop(ErrorCode::TraceLimit).into());
                    }
                    state.tools.start(name, args).ok_or(Stop(ErrorCode::ToolCallLimit))?
                }
            };
            state.calls_in_slice += 1;
            // Only inside a run, whose store yields at its deadline (a store
            // without the epoch callback would trap there).
            if state.calls_in_slice >= CALLS_PER_SLICE && state.run.is_some() {
                state.calls_in_slice = 0;
                // The deadline is the current epoch: the next check yields.
                caller.as_context_mut().set_epoch_deadline(0);
            }
            Ok(i32::try_from(id & 0x7fff_ffff).unwrap_or(0))
        },
    )?;
    linker.func_wrap(
        abi::IMPORT_MODULE,
        abi::IMPORT_FS,
        |mut caller: Caller<'_, HostState>, req_ptr: i32, req_len: i32, data_ptr: i32, data_len: i32| {
            let memory =
                memory(&mut caller).ok_or_else(|| wasmtime::Error::msg("guest exports no memory"))?;
            let (data, state) = memory.data_and_store_mut(&mut caller);
            let (request, bytes) = two_buffers(data, (req_ptr, req_len), (data_ptr, data_len))?;
            let HostState { fs: tree, tracer, entropy, .. } = state;
            let reply = {
                let mut tree = tree.lock().unwrap_or_else(|e| e.into_inner());
                fs::serve(&mut tree, request, bytes, || tracer.clock(|| entropy.now_ns(0)) / 1_000_000)
            };
            if state.tracer.over_limit() {
                return Err(Stop(ErrorCode::TraceLimit).into());
            }
            let len = i32::try_from(reply.len())?;
            state.taken = Some(reply);
            Ok(len)
        },
    )?;
    linker.func_wrap_async(
        abi::IMPORT_MODULE,
        abi::IMPORT_WAIT,
        |mut caller: Caller<'_, HostState>, (timeout_ms,): (i64,)| {
            Box::new(async move { wait(caller.data_mut(), timeout_ms).await })
        },
    )?;
    linker.func_wrap(
        abi::IMPORT_MODULE,
        abi::IMPORT_TAKE,
        |mut caller: Caller<'_, HostState>, ptr: i32, len: i32| {
            let memory =
                memory(&mut caller).ok_or_else(|| wasmtime::Error::msg("guest exports no memory"))?;
            let (data, state) = memory.data_and_store_mut(&mut caller);
            let bytes = state.taken.take().unwrap_or_default();
            let dst = guest_range(ptr, len, data.len())
                .and_then(|r| data.get_mut(r))
                .filter(|dst| dst.len() == bytes.len())
                .ok_or_else(|| wasmtime::Error::msg("take buffer does not match the announced event"))?;
            dst.copy_from_slice(&bytes);
            Ok(())
        },
    )?;
    Ok(())
}

/// Where a `wait` stops adding events that are already there to its batch
/// (one event, however large, always goes).
const BATCH_BYTES: usize = 64 * 1024;

/// The `wait` import: a batch of tool events (its length), a timeout (0), or
/// nothing to wait for (-1). The run's deadline and cancellation apply while waiting.
async fn wait(state: &mut HostState, timeout_ms: i64) -> wasmtime::Result<i32> {
    state.calls_in_slice = 0;
    if state.tracer.is_replay() {
        // The trace decides: no tool runs and no timer is waited for.
        let event = match state.tracer.replay_wait() {
            Some(Some(event)) => event,
            Some(None) => return Ok(0),
            None => return Ok(-1),
        };
        let mut batch = Vec::new();
        event.write_framed(&mut batch);
        let len = i32::try_from(batch.len())?;
        state.taken = Some(batch);
        return Ok(len);
    }
    let event = match state.tools.next_ready() {
        Some(event) => Some(event),
        None if !state.tools.has_pending() && timeout_ms < 0 => return Ok(-1),
        None => {
            let HostState { run, tools, .. } = state;
            let Some(run) = run else {
                return Err(wasmtime::Error::msg("wait outside a run"));
            };
            let has_pending = tools.has_pending();
            // `select!` makes every branch's future, enabled or not: a timer
            // only when the guest has one (most waits are for a tool).
            let timer =
                u64::try_from(timeout_ms).ok().map(|ms| tokio::time::sleep(Duration::from_millis(ms)));
            let timer = async move {
                match timer {
                    Some(timer) => timer.await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = tools.next_completed(), if has_pending => event,
                () = timer, if timeout_ms >= 0 => None,
                () = run.deadline_timer.as_mut() => return Err(Stop(ErrorCode::Timeout).into()),
                () = run.cancel.cancelled() => return Err(Stop(ErrorCode::Cancelled).into()),
            }
        }
    };
    let Some(first) = event else {
        state.tracer.record_wait(None);
        if state.tracer.over_limit() {
            return Err(Stop(ErrorCode::TraceLimit).into());
        }
        return Ok(0);
    };
    // The events already there go with the first, up to a batch's size: the
    // replies of a `Promise.all` that settled together cross in one wait
    // rather than one each. The guest takes them one by one, as it would
    // take them from separate waits, and a trace records each.
    let mut batch = Vec::with_capacity(64);
    let mut next = Some(first);
    while let Some(event) = next {
        state.tracer.record_wait(Some(&event));
        if state.tracer.over_limit() {
            return Err(Stop(ErrorCode::TraceLimit).into());
        }
        event.write_framed(&mut batch);
        if batch.len() >= BATCH_BYTES {
            break;
        }
        next = match state.tools.next_ready() {
            Some(event) => Some(event),
            None => std::future::poll_fn(|cx| Poll::Ready(state.tools.completed_now(cx))).await,
        };
    }
    let len = i32::try_from(batch.len())?;
    state.taken = Some(batch);
    Ok(len)
}
