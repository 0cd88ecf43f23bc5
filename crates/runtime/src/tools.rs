//! Tool calls from the guest: the policy decides at once (synchronously, so
//! budgets are exact under any burst), allowed calls go to the [`ToolHost`]
//! concurrently, and their results come back to the guest as events through
//! the asynchronous `wait` import.

use std::{
    collections::VecDeque,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context as TaskContext, Poll},
    time::{Duration, Instant},
};

use cordon_policy::{parse_arguments, ArgLimits, Budgets, Decision, Policy};
use cordon_protocol::{ToolEvent, ToolResult};
use serde::Serialize;

use crate::pending::Pending;

/// Denied calls one run may make; the next call ends the run with
/// `TOOL_CALL_LIMIT`. Allowed calls are bounded by `limits.toolCalls`.
pub const MAX_DENIED_PER_RUN: u32 = 10_000;
/// Records a run's log keeps; later calls are counted in one `omitted` record.
pub const LOG_ENTRIES: usize = 20_000;
/// Bytes of text (names, arguments, messages) a run's log keeps; past them,
/// later calls are counted in one `omitted` record.
pub const LOG_BYTES: usize = 8 << 20;
/// Bytes of a call's arguments a record keeps.
const RECORD_ARGS: usize = 1024;
/// Bytes of a message a record keeps.
const RECORD_MESSAGE: usize = 1024;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// An allowed call on its way to the tool: the canonical name and exactly
/// the validated arguments, as JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInvocation {
    pub name: String,
    pub args_json: String,
}

/// How a tool failed, as reported by the host side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolFailure {
    /// The tool threw or rejected (`TOOL_ERROR`); the message is shown to the guest.
    Failed(String),
    /// The same, with what the tool's error said of itself: its `code` and
    /// `status`, passed to the guest as `toolCode` and `status` only when
    /// they are plain (a short identifier, an HTTP status).
    FailedWith { message: String, code: Option<String>, status: Option<i64> },
    /// The tool returned something that is not JSON data (`TOOL_RESULT_INVALID`).
    InvalidResult(String),
    /// The tool's own schema refused the arguments the policy allowed
    /// (`INVALID_ARGUMENTS`, reason `schema`); the tool did not run.
    InvalidArguments(String),
}

/// The embedder's side of tool calls (the Node binding implements it).
pub trait ToolHost: Send + Sync + 'static {
    /// Runs an allowed call; resolves to the result as JSON text.
    fn call(&self, call: &ToolInvocation) -> BoxFuture<Result<String, ToolFailure>>;

    /// Asks whether a call of a `requireApproval` capability (or of a tool
    /// that requires approval) may proceed; `capability_asks` is false when
    /// only the tool does, so that its own rule may waive it. The default
    /// refuses.
    fn approve(&self, _call: &ToolInvocation, _capability_asks: bool) -> BoxFuture<bool> {
        Box::pin(async { false })
    }

    /// Sees every decided call (allowed calls once they completed).
    fn record(&self, _record: &ToolCallRecord) {}
}

/// One entry of a run's audit log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    /// The canonical name, or the name as the guest wrote it when it is unknown.
    pub tool: String,
    /// The validated arguments (allowed calls) or the guest's text, cut at 1 KiB.
    pub args: String,
    /// `"allowed"`, `"denied"`, or `"omitted"` for the last record of a log
    /// that was full (its message says how many calls it stands for).
    pub decision: &'static str,
    /// Why a call was denied (`constraint`, `budget`, ...).
    pub reason: Option<String>,
    /// The error code the guest saw, when the call did not succeed.
    pub code: Option<String>,
    /// The denial or failure message.
    pub message: Option<String>,
    pub duration_ms: f64,
    /// Bytes of the JSON result, for calls that returned one.
    pub result_bytes: Option<u64>,
}

/// Limits of tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToolLimits {
    pub(crate) timeout: Duration,
    pub(crate) result_bytes: usize,
}

/// What a sandbox's calls are checked against and sent to.
#[derive(Clone)]
pub struct Tools {
    pub policy: Arc<Policy>,
    pub host: Arc<dyn ToolHost>,
}

struct Context {
    tools: Tools,
    budgets: Arc<Mutex<Budgets>>,
    limits: ToolLimits,
}

/// A call's id, its record's index, and how it ended.
type Completion = (u32, usize, Ended);

/// How an allowed call ended.
enum Ended {
    /// The host did not approve it.
    Refused,
    /// It did not answer within the tool timeout.
    TimedOut,
    Answered(Result<String, ToolFailure>),
}

/// Per-store state of tool calls.
pub(crate) struct ToolState {
    context: Option<Context>,
    next_id: u32,
    ready: VecDeque<ToolEvent>,
    pending: Pending<Completion>,
    /// The audit log: each record, when its call started, and whether it ended.
    records: Vec<(ToolCallRecord, Instant, bool)>,
    /// Bytes of text in `records`.
    log_bytes: usize,
    /// Calls the log was too full to keep (allowed calls in flight keep a
    /// record without their text until they end, then leave the log).
    omitted: u64,
    /// Calls of this run that were denied.
    denied: u32,
    /// The allowed calls of the run, oldest first, each with its deadline.
    /// Every call of a run has the same timeout, so the oldest call still in
    /// flight is the next to run out of time, and one timer serves them all.
    deadlines: VecDeque<Deadline>,
    /// That timer, set no later than the deadline of the oldest call in flight.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    /// When the timer last went off: calls whose deadline is not later than
    /// this are out of time.
    expired: Option<tokio::time::Instant>,
}

/// An allowed call's deadline, its id, its record and its slot in `pending`.
#[derive(Clone, Copy)]
struct Deadline {
    at: tokio::time::Instant,
    id: u32,
    index: usize,
    slot: usize,
}

/// The decision of a record the log had no room for.
const OMITTED: &str = "omitted";

fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", text.get(..end).unwrap_or_default())
}

/// `text` cut at `max` bytes, with control characters escaped (`\n`,
/// `\u{1b}`): a record's name or message can go into a line-based log
/// without the guest writing lines of its own.
fn printable(text: &str, max: usize) -> String {
    let text = cut(text, max);
    if !text.chars().any(char::is_control) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn error(code: &str, reason: Option<&str>, message: String) -> ToolResult {
    ToolResult::error(code, reason, message)
}

/// Whether a tool error's own `code` may reach the guest: 1 to 64 bytes of
/// letters, digits and `_ - . : /` (`card_declined`, `ENOENT`,
/// `rate_limit:exceeded`), nothing that could carry text of its own.
fn plain_code(code: &str) -> bool {
    (1..=64).contains(&code.len())
        && code.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/'))
}

impl ToolState {
    pub(crate) fn new(tools: Option<(Tools, Arc<Mutex<Budgets>>)>, limits: ToolLimits) -> Self {
        Self {
            context: tools.map(|(tools, budgets)| Context { tools, budgets, limits }),
            next_id: 0,
            ready: VecDeque::new(),
            pending: Pending::default(),
            records: Vec::new(),
            log_bytes: 0,
            omitted: 0,
            denied: 0,
            deadlines: VecDeque::new(),
            timer: None,
            expired: None,
        }
    }

    /// Canonical names of the registered tools.
    pub(crate) fn docs(&self) -> Vec<cordon_protocol::ToolDoc> {
        self.context
            .as_ref()
            .map(|c| {
                c.tools
                    .policy
                    .tool_docs()
                    .map(|(name, description, schema)| cordon_protocol::ToolDoc {
                        name: name.as_str().to_owned(),
                        description: description.unwrap_or_default().to_owned(),
                        schema: schema.unwrap_or_default().to_owned(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.context
            .as_ref()
            .map(|c| c.tools.policy.tool_names().map(|n| n.as_str().to_owned()).collect())
            .unwrap_or_default()
    }

    /// Starts a run: nothing pending, the per-run total reset.
    pub(crate) fn begin_run(&mut self) {
        self.end_run();
        // Ids count from 0 in every run, so a trace's ids match on replay.
        self.next_id = 0;
        self.denied = 0;
        if let Some(context) = &self.context {
            context.budgets.lock().unwrap_or_else(|e| e.into_inner()).start_run();
        }
    }

    /// Ends a run: calls still pending are dropped (a late result goes
    /// nowhere) and the audit log is handed over.
    pub(crate) fn end_run(&mut self) -> Vec<ToolCallRecord> {
        self.ready.clear();
        self.pending.clear();
        self.deadlines.clear();
        self.timer = None;
        self.expired = None;
        self.log_bytes = 0;
        let mut omitted = std::mem::take(&mut self.omitted);
        let mut log: Vec<ToolCallRecord> = self
            .records
            .drain(..)
            .filter_map(|(mut record, _, done)| {
                if record.decision == OMITTED {
                    // Kept only while its call was in flight.
                    omitted += 1;
                    return None;
                }
                if !done {
                    record.code = Some("ABANDONED".into());
                    record.message =
                        Some("the run ended before the tool answered; its result was dropped".into());
                }
                Some(record)
            })
            .collect();
        if omitted > 0 {
            log.push(ToolCallRecord {
                tool: String::new(),
                args: String::new(),
                decision: OMITTED,
                reason: Some("log_full".into()),
                code: None,
                message: Some(format!(
                    "{omitted} more tool calls were not logged (a run's log keeps {LOG_ENTRIES} records and \
                     {LOG_BYTES} bytes)"
                )),
                duration_ms: 0.0,
                result_bytes: None,
            });
        }
        log
    }

    /// Whether the log has room for one more record of `bytes` of text.
    fn log_has_room(&self, bytes: usize) -> bool {
        self.records.len() < LOG_ENTRIES && self.log_bytes + bytes <= LOG_BYTES
    }

    /// Whether any call is still waiting for its result.
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty() || !self.ready.is_empty()
    }

    /// The next event that is already there.
    pub(crate) fn next_ready(&mut self) -> Option<ToolEvent> {
        self.ready.pop_front()
    }

    /// Waits for the next allowed call to complete or run out of time.
    pub(crate) async fn next_completed(&mut self) -> Option<ToolEvent> {
        std::future::poll_fn(|cx| self.poll_completed(cx)).await
    }

    /// The next allowed call that has completed or run out of time already,
    /// if any (`cx` is the run's: the set registers it, as a wait would).
    pub(crate) fn completed_now(&mut self, cx: &mut TaskContext<'_>) -> Option<ToolEvent> {
        match self.poll_completed(cx) {
            Poll::Ready(event) => event,
            Poll::Pending => None,
        }
    }

    /// A call that answered comes before one that ran out of time: an
    /// answer that is there when its deadline passes (the guest computed
    /// past it before waiting) is delivered, as it would have been before
    /// the deadline.
    fn poll_completed(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<ToolEvent>> {
        match self.pending.poll_next(cx) {
            Poll::Ready(Some(done)) => Poll::Ready(Some(self.completed(done))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match self.poll_deadlines(cx) {
                Some(event) => Poll::Ready(Some(event)),
                None => Poll::Pending,
            },
        }
    }

    /// The event of the oldest call in flight if it is out of time; else
    /// `None`, with the timer set to wake `cx` by that call's deadline.
    fn poll_deadlines(&mut self, cx: &mut TaskContext<'_>) -> Option<ToolEvent> {
        loop {
            let &Deadline { at, id, index, slot } = self.deadlines.front()?;
            if self.records.get(index).is_none_or(|(_, _, done)| *done) {
                self.deadlines.pop_front();
                continue;
            }
            if self.expired.is_some_and(|now| at <= now) {
                self.deadlines.pop_front();
                self.pending.cancel(slot);
                return Some(self.completed((id, index, Ended::TimedOut)));
            }
            // The timer goes off no later than this deadline. It stays set
            // for calls that ended since (a call that answers costs the
            // timer nothing), and moves on when it goes off early.
            let timer = self.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(at)));
            if timer.deadline() > at {
                timer.as_mut().reset(at);
            }
            // Outside the task's cooperative budget: a timer that declined
            // to register the waker would never wake the run.
            let fired = {
                let mut poll = std::pin::pin!(tokio::task::unconstrained(std::future::poll_fn(|cx| {
                    timer.as_mut().poll(cx)
                })));
                poll.as_mut().poll(cx).is_ready()
            };
            if !fired {
                return None;
            }
            if timer.deadline() < at {
                timer.as_mut().reset(at);
                continue;
            }
            self.expired = Some(tokio::time::Instant::now());
        }
    }

    /// The event of a call that ended, noted in its record (whose tool name
    /// the messages use).
    fn completed(&mut self, (id, index, ended): Completion) -> ToolEvent {
        let Some((record, started, done)) = self.records.get_mut(index) else {
            // Not reached: a record lives as long as its call's future.
            return ToolEvent { id, result: error("TOOL_ERROR", None, "the call's record is gone".into()) };
        };
        let name = &record.tool;
        let limits = self.context.as_ref().map(|c| c.limits);
        let result = match ended {
            Ended::Refused => error(
                "DENIED",
                Some("approval"),
                format!("{name} denied: the host did not approve this call"),
            ),
            Ended::TimedOut => error(
                "TOOL_TIMEOUT",
                None,
                format!(
                    "{name} did not answer within {} ms (limits.toolTimeoutMs)",
                    limits.map_or(0, |l| l.timeout.as_millis())
                ),
            ),
            Ended::Answered(Err(ToolFailure::Failed(message))) => {
                error("TOOL_ERROR", None, format!("{name} failed: {message}"))
            }
            Ended::Answered(Err(ToolFailure::FailedWith { message, code, status })) => ToolResult::Error {
                code: "TOOL_ERROR".into(),
                reason: None,
                message: format!("{name} failed: {message}"),
                tool_code: code.filter(|code| plain_code(code)),
                http_status: status.filter(|s| (100..=599).contains(s)).and_then(|s| u16::try_from(s).ok()),
            },
            Ended::Answered(Err(ToolFailure::InvalidResult(message))) => {
                error("TOOL_RESULT_INVALID", None, message)
            }
            Ended::Answered(Err(ToolFailure::InvalidArguments(message))) => {
                error("INVALID_ARGUMENTS", Some("schema"), format!("{name}: {message}"))
            }
            Ended::Answered(Ok(json)) => checked_result(name, json, limits.map_or(0, |l| l.result_bytes)),
        };
        *done = true;
        record.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        record.result_bytes = match &result {
            ToolResult::Ok { json } => u64::try_from(json.len()).ok(),
            ToolResult::Error { .. } => None,
        };
        if let ToolResult::Error { code, reason, message, .. } = &result {
            record.code = Some(code.clone());
            if record.decision != OMITTED {
                let kept = printable(message, RECORD_MESSAGE);
                self.log_bytes += kept.len();
                record.message = Some(kept);
            }
            // Refused by the approver or by the tool's own schema: the
            // tool did not run.
            if reason.is_some() && record.decision != OMITTED {
                record.decision = "denied";
                record.reason = reason.clone();
            }
        }
        if let Some(context) = &self.context {
            if record.decision == OMITTED {
                // The log has no room for it; the hook still sees the call.
                context.tools.host.record(&ToolCallRecord { decision: "allowed", ..record.clone() });
            } else {
                context.tools.host.record(record);
            }
        }
        ToolEvent { id, result }
    }

    /// Decides a call and starts it when allowed; returns its id, or
    /// `None` once the run has made [`MAX_DENIED_PER_RUN`] denied calls.
    pub(crate) fn start(&mut self, name: &[u8], args: &[u8]) -> Option<u32> {
        if self.denied >= MAX_DENIED_PER_RUN {
            return None;
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let started = Instant::now();
        let raw_name = String::from_utf8_lossy(name);
        let raw_args = String::from_utf8_lossy(args);
        let deny = |state: &mut Self, tool: String, reason: &str, message: String| {
            state.denied += 1;
            let record = ToolCallRecord {
                tool: printable(&tool, 160),
                args: cut(&raw_args, RECORD_ARGS),
                decision: "denied",
                reason: Some(reason.to_owned()),
                code: Some("DENIED".into()),
                message: Some(printable(&message, RECORD_MESSAGE)),
                duration_ms: started.elapsed().as_secs_f64() * 1000.0,
                result_bytes: None,
            };
            if let Some(context) = &state.context {
                context.tools.host.record(&record);
            }
            let bytes =
                record.tool.len() + record.args.len() + record.message.as_ref().map_or(0, String::len);
            if state.log_has_room(bytes) {
                state.log_bytes += bytes;
                state.records.push((record, started, true));
            } else {
                state.omitted += 1;
            }
            state.ready.push_back(ToolEvent { id, result: error("DENIED", Some(reason), message) });
            Some(id)
        };
        let Some(context) = &self.context else {
            let message = format!(
                "unknown tool {}; this sandbox has no tools",
                serde_json::Value::from(cut(&raw_name, 80))
            );
            return deny(self, cut(&raw_name, 128), "unknown_tool", message);
        };
        let decision = {
            let mut budgets = context.budgets.lock().unwrap_or_else(|e| e.into_inner());
            // A name that is not UTF-8 cannot be a tool name; checking the
            // lossy form denies it the same way.
            context.tools.policy.check(&raw_name, args, &mut budgets)
        };
        let allowed = match decision {
            Decision::Allow(allowed) => allowed,
            Decision::Deny(denial) => {
                let tool = denial.tool.clone().unwrap_or_else(|| cut(&raw_name, 128));
                return deny(self, tool, denial.reason.as_str(), denial.message);
            }
        };
        // Written straight into the string (`Display` would go through the
        // formatter a piece at a time); the same text.
        let args_json = serde_json::to_string(allowed.args()).unwrap_or_else(|_| allowed.args().to_string());
        let host = &context.tools.host;
        // Start the approval or the call now, not when the guest next
        // waits: tools run while the guest goes on.
        let deadline = tokio::time::Instant::from_std(started) + context.limits.timeout;
        // The call now, or the approval now and the call after it (what that
        // needs is boxed: most calls need no approval, and their future
        // stays small). A call without one takes the checked name itself.
        let (invocation, started_now) = if allowed.requires_approval() {
            let invocation = ToolInvocation { name: allowed.name().as_str().to_owned(), args_json };
            let approval = Started::Approval(Box::new(Approval {
                asked: host.approve(&invocation, allowed.capability_asks()),
                invocation: invocation.clone(),
                host: Arc::clone(host),
            }));
            (invocation, approval)
        } else {
            let invocation = ToolInvocation { name: allowed.into_name().into_string(), args_json };
            let call = Started::Call(host.call(&invocation));
            (invocation, call)
        };
        // The record takes the invocation's text (cut to 1 KiB); the
        // messages of a failure are written from it once the call ends. A
        // full log keeps the call's name only until it ends.
        let index = self.records.len();
        let mut args = invocation.args_json;
        if args.len() > RECORD_ARGS {
            args = cut(&args, RECORD_ARGS);
        }
        let bytes = invocation.name.len() + args.len();
        let decision = if self.log_has_room(bytes) {
            self.log_bytes += bytes;
            "allowed"
        } else {
            args = String::new();
            OMITTED
        };
        self.records.push((
            ToolCallRecord {
                tool: invocation.name,
                args,
                decision,
                reason: None,
                code: None,
                message: None,
                duration_ms: 0.0,
                result_bytes: None,
            },
            started,
            false,
        ));
        let future = async move {
            let call = match started_now {
                Started::Call(call) => call,
                Started::Approval(approval) => {
                    // A refused call keeps its charge: a script cannot ask
                    // the approver more often than its budgets allow.
                    let Approval { asked, invocation, host } = *approval;
                    if !asked.await {
                        return (id, index, Ended::Refused);
                    }
                    host.call(&invocation)
                }
            };
            (id, index, Ended::Answered(call.await))
        };
        let slot = self.pending.push(Box::pin(future));
        self.deadlines.push_back(Deadline { at: deadline, id, index, slot });
        Some(id)
    }
}

/// What an allowed call started with.
enum Started {
    Call(BoxFuture<Result<String, ToolFailure>>),
    Approval(Box<Approval>),
}

/// An approval asked for, and what the call needs once it is answered.
struct Approval {
    asked: BoxFuture<bool>,
    invocation: ToolInvocation,
    host: Arc<dyn ToolHost>,
}

/// A result crosses to the guest only as bounded, well-formed JSON data.
fn checked_result(name: &str, json: String, max_bytes: usize) -> ToolResult {
    if json.len() > max_bytes {
        return error(
            "TOOL_RESULT_TOO_LARGE",
            None,
            format!(
                "{name} returned {} bytes, over the limit of {max_bytes} (limits.toolResultBytes)",
                json.len()
            ),
        );
    }
    match parse_arguments(json.as_bytes(), ArgLimits { max_bytes, max_depth: 64 }) {
        Ok(_) => ToolResult::Ok { json },
        Err(why) => error("TOOL_RESULT_INVALID", None, format!("{name} returned a result that is {why}")),
    }
}
