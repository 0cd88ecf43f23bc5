//! napi-rs binding of cordon. Thin by design: it converts `Binding*` types to
//! the runtime's types and back, and nothing else. The public API (option
//! validation, `CordonError`, the run queue) is TypeScript in `js/`; behaviour
//! lives in `cordon-runtime`.

use cordon_runtime::{CancelFlag, Language, Limits, RunFailure, RunReport, Sandbox};
use napi::{Error, Result, Status};
use napi_derive::napi;

/// Limits as JavaScript numbers; `js/` validates them first, this checks again.
#[napi(object)]
pub struct BindingLimits {
    pub timeout_ms: Option<f64>,
    pub cpu_ms: Option<f64>,
    pub memory_bytes: Option<f64>,
    pub output_bytes: Option<f64>,
    pub code_bytes: Option<f64>,
}

#[napi(object)]
pub struct BindingScriptError {
    pub name: String,
    pub message: String,
    pub stack: String,
}

#[napi(object)]
pub struct BindingStats {
    pub wall_ms: f64,
    pub cpu_ms: f64,
    pub memory_bytes: f64,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub instance_restarted: bool,
}

/// A run's report; `failure` is set when the sandbox ended the run.
#[napi(object)]
pub struct BindingRunResult {
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    pub value: Option<String>,
    pub error: Option<BindingScriptError>,
    pub stats: BindingStats,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
}

fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

fn limit(name: &str, value: Option<f64>, default: u64) -> Result<u64> {
    match value {
        None => Ok(default),
        Some(v) if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= 9_007_199_254_740_991.0 => {
            Ok(v as u64)
        }
        Some(v) => Err(invalid(format!("limits.{name} must be a non-negative integer, got {v}"))),
    }
}

fn to_limits(limits: Option<BindingLimits>) -> Result<Limits> {
    let d = Limits::default();
    let Some(l) = limits else { return Ok(d) };
    Ok(Limits {
        timeout_ms: limit("timeoutMs", l.timeout_ms, d.timeout_ms)?,
        cpu_ms: limit("cpuMs", l.cpu_ms, d.cpu_ms)?,
        memory_bytes: limit("memoryBytes", l.memory_bytes, d.memory_bytes)?,
        output_bytes: limit("outputBytes", l.output_bytes, d.output_bytes)?,
        code_bytes: limit("codeBytes", l.code_bytes, d.code_bytes)?,
    })
}

fn from_report(report: RunReport, failure: Option<(String, String)>) -> BindingRunResult {
    let (failure_code, failure_message) = failure.unzip();
    BindingRunResult {
        exit_code: report.exit_code,
        stdout: report.stdout,
        stderr: report.stderr,
        value: report.value,
        error: report.error.map(|e| BindingScriptError { name: e.name, message: e.message, stack: e.stack }),
        stats: BindingStats {
            wall_ms: report.stats.wall_ms,
            cpu_ms: report.stats.cpu_ms,
            memory_bytes: report.stats.memory_bytes as f64,
            stdout_truncated: report.stats.stdout_truncated,
            stderr_truncated: report.stats.stderr_truncated,
            instance_restarted: report.stats.instance_restarted,
        },
        failure_code,
        failure_message,
    }
}

fn from_failure(failure: RunFailure) -> BindingRunResult {
    let code = failure.code.as_str().to_string();
    let report = failure.partial.map(|p| *p).unwrap_or_else(|| RunReport {
        exit_code: 1,
        stdout: String::new(),
        stderr: String::new(),
        value: None,
        error: None,
        stats: Default::default(),
    });
    from_report(report, Some((code, failure.message)))
}

/// Cancels one run (wired to an `AbortSignal` by `js/`).
#[napi]
pub struct NativeCancel {
    flag: CancelFlag,
}

#[napi]
impl NativeCancel {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self { flag: CancelFlag::new() }
    }

    #[napi]
    pub fn cancel(&self) {
        self.flag.cancel();
    }
}

#[napi]
pub struct NativeSandbox {
    inner: Sandbox,
}

#[napi]
impl NativeSandbox {
    /// Creates a sandbox (compiling or loading the guest on first use).
    #[napi(factory)]
    pub async fn create(limits: Option<BindingLimits>) -> Result<NativeSandbox> {
        let limits = to_limits(limits)?;
        match Sandbox::new(limits) {
            Ok(inner) => Ok(NativeSandbox { inner }),
            Err(failure) => Err(Error::new(
                if failure.code == cordon_runtime::ErrorCode::InvalidOptions {
                    Status::InvalidArg
                } else {
                    Status::GenericFailure
                },
                failure.message,
            )),
        }
    }

    /// Runs code; never rejects for a sandbox failure (see `failureCode`).
    #[napi]
    pub async fn run(
        &self,
        code: String,
        language: String,
        cancel: &NativeCancel,
    ) -> Result<BindingRunResult> {
        let Some(language) = Language::parse(&language) else {
            return Err(invalid(format!("unknown language {language:?}")));
        };
        Ok(match self.inner.run(&code, language, cancel.flag.clone()).await {
            Ok(report) => from_report(report, None),
            Err(failure) => from_failure(failure),
        })
    }

    /// The effective limits, defaults filled in.
    #[napi]
    pub fn limits(&self) -> BindingLimits {
        let l = self.inner.limits();
        BindingLimits {
            timeout_ms: Some(l.timeout_ms as f64),
            cpu_ms: Some(l.cpu_ms as f64),
            memory_bytes: Some(l.memory_bytes as f64),
            output_bytes: Some(l.output_bytes as f64),
            code_bytes: Some(l.code_bytes as f64),
        }
    }

    #[napi]
    pub fn close(&self) {
        self.inner.close();
    }
}
