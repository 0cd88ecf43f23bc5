//! A run's tool-call log as one JSON text, for the embedder to parse in one
//! go (`JSON.parse` in `js/binding.ts`): a thousand records cost JavaScript
//! one parse instead of a thousand objects built property by property and a
//! thousand parses of their arguments. The log of a run and each record
//! given to `onToolCall` are written here.
//!
//! Each record has the shape and key order of the public `ToolCallRecord`
//! (`js/types.ts`): `tool`, `args`, `decision`, `durationMs`, then `reason`,
//! `code`, `message` and `resultBytes` when set. An allowed call's arguments
//! are the policy's own serialisation of the validated value, so they are
//! written as they are (after a check that they are JSON). Any other
//! arguments (a denied call's text, cut at 1 KiB) are written as a string,
//! and their index goes into the returned list: the embedder parses those
//! itself and keeps the text when it is not JSON.

use std::fmt::Write as _;

use crate::ToolCallRecord;
use serde::de::IgnoredAny;

/// `(json, texts)`: the records as a JSON array, and the indices of records
/// whose `args` is the text of the arguments rather than their value.
pub fn to_json(records: &[ToolCallRecord]) -> (String, Vec<u32>) {
    let mut out =
        String::with_capacity(2 + records.iter().map(|r| r.args.len() + r.tool.len() + 64).sum::<usize>());
    let mut texts = Vec::new();
    out.push('[');
    for (index, record) in records.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str("{\"tool\":");
        string(&mut out, &record.tool);
        out.push_str(",\"args\":");
        if record.decision == "allowed" && serde_json::from_str::<IgnoredAny>(&record.args).is_ok() {
            out.push_str(&record.args);
        } else {
            string(&mut out, &record.args);
            texts.push(u32::try_from(index).unwrap_or(u32::MAX));
        }
        out.push_str(",\"decision\":");
        string(&mut out, record.decision);
        out.push_str(",\"durationMs\":");
        number(&mut out, record.duration_ms);
        for (key, value) in [("reason", &record.reason), ("code", &record.code), ("message", &record.message)]
        {
            if let Some(value) = value {
                out.push_str(",\"");
                out.push_str(key);
                out.push_str("\":");
                string(&mut out, value);
            }
        }
        if let Some(bytes) = record.result_bytes {
            out.push_str(",\"resultBytes\":");
            let _ = write!(out, "{bytes}");
        }
        out.push('}');
    }
    out.push(']');
    (out, texts)
}

/// Appends `text` as a JSON string, escaped as serde_json escapes it: `"`,
/// `\` and the control characters, with the short forms where JSON has
/// them. Written in place: a string per field would cost a thousand records
/// four thousand allocations at the end of a run.
fn string(out: &mut String, text: &str) {
    out.push('"');
    let mut from = 0;
    for (at, byte) in text.bytes().enumerate() {
        let short = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        // `at` is an ASCII byte, so a character boundary.
        out.push_str(&text[from..at]);
        if short.is_empty() {
            let _ = write!(out, "\\u{byte:04x}");
        } else {
            out.push_str(short);
        }
        from = at + 1;
    }
    out.push_str(&text[from..]);
    out.push('"');
}

/// Appends a finite number as JSON (`0` for anything else).
fn number(out: &mut String, value: f64) {
    match serde_json::Number::from_f64(value) {
        Some(n) => {
            let _ = write!(out, "{n}");
        }
        None => out.push('0'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(args: &str, decision: &'static str) -> ToolCallRecord {
        ToolCallRecord {
            tool: "math.add".into(),
            args: args.into(),
            decision,
            reason: (decision == "denied").then(|| "constraint".into()),
            code: (decision == "denied").then(|| "DENIED".into()),
            message: (decision == "denied").then(|| "no \"quotes\"\n".into()),
            duration_ms: 0.25,
            result_bytes: (decision == "allowed").then_some(3),
        }
    }

    #[test]
    fn allowed_arguments_go_as_values_and_the_rest_as_text() {
        let (json, texts) = to_json(&[
            record(r#"{"a":1,"b":[true,null]}"#, "allowed"),
            record(r#"{"a":1,"#, "denied"),
            record(r#"{"a":2}"#, "denied"),
        ]);
        assert_eq!(
            json,
            concat!(
                r#"[{"tool":"math.add","args":{"a":1,"b":[true,null]},"decision":"allowed","durationMs":0.25,"resultBytes":3},"#,
                r#"{"tool":"math.add","args":"{\"a\":1,","decision":"denied","durationMs":0.25,"reason":"constraint","code":"DENIED","message":"no \"quotes\"\n"},"#,
                r#"{"tool":"math.add","args":"{\"a\":2}","decision":"denied","durationMs":0.25,"reason":"constraint","code":"DENIED","message":"no \"quotes\"\n"}]"#,
            )
        );
        assert_eq!(texts, [1, 2]);
        assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = (0u8..0x20).map(|b| format!("a{}b", char::from(b))).collect();
        texts.extend(
            ["", "plain", "\"", "\\", "\\\"", "é ü 日本 🦀", "\u{7f}\u{2028}", "x\"y\\z\n"].map(String::from),
        );
        for text in texts {
            let mut out = String::from("[");
            string(&mut out, &text);
            assert_eq!(&out[1..], serde_json::to_string(&text).unwrap(), "{text:?}");
        }
    }

    #[test]
    fn allowed_arguments_that_are_not_json_stay_text() {
        let (json, texts) = to_json(&[record("{oops", "allowed")]);
        assert_eq!(
            json,
            r#"[{"tool":"math.add","args":"{oops","decision":"allowed","durationMs":0.25,"resultBytes":3}]"#
        );
        assert_eq!(texts, [0]);
        assert_eq!(to_json(&[]), ("[]".to_string(), vec![]));
    }
}
