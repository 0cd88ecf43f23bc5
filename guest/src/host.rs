//! Safe wrappers around the host's imports (module `cordon`).

use cordon_protocol::abi::{STREAM_STDERR, STREAM_STDOUT};

#[link(wasm_import_module = "cordon")]
extern "C" {
    #[link_name = "output"]
    fn host_output(stream: i32, ptr: *const u8, len: usize) -> i64;
    #[link_name = "tool_call"]
    fn host_tool_call(name: *const u8, name_len: usize, args: *const u8, args_len: usize) -> i32;
    #[link_name = "wait"]
    fn host_wait(timeout_ms: i64) -> i32;
    #[link_name = "take"]
    fn host_take(ptr: *mut u8, len: usize);
    #[link_name = "fs"]
    fn host_fs(req: *const u8, req_len: usize, data: *const u8, data_len: usize) -> i32;
}

/// One file-system request; returns the host's encoded reply.
pub fn fs(request: &str, data: &[u8]) -> Vec<u8> {
    // SAFETY: the host reads exactly the given lengths from live buffers.
    let len = unsafe { host_fs(request.as_ptr(), request.len(), data.as_ptr(), data.len()) };
    let len = usize::try_from(len).unwrap_or(0);
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` has exactly `len` writable bytes, the announced reply length.
    unsafe { host_take(buf.as_mut_ptr(), len) };
    buf
}

/// Starts a tool call; returns its id.
pub fn tool_call(name: &str, args: &str) -> i32 {
    // SAFETY: the host reads exactly the given lengths from buffers that
    // outlive the call.
    unsafe { host_tool_call(name.as_ptr(), name.len(), args.as_ptr(), args.len()) }
}

/// What `wait` found.
pub enum Waited {
    /// An encoded `ToolEvent`.
    Event(Vec<u8>),
    /// The timeout passed first.
    Timeout,
    /// Nothing is pending and there was no timeout.
    Idle,
}

/// Waits for the next tool event, at most `timeout_ms` (-1: no timeout).
pub fn wait(timeout_ms: i64) -> Waited {
    // SAFETY: a plain call; the host returns a length or a status.
    let len = unsafe { host_wait(timeout_ms) };
    match usize::try_from(len) {
        Ok(0) => Waited::Timeout,
        Ok(len) => {
            let mut buf = vec![0u8; len];
            // SAFETY: `buf` has exactly `len` writable bytes.
            unsafe { host_take(buf.as_mut_ptr(), len) };
            Waited::Event(buf)
        }
        Err(_) => Waited::Idle,
    }
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

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    #[link_name = "random_get"]
    fn wasi_random_get(buf: *mut u8, len: usize) -> u16;
}

/// `len` bytes from the host's random source (secure, or seeded in
/// deterministic mode).
pub fn random(len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` has exactly `len` writable bytes.
    let _ = unsafe { wasi_random_get(buf.as_mut_ptr(), len) };
    buf
}
