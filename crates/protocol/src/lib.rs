//! The one contract between the cordon host (`crates/runtime`) and the guest
//! (`guest/`, wasm32-wasip1).
//!
//! Everything that crosses the boundary is defined here: the names of the
//! guest's exports and the host's imports ([`abi`]), the message types, and
//! the codec ([`encode`] / [`decode`]). The host and the guest both depend on
//! this crate, so there is no second copy of the schema to drift.
//!
//! ```
//! use cordon_protocol::{decode, encode, Language, RunRequest};
//! let req = RunRequest { language: Language::Javascript, code: "return 1".into(), output_limit: 1024, tools: vec![], tool_docs: vec![], single_language: false, stdin: vec![], leave_pending: false };
//! let bytes = encode(&req).unwrap();
//! let back: RunRequest = decode(&bytes).unwrap();
//! assert_eq!(back, req);
//! ```

use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// Version of this contract. The host refuses a guest that reports another.
pub const PROTOCOL_VERSION: u32 = 8;

/// Names of the functions and memory the two sides share.
pub mod abi {
    /// The module namespace of every cordon host import.
    pub const IMPORT_MODULE: &str = "cordon";
    /// Host import `tool_call(name_ptr, name_len, args_ptr, args_len) -> i32`:
    /// start a tool call (the host decides at once whether it is allowed) and
    /// return its id. Its [`ToolEvent`](crate::ToolEvent) arrives through `wait`.
    pub const IMPORT_TOOL_CALL: &str = "tool_call";
    /// Host import `wait(timeout_ms: i64) -> i32` (asynchronous on the host):
    /// wait for the next [`ToolEvent`](crate::ToolEvent), at most `timeout_ms`
    /// (-1: no timeout). Returns the length of a batch of events (read it
    /// with `take`, split it with [`split_batch`](crate::split_batch)): the
    /// first that came, then those already there with it, in the order the
    /// guest is to take them. Returns 0 when the timeout passed, or -1 when
    /// no call is pending and there is no timeout.
    pub const IMPORT_WAIT: &str = "wait";
    /// Host import `take(ptr: i32, len: i32)`: copy the event announced by
    /// `wait` into the guest buffer `ptr..ptr+len`.
    pub const IMPORT_TAKE: &str = "take";
    /// Host import `fs(req_ptr, req_len, data_ptr, data_len) -> i32`: one
    /// file-system operation ([`FsRequest`](crate::FsRequest) plus the bytes
    /// of a write). Returns the length of the reply, read with `take`: a
    /// little-endian u32 length, the encoded [`FsReply`](crate::FsReply), then
    /// the bytes of a read.
    pub const IMPORT_FS: &str = "fs";
    /// Host import `output(stream: i32, ptr: i32, len: i32) -> i64`: append
    /// UTF-8 text to a stream; returns the bytes the stream may still take,
    /// or -1 once the host has dropped text from it.
    pub const IMPORT_OUTPUT: &str = "output";

    /// Guest export `cordon_protocol_version() -> i32`.
    pub const EXPORT_VERSION: &str = "cordon_protocol_version";
    /// Guest export `cordon_run(len: i32) -> i64`: run one encoded
    /// [`RunRequest`](crate::RunRequest) of `len` bytes, which the guest
    /// copies in with `take` first (one call per run, not an allocation call
    /// and then a run); returns `ptr << 32 | len` of the encoded
    /// [`RunOutcome`](crate::RunOutcome), valid until the next call.
    pub const EXPORT_RUN: &str = "cordon_run";
    /// Guest export `cordon_init()`: start QuickJS, evaluate the prelude and
    /// create the shell session. The host calls it once, before snapshotting
    /// the guest into its pre-initialised module (the export is gone from
    /// that module); it reads neither the clock nor random bytes.
    pub const EXPORT_INIT: &str = "cordon_init";
    /// The guest's linear memory.
    pub const EXPORT_MEMORY: &str = "memory";
    /// The guest's shadow-stack pointer (a mutable i32 global). The stack
    /// sits first in memory and grows down from its top, so after a trap a
    /// pointer below the stack's floor (it wrapped past 0) means overflow.
    pub const EXPORT_STACK_POINTER: &str = "__stack_pointer";

    /// Stream id of standard output in `output`.
    pub const STREAM_STDOUT: i32 = 1;
    /// Stream id of standard error in `output`.
    pub const STREAM_STDERR: i32 = 2;
}

/// The language a run is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Javascript,
    Shell,
}

impl Language {
    /// Parses the public name of a language (`"javascript"`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "javascript" => Some(Self::Javascript),
            "shell" => Some(Self::Shell),
            _ => None,
        }
    }
}

/// Host → guest: run one script.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    pub language: Language,
    pub code: String,
    /// Bytes each output stream may hold in this run; the guest uses it to
    /// avoid formatting text the host would drop anyway.
    pub output_limit: u64,
    /// Canonical names (`stripe.charges.create`) of the registered tools, for
    /// the guest's bindings. Calling is still decided by the host.
    pub tools: Vec<String>,
    /// Descriptions and argument schemas of those tools, for the shell's
    /// `tool --list` and `tool NAME --help`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_docs: Vec<ToolDoc>,
    /// The sandbox runs this language only: JavaScript has no `shell()`, the
    /// shell no `js`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub single_language: bool,
    /// The run ends when the script's promise settles, dropping the timers
    /// and calls still pending (by default it waits for them, as Node's
    /// process waits for its event loop to empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub leave_pending: bool,
    /// The run's standard input (base64 in the encoding); empty when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "base64")]
    pub stdin: Vec<u8>,
}

/// Standard base64 (with padding) for byte fields, so bytes cross as a
/// string instead of an array of numbers.
mod base64 {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        decode(&text).ok_or_else(|| D::Error::custom("malformed base64"))
    }

    fn digit(value: u32) -> char {
        ALPHABET.get((value & 63) as usize).map_or('=', |&c| char::from(c))
    }

    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
            for i in 0..4 {
                out.push(if i <= chunk.len() { digit(n >> (18 - 6 * i)) } else { '=' });
            }
        }
        out
    }

    pub fn decode(text: &str) -> Option<Vec<u8>> {
        let bytes = text.as_bytes();
        if !bytes.len().is_multiple_of(4) {
            return None;
        }
        let groups = bytes.len() / 4;
        let mut out = Vec::with_capacity(groups * 3);
        for (index, chunk) in bytes.chunks(4).enumerate() {
            let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
            if pad > 2 || (pad > 0 && index + 1 != groups) {
                return None;
            }
            let mut n = 0u32;
            for &c in chunk.iter().take(4 - pad) {
                let v = ALPHABET.iter().position(|&a| a == c)?;
                n = (n << 6) | u32::try_from(v).ok()?;
            }
            n <<= 6 * pad;
            out.extend(n.to_be_bytes().into_iter().skip(1).take(3 - pad));
        }
        Some(out)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn round_trips() {
            for len in 0..70 {
                let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
                assert_eq!(super::decode(&super::encode(&data)), Some(data));
            }
            assert_eq!(super::encode(b"hi\n"), "aGkK");
            assert_eq!(super::decode("aGk="), Some(b"hi".to_vec()));
            assert_eq!(super::decode("aG=k"), None);
            assert_eq!(super::decode("a*k="), None);
        }
    }
}

/// What a tool is, as the embedder described it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDoc {
    pub name: String,
    /// Empty when none was given.
    pub description: String,
    /// The JSON Schema of its arguments as JSON text; empty when none.
    pub schema: String,
}

/// Host → guest: how one tool call ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolEvent {
    /// The id `tool_call` returned.
    pub id: u32,
    pub result: ToolResult,
}

/// Tag bytes of the tool-event wire form.
const EVENT_OK: u8 = 0;
const EVENT_ERROR: u8 = 1;
const EVENT_ERROR_WITH_REASON: u8 = 2;
/// An error with a flags byte saying which of reason, tool code and status
/// follow.
const EVENT_ERROR_DETAILED: u8 = 3;
const HAS_REASON: u8 = 1;
const HAS_TOOL_CODE: u8 = 2;
const HAS_STATUS: u8 = 4;

impl ToolEvent {
    /// The wire form of an event, which crosses once per tool call and so
    /// skips JSON: a tag byte, the id (u32 LE), then for a result its JSON
    /// text as it is, or for an error each of code, reason (when present)
    /// and message as a u32 LE length and UTF-8 bytes. An error with a tool
    /// code or status has a flags byte after the id, and those two after
    /// the message (the status as u16 LE).
    pub fn to_wire(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16);
        self.write_wire(&mut out);
        out
    }

    /// Appends the event to a batch for `wait`: the length of its wire form
    /// (u32 LE), then the wire form.
    pub fn write_framed(&self, batch: &mut Vec<u8>) {
        let at = batch.len();
        batch.extend_from_slice(&[0; 4]);
        self.write_wire(batch);
        let len = u32::try_from(batch.len() - at - 4).unwrap_or(u32::MAX);
        if let Some(head) = batch.get_mut(at..at + 4) {
            head.copy_from_slice(&len.to_le_bytes());
        }
    }

    fn write_wire(&self, out: &mut Vec<u8>) {
        fn field(out: &mut Vec<u8>, text: &str) {
            // Lengths above u32 cannot occur: the guest's memory is 32-bit.
            out.extend_from_slice(&u32::try_from(text.len()).unwrap_or(u32::MAX).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
        match &self.result {
            ToolResult::Ok { json } => {
                out.push(EVENT_OK);
                out.extend_from_slice(&self.id.to_le_bytes());
                out.extend_from_slice(json.as_bytes());
            }
            ToolResult::Error { code, reason, message, tool_code, http_status } => {
                let detailed = tool_code.is_some() || http_status.is_some();
                out.push(match (detailed, reason.is_some()) {
                    (true, _) => EVENT_ERROR_DETAILED,
                    (false, true) => EVENT_ERROR_WITH_REASON,
                    (false, false) => EVENT_ERROR,
                });
                out.extend_from_slice(&self.id.to_le_bytes());
                if detailed {
                    let flag = |present: bool, bit: u8| if present { bit } else { 0 };
                    out.push(
                        flag(reason.is_some(), HAS_REASON)
                            | flag(tool_code.is_some(), HAS_TOOL_CODE)
                            | flag(http_status.is_some(), HAS_STATUS),
                    );
                }
                field(out, code);
                if let Some(reason) = reason {
                    field(out, reason);
                }
                field(out, message);
                if let Some(tool_code) = tool_code {
                    field(out, tool_code);
                }
                if let Some(status) = http_status {
                    out.extend_from_slice(&status.to_le_bytes());
                }
            }
        }
    }

    /// The id and result text of a successful call's wire form, borrowed
    /// from `bytes` (no copy); `None` for any other event or a malformed
    /// one, which [`ToolEvent::from_wire`] then reads or rejects.
    pub fn ok_from_wire(bytes: &[u8]) -> Option<(u32, &str)> {
        let (&EVENT_OK, rest) = bytes.split_first()? else {
            return None;
        };
        let (id, json) = rest.split_first_chunk::<4>()?;
        Some((u32::from_le_bytes(*id), std::str::from_utf8(json).ok()?))
    }

    /// Reads the wire form written by [`ToolEvent::to_wire`]; anything else
    /// is an error, never a panic.
    pub fn from_wire(bytes: &[u8]) -> Result<Self, CodecError> {
        fn err(why: &'static str) -> CodecError {
            CodecError(CodecErrorKind::Event(why))
        }
        fn text(bytes: &[u8]) -> Result<String, CodecError> {
            String::from_utf8(bytes.to_vec()).map_err(|_| err("text is not UTF-8"))
        }
        fn field<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8], CodecError> {
            let (len, tail) = rest.split_first_chunk::<4>().ok_or_else(|| err("truncated length"))?;
            let len = usize::try_from(u32::from_le_bytes(*len)).map_err(|_| err("length too large"))?;
            if tail.len() < len {
                return Err(err("truncated field"));
            }
            let (value, tail) = tail.split_at(len);
            *rest = tail;
            Ok(value)
        }
        let (&tag, rest) = bytes.split_first().ok_or_else(|| err("empty"))?;
        let (id, mut rest) = rest.split_first_chunk::<4>().ok_or_else(|| err("truncated id"))?;
        let id = u32::from_le_bytes(*id);
        let result = match tag {
            EVENT_OK => ToolResult::Ok { json: text(rest)? },
            EVENT_ERROR | EVENT_ERROR_WITH_REASON | EVENT_ERROR_DETAILED => {
                let flags = match tag {
                    EVENT_ERROR => 0,
                    EVENT_ERROR_WITH_REASON => HAS_REASON,
                    _ => {
                        let (&flags, tail) = rest.split_first().ok_or_else(|| err("truncated flags"))?;
                        rest = tail;
                        if flags & !(HAS_REASON | HAS_TOOL_CODE | HAS_STATUS) != 0 {
                            return Err(err("unknown flags"));
                        }
                        flags
                    }
                };
                let code = text(field(&mut rest)?)?;
                let reason = if flags & HAS_REASON != 0 { Some(text(field(&mut rest)?)?) } else { None };
                let message = text(field(&mut rest)?)?;
                let tool_code =
                    if flags & HAS_TOOL_CODE != 0 { Some(text(field(&mut rest)?)?) } else { None };
                let http_status = if flags & HAS_STATUS != 0 {
                    let (status, tail) =
                        rest.split_first_chunk::<2>().ok_or_else(|| err("truncated status"))?;
                    rest = tail;
                    Some(u16::from_le_bytes(*status))
                } else {
                    None
                };
                if !rest.is_empty() {
                    return Err(err("trailing bytes"));
                }
                ToolResult::Error { code, reason, message, tool_code, http_status }
            }
            _ => return Err(err("unknown tag")),
        };
        Ok(ToolEvent { id, result })
    }
}

/// The wire forms of the events in a batch written by
/// [`ToolEvent::write_framed`], in order; a batch that is empty, cut short
/// or has bytes past its last event is an error, never a panic.
pub fn split_batch(mut bytes: &[u8]) -> Result<Vec<&[u8]>, CodecError> {
    fn err(why: &'static str) -> CodecError {
        CodecError(CodecErrorKind::Event(why))
    }
    if bytes.is_empty() {
        return Err(err("empty batch"));
    }
    let mut events = Vec::new();
    while !bytes.is_empty() {
        let (len, rest) = bytes.split_first_chunk::<4>().ok_or_else(|| err("truncated batch"))?;
        let len = usize::try_from(u32::from_le_bytes(*len)).map_err(|_| err("length too large"))?;
        let (event, rest) = rest.split_at_checked(len).ok_or_else(|| err("truncated batch"))?;
        events.push(event);
        bytes = rest;
    }
    Ok(events)
}

/// The result of a tool call, as data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase", deny_unknown_fields)]
pub enum ToolResult {
    /// The tool's result as JSON text (already validated by the host).
    Ok { json: String },
    /// The call was refused or failed. `code` is stable (`DENIED`,
    /// `TOOL_ERROR`, `TOOL_TIMEOUT`, `TOOL_RESULT_INVALID`,
    /// `TOOL_RESULT_TOO_LARGE`); `reason` refines `DENIED`. A `TOOL_ERROR`
    /// may carry what the tool's own error said of itself, checked by the
    /// host: `tool_code` (its `code`) and `http_status` (its `status`).
    Error {
        code: String,
        reason: Option<String>,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_code: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http_status: Option<u16>,
    },
}

impl ToolResult {
    /// An error without the tool's own code or status.
    pub fn error(code: impl Into<String>, reason: Option<&str>, message: impl Into<String>) -> Self {
        ToolResult::Error {
            code: code.into(),
            reason: reason.map(str::to_owned),
            message: message.into(),
            tool_code: None,
            http_status: None,
        }
    }
}

/// Guest → host: how a script ended (when the guest itself did not trap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunOutcome {
    /// 0 on success, 1 when the script threw.
    pub exit_code: i32,
    /// The top-level `return` value: strings as they are, anything else as JSON.
    pub value: Option<String>,
    /// The uncaught exception, if any.
    pub error: Option<ScriptError>,
}

/// An exception the script did not catch, as plain data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptError {
    pub name: String,
    pub message: String,
    /// Guest stack frames (`at f (main.js:3:5)`), never a host path.
    pub stack: String,
}

/// Guest → host: one file-system operation. Paths are guest paths, resolved
/// by the host against the sandbox's working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum FsRequest {
    Read {
        path: String,
    },
    /// `mode`: `truncate`, `append` or `create_new`; the bytes travel beside the request.
    Write {
        path: String,
        mode: String,
    },
    Mkdir {
        path: String,
        recursive: bool,
    },
    Readdir {
        path: String,
    },
    Stat {
        path: String,
    },
    Remove {
        path: String,
        recursive: bool,
    },
    Rename {
        from: String,
        to: String,
    },
    /// Sets the permission bits (metadata only).
    Chmod {
        path: String,
        mode: u32,
    },
    Chdir {
        path: String,
    },
    Cwd,
}

/// Metadata of a file or directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsStat {
    /// `file` or `dir`.
    pub kind: String,
    pub size: u64,
    pub mtime_ms: u64,
    /// Permission bits (`0o644` when absent).
    #[serde(default = "default_mode")]
    pub mode: u32,
}

fn default_mode() -> u32 {
    0o644
}

/// A directory entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsEntry {
    pub name: String,
    pub kind: String,
}

/// Host → guest: the result of an [`FsRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsReply {
    /// `ENOENT`, `EROFS`, ... when the operation failed.
    pub errno: Option<String>,
    /// Node-style message (`ENOENT: no such file or directory, 'x'`).
    pub message: Option<String>,
    pub stat: Option<FsStat>,
    pub entries: Option<Vec<FsEntry>>,
    pub cwd: Option<String>,
}

/// A message that failed to encode or decode.
#[derive(Debug)]
pub struct CodecError(CodecErrorKind);

#[derive(Debug)]
enum CodecErrorKind {
    Json(serde_json::Error),
    Event(&'static str),
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            CodecErrorKind::Json(e) => write!(f, "malformed protocol message: {e}"),
            CodecErrorKind::Event(why) => write!(f, "malformed tool event: {why}"),
        }
    }
}

impl std::error::Error for CodecError {}

/// Encodes a message. The codec is JSON; this is the only place that knows.
pub fn encode<T: Serialize>(msg: &T) -> Result<Vec<u8>, CodecError> {
    serde_json::to_vec(msg).map_err(|e| CodecError(CodecErrorKind::Json(e)))
}

/// Decodes a message encoded by [`encode`].
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    serde_json::from_slice(bytes).map_err(|e| CodecError(CodecErrorKind::Json(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_events_cross_in_their_wire_form_and_back() {
        let events = [
            ToolEvent { id: 0, result: ToolResult::Ok { json: String::new() } },
            ToolEvent { id: 7, result: ToolResult::Ok { json: r#"{"a":"é\n"}"#.into() } },
            ToolEvent { id: u32::MAX, result: ToolResult::error("DENIED", Some("budget"), "no") },
            ToolEvent { id: 3, result: ToolResult::error("TOOL_ERROR", None, "") },
            ToolEvent {
                id: 5,
                result: ToolResult::Error {
                    code: "TOOL_ERROR".into(),
                    reason: None,
                    message: "stripe.charge failed: declined".into(),
                    tool_code: Some("card_declined".into()),
                    http_status: Some(402),
                },
            },
            ToolEvent {
                id: 6,
                result: ToolResult::Error {
                    code: "TOOL_ERROR".into(),
                    reason: Some("r".into()),
                    message: String::new(),
                    tool_code: None,
                    http_status: Some(0),
                },
            },
        ];
        for event in events {
            let wire = event.to_wire();
            assert_eq!(ToolEvent::from_wire(&wire).unwrap(), event);
            // The borrowed reading agrees, and knows only success.
            let borrowed = match &event.result {
                ToolResult::Ok { json } => Some((event.id, json.as_str())),
                ToolResult::Error { .. } => None,
            };
            assert_eq!(ToolEvent::ok_from_wire(&wire), borrowed);
            // Every shorter prefix of an error is refused, and so is a tail.
            if let ToolResult::Error { .. } = event.result {
                for cut in 0..wire.len() {
                    assert!(ToolEvent::from_wire(&wire[..cut]).is_err(), "prefix {cut} accepted");
                }
                let mut longer = wire.clone();
                longer.push(b'x');
                assert!(ToolEvent::from_wire(&longer).is_err());
            }
        }
    }

    #[test]
    fn batches_split_into_their_events() {
        let a = ToolEvent { id: 1, result: ToolResult::Ok { json: "1001".into() } };
        let b = ToolEvent { id: 2, result: ToolResult::error("DENIED", None, "no") };
        let mut batch = Vec::new();
        a.write_framed(&mut batch);
        b.write_framed(&mut batch);
        assert_eq!(&batch[..4], &9u32.to_le_bytes());
        let events = split_batch(&batch).unwrap();
        assert_eq!(events, [a.to_wire(), b.to_wire()]);
        // Every shorter prefix that does not end on an event is refused.
        let ends = [4 + a.to_wire().len(), batch.len()];
        for cut in 0..batch.len() {
            let split = split_batch(&batch[..cut]);
            assert_eq!(split.is_ok(), ends.contains(&cut), "prefix {cut}");
        }
        assert_eq!(split_batch(&[]).unwrap_err().to_string(), "malformed tool event: empty batch");
        // A zero-length event splits; reading it is what refuses it.
        assert_eq!(split_batch(&[0, 0, 0, 0]).unwrap(), [&[] as &[u8]]);
        assert_eq!(
            split_batch(&[5, 0, 0, 0, 1]).unwrap_err().to_string(),
            "malformed tool event: truncated batch"
        );
    }

    #[test]
    fn malformed_wire_events_are_errors() {
        for bytes in [&b""[..], b"\x00\x01\x00", b"\x09\x00\x00\x00\x00", b"\x00\x00\x00\x00\x00\xff"] {
            let err = ToolEvent::from_wire(bytes).unwrap_err();
            assert!(err.to_string().starts_with("malformed tool event: "), "{err}");
            assert_eq!(ToolEvent::ok_from_wire(bytes), None);
        }
        let huge = [1u8, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(
            ToolEvent::from_wire(&huge).unwrap_err().to_string(),
            "malformed tool event: truncated field"
        );
    }
}
