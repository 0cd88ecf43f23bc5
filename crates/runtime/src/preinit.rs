//! The pre-initialised guest: the guest module after `cordon_init` ran, as a
//! new module whose data segments hold the initialised memory (wasmtime's
//! wizer). Every instance starts from it, so QuickJS, the prelude and the
//! shell session are ready without running any start-up code, and its memory
//! image is mapped copy-on-write instead of being built.
//!
//! Made once per guest build and engine configuration, then kept compiled in
//! the module cache. Initialisation runs under the real host imports with a
//! fixed clock and seed, so every machine makes the same snapshot.

use std::{
    future::Future,
    pin::pin,
    task::{Context, Poll, Waker},
    time::Duration,
};

use cordon_protocol::abi;
use cordon_vfs::Quotas;
use wasmtime::{Engine, Instance, Linker, Module, Store};
use wasmtime_wizer::{InstanceState, SnapshotVal, ValType, Wizer};

use crate::{
    entropy::{Determinism, Entropy},
    host::{self, HostState},
    mounts::Tree,
    tools::{ToolLimits, ToolState},
    wasi,
};

/// Memory the guest may use while it initialises.
const INIT_MEMORY: usize = 64 * 1024 * 1024;

/// The linker every guest instance is created with: the WASI shim and the
/// `cordon` imports.
pub(crate) fn linker(engine: &Engine) -> wasmtime::Result<Linker<HostState>> {
    let mut linker = Linker::new(engine);
    wasi::add_to_linker(&mut linker)?;
    host::add_to_linker(&mut linker)?;
    Ok(linker)
}

/// Runs the guest's `cordon_init` and returns the snapshot as a module.
pub(crate) fn preinitialize(engine: &Engine, metered: bool, wasm: &[u8]) -> wasmtime::Result<Vec<u8>> {
    let mut wizer = Wizer::new();
    wizer.init_func(abi::EXPORT_INIT);
    let (cx, instrumented) = wizer.instrument(wasm)?;
    let module = Module::new(engine, &instrumented)?;
    let linker = linker(engine)?;
    let fixed = Determinism { seed: 0, start_ms: 0 };
    let state = HostState::new(
        INIT_MEMORY,
        ToolState::new(None, ToolLimits { timeout: Duration::ZERO, result_bytes: 0 }),
        std::sync::Arc::new(std::sync::Mutex::new(
            Tree::new(Quotas::default(), &[]).map_err(wasmtime::Error::msg)?,
        )),
        Entropy::new(Some(fixed)),
    );
    let mut store = Store::new(engine, state);
    if metered {
        store.set_fuel(u64::MAX)?;
    }
    store.limiter(|state| &mut state.limiter);
    // No ticker runs: the deadline is never reached.
    store.set_epoch_deadline(u64::MAX);
    let instance = block_on(linker.instantiate_async(&mut store, &module))?;
    let init = instance.get_typed_func::<(), ()>(&mut store, abi::EXPORT_INIT)?;
    block_on(init.call_async(&mut store, ()))?;
    block_on(wizer.snapshot(&cx, &mut Snapshot { store: &mut store, instance }))
}

struct Snapshot<'a> {
    store: &'a mut Store<HostState>,
    instance: Instance,
}

impl InstanceState for Snapshot<'_> {
    async fn global_get(&mut self, name: &str, _: ValType) -> SnapshotVal {
        let value = self.instance.get_global(&mut *self.store, name).map(|g| g.get(&mut *self.store));
        match value {
            Some(wasmtime::Val::I32(x)) => SnapshotVal::I32(x),
            Some(wasmtime::Val::I64(x)) => SnapshotVal::I64(x),
            Some(wasmtime::Val::F32(x)) => SnapshotVal::F32(x),
            Some(wasmtime::Val::F64(x)) => SnapshotVal::F64(x),
            Some(wasmtime::Val::V128(x)) => SnapshotVal::V128(x.as_u128()),
            // The guest has only numeric globals; wizer asks only for the
            // ones its instrumentation exported.
            _ => SnapshotVal::I32(0),
        }
    }

    async fn memory_contents(&mut self, name: &str, contents: impl FnOnce(&[u8]) + Send) {
        match self.instance.get_memory(&mut *self.store, name) {
            Some(memory) => contents(memory.data(&*self.store)),
            None => contents(&[]),
        }
    }
}

/// Drives a future that never waits on anything outside itself (the guest's
/// start-up calls no asynchronous import) to completion on this thread.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::yield_now();
    }
}
