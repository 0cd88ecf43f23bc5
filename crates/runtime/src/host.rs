//! The state a store carries for the host (`HostState`), the limits wasmtime
//! consults (memory, epoch deadlines) and the `cordon` imports.

use std::{sync::Arc, time::Instant};

use cordon_protocol::abi;
use wasmtime::{Caller, Extern, Linker, Memory, ResourceLimiter, StoreContextMut, UpdateDeadline};

use crate::{cpu::CpuMeter, error::Stop, output::Captured, sandbox::CancelFlag, ErrorCode};

/// Per-store host state.
pub(crate) struct HostState {
    pub(crate) limiter: MemoryLimiter,
    pub(crate) stdout: Captured,
    pub(crate) stderr: Captured,
    /// Deadlines of the run in progress; `None` between runs.
    pub(crate) run: Option<RunControl>,
    /// Origin of the guest's monotonic clock.
    pub(crate) clock_origin: Instant,
}

impl HostState {
    pub(crate) fn new(memory_limit: usize) -> Self {
        Self {
            limiter: MemoryLimiter { limit: memory_limit, hit: false },
            stdout: Captured::new(0),
            stderr: Captured::new(0),
            run: None,
            clock_origin: Instant::now(),
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
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit {
            self.hit = true;
            return Err(Stop(ErrorCode::MemoryLimit).into());
        }
        Ok(true)
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
pub(crate) fn on_epoch(ctx: StoreContextMut<'_, HostState>) -> wasmtime::Result<UpdateDeadline> {
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

/// The guest's exported linear memory.
pub(crate) fn memory(caller: &mut Caller<'_, HostState>) -> Option<Memory> {
    match caller.get_export(abi::EXPORT_MEMORY) {
        Some(Extern::Memory(memory)) => Some(memory),
        _ => None,
    }
}

/// A guest pointer and length as a range, when it lies inside `len` bytes.
pub(crate) fn guest_range(ptr: i32, len: i32, memory_len: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(u32::try_from(ptr).ok()?).ok()?;
    let len = usize::try_from(u32::try_from(len).ok()?).ok()?;
    let end = start.checked_add(len)?;
    (end <= memory_len).then_some(start..end)
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
    Ok(())
}
