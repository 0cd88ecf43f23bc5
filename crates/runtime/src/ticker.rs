//! The epoch ticker: one thread per process advances the engine's epoch every
//! millisecond while at least one run is in progress, and sleeps otherwise.
//! Each store's epoch callback then checks its run's deadlines.

use std::{
    sync::{Arc, Condvar, Mutex, OnceLock},
    thread,
    time::Duration,
};

use wasmtime::Engine;

/// How often the epoch advances while runs are active; bounds how late a
/// limit can fire.
pub(crate) const TICK: Duration = Duration::from_millis(1);

#[derive(Default)]
struct Ticker {
    active: Mutex<usize>,
    wake: Condvar,
    /// Every engine a run has used (the plain one and the fuel-metered one).
    engines: Mutex<Vec<Engine>>,
}

/// `None` when the ticker thread could not be started.
static TICKER: OnceLock<Option<Arc<Ticker>>> = OnceLock::new();

fn start() -> Option<Arc<Ticker>> {
    let ticker = Arc::new(Ticker::default());
    let shared = Arc::clone(&ticker);
    thread::Builder::new()
        .name("cordon-epoch".into())
        .spawn(move || loop {
            {
                let mut active = shared.active.lock().unwrap_or_else(|e| e.into_inner());
                while *active == 0 {
                    active = shared.wake.wait(active).unwrap_or_else(|e| e.into_inner());
                }
            }
            thread::sleep(TICK);
            for engine in shared.engines.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                engine.increment_epoch();
            }
        })
        .ok()?;
    Some(ticker)
}

/// Keeps the ticker running while alive.
pub(crate) struct Active(Arc<Ticker>);

impl Active {
    /// Registers an active run on `engine`; `None` when the ticker thread
    /// could not start (the caller must then refuse to run: no deadline
    /// could fire).
    pub(crate) fn new(engine: &Engine) -> Option<Self> {
        let ticker = TICKER.get_or_init(start).as_ref()?;
        {
            let mut engines = ticker.engines.lock().unwrap_or_else(|e| e.into_inner());
            if !engines.iter().any(|e| Engine::same(e, engine)) {
                engines.push(engine.clone());
            }
        }
        let mut active = ticker.active.lock().unwrap_or_else(|e| e.into_inner());
        *active += 1;
        ticker.wake.notify_all();
        Some(Self(Arc::clone(ticker)))
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        let mut active = self.0.active.lock().unwrap_or_else(|e| e.into_inner());
        *active = active.saturating_sub(1);
    }
}
