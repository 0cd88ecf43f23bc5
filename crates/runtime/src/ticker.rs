//! The epoch ticker: one thread per process advances the engine's epoch every
//! millisecond while at least one run is in progress (and for a moment
//! after), and sleeps otherwise.
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

/// Ticks the thread goes on for once no run is active, so that runs in quick
/// succession find it awake: waking a sleeping thread costs the thread that
/// starts a run a system call and, on a VM, an interrupt to another core
/// (several microseconds).
const LINGER_TICKS: u32 = 100;

#[derive(Default)]
struct Ticker {
    state: Mutex<State>,
    wake: Condvar,
    /// Every engine a run has used (the plain and fuel-metered ones, and
    /// those of the rest of their pools).
    engines: Mutex<Vec<Engine>>,
}

#[derive(Default)]
struct State {
    /// Runs in progress.
    active: usize,
    /// The thread waits for a run (and must be woken for one).
    parked: bool,
}

/// `None` when the ticker thread could not be started.
static TICKER: OnceLock<Option<Arc<Ticker>>> = OnceLock::new();

fn start() -> Option<Arc<Ticker>> {
    let ticker = Arc::new(Ticker::default());
    let shared = Arc::clone(&ticker);
    thread::Builder::new()
        .name("cordon-epoch".into())
        .spawn(move || {
            let mut idle_ticks = 0;
            loop {
                {
                    let mut state = shared.state.lock().unwrap_or_else(|e| e.into_inner());
                    idle_ticks = if state.active == 0 { idle_ticks + 1 } else { 0 };
                    if idle_ticks > LINGER_TICKS {
                        state.parked = true;
                        while state.active == 0 {
                            state = shared.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                        }
                        state.parked = false;
                        idle_ticks = 0;
                    }
                }
                thread::sleep(TICK);
                for engine in shared.engines.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                    engine.increment_epoch();
                }
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
        let mut state = ticker.state.lock().unwrap_or_else(|e| e.into_inner());
        state.active += 1;
        if state.parked {
            ticker.wake.notify_all();
        }
        Some(Self(Arc::clone(ticker)))
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        state.active = state.active.saturating_sub(1);
    }
}
