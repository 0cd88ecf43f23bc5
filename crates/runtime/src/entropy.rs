//! The guest's clock and randomness. By default: the host's real clock,
//! coarsened to 1 ms, and the OS's secure random source. In deterministic
//! mode: a clock that starts at a fixed instant and advances 1 ms per read,
//! and a random stream seeded by the caller, so the same script produces the
//! same output.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Settings of deterministic mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Determinism {
    /// Seed of the guest's random stream.
    pub seed: u64,
    /// Where the guest's wall clock starts, in ms since the Unix epoch.
    pub start_ms: u64,
}

const MS: u64 = 1_000_000;

pub(crate) enum Entropy {
    Real { origin: Instant },
    Fixed { start_ns: u64, reads: u64, state: [u64; 4] },
}

/// splitmix64, to spread a seed over xoshiro's state.
fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Entropy {
    pub(crate) fn new(determinism: Option<Determinism>) -> Self {
        match determinism {
            None => Self::Real { origin: Instant::now() },
            Some(d) => {
                let mut x = d.seed;
                let state = [splitmix(&mut x), splitmix(&mut x), splitmix(&mut x), splitmix(&mut x)];
                Self::Fixed { start_ns: d.start_ms.saturating_mul(MS), reads: 0, state }
            }
        }
    }

    /// Nanoseconds of clock `id` (0 realtime, else monotonic), in whole ms.
    pub(crate) fn now_ns(&mut self, id: i32) -> u64 {
        match self {
            Self::Real { origin } => {
                let ns = if id == 0 {
                    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
                } else {
                    origin.elapsed().as_nanos()
                };
                let ns = u64::try_from(ns).unwrap_or(u64::MAX);
                ns - ns % MS
            }
            Self::Fixed { start_ns, reads, .. } => {
                *reads += 1;
                let elapsed = reads.saturating_mul(MS);
                if id == 0 {
                    start_ns.saturating_add(elapsed)
                } else {
                    elapsed
                }
            }
        }
    }

    /// Fills `dst` with random bytes; false when the OS source failed.
    pub(crate) fn fill(&mut self, dst: &mut [u8]) -> bool {
        match self {
            Self::Real { .. } => getrandom::getrandom(dst).is_ok(),
            Self::Fixed { state, .. } => {
                for chunk in dst.chunks_mut(8) {
                    // xoshiro256**
                    let result = state[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
                    let t = state[1] << 17;
                    state[2] ^= state[0];
                    state[3] ^= state[1];
                    state[1] ^= state[2];
                    state[0] ^= state[3];
                    state[2] ^= t;
                    state[3] = state[3].rotate_left(45);
                    let bytes = result.to_le_bytes();
                    chunk.copy_from_slice(bytes.get(..chunk.len()).unwrap_or_default());
                }
                true
            }
        }
    }
}
