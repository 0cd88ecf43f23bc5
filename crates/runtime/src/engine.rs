//! The process-wide engine and compiled guest, shared by every sandbox.

use std::{path::Path, sync::OnceLock, time::Duration};

use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, InstancePre, OptLevel, PoolingAllocationConfig,
};

use crate::{
    cache::{self, CacheOutcome},
    host::HostState,
    preinit, trim, ErrorCode, RunFailure,
};

pub use crate::cache::CacheOutcome as ModuleSource;

/// The guest module, built from `guest/` by `scripts/build-guest.sh`.
static GUEST_WASM: &[u8] = include_bytes!(env!("CORDON_GUEST_WASM_PATH"));
const GUEST_SHA256: &str = env!("CORDON_GUEST_SHA256");

/// Native wasm stack of a guest call. Deep JavaScript recursion overflows it
/// (or QuickJS's 4 MiB shadow stack) and ends the run with `STACK_OVERFLOW`.
pub const MAX_WASM_STACK: usize = 1024 * 1024;

pub(crate) struct Shared {
    pub(crate) engine: Engine,
    pub(crate) pre: InstancePre<HostState>,
    pub(crate) source: CacheOutcome,
    /// What idle sandboxes' memory is compared with (`trim`); `None` for the
    /// fuel-metered engine, or without `PAGEMAP_SCAN`.
    pub(crate) pristine: Option<trim::Pristine>,
}

static SHARED: OnceLock<Result<Shared, String>> = OnceLock::new();
/// The same guest compiled with fuel metering, for deterministic sandboxes
/// (created on first use: most processes never need it).
static METERED: OnceLock<Result<Shared, String>> = OnceLock::new();
/// The rest of the pool (see [`FIRST_POOL`]), with an engine of its own:
/// `None` when the first part is the whole pool.
static SHARED_REST: OnceLock<Result<Option<Shared>, String>> = OnceLock::new();
static METERED_REST: OnceLock<Result<Option<Shared>, String>> = OnceLock::new();

/// Instance slots made with a process's engine; the rest of
/// [`pool_size`] comes with a second engine, made when these are all in use.
/// A slot costs its fiber stack's guard page (an `mprotect` call, and a
/// mapping the kernel tears down at exit): about 4 µs of every process's
/// start and exit, 4 ms for the default thousand. Most processes hold a few
/// sandboxes; 256 covers the 200 of W7 in BENCHMARKS.md.
pub const FIRST_POOL: u32 = 256;

/// Which part of the pool an engine serves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    First,
    Rest,
}

impl Part {
    fn slots(self) -> u32 {
        let total = pool_size();
        match self {
            Part::First => total.min(FIRST_POOL),
            Part::Rest => total.saturating_sub(FIRST_POOL),
        }
    }
}

/// Fuel a deterministic run gets per millisecond of `limits.cpuMs`. Fuel
/// counts wasm operations; a millisecond of guest CPU executes about this
/// many on the 2-core EPYC this was calibrated on (a QuickJS counting loop:
/// 17,400 iterations per CPU millisecond, 17,700 per 9 M fuel), so a limit
/// means about the same in both modes.
pub const FUEL_PER_CPU_MS: u64 = 9_000_000;

/// The engine configuration: epoch interruption for time limits, async calls
/// so a guest can wait on the host without blocking a thread, a bounded
/// native stack, and, when `metered`, fuel (deterministic CPU accounting).
///
/// `part`'s slots come from a pool (the first part's engine has one more,
/// for the pristine instance `trim` compares with); with none, each
/// instance is allocated on demand.
fn config(metered: bool, part: Part) -> Config {
    let mut config = compile_config(metered);
    let slots = part.slots();
    if slots > 0 {
        let pristine = part == Part::First && pristine_idle(metered).is_some();
        let slots = if pristine { slots.saturating_add(1) } else { slots };
        let mut pool = PoolingAllocationConfig::default();
        pool.total_core_instances(slots)
            .total_memories(slots)
            .total_tables(slots)
            .total_stacks(slots)
            .max_memory_size(MAX_MEMORY);
        // With the kernel's PAGEMAP_SCAN (Linux 6.7+), a freed slot's dirty
        // pages are copied back from the image and stay mapped, so the next
        // instance takes no page faults on them. Without it, keeping memory
        // resident would `memset` the lowest bytes, which are the guest's
        // mostly idle stack: not worth it.
        if PoolingAllocationConfig::is_pagemap_scan_available() {
            pool.pagemap_scan(Enabled::Yes)
                .linear_memory_keep_resident(KEEP_RESIDENT)
                .table_keep_resident(KEEP_RESIDENT);
        }
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

/// What decides how the guest is compiled (and so names its cache file):
/// the engine configuration without the instance allocator.
fn compile_config(metered: bool) -> Config {
    let mut config = Config::new();
    config
        .consume_fuel(metered)
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        .async_stack_size(MAX_WASM_STACK + 1024 * 1024)
        .cranelift_opt_level(OptLevel::Speed);
    config
}

/// The idle time after which sandboxes are trimmed, when the engine keeps a
/// pristine instance to trim them against (see `trim`).
fn pristine_idle(metered: bool) -> Option<Duration> {
    let idle = trim::idle().ok().flatten()?;
    (!metered && PoolingAllocationConfig::is_pagemap_scan_available()).then_some(idle)
}

/// The largest linear memory a sandbox may have (`limits.memoryBytes`).
const MAX_MEMORY: usize = 4 << 30;
/// Dirty bytes of a freed memory or table slot restored in place (kept
/// resident) rather than returned to the kernel. A small run dirties a few
/// hundred KiB.
const KEEP_RESIDENT: usize = 2 << 20;

/// Sandboxes with an instance alive at once in the pooling allocator:
/// `CORDON_POOL_SIZE`, default 1000; 0 allocates each instance on demand
/// instead.
pub(crate) fn pool_size() -> u32 {
    std::env::var("CORDON_POOL_SIZE").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

fn init(metered: bool, part: Part) -> Result<Shared, String> {
    trim::idle()?;
    let dir = cache::default_dir();
    let (engine, checked) = engine_and_cache_check(metered, part, dir.as_deref());
    let engine = engine.map_err(|e| format!("cannot create the wasm engine: {e}"))?;
    let (module, source) = cache::load_or_compile(&engine, GUEST_SHA256, dir.as_deref(), checked, || {
        preinit::preinitialize(&engine, metered, GUEST_WASM)
    })
    .map_err(|e| format!("cannot compile the guest: {e}"))?;
    let linker = preinit::linker(&engine).map_err(|e| format!("cannot link the host imports: {e}"))?;
    let pre = linker.instantiate_pre(&module).map_err(|e| format!("the guest does not link: {e}"))?;
    // Made first, so it takes the slot reserved for it. It holds the image's
    // bytes, which the instances of both parts start from.
    let pristine = match part {
        Part::First => pristine_idle(metered).and_then(|idle| trim::pristine(&engine, &pre, idle)),
        Part::Rest => None,
    };
    Ok(Shared { engine, pre, source, pristine })
}

/// Creates the engine and, on another thread at the same time, checks the
/// cached module against its checksum. Each takes about 2 ms: the pool sets
/// up a guard page for every fiber stack (a thousand `mprotect` calls), and
/// the check reads the whole 17 MB file. The cache file is named by the
/// compilation settings alone, so an engine without the pool (made in well
/// under a millisecond) finds it; `cache::load_or_compile` uses the check
/// only if the real engine names the same file. When the thread cannot be
/// started, the check happens afterwards as before.
fn engine_and_cache_check(
    metered: bool,
    part: Part,
    dir: Option<&Path>,
) -> (wasmtime::Result<Engine>, Option<cache::Checked>) {
    std::thread::scope(|scope| {
        let checker = dir.and_then(|dir| {
            std::thread::Builder::new()
                .name("cordon-cache-check".into())
                .spawn_scoped(scope, move || {
                    let probe = Engine::new(&compile_config(metered)).ok()?;
                    Some(cache::check(&probe, GUEST_SHA256, dir))
                })
                .ok()
        });
        let engine = Engine::new(&config(metered, part));
        (engine, checker.and_then(|checker| checker.join().ok().flatten()))
    })
}

/// The shared engine and module (the fuel-metered one when `metered`),
/// created on first use, with the first part of the pool.
pub(crate) fn shared(metered: bool) -> Result<&'static Shared, RunFailure> {
    let slot = if metered { &METERED } else { &SHARED };
    slot.get_or_init(|| init(metered, Part::First))
        .as_ref()
        .map_err(|msg| RunFailure::new(ErrorCode::Internal, msg.clone()))
}

/// The engine and module with the rest of the pool, created when the first
/// part is full; `None` when there is no rest.
fn rest(metered: bool) -> Result<Option<&'static Shared>, RunFailure> {
    let slot = if metered { &METERED_REST } else { &SHARED_REST };
    slot.get_or_init(|| (Part::Rest.slots() > 0).then(|| init(metered, Part::Rest)).transpose())
        .as_ref()
        .map(Option::as_ref)
        .map_err(|msg| RunFailure::new(ErrorCode::Internal, msg.clone()))
}

/// [`rest`], made on a thread of its own if it is not made yet: making it
/// loads the module (or compiles it, without a cache), which must not happen
/// on the thread that polls a run, Node's own for a run's first slice.
pub(crate) async fn rest_off_thread(metered: bool) -> Result<Option<&'static Shared>, RunFailure> {
    let slot = if metered { &METERED_REST } else { &SHARED_REST };
    if slot.get().is_some() {
        return rest(metered);
    }
    let (made, wait) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("cordon-pool".into())
        .spawn(move || {
            let _ = made.send(rest(metered));
        })
        .map_err(|e| RunFailure::new(ErrorCode::Internal, format!("cannot start a thread: {e}")))?;
    wait.await
        .map_err(|_| RunFailure::new(ErrorCode::Internal, "the thread making the engine ended without it"))?
}

/// Whether the engine (the fuel-metered one when `metered`) and the guest
/// are ready, so creating a sandbox does not compile or load anything. (The
/// rest of the pool, past [`FIRST_POOL`], is made by the run that first
/// needs it, off the thread that polls it.)
pub fn is_ready(metered: bool) -> bool {
    let slot = if metered { &METERED } else { &SHARED };
    matches!(slot.get(), Some(Ok(_)))
}

/// Compiles (or loads from the cache) the guest now instead of at the first
/// sandbox; returns how the module was obtained.
pub fn warm_up() -> Result<ModuleSource, RunFailure> {
    shared(false).map(|s| s.source)
}

/// The guest module bytes and their SHA-256, for tests of the cache.
pub fn guest() -> (&'static [u8], &'static str) {
    (GUEST_WASM, GUEST_SHA256)
}

/// A fresh engine with the production configuration, for tests of the cache.
pub fn new_engine() -> wasmtime::Result<Engine> {
    Engine::new(&config(false, Part::First))
}

/// An engine with the production compilation settings but no instance
/// pool: what `init` names the cache file with while the real engine is made.
pub fn compile_engine() -> wasmtime::Result<Engine> {
    Engine::new(&compile_config(false))
}

pub use crate::cache::{file_name as cache_file_name, prune as prune_cache, UNUSED_FOR as CACHE_UNUSED_FOR};

/// Loads the pre-initialised guest compiled for `engine` (made with
/// [`new_engine`]) from the cache in `dir`, or makes, compiles and stores it.
pub fn load_or_compile(
    engine: &Engine,
    wasm: &[u8],
    guest_sha256: &str,
    dir: Option<&std::path::Path>,
) -> wasmtime::Result<(wasmtime::Module, CacheOutcome)> {
    cache::load_or_compile(engine, guest_sha256, dir, None, || preinit::preinitialize(engine, false, wasm))
}
