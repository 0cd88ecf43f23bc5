//! Record and replay of a run's nondeterministic inputs: clock reads, random
//! bytes, and tool calls with the order their results arrived in. A recorded
//! trace replayed on a fresh sandbox reproduces the run without calling any
//! tool; the first input that does not match is reported as a divergence.

use std::collections::{HashSet, VecDeque};

use cordon_protocol::{ToolEvent, ToolResult};
use serde::{Deserialize, Serialize};

/// Format version of [`Trace`].
pub const TRACE_VERSION: u32 = 1;

/// One tool call as the guest made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TracedCall {
    pub tool: String,
    pub args: String,
}

/// What one `wait` of the guest returned: a tool event, or its timer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TracedWait {
    /// `None`: the timer fired first.
    pub event: Option<ToolEvent>,
}

/// Everything nondeterministic a run consumed, and what it printed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    pub version: u32,
    pub tool_names: Vec<String>,
    /// Clock readings, in ns.
    pub clock: Vec<u64>,
    /// Random bytes handed out, hex per request.
    pub random: Vec<String>,
    pub calls: Vec<TracedCall>,
    pub waits: Vec<TracedWait>,
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
    /// The run's standard input, hex; absent when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdin: String,
    /// The run left what was pending when its code settled
    /// (`waitForTimers: false`); absent when it waited.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub leave_pending: bool,
    /// Bytes recorded so far (about what the trace's JSON takes), and the
    /// most allowed (`limits.traceBytes`); not part of the trace's text.
    #[serde(skip)]
    pub(crate) bytes: u64,
    #[serde(skip)]
    pub(crate) max_bytes: u64,
}

/// The first place a replay did not match its trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// `clock`, `random`, `call`, `wait`, `stdout`, `stderr` or `exit_code`.
    pub kind: String,
    /// Index of the input of that kind.
    pub index: usize,
    pub expected: String,
    pub actual: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len())
        .step_by(2)
        .map(|i| text.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

pub(crate) struct Replay {
    trace: Trace,
    clock: usize,
    random: usize,
    calls: usize,
    waits: VecDeque<TracedWait>,
    started: HashSet<u32>,
    pub(crate) divergence: Option<Divergence>,
}

/// The trace mode of a run.
#[derive(Default)]
pub(crate) enum Tracer {
    #[default]
    Off,
    Record(Box<Trace>),
    Replay(Box<Replay>),
}

impl Trace {
    /// The standard input the recorded run had (none when its hex is bad).
    pub(crate) fn stdin_bytes(&self) -> Vec<u8> {
        unhex(&self.stdin).unwrap_or_default()
    }

    /// Notes the run's own settings: its standard input and whether it left
    /// what was pending.
    pub(crate) fn note_run(&mut self, stdin: &[u8], leave_pending: bool) {
        self.stdin = hex(stdin);
        self.bytes += 2 * stdin.len() as u64;
        self.leave_pending = leave_pending;
    }
}

impl Tracer {
    pub(crate) fn replay(trace: Trace) -> Self {
        let waits = trace.waits.clone().into();
        Self::Replay(Box::new(Replay {
            trace,
            clock: 0,
            random: 0,
            calls: 0,
            waits,
            started: HashSet::new(),
            divergence: None,
        }))
    }

    pub(crate) fn is_replay(&self) -> bool {
        matches!(self, Self::Replay(_))
    }

    fn diverge(replay: &mut Replay, kind: &str, index: usize, expected: String, actual: String) {
        if replay.divergence.is_none() {
            replay.divergence = Some(Divergence { kind: kind.into(), index, expected, actual });
        }
    }

    /// A clock reading: recorded, or replayed (`live` when the trace has none left).
    pub(crate) fn clock(&mut self, live: impl FnOnce() -> u64) -> u64 {
        match self {
            Self::Off => live(),
            Self::Record(trace) => {
                let ns = live();
                trace.clock.push(ns);
                trace.bytes += 21;
                ns
            }
            Self::Replay(r) => {
                let i = r.clock;
                r.clock += 1;
                match r.trace.clock.get(i) {
                    Some(ns) => *ns,
                    None => {
                        let ns = live();
                        Self::diverge(r, "clock", i, "no more clock reads".into(), ns.to_string());
                        ns
                    }
                }
            }
        }
    }

    /// Random bytes: recorded, or replayed (`live` fills when the trace has none left).
    pub(crate) fn random(&mut self, dst: &mut [u8], live: impl FnOnce(&mut [u8]) -> bool) -> bool {
        match self {
            Self::Off => live(dst),
            Self::Record(trace) => {
                let ok = live(dst);
                trace.bytes += 2 * dst.len() as u64 + 3;
                if trace.bytes <= trace.max_bytes {
                    trace.random.push(hex(dst));
                }
                ok
            }
            Self::Replay(r) => {
                let i = r.random;
                r.random += 1;
                match r.trace.random.get(i).and_then(|h| unhex(h)) {
                    Some(bytes) if bytes.len() == dst.len() => {
                        dst.copy_from_slice(&bytes);
                        true
                    }
                    other => {
                        let expected =
                            other.map_or("no more random reads".into(), |b| format!("{} bytes", b.len()));
                        Self::diverge(r, "random", i, expected, format!("{} bytes", dst.len()));
                        live(dst)
                    }
                }
            }
        }
    }

    /// Records a call the live path started (its id is `calls.len()`).
    pub(crate) fn record_call(&mut self, tool: &[u8], args: &[u8]) {
        if let Self::Record(trace) = self {
            trace.bytes += (tool.len() + args.len() + 24) as u64;
            if trace.bytes <= trace.max_bytes {
                let tool = String::from_utf8_lossy(tool).into_owned();
                trace.calls.push(TracedCall { tool, args: String::from_utf8_lossy(args).into_owned() });
            }
        }
    }

    /// Whether a recording has grown past its limit (the run then ends with
    /// `TRACE_LIMIT`; what went over was not kept).
    pub(crate) fn over_limit(&self) -> bool {
        matches!(self, Self::Record(trace) if trace.bytes > trace.max_bytes)
    }

    /// In replay, a call the guest makes: checked against the trace; its id.
    pub(crate) fn replay_call(&mut self, tool: &[u8], args: &[u8]) -> Option<u32> {
        let Self::Replay(r) = self else { return None };
        let i = r.calls;
        r.calls += 1;
        let actual = TracedCall {
            tool: String::from_utf8_lossy(tool).into_owned(),
            args: String::from_utf8_lossy(args).into_owned(),
        };
        match r.trace.calls.get(i) {
            Some(expected) if *expected == actual => {}
            expected => {
                let expected = expected.map_or("no more calls".into(), |c| format!("{}({})", c.tool, c.args));
                Self::diverge(r, "call", i, expected, format!("{}({})", actual.tool, actual.args));
            }
        }
        let id = u32::try_from(i).unwrap_or(u32::MAX);
        r.started.insert(id);
        Some(id)
    }

    /// Records what a live `wait` returned.
    pub(crate) fn record_wait(&mut self, event: Option<&ToolEvent>) {
        if let Self::Record(trace) = self {
            trace.bytes += 32
                + event.map_or(0, |e| match &e.result {
                    ToolResult::Ok { json } => json.len(),
                    ToolResult::Error { code, reason, message, tool_code, .. } => {
                        code.len()
                            + reason.as_ref().map_or(0, String::len)
                            + message.len()
                            + tool_code.as_ref().map_or(0, String::len)
                    }
                }) as u64;
            if trace.bytes <= trace.max_bytes {
                trace.waits.push(TracedWait { event: event.cloned() });
            }
        }
    }

    /// In replay, what the next `wait` returns: `Some(Some(event))`, a timer
    /// (`Some(None)`), or `None` when the trace has nothing more to give.
    pub(crate) fn replay_wait(&mut self) -> Option<Option<ToolEvent>> {
        let Self::Replay(r) = self else { return None };
        let index = r.trace.waits.len() - r.waits.len();
        let Some(next) = r.waits.pop_front() else {
            Self::diverge(r, "wait", index, "no more results".into(), "the script waited".into());
            return None;
        };
        if let Some(event) = &next.event {
            if !r.started.contains(&event.id) {
                Self::diverge(
                    r,
                    "wait",
                    index,
                    format!("the result of call {}", event.id),
                    "that call was not made".into(),
                );
                return None;
            }
        }
        Some(next.event)
    }

    /// Ends a run: the recorded trace (with the run's output), or the replay's
    /// divergence (comparing the output too).
    pub(crate) fn finish(
        self,
        stdout: &str,
        stderr: &str,
        exit_code: i32,
    ) -> (Option<Trace>, Option<Divergence>) {
        match self {
            Self::Off => (None, None),
            Self::Record(mut trace) => {
                trace.stdout = stdout.to_owned();
                trace.stderr = stderr.to_owned();
                trace.exit_code = exit_code;
                (Some(*trace), None)
            }
            Self::Replay(mut r) => {
                let t = &r.trace;
                let checks = [
                    ("stdout", t.stdout.clone(), stdout.to_owned()),
                    ("stderr", t.stderr.clone(), stderr.to_owned()),
                    ("exit_code", t.exit_code.to_string(), exit_code.to_string()),
                ];
                for (kind, expected, actual) in checks {
                    if expected != actual {
                        Self::diverge(&mut r, kind, 0, expected, actual);
                    }
                }
                (None, r.divergence)
            }
        }
    }
}
