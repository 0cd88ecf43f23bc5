//! The cordon guest: the code that runs inside the wasm sandbox.
//!
//! It embeds QuickJS (through rquickjs) and talks to the host only through
//! `cordon-protocol`: the host calls [`abi`]'s exports with encoded requests,
//! and the guest reaches the host through the imports declared in [`host`].
//! The guest has no preopened directories, no environment and no sockets; a
//! trap inside it ends the instance, never the host.

mod abi;
mod host;
mod js;
mod shell;

use cordon_protocol::{Language, RunOutcome, RunRequest};

/// Runs one request to completion and returns how it ended.
fn run(request: RunRequest) -> RunOutcome {
    match request.language {
        Language::Javascript => js::run(&request),
        Language::Shell => shell::run(&request),
    }
}
