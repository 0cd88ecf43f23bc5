//! Safe wrappers around the host's imports (module `cordon`).

use std::cell::RefCell;
use std::collections::VecDeque;

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

/// One file-system request; returns the host's encoded reply and the bytes
/// of a read (the host frames them as a little-endian u32 length, the reply,
/// then the payload).
pub fn fs(request: &str, data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    // SAFETY: the host's `fs` reads `request.len()` bytes at `request.as_ptr()` and `data.len()`
    // at `data.as_ptr()` (trapping if either lies outside the memory) and writes no guest memory;
    // both buffers are borrowed, so live, for the call.
    let len = unsafe { host_fs(request.as_ptr(), request.len(), data.as_ptr(), data.len()) };
    let buf = take(usize::try_from(len).unwrap_or(0));
    let (head, rest) = buf.split_at_checked(4).unwrap_or((&[0, 0, 0, 0], &[]));
    let json_len = u32::from_le_bytes(head.try_into().unwrap_or([0; 4])) as usize;
    let (json, payload) = rest.split_at_checked(json_len).unwrap_or((rest, &[]));
    (json.to_vec(), payload.to_vec())
}

/// Starts a tool call; returns its id.
pub fn tool_call(name: &str, args: &str) -> i32 {
    // SAFETY: the host's `tool_call` reads `name.len()` bytes at `name.as_ptr()` and `args.len()`
    // at `args.as_ptr()` (trapping if either lies outside the memory) and writes no guest memory;
    // both strings are borrowed, so live, for the call.
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

thread_local! {
    /// Tool events that arrived while the shell waited for its own call,
    /// kept for JavaScript (`await shell(…)` runs the shell inside a run).
    static STASH: RefCell<VecDeque<Vec<u8>>> = const { RefCell::new(VecDeque::new()) };
    /// The rest of the host's last batch of events: taken before the host
    /// is asked again, as if each had come from a wait of its own.
    static BATCH: RefCell<VecDeque<Vec<u8>>> = const { RefCell::new(VecDeque::new()) };
    /// Output of a nested run (`shell()` from JavaScript, `js -e` from the
    /// shell), collected instead of written: (stdout, stderr).
    static CAPTURE: RefCell<Vec<(Vec<u8>, Vec<u8>)>> = const { RefCell::new(Vec::new()) };
}

/// The most a nested run's captured output keeps per stream.
const CAPTURE_LIMIT: usize = 16 * 1024 * 1024;

/// Drops the events a run left untaken (stashed, or the rest of a batch):
/// call ids start from 0 again in every run, and an old event must not
/// settle a new call.
pub fn forget_events() {
    STASH.with(|s| s.borrow_mut().clear());
    BATCH.with(|b| b.borrow_mut().clear());
}

/// Keeps an event for a later [`wait`].
pub fn stash(event: Vec<u8>) {
    STASH.with(|s| s.borrow_mut().push_back(event));
}

/// Runs `f` with its output collected; returns its result and the output.
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Vec<u8>, Vec<u8>) {
    CAPTURE.with(|c| c.borrow_mut().push((Vec::new(), Vec::new())));
    let value = f();
    let (out, err) = CAPTURE.with(|c| c.borrow_mut().pop()).unwrap_or_default();
    (value, out, err)
}

/// Copies in the `len` bytes the host announced (a run's request, a tool
/// event).
pub fn take(len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    // SAFETY: the host's `take` writes exactly `len` bytes at the pointer, and traps without
    // writing unless `len` is the length it announced; `buf` holds `len` initialised bytes,
    // writable through `as_mut_ptr` while nothing else borrows it.
    unsafe { host_take(buf.as_mut_ptr(), len) };
    buf
}

/// Waits for the next tool event (stashed ones first), at most
/// `timeout_ms` (-1: no timeout).
pub fn wait(timeout_ms: i64) -> Waited {
    if let Some(event) = STASH.with(|s| s.borrow_mut().pop_front()) {
        return Waited::Event(event);
    }
    wait_host(timeout_ms)
}

/// Waits on the host only, ignoring stashed events (but not the rest of the
/// host's last batch).
pub fn wait_host(timeout_ms: i64) -> Waited {
    if let Some(event) = BATCH.with(|b| b.borrow_mut().pop_front()) {
        return Waited::Event(event);
    }
    // SAFETY: the host's `wait` takes a number and touches no guest memory; it returns a length
    // (for `take`), 0 or -1.
    let len = unsafe { host_wait(timeout_ms) };
    match usize::try_from(len) {
        Ok(0) => Waited::Timeout,
        Ok(len) => Waited::Event(first_of_batch(take(len))),
        Err(_) => Waited::Idle,
    }
}

/// The first event of a batch from the host; the others wait in [`BATCH`].
/// A batch that does not split is passed on whole: reading it as an event
/// then fails, and the caller reports that.
fn first_of_batch(mut batch: Vec<u8>) -> Vec<u8> {
    let head = batch.first_chunk::<4>().map(|head| u32::from_le_bytes(*head) as usize);
    if head == Some(batch.len().wrapping_sub(4)) {
        // Most waits bring one event: its bytes stay where they are.
        batch.drain(..4);
        return batch;
    }
    let Ok(events) = cordon_protocol::split_batch(&batch) else {
        return batch;
    };
    let mut events = events.into_iter();
    let first = events.next().map(<[u8]>::to_vec).unwrap_or_default();
    BATCH.with(|b| b.borrow_mut().extend(events.map(<[u8]>::to_vec)));
    first
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
    let captured = CAPTURE.with(|c| {
        let mut c = c.borrow_mut();
        let (out, err) = c.last_mut()?;
        let buf = match stream {
            Stream::Stdout => out,
            Stream::Stderr => err,
        };
        let room = CAPTURE_LIMIT.saturating_sub(buf.len());
        if text.len() > room {
            let mut end = room;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            buf.extend_from_slice(text.get(..end).unwrap_or_default().as_bytes());
            return Some(-1);
        }
        buf.extend_from_slice(text.as_bytes());
        Some(i64::try_from(room - text.len()).unwrap_or(i64::MAX))
    });
    if let Some(left) = captured {
        return left;
    }
    let id = match stream {
        Stream::Stdout => STREAM_STDOUT,
        Stream::Stderr => STREAM_STDERR,
    };
    // SAFETY: the host's `output` reads `text.len()` bytes at `text.as_ptr()` (trapping if they
    // lie outside the memory) and writes no guest memory; `text` is borrowed, so live, for the call.
    unsafe { host_output(id, text.as_ptr(), text.len()) }
}

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    #[link_name = "random_get"]
    fn wasi_random_get(buf: *mut u8, len: usize) -> u16;
}

/// `len` bytes from the host's random source (secure, or seeded in
/// deterministic mode), or `None` when the host could not read its source:
/// never bytes that only look random.
pub fn random(len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    // SAFETY: the host's `random_get` writes at most `len` bytes at the pointer (it answers
    // EFAULT instead of writing outside the memory); `buf` holds `len` initialised bytes,
    // writable through `as_mut_ptr` while nothing else borrows it.
    let errno = unsafe { wasi_random_get(buf.as_mut_ptr(), len) };
    (errno == 0).then_some(buf)
}
