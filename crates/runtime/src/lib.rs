//! The wasmtime host of cordon.
//!
//! One [`wasmtime::Engine`] and one compiled guest module serve every
//! [`Sandbox`] of the process (see [`engine`]); each sandbox owns a `Store`
//! and an instance of the guest, runs scripts in it under [`Limits`], and
//! replaces the instance after any trap. This crate knows nothing of Node: the
//! napi binding (`crates/node`) converts its types and nothing more.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cordon_runtime::RunFailure> {
//! use cordon_runtime::{CancelFlag, Language, Limits, Sandbox};
//! let sandbox = Sandbox::new(Limits::default())?;
//! let report = sandbox.run("console.log('hi'); return 42", Language::Javascript, CancelFlag::new()).await?;
//! assert_eq!(report.stdout, "hi\n42\n");
//! assert_eq!(report.value.as_deref(), Some("42"));
//! # Ok(()) }
//! ```

mod cache;
mod cpu;
pub mod driver;
pub mod engine;
mod entropy;
mod error;
pub mod fs;
mod host;
mod limits;
mod mounts;
mod output;
mod pending;
pub mod prebuilt;
mod preinit;
pub mod reaper;
pub mod records;
mod sandbox;
mod snapshot;
mod ticker;
mod tools;
mod trace;
mod trim;
mod wasi;

pub use cordon_policy as policy;
pub use cordon_protocol::{Language, ScriptError};
pub use cordon_vfs as vfs;
pub use entropy::Determinism;
pub use error::{ErrorCode, RunFailure};
pub use limits::Limits;
pub use mounts::{MountSpec, Tree};
pub use sandbox::{CancelFlag, RunReport, RunStats, Sandbox, SandboxBuilder, TraceMode};
pub use tools::{
    BoxFuture, ToolCallRecord, ToolFailure, ToolHost, ToolInvocation, Tools, LOG_BYTES, LOG_ENTRIES,
    MAX_DENIED_PER_RUN,
};
pub use trace::{Divergence, Trace, TracedCall, TracedWait, TRACE_VERSION};
