//! Safe wrappers around the host's imports (module `cordon`).

use cordon_protocol::abi::{STREAM_STDERR, STREAM_STDOUT};

#[link(wasm_import_module = "cordon")]
extern "C" {
    #[link_name = "output"]
    fn host_output(stream: i32, ptr: *const u8, len: usize) -> i64;
}

/// An output stream of the run.
#[derive(Clone, Copy)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Appends `text` to `stream`; returns how many more bytes the stream takes,
/// or -1 once the host has dropped text from it.
pub fn write(stream: Stream, text: &str) -> i64 {
    let id = match stream {
        Stream::Stdout => STREAM_STDOUT,
        Stream::Stderr => STREAM_STDERR,
    };
    // SAFETY: the host only reads `len` bytes from `ptr`, which `text` owns
    // for the duration of the call.
    unsafe { host_output(id, text.as_ptr(), text.len()) }
}
