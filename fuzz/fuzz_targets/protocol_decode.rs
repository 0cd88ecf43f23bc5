//! The host↔guest protocol: arbitrary bytes decoded as each message type
//! (JSON, and the tool events' wire form) either fail with a typed error or
//! decode to a value that encodes and decodes back to itself.
#![no_main]
use cordon_protocol::{decode, encode, FsReply, FsRequest, RunOutcome, RunRequest, ToolEvent, ToolResult};
use libfuzzer_sys::fuzz_target;

fn round_trip<T>(data: &[u8])
where
    T: serde::de::DeserializeOwned + serde::Serialize + PartialEq + std::fmt::Debug,
{
    if let Ok(value) = decode::<T>(data) {
        let bytes = encode(&value).expect("a decoded value encodes");
        let again = decode::<T>(&bytes).expect("an encoded value decodes");
        assert_eq!(again, value);
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 16 * 1024 {
        return;
    }
    round_trip::<RunRequest>(data);
    round_trip::<RunOutcome>(data);
    round_trip::<ToolEvent>(data);
    round_trip::<ToolResult>(data);
    round_trip::<FsRequest>(data);
    round_trip::<FsReply>(data);
    // Tool events cross in their own wire form.
    if let Ok(event) = ToolEvent::from_wire(data) {
        assert_eq!(ToolEvent::from_wire(&event.to_wire()).expect("a wire event reads back"), event);
    }
});
