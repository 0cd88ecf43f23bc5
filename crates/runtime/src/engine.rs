//! The process-wide engine and compiled guest, shared by every sandbox.

use std::{path::Path, sync::OnceLock, time::Duration};

use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, InstancePre, Module, OptLevel,
    PoolingAllocationConfig,
};

use crate::{
    cache::{self, CacheOutcome},
    host::HostState,
    prebuilt, preinit, trim, ErrorCode, RunFailure,
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
    /// Address space an instance takes when it is made on demand: its
    /// memory's initial size, [`GROWTH_RESERVE`] and its fiber stack.
    pub(crate) instance_space: u64,
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
        let total = if confined() { 0 } else { pool_size() };
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
    let mut config = compile_config(metered, confined());
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
/// the engine configuration without the instance allocator. `small` reserves
/// address space only for the memory a guest has, plus [`GROWTH_RESERVE`],
/// with explicit bounds checks: what fits under a finite `ulimit -v`.
fn compile_config(metered: bool, small: bool) -> Config {
    let mut config = Config::new();
    if small {
        config.memory_reservation(0).memory_guard_size(0).memory_reservation_for_growth(GROWTH_RESERVE);
    }
    config
        .consume_fuel(metered)
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        .async_stack_size(MAX_WASM_STACK + 1024 * 1024)
        .cranelift_opt_level(OptLevel::Speed)
        // The map from native code back to wasm offsets serves only wasm
        // backtraces, which nothing reads: 11 % of the compiled module.
        .generate_address_map(false);
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

/// Address space a confined engine reserves past a memory's size, so most
/// growth does not move (copy) the memory.
const GROWTH_RESERVE: u64 = 64 << 20;

/// Whether the process has a finite address-space limit (`RLIMIT_AS`, what
/// `ulimit -v` sets). The default engine reserves 4 GiB of address space per
/// linear memory and pools [`pool_size`] of them, which no such limit admits;
/// a confined engine allocates each instance on demand with small
/// reservations ([`compile_config`]), so it cannot use the shipped module and
/// compiles the guest once (cached), and its memory accesses are
/// bounds-checked.
pub fn confined() -> bool {
    static CONFINED: OnceLock<bool> = OnceLock::new();
    *CONFINED.get_or_init(address_space_limited)
}

/// Address space a confined process keeps free of sandboxes: the embedder
/// (Node's heap) grows into it, and a sandbox that would take it is refused
/// (`TOO_MANY_SANDBOXES`) or a memory that would grow into it does not grow.
/// Node takes address space in large steps: each thread that allocates gets
/// a malloc arena of 64 MiB (128 MiB while it is aligned), V8's garbage
/// collector threads among them.
pub const HOST_HEADROOM: u64 = 512 << 20;

/// Whether the address space left under `RLIMIT_AS` is below
/// [`HOST_HEADROOM`] plus `more` bytes; false when it cannot be read (off
/// Linux) or the process is not confined.
pub(crate) fn short_of_address_space(more: u64) -> bool {
    confined() && address_space_left().is_some_and(|left| left < HOST_HEADROOM.saturating_add(more))
}

#[cfg(target_os = "linux")]
fn address_space_left() -> Option<u64> {
    // statm's first field is the process's size in pages.
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    // SAFETY: `sysconf` and `getrlimit` only read process state; `limit` outlives the call.
    let (page, limit) = unsafe {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        if libc::getrlimit(libc::RLIMIT_AS, &mut limit) != 0 {
            return None;
        }
        (u64::try_from(libc::sysconf(libc::_SC_PAGESIZE)).ok()?, limit.rlim_cur)
    };
    Some(limit.saturating_sub(pages.saturating_mul(page)))
}

#[cfg(not(target_os = "linux"))]
fn address_space_left() -> Option<u64> {
    None
}

#[cfg(unix)]
fn address_space_limited() -> bool {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `getrlimit` writes only the struct it is given, which outlives the call.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    read && limit.rlim_cur != libc::RLIM_INFINITY
}

#[cfg(not(unix))]
fn address_space_limited() -> bool {
    false
}

/// Whether instances come from the pool (a freed slot is reset in place
/// rather than unmapped); read once.
pub(crate) fn pooled() -> bool {
    static POOLED: OnceLock<bool> = OnceLock::new();
    *POOLED.get_or_init(|| !confined() && pool_size() > 0)
}

/// Sandboxes with an instance alive at once in the pooling allocator:
/// `CORDON_POOL_SIZE`, default 1000; 0 allocates each instance on demand
/// instead.
pub(crate) fn pool_size() -> u32 {
    std::env::var("CORDON_POOL_SIZE").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

fn init(metered: bool, part: Part) -> Result<Shared, String> {
    trim::idle()?;
    let (engine, module, source) = match prebuilt::dir().filter(|_| !confined()) {
        Some(dir) => shipped_or_compiled(metered, part, dir)?,
        None => cached_or_compiled(metered, part)?,
    };
    let linker = preinit::linker(&engine).map_err(|e| format!("cannot link the host imports: {e}"))?;
    let pre = linker.instantiate_pre(&module).map_err(|e| format!("the guest does not link: {e}"))?;
    // Made first, so it takes the slot reserved for it. It holds the image's
    // bytes, which the instances of both parts start from.
    let pristine = match part {
        Part::First => pristine_idle(metered).and_then(|idle| trim::pristine(&engine, &pre, idle)),
        Part::Rest => None,
    };
    Ok(Shared { engine, pre, source, pristine, instance_space: instance_space(&module) })
}

fn instance_space(module: &Module) -> u64 {
    let memory = module
        .exports()
        .filter_map(|export| export.ty().memory().map(|m| m.minimum()))
        .sum::<u64>()
        .saturating_mul(65_536);
    let stack = u64::try_from(MAX_WASM_STACK).unwrap_or(u64::MAX).saturating_add(1 << 20);
    memory.saturating_add(GROWTH_RESERVE).saturating_add(stack)
}

/// The engine, and the module from the cache or compiled into it. The cache
/// file is named by the compilation settings alone, so an engine without the
/// pool (made in well under a millisecond) finds it while the real one is
/// made; `cache::load_or_compile` uses that check only if the real engine
/// names the same file.
fn cached_or_compiled(metered: bool, part: Part) -> Result<(Engine, Module, CacheOutcome), String> {
    let dir = cache::default_dir();
    let probe_and_check = |dir: &Path| {
        let probe = Engine::new(&compile_config(metered, confined())).ok()?;
        Some(cache::check(&probe, GUEST_SHA256, dir))
    };
    let (engine, checked) = engine_and_check(metered, part, probe_and_check, dir.as_deref());
    let engine = engine.map_err(|e| format!("cannot create the wasm engine: {e}"))?;
    let (module, source) = compile(&engine, metered, dir.as_deref(), checked.flatten())?;
    Ok((engine, module, source))
}

fn compile(
    engine: &Engine,
    metered: bool,
    dir: Option<&Path>,
    checked: Option<cache::Checked>,
) -> Result<(Module, CacheOutcome), String> {
    cache::load_or_compile(engine, GUEST_SHA256, dir, checked, || {
        preinit::preinitialize(engine, metered, GUEST_WASM)
    })
    .map_err(|e| format!("cannot compile the guest: {e}"))
}

/// The engine and the module shipped in `dir`, checked while the engine is
/// made. A module that is missing, damaged, from another build or compiled
/// for CPU features this machine lacks is compiled instead (through the
/// cache), after a one-line notice on stderr.
fn shipped_or_compiled(
    metered: bool,
    part: Part,
    dir: &Path,
) -> Result<(Engine, Module, CacheOutcome), String> {
    let check = |dir: &Path| prebuilt::check(dir, GUEST_SHA256, metered);
    let (engine, checked) = engine_and_check(metered, part, check, Some(dir));
    let engine = engine.map_err(|e| format!("cannot create the wasm engine: {e}"))?;
    let refused = match checked.unwrap_or_else(|| check(dir)) {
        // SAFETY: `prebuilt::check` just found the file's length and XXH3 equal to its summary,
        // whose key names this build of the guest, wasmtime and cordon: it is what
        // `precompile` wrote for this build (the summary guards against damage, not an
        // attacker: whoever can write the addon's directory can replace the addon itself), and
        // wasmtime checks its header, settings and the CPU features the code uses before using it.
        // The file must also stay unchanged while mapped (for the life of the process):
        // `prebuilt::write` replaces it by rename, never in place, so a mapped file keeps its bytes.
        Ok(path) => match unsafe { Module::deserialize_file(&engine, &path) } {
            Ok(module) => return Ok((engine, module, CacheOutcome::Shipped)),
            Err(err) => format!("{} does not fit this machine ({})", path.display(), err.root_cause()),
        },
        Err(why) => why,
    };
    let cache_dir = cache::default_dir();
    eprintln!(
        "cordon: compiling the guest{} instead of using the shipped one, which takes seconds{}: {refused}",
        if metered { " for deterministic sandboxes" } else { "" },
        match &cache_dir {
            Some(cache) => format!(" (cached in {})", cache.display()),
            None => String::new(),
        }
    );
    let (module, source) = compile(&engine, metered, cache_dir.as_deref(), None)?;
    Ok((engine, module, source))
}

/// Creates the engine and, on another thread at the same time, runs `check`
/// on `dir`. Each takes about 2 ms: the pool sets up a guard page for every
/// fiber stack (a thousand `mprotect` calls), and a check reads a whole
/// 17 MB module. When the thread cannot be started, the check is `None` and
/// the caller makes it afterwards.
fn engine_and_check<T: Send>(
    metered: bool,
    part: Part,
    check: impl FnOnce(&Path) -> T + Send,
    dir: Option<&Path>,
) -> (wasmtime::Result<Engine>, Option<T>) {
    std::thread::scope(|scope| {
        let checker = dir.and_then(|dir| {
            std::thread::Builder::new()
                .name("cordon-module-check".into())
                .spawn_scoped(scope, move || check(dir))
                .ok()
        });
        let engine = Engine::new(&config(metered, part));
        (engine, checker.and_then(|checker| checker.join().ok()))
    })
}

/// Compiles the pre-initialised guest for `target` (a triple; the runtime's
/// own when `None`) with the CPU features `flags` (Cranelift flags or
/// presets; by default the [`prebuilt::BASELINE`] of its architecture): the
/// plain module and the fuel-metered one, in that order. The guest is
/// initialised once, here, by an engine for this machine: the snapshot does
/// not depend on the target.
pub fn precompile(target: Option<&str>, flags: Option<&[String]>) -> wasmtime::Result<[Vec<u8>; 2]> {
    let target = target.unwrap_or(env!("CORDON_TARGET"));
    let flags: Vec<&str> = match flags {
        Some(flags) => flags.iter().map(String::as_str).collect(),
        None => prebuilt::baseline(target)
            .ok_or_else(|| wasmtime::Error::msg(format!("no baseline CPU is defined for {target}")))?
            .to_vec(),
    };
    // The snapshot does not depend on how well its one run was compiled.
    let mut init = compile_config(false, false);
    init.cranelift_opt_level(OptLevel::None);
    let image = preinit::preinitialize(&Engine::new(&init)?, false, GUEST_WASM)?;
    let compile = |metered: bool| -> wasmtime::Result<Vec<u8>> {
        let mut config = compile_config(metered, false);
        config.target(target)?;
        for flag in &flags {
            // SAFETY: this engine only compiles (`precompile_module`); it never runs the code. Each
            // flag only enables a Cranelift setting: a CPU feature, which wasmtime, loading the
            // module (`Module::deserialize_file`), requires the machine to have, or a shared
            // setting, which that load accepts only if it leaves the code's behaviour as wasmtime
            // expects (`Engine::check_compatible_with_shared_flag`).
            unsafe {
                config.cranelift_flag_enable(flag);
            }
        }
        Engine::new(&config)?.precompile_module(&image)
    };
    Ok([compile(false)?, compile(true)?])
}

/// [`precompile`], written into `dir` as the addon's package ships them;
/// returns the paths written.
pub fn write_prebuilt(
    dir: &Path,
    target: Option<&str>,
    flags: Option<&[String]>,
) -> wasmtime::Result<Vec<std::path::PathBuf>> {
    let [plain, metered] = precompile(target, flags)?;
    Ok(vec![
        prebuilt::write(dir, GUEST_SHA256, false, &plain)?,
        prebuilt::write(dir, GUEST_SHA256, true, &metered)?,
    ])
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
    Engine::new(&compile_config(false, confined()))
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
