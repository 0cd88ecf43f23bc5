//! Errors of the sandbox itself (as opposed to errors of the script, which
//! are part of a [`RunReport`](crate::RunReport)).

use std::fmt;

/// Stable codes of sandbox failures. The string forms are public API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// A limit or option is malformed or out of range.
    InvalidOptions,
    /// The code to run is not acceptable (too large).
    InvalidCode,
    /// The run exceeded its wall-clock time.
    Timeout,
    /// The run exceeded its CPU time.
    CpuLimit,
    /// The guest asked for more memory than the limit.
    MemoryLimit,
    /// The guest overflowed its stack.
    StackOverflow,
    /// The run was cancelled by its caller.
    Cancelled,
    /// The sandbox was closed.
    Closed,
    /// A run was started while another was in progress on the same sandbox.
    Busy,
    /// A snapshot is corrupt, of another version or guest build, or does not
    /// fit the options it is restored with.
    InvalidSnapshot,
    /// Every slot of the process's instance pool holds a live sandbox's guest
    /// (`CORDON_POOL_SIZE`).
    TooManySandboxes,
    /// The run kept calling tools after [`crate::MAX_DENIED_PER_RUN`] of its
    /// calls were denied.
    ToolCallLimit,
    /// A recorded run's trace grew past `limits.traceBytes`.
    TraceLimit,
    /// A fault of cordon itself (a bug): the guest trapped for another reason
    /// or broke the protocol.
    Internal,
}

impl ErrorCode {
    /// The stable string form (`"TIMEOUT"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidOptions => "INVALID_OPTIONS",
            Self::InvalidCode => "INVALID_CODE",
            Self::Timeout => "TIMEOUT",
            Self::CpuLimit => "CPU_LIMIT",
            Self::MemoryLimit => "MEMORY_LIMIT",
            Self::StackOverflow => "STACK_OVERFLOW",
            Self::Cancelled => "CANCELLED",
            Self::Closed => "CLOSED",
            Self::Busy => "BUSY",
            Self::InvalidSnapshot => "INVALID_SNAPSHOT",
            Self::TooManySandboxes => "TOO_MANY_SANDBOXES",
            Self::ToolCallLimit => "TOOL_CALL_LIMIT",
            Self::TraceLimit => "TRACE_LIMIT",
            Self::Internal => "INTERNAL",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run (or sandbox creation) that the sandbox ended, with what the script
/// had printed until then.
#[derive(Debug, Clone)]
pub struct RunFailure {
    pub code: ErrorCode,
    pub message: String,
    /// Output and statistics of the run up to the failure, when it started.
    pub partial: Option<Box<crate::RunReport>>,
}

impl RunFailure {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), partial: None }
    }

    /// What the run had produced, for one result shape either way: the
    /// partial report, or an empty one with exit code 1 when the run never
    /// started.
    pub fn into_partial(self) -> (crate::RunReport, ErrorCode, String) {
        let report = self.partial.map(|p| *p).unwrap_or_else(|| crate::RunReport {
            exit_code: 1,
            stdout: String::new(),
            stderr: String::new(),
            value: None,
            error: None,
            tool_calls: Vec::new(),
            trace: None,
            divergence: None,
            stats: Default::default(),
        });
        (report, self.code, self.message)
    }
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for RunFailure {}

/// The reason the host stopped the guest from inside a wasmtime callback;
/// travels through wasmtime as the error of the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stop(pub ErrorCode);

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "guest stopped: {}", self.0)
    }
}

impl std::error::Error for Stop {}
