//! cordon's shell: a bash-compatible interpreter whose commands are Rust
//! builtins, running over an abstract [`System`] (the sandbox's file system,
//! output streams, clock and tools). Nothing here spawns a process or opens a
//! host file: the only way out is the [`System`] the embedder provides.
//!
//! Scripts are parsed by `brush-parser`; [`interp`] walks the syntax tree,
//! [`expand`] turns words into fields, and [`builtins`] holds one file per
//! command. Pipelines run their stages one after the other through bounded
//! buffers.

// Builtins index into byte slices after checking bounds by hand; the rest of
// the workspace's panic lints still apply.
#![allow(clippy::indexing_slicing)]

pub mod builtins;
pub mod ctx;
pub mod fds;
pub mod history;
pub mod io;
pub mod jobs;
pub mod pattern;
pub mod state;
pub mod system;
#[cfg(feature = "testing")]
pub mod testing;

mod alias;
mod arith;
mod callstack;
mod cond;
mod condsyntax;
mod expand;
mod extglob;
mod interp;
mod paramx;
mod posix;
mod prompt;
mod shopts;
mod transform;
mod traps;

pub use ctx::Ctx;
pub use state::State;
pub use system::System;

/// A shell session: its state persists across [`Shell::run`] calls.
#[derive(Debug, Default)]
pub struct Shell {
    state: State,
}

impl Shell {
    pub fn new() -> Self {
        Self { state: State::new() }
    }

    /// Runs `script` to completion; returns its exit status. Output goes to
    /// the system's streams as it is produced.
    pub fn run(&mut self, sys: &mut dyn System, script: &str) -> i32 {
        interp::run_script(&mut self.state, sys, script, "cordon", Vec::new())
    }

    /// [`run`](Self::run) with `stdin` as the script's standard input.
    pub fn run_with_stdin(&mut self, sys: &mut dyn System, script: &str, stdin: Vec<u8>) -> i32 {
        interp::run_script(&mut self.state, sys, script, "cordon", stdin)
    }

    pub fn state(&self) -> &State {
        &self.state
    }
}
