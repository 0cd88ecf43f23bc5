//! The shell: `cordon-shell` over the host's imports. One shell session per
//! instance, kept across runs (variables, functions, options); the working
//! directory and files live on the host, shared with JavaScript.

use std::cell::RefCell;

use cordon_protocol::{
    decode, encode, FsReply, FsRequest, RunOutcome, RunRequest, ToolDoc, ToolEvent, ToolResult,
};
use cordon_shell::system::{
    DirEntry, FsError, JsOutcome, Kind, Meta, Stream, System, ToolError, ToolInfo, WriteMode,
};
use cordon_shell::Shell;

use crate::host::{self, Waited};

thread_local! {
    static SHELL: RefCell<Option<Shell>> = const { RefCell::new(None) };
}

thread_local! {
    /// The tool names of the current run (for `tool --list` and `js -e`).
    static TOOLS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// Their descriptions and schemas, when the host sent them.
    static DOCS: RefCell<Vec<ToolDoc>> = const { RefCell::new(Vec::new()) };
    /// The run may not start the other language.
    static SINGLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Creates the session now (for the pre-initialised snapshot).
pub fn init() {
    SHELL.with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            slot.get_or_insert_with(Shell::new);
        }
    });
}

/// Runs one shell script; its exit status is the run's.
pub fn run(request: &RunRequest) -> RunOutcome {
    SINGLE.set(request.single_language);
    TOOLS.with(|t| t.borrow_mut().clone_from(&request.tools));
    DOCS.with(|d| d.borrow_mut().clone_from(&request.tool_docs));
    let status = with_shell(&request.code, request.stdin.clone()).unwrap_or(2);
    RunOutcome { exit_code: status, value: None, error: None }
}

fn with_shell(script: &str, stdin: Vec<u8>) -> Option<i32> {
    SHELL.with(|slot| {
        let mut slot = slot.try_borrow_mut().ok()?;
        let shell = slot.get_or_insert_with(Shell::new);
        let tools = TOOLS.with(|t| t.borrow().clone());
        let mut sys = GuestSystem { tools };
        Some(shell.run_with_stdin(&mut sys, script, stdin))
    })
}

/// `await shell(script)` from JavaScript: the same session, output
/// collected. Returns (stdout, stderr, status).
pub fn run_captured(script: &str) -> (Vec<u8>, Vec<u8>, i32) {
    if SINGLE.get() {
        return (
            Vec::new(),
            b"shell: the shell is not enabled in this sandbox (JavaScript only)\n".to_vec(),
            126,
        );
    }
    let (status, out, mut err) = host::capture(|| with_shell(script, Vec::new()));
    match status {
        Some(status) => (out, err, status),
        None => {
            err.extend_from_slice(
                b"shell: the shell is already running (shell() inside js inside the shell)\n",
            );
            (out, err, 126)
        }
    }
}

/// Remembers the tool names of a JavaScript run, for `shell()` inside it.
pub fn set_tools(request: &RunRequest) {
    SINGLE.set(request.single_language);
    TOOLS.with(|t| t.borrow_mut().clone_from(&request.tools));
    DOCS.with(|d| d.borrow_mut().clone_from(&request.tool_docs));
}

struct GuestSystem {
    tools: Vec<String>,
}

fn kind(text: &str) -> Kind {
    if text == "dir" {
        Kind::Dir
    } else {
        Kind::File
    }
}

impl GuestSystem {
    /// Sends one request; returns the reply and the payload of a read.
    fn fs(&mut self, request: &FsRequest, data: &[u8]) -> Result<(FsReply, Vec<u8>), FsError> {
        let encoded = encode(request).map_err(|e| FsError::new("EINVAL", e.to_string()))?;
        let text = String::from_utf8_lossy(&encoded).into_owned();
        let (json, payload) = host::fs(&text, data);
        let reply: FsReply = decode(&json).map_err(|e| FsError::new("EIO", e.to_string()))?;
        if let Some(errno) = &reply.errno {
            return Err(FsError::new(errno, reply.message.clone().unwrap_or_default()));
        }
        Ok((reply, payload))
    }
}

impl System for GuestSystem {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, FsError> {
        self.fs(&FsRequest::Read { path: path.into() }, &[]).map(|(_, data)| data)
    }

    fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError> {
        let mode = match mode {
            WriteMode::Truncate => "truncate",
            WriteMode::Append => "append",
            WriteMode::CreateNew => "create_new",
        };
        self.fs(&FsRequest::Write { path: path.into(), mode: mode.into() }, data).map(|_| ())
    }

    fn mkdir(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        self.fs(&FsRequest::Mkdir { path: path.into(), recursive }, &[]).map(|_| ())
    }

    fn readdir(&mut self, path: &str) -> Result<Vec<DirEntry>, FsError> {
        let (reply, _) = self.fs(&FsRequest::Readdir { path: path.into() }, &[])?;
        Ok(reply
            .entries
            .unwrap_or_default()
            .into_iter()
            .map(|e| DirEntry { kind: kind(&e.kind), name: e.name })
            .collect())
    }

    fn stat(&mut self, path: &str) -> Result<Meta, FsError> {
        let (reply, _) = self.fs(&FsRequest::Stat { path: path.into() }, &[])?;
        let stat = reply.stat.ok_or_else(|| FsError::new("EIO", "stat without metadata"))?;
        Ok(Meta { kind: kind(&stat.kind), size: stat.size, mtime_ms: stat.mtime_ms, mode: stat.mode })
    }

    fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        self.fs(&FsRequest::Remove { path: path.into(), recursive }, &[]).map(|_| ())
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), FsError> {
        self.fs(&FsRequest::Rename { from: from.into(), to: to.into() }, &[]).map(|_| ())
    }

    fn chmod(&mut self, path: &str, mode: u32) -> Result<(), FsError> {
        self.fs(&FsRequest::Chmod { path: path.into(), mode }, &[]).map(|_| ())
    }

    fn chdir(&mut self, path: &str) -> Result<String, FsError> {
        let (reply, _) = self.fs(&FsRequest::Chdir { path: path.into() }, &[])?;
        Ok(reply.cwd.unwrap_or_default())
    }

    fn cwd(&mut self) -> String {
        self.fs(&FsRequest::Cwd, &[]).ok().and_then(|(r, _)| r.cwd).unwrap_or_else(|| "/workspace".into())
    }

    fn output(&mut self, stream: Stream, bytes: &[u8]) -> bool {
        let stream = match stream {
            Stream::Stdout => host::Stream::Stdout,
            Stream::Stderr => host::Stream::Stderr,
        };
        host::write(stream, &String::from_utf8_lossy(bytes)) >= 0
    }

    fn now_ms(&mut self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }

    fn sleep(&mut self, ms: u64) {
        // The host's `wait` serves the timeout under the run's deadline (a
        // sleep past the time limit ends the run there).
        let deadline = self.now_ms().saturating_add(ms);
        loop {
            let now = self.now_ms();
            if now >= deadline {
                return;
            }
            let left = i64::try_from(deadline - now).unwrap_or(i64::MAX);
            match host::wait_host(left) {
                Waited::Timeout | Waited::Idle => return,
                // A result for JavaScript: keep it for later.
                Waited::Event(bytes) => host::stash(bytes),
            }
        }
    }

    fn tool_call(&mut self, name: &str, args_json: &str) -> Result<String, ToolError> {
        let id = host::tool_call(name, args_json);
        loop {
            match host::wait_host(-1) {
                Waited::Event(bytes) => {
                    let Ok(event) = ToolEvent::from_wire(&bytes) else { continue };
                    if i64::from(event.id) != i64::from(id) {
                        // A call JavaScript started before `await shell(…)`.
                        host::stash(bytes);
                        continue;
                    }
                    return match event.result {
                        ToolResult::Ok { json } => Ok(json),
                        ToolResult::Error { code, reason, message, .. } => {
                            Err(ToolError { code, reason, message })
                        }
                    };
                }
                Waited::Timeout | Waited::Idle => {
                    return Err(ToolError {
                        code: "TOOL_ERROR".into(),
                        reason: None,
                        message: format!("{name}: the call never completed"),
                    })
                }
            }
        }
    }

    fn tools(&mut self) -> Vec<ToolInfo> {
        let docs = DOCS.with(|d| d.borrow().clone());
        let mut tools: Vec<ToolInfo> = self
            .tools
            .iter()
            .map(|name| match docs.iter().find(|d| &d.name == name) {
                Some(doc) => ToolInfo {
                    name: name.clone(),
                    description: doc.description.clone(),
                    schema: doc.schema.clone(),
                },
                None => ToolInfo { name: name.clone(), description: String::new(), schema: String::new() },
            })
            .collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools
    }

    fn javascript(&mut self, code: &str, _args: &[String], stdin: &[u8]) -> JsOutcome {
        if SINGLE.get() {
            return JsOutcome {
                stdout: Vec::new(),
                stderr: b"js: JavaScript is not enabled in this sandbox (shell only)\n".to_vec(),
                status: 126,
            };
        }
        let request = RunRequest {
            language: cordon_protocol::Language::Javascript,
            code: code.to_string(),
            output_limit: 16 * 1024 * 1024,
            tools: self.tools.clone(),
            tool_docs: DOCS.with(|d| d.borrow().clone()),
            // Both languages are on (or this returned above); JavaScript
            // inside the shell has no `shell()` in any case.
            single_language: false,
            stdin: stdin.to_vec(),
            leave_pending: false,
        };
        let (outcome, stdout, stderr) = host::capture(|| crate::js::run_nested(&request));
        match outcome {
            Some(outcome) => JsOutcome { stdout, stderr, status: outcome.exit_code },
            None => JsOutcome {
                stdout,
                stderr: b"js: JavaScript is already running (js inside shell() inside JavaScript)\n".to_vec(),
                status: 126,
            },
        }
    }
}
