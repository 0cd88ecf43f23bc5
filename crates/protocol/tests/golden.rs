#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Golden encodings: a change here is a change of the host<->guest contract
//! and needs a PROTOCOL_VERSION bump.

use cordon_protocol::{decode, encode, Language, RunOutcome, RunRequest, ScriptError, ToolEvent, ToolResult};

#[test]
fn run_request_encoding_is_stable() {
    let req = RunRequest {
        language: Language::Javascript,
        code: "return 1".into(),
        output_limit: 7,
        tools: vec!["stripe.charges.create".into()],
        tool_docs: vec![],
        single_language: false,
        stdin: vec![],
        leave_pending: false,
    };
    let bytes = encode(&req).unwrap();
    assert_eq!(
        std::str::from_utf8(&bytes).unwrap(),
        r#"{"language":"javascript","code":"return 1","output_limit":7,"tools":["stripe.charges.create"]}"#
    );
    assert_eq!(decode::<RunRequest>(&bytes).unwrap(), req);
    let with_stdin = RunRequest { stdin: b"a\xffb\n".to_vec(), ..req };
    let bytes = encode(&with_stdin).unwrap();
    assert!(std::str::from_utf8(&bytes).unwrap().ends_with(r#""stdin":"Yf9iCg=="}"#));
    assert_eq!(decode::<RunRequest>(&bytes).unwrap(), with_stdin);
}

#[test]
fn run_outcome_encoding_is_stable() {
    let out = RunOutcome {
        exit_code: 1,
        value: None,
        error: Some(ScriptError {
            name: "TypeError".into(),
            message: "x".into(),
            stack: "    at <anonymous> (main.js:1:1)".into(),
        }),
    };
    let bytes = encode(&out).unwrap();
    assert_eq!(
        std::str::from_utf8(&bytes).unwrap(),
        r#"{"exit_code":1,"value":null,"error":{"name":"TypeError","message":"x","stack":"    at <anonymous> (main.js:1:1)"}}"#
    );
    assert_eq!(decode::<RunOutcome>(&bytes).unwrap(), out);
}

#[test]
fn unknown_fields_and_languages_are_rejected() {
    assert!(decode::<RunRequest>(
        br#"{"language":"javascript","code":"","output_limit":1,"tools":[],"x":1}"#
    )
    .is_err());
    assert!(decode::<RunRequest>(br#"{"language":"python","code":"","output_limit":1,"tools":[]}"#).is_err());
    assert!(decode::<ToolEvent>(br#"{"id":1,"result":{"status":"maybe"}}"#).is_err());
    assert!(decode::<RunOutcome>(b"not json").is_err());
    assert_eq!(Language::parse("javascript"), Some(Language::Javascript));
    assert_eq!(Language::parse("python"), None);
    assert_eq!(Language::parse("JavaScript"), None);
}

#[test]
fn tool_event_encoding_is_stable() {
    let ok = ToolEvent { id: 3, result: ToolResult::Ok { json: "{\"a\":1}".into() } };
    assert_eq!(
        std::str::from_utf8(&encode(&ok).unwrap()).unwrap(),
        r#"{"id":3,"result":{"status":"ok","json":"{\"a\":1}"}}"#
    );
    let denied = ToolEvent { id: 4, result: ToolResult::error("DENIED", Some("budget"), "no") };
    let bytes = encode(&denied).unwrap();
    assert_eq!(
        std::str::from_utf8(&bytes).unwrap(),
        r#"{"id":4,"result":{"status":"error","code":"DENIED","reason":"budget","message":"no"}}"#
    );
    assert_eq!(decode::<ToolEvent>(&bytes).unwrap(), denied);
}

#[test]
fn fs_messages_are_stable() {
    use cordon_protocol::{FsReply, FsRequest, FsStat};
    let req = FsRequest::Write { path: "a.txt".into(), mode: "append".into() };
    assert_eq!(
        std::str::from_utf8(&encode(&req).unwrap()).unwrap(),
        r#"{"op":"write","path":"a.txt","mode":"append"}"#
    );
    assert_eq!(std::str::from_utf8(&encode(&FsRequest::Cwd).unwrap()).unwrap(), r#"{"op":"cwd"}"#);
    let reply = FsReply {
        stat: Some(FsStat { kind: "file".into(), size: 2, mtime_ms: 5, mode: 0o640 }),
        ..FsReply::default()
    };
    assert_eq!(
        std::str::from_utf8(&encode(&reply).unwrap()).unwrap(),
        r#"{"errno":null,"message":null,"stat":{"kind":"file","size":2,"mtime_ms":5,"mode":416},"entries":null,"cwd":null}"#
    );
    assert!(decode::<FsRequest>(br#"{"op":"chmod","path":"a"}"#).is_err());
    assert_eq!(
        encode(&FsRequest::Chmod { path: "a".into(), mode: 0o755 }).unwrap(),
        br#"{"op":"chmod","path":"a","mode":493}"#
    );
    // A stat without bits (an older host) reads as a 0644 file.
    let old: FsStat = decode(br#"{"kind":"file","size":1,"mtime_ms":2}"#).unwrap();
    assert_eq!(old.mode, 0o644);
}
