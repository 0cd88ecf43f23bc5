//! Every limit of a sandbox in one place, with its default and its range.

use crate::{ErrorCode, RunFailure};

const MIB: u64 = 1024 * 1024;

/// The limits of one sandbox. Each is enforced by wasmtime or the host and
/// ends the run with its own [`ErrorCode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time of one run, in milliseconds (`TIMEOUT`). Default 30 000.
    pub timeout_ms: u64,
    /// CPU time the guest may use in one run, in milliseconds (`CPU_LIMIT`).
    /// Time spent waiting (on the host, or for another sandbox) does not count.
    /// Default 10 000.
    pub cpu_ms: u64,
    /// Linear memory of the guest, in bytes (`MEMORY_LIMIT`). Default 64 MiB;
    /// at least 16 MiB (the guest's own code, data and stack take ~5 MiB).
    pub memory_bytes: u64,
    /// Bytes kept of each of stdout and stderr per run; the rest is dropped
    /// and a marker appended. Default 1 MiB.
    pub output_bytes: u64,
    /// Largest script accepted, in UTF-8 bytes (`INVALID_CODE`). Default 1 MiB.
    pub code_bytes: u64,
    /// Tool calls one run may make, allowed or not counted per capability
    /// (`DENIED`, reason `run_budget`). Default 1000.
    pub tool_calls: u64,
    /// Time a tool may take to answer, in milliseconds (`TOOL_TIMEOUT` in the
    /// guest). Default 30 000.
    pub tool_timeout_ms: u64,
    /// Largest tool result, in bytes of JSON (`TOOL_RESULT_TOO_LARGE` in the
    /// guest). Default 1 MiB.
    pub tool_result_bytes: u64,
    /// Bytes of file content in the sandbox's file system (`ENOSPC`). Default 64 MiB.
    pub fs_bytes: u64,
    /// Files and directories in the sandbox's file system (`ENOSPC`). Default 10 000.
    pub fs_files: u64,
    /// Bytes a recorded run's trace may hold (`TRACE_LIMIT`). Default 16 MiB.
    pub trace_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout_ms: 30_000,
            cpu_ms: 10_000,
            memory_bytes: 64 * MIB,
            output_bytes: MIB,
            code_bytes: MIB,
            tool_calls: 1000,
            tool_timeout_ms: 30_000,
            tool_result_bytes: MIB,
            fs_bytes: 64 * MIB,
            fs_files: 10_000,
            trace_bytes: 16 * MIB,
        }
    }
}

/// Inclusive ranges of each limit.
pub(crate) const TIME_MS: (u64, u64) = (1, 3_600_000);
pub(crate) const MEMORY_BYTES: (u64, u64) = (16 * MIB, 4096 * MIB);
pub(crate) const OUTPUT_BYTES: (u64, u64) = (1, 256 * MIB);
pub(crate) const CODE_BYTES: (u64, u64) = (1, 64 * MIB);
pub(crate) const TOOL_CALLS: (u64, u64) = (0, 1_000_000);
pub(crate) const TOOL_RESULT_BYTES: (u64, u64) = (1, 256 * MIB);
pub(crate) const FS_BYTES: (u64, u64) = (0, 4096 * MIB);
pub(crate) const FS_FILES: (u64, u64) = (3, 1_000_000);
pub(crate) const TRACE_BYTES: (u64, u64) = (1024, 1024 * MIB);

impl Limits {
    /// Checks every limit against its range.
    pub fn validate(&self) -> Result<(), RunFailure> {
        check("timeoutMs", self.timeout_ms, TIME_MS)?;
        check("cpuMs", self.cpu_ms, TIME_MS)?;
        check("memoryBytes", self.memory_bytes, MEMORY_BYTES)?;
        check("outputBytes", self.output_bytes, OUTPUT_BYTES)?;
        check("codeBytes", self.code_bytes, CODE_BYTES)?;
        check("toolCalls", self.tool_calls, TOOL_CALLS)?;
        check("toolTimeoutMs", self.tool_timeout_ms, TIME_MS)?;
        check("toolResultBytes", self.tool_result_bytes, TOOL_RESULT_BYTES)?;
        check("fsBytes", self.fs_bytes, FS_BYTES)?;
        check("fsFiles", self.fs_files, FS_FILES)?;
        check("traceBytes", self.trace_bytes, TRACE_BYTES)?;
        Ok(())
    }
}

fn check(name: &str, value: u64, (min, max): (u64, u64)) -> Result<(), RunFailure> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(RunFailure::new(
            ErrorCode::InvalidOptions,
            format!("limits.{name} must be an integer from {min} to {max}, got {value}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        Limits::default().validate().unwrap();
    }

    #[test]
    fn out_of_range_limits_are_rejected_with_their_name() {
        let bad = Limits { memory_bytes: 1024, ..Limits::default() };
        let err = bad.validate().unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidOptions);
        assert_eq!(
            err.message,
            "limits.memoryBytes must be an integer from 16777216 to 4294967296, got 1024"
        );
        let zero = Limits { timeout_ms: 0, ..Limits::default() };
        assert_eq!(zero.validate().unwrap_err().code, ErrorCode::InvalidOptions);
    }
}
