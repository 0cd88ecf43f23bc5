//! The jq front end: arbitrary programs through jaq's lexer, parser and our
//! compiler setup, and arbitrary bytes through the jq JSON reader. No panic,
//! no unbounded work (evaluation is metered by the sandbox, not here); every
//! failure is jq's message.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    // The first NUL splits a program from the JSON it would read.
    let (program, json) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    if let Ok(program) = std::str::from_utf8(program) {
        if let Err(message) = cordon_shell::testing::jq_compile(program) {
            assert!(message.starts_with("jq: "), "{message}");
        }
    }
    if let Err(message) = cordon_shell::testing::jq_parse(json) {
        assert!(!message.is_empty());
    }
});
