//! The strict argument parser never panics, and what it accepts is JSON.
#![no_main]
use cordon_policy::{parse_arguments, ArgLimits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = parse_arguments(data, ArgLimits::default()) {
        let again = serde_json::to_vec(&value).expect("a parsed value serialises");
        assert_eq!(parse_arguments(&again, ArgLimits::default()).ok(), Some(value));
    }
});
