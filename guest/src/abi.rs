//! The guest's exports (names in `cordon_protocol::abi`). This is the only
//! module that handles raw pointers from the host.

use std::cell::RefCell;

use cordon_protocol::{decode, encode, RunOutcome, ScriptError, PROTOCOL_VERSION};

thread_local! {
    /// The encoded outcome of the last run; the host reads it before the next call.
    static LAST_OUTCOME: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

#[no_mangle]
pub extern "C" fn cordon_protocol_version() -> i32 {
    PROTOCOL_VERSION as i32
}

/// Prepares the instance before it is snapshotted (see
/// `cordon_protocol::abi::EXPORT_INIT`). Idempotent.
#[no_mangle]
pub extern "C" fn cordon_init() {
    crate::js::init();
    crate::shell::init();
}

/// Runs the encoded request of `len` bytes the host holds for it (copied in
/// with `take`) and returns `ptr << 32 | len` of the encoded outcome.
#[no_mangle]
pub extern "C" fn cordon_run(len: i32) -> i64 {
    let bytes = crate::host::take(usize::try_from(len).unwrap_or(0));
    crate::host::forget_events();
    let outcome = match decode(&bytes) {
        Ok(request) => crate::run(request),
        Err(err) => RunOutcome {
            exit_code: 1,
            value: None,
            error: Some(ScriptError {
                name: "ProtocolError".into(),
                message: err.to_string(),
                stack: String::new(),
            }),
        },
    };
    drop(bytes);
    let encoded = encode(&outcome).unwrap_or_default();
    LAST_OUTCOME.with(|slot| {
        let mut slot = slot.borrow_mut();
        *slot = encoded;
        ((slot.as_ptr() as i64) << 32) | slot.len() as i64
    })
}
