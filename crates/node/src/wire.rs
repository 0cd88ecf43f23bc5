//! What crosses between the addon and `js/`: napi-rs writes each of these
//! into `native.d.ts`, which is the only description of the native module
//! that `js/` reads (numeric enums as `const enum`, inlined by `tsc`). The
//! enums are the runtime's (`cordon_runtime::driver`, `ErrorCode`) given to
//! napi-rs; the conversions below match every variant, so the compiler
//! notices a variant added on one side only.

use cordon_runtime::driver;
use napi_derive::napi;

/// What a message to the JavaScript dispatcher asks (`js/dispatch.ts`;
/// `driver::MessageKind`).
#[napi]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// Run the tool `tool` with `payload`, the arguments' JSON; answered.
    Call,
    /// Ask `approve` about a call (`tool`, `payload` its arguments) of a
    /// capability that requires approval; answered.
    Approve,
    /// The same for a tool that requires approval, whose own rule may waive it.
    ApproveTool,
    /// A finished call's record for `onToolCall`: `payload` is a log of one
    /// record as `records::to_json` writes it; not answered.
    Record,
    /// The same, with the record's `args` the text of the arguments (see
    /// `records`).
    RecordText,
}

/// How the dispatcher answers a message; the text goes beside it
/// (`driver::Reply`).
#[napi]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The tool's result; the text is its JSON (checked by the runtime).
    Result,
    /// The call is approved (`Approve`, `ApproveTool`); no text.
    Approved,
    /// The call is not approved; no text.
    Refused,
    /// The tool threw or rejected; the text is its message.
    ToolError,
    /// The tool threw or rejected an error with a `code` or `status` of its
    /// own; the text is JSON `{"message", "code"?, "status"?}`.
    ToolErrorDetail,
    /// The tool's own schema (or its adapter) refused the arguments; the
    /// text says why.
    InvalidArguments,
    /// The tool returned something JSON cannot hold; the text says what.
    InvalidResult,
}

/// What the dispatcher queues after it settled calls (`driver::Next`).
#[napi]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Nothing: the runs went on already, or nothing is ready.
    Nothing,
    /// `drainReady` in a microtask.
    Drain,
    /// `drainLater` with `setImmediate`.
    Later,
}

/// The stable codes of sandbox failures (`cordon_runtime::ErrorCode`).
/// `js/binding.ts` checks at compile time that the public `ErrorCode` type
/// lists exactly these.
#[napi(string_enum = "UPPER_SNAKE")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidOptions,
    InvalidCode,
    Timeout,
    CpuLimit,
    MemoryLimit,
    StackOverflow,
    Cancelled,
    Closed,
    Busy,
    InvalidSnapshot,
    TooManySandboxes,
    ToolCallLimit,
    TraceLimit,
    Internal,
}

impl From<driver::MessageKind> for MessageKind {
    fn from(kind: driver::MessageKind) -> Self {
        use driver::MessageKind as K;
        match kind {
            K::Call => Self::Call,
            K::Approve => Self::Approve,
            K::ApproveTool => Self::ApproveTool,
            K::Record => Self::Record,
            K::RecordText => Self::RecordText,
        }
    }
}

impl From<Reply> for driver::Reply {
    fn from(reply: Reply) -> Self {
        match reply {
            Reply::Result => Self::Result,
            Reply::Approved => Self::Approved,
            Reply::Refused => Self::Refused,
            Reply::ToolError => Self::ToolError,
            Reply::ToolErrorDetail => Self::ToolErrorDetail,
            Reply::InvalidArguments => Self::InvalidArguments,
            Reply::InvalidResult => Self::InvalidResult,
        }
    }
}

impl From<driver::Next> for Next {
    fn from(next: driver::Next) -> Self {
        match next {
            driver::Next::Nothing => Self::Nothing,
            driver::Next::Drain => Self::Drain,
            driver::Next::Later => Self::Later,
        }
    }
}

impl From<cordon_runtime::ErrorCode> for ErrorCode {
    fn from(code: cordon_runtime::ErrorCode) -> Self {
        use cordon_runtime::ErrorCode as C;
        match code {
            C::InvalidOptions => Self::InvalidOptions,
            C::InvalidCode => Self::InvalidCode,
            C::Timeout => Self::Timeout,
            C::CpuLimit => Self::CpuLimit,
            C::MemoryLimit => Self::MemoryLimit,
            C::StackOverflow => Self::StackOverflow,
            C::Cancelled => Self::Cancelled,
            C::Closed => Self::Closed,
            C::Busy => Self::Busy,
            C::InvalidSnapshot => Self::InvalidSnapshot,
            C::TooManySandboxes => Self::TooManySandboxes,
            C::ToolCallLimit => Self::ToolCallLimit,
            C::TraceLimit => Self::TraceLimit,
            C::Internal => Self::Internal,
        }
    }
}

/// A sandbox failure outside a run (`create`, `restore`, `snapshot`,
/// `reset`), returned rather than thrown: its code is data.
#[napi(object)]
pub struct BindingFailure {
    pub code: ErrorCode,
    pub message: String,
}

impl From<cordon_runtime::RunFailure> for BindingFailure {
    fn from(failure: cordon_runtime::RunFailure) -> Self {
        Self { code: failure.code.into(), message: failure.message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_keeps_its_string_form() {
        use cordon_runtime::ErrorCode as C;
        let all = [
            C::InvalidOptions,
            C::InvalidCode,
            C::Timeout,
            C::CpuLimit,
            C::MemoryLimit,
            C::StackOverflow,
            C::Cancelled,
            C::Closed,
            C::Busy,
            C::InvalidSnapshot,
            C::TooManySandboxes,
            C::ToolCallLimit,
            C::TraceLimit,
            C::Internal,
        ];
        for code in all {
            let ours = format!("{:?}", ErrorCode::from(code));
            // UPPER_SNAKE of the variant's name, as napi-rs writes it.
            let mut upper = String::new();
            for (i, c) in ours.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    upper.push('_');
                }
                upper.push(c.to_ascii_uppercase());
            }
            assert_eq!(upper, code.as_str());
        }
    }
}
