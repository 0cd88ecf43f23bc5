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

/// One limit: its name in the public API, where it lives in [`Limits`], and
/// its inclusive range.
struct Field {
    name: &'static str,
    get: fn(&mut Limits) -> &mut u64,
    range: (u64, u64),
}

const TIME_MS: (u64, u64) = (1, 3_600_000);
const MEMORY_BYTES: (u64, u64) = (16 * MIB, 4096 * MIB);

/// Every limit, in the order [`Limits::named`] gives them.
const FIELDS: [Field; 11] = [
    Field { name: "timeoutMs", get: |l| &mut l.timeout_ms, range: TIME_MS },
    Field { name: "cpuMs", get: |l| &mut l.cpu_ms, range: TIME_MS },
    Field { name: "memoryBytes", get: |l| &mut l.memory_bytes, range: MEMORY_BYTES },
    Field { name: "outputBytes", get: |l| &mut l.output_bytes, range: (1, 256 * MIB) },
    Field { name: "codeBytes", get: |l| &mut l.code_bytes, range: (1, 64 * MIB) },
    Field { name: "toolCalls", get: |l| &mut l.tool_calls, range: (0, 1_000_000) },
    Field { name: "toolTimeoutMs", get: |l| &mut l.tool_timeout_ms, range: TIME_MS },
    Field { name: "toolResultBytes", get: |l| &mut l.tool_result_bytes, range: (1, 256 * MIB) },
    Field { name: "fsBytes", get: |l| &mut l.fs_bytes, range: (0, 4096 * MIB) },
    Field { name: "fsFiles", get: |l| &mut l.fs_files, range: (3, 1_000_000) },
    Field { name: "traceBytes", get: |l| &mut l.trace_bytes, range: (1024, 1024 * MIB) },
];

impl Limits {
    /// Each limit by its name in the public API (`timeoutMs`, …), in one
    /// fixed order.
    pub fn named(&self) -> [(&'static str, u64); 11] {
        let mut copy = *self;
        FIELDS.map(|f| (f.name, *(f.get)(&mut copy)))
    }

    /// The defaults, with the limit called `name` set to `value` for each
    /// pair; an unknown name is an error. Ranges are checked by
    /// [`validate`](Self::validate).
    pub fn from_named<'a>(values: impl IntoIterator<Item = (&'a str, u64)>) -> Result<Self, RunFailure> {
        let mut limits = Self::default();
        for (name, value) in values {
            let Some(field) = FIELDS.iter().find(|f| f.name == name) else {
                return Err(RunFailure::new(ErrorCode::InvalidOptions, format!("unknown limit {name:?}")));
            };
            *(field.get)(&mut limits) = value;
        }
        Ok(limits)
    }

    /// Checks every limit against its range.
    pub fn validate(&self) -> Result<(), RunFailure> {
        let mut copy = *self;
        for field in &FIELDS {
            let value = *(field.get)(&mut copy);
            let (min, max) = field.range;
            if !(min..=max).contains(&value) {
                return Err(RunFailure::new(
                    ErrorCode::InvalidOptions,
                    format!("limits.{} must be an integer from {min} to {max}, got {value}", field.name),
                ));
            }
        }
        Ok(())
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

    #[test]
    fn limits_are_set_and_read_by_name() {
        let l = Limits::from_named([("cpuMs", 5), ("traceBytes", 2048)]).unwrap();
        assert_eq!(l, Limits { cpu_ms: 5, trace_bytes: 2048, ..Limits::default() });
        let named = l.named();
        assert_eq!(named.len(), 11);
        assert_eq!(Limits::from_named(named).unwrap(), l);
        // Each name sets its own field, and every field has a name (the
        // pattern names them all).
        let Limits {
            timeout_ms,
            cpu_ms,
            memory_bytes,
            output_bytes,
            code_bytes,
            tool_calls,
            tool_timeout_ms,
            tool_result_bytes,
            fs_bytes,
            fs_files,
            trace_bytes,
        } = Limits::from_named(FIELDS.iter().map(|f| f.name).zip(1..)).unwrap();
        let mut values = vec![
            timeout_ms,
            cpu_ms,
            memory_bytes,
            output_bytes,
            code_bytes,
            tool_calls,
            tool_timeout_ms,
            tool_result_bytes,
            fs_bytes,
            fs_files,
            trace_bytes,
        ];
        values.sort_unstable();
        assert_eq!(values, (1..=11).collect::<Vec<u64>>());
        assert_eq!(named[1], ("cpuMs", 5));
        let err = Limits::from_named([("cpu", 5)]).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (ErrorCode::InvalidOptions, "unknown limit \"cpu\""));
    }
}
