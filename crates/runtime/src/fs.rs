//! File-system requests, from the guest (`cordon.fs`) and from the embedder
//! (the Node `sb.fs` API), served by one function against the sandbox's tree.

use std::time::{SystemTime, UNIX_EPOCH};

use cordon_protocol::{decode, encode, FsEntry, FsReply, FsRequest, FsStat};
use cordon_vfs::{FileSystem, FsError, Kind, WriteMode};

use crate::mounts::Tree;

fn kind(kind: Kind) -> String {
    match kind {
        Kind::File => "file".into(),
        Kind::Dir => "dir".into(),
    }
}

fn failed(err: FsError) -> FsReply {
    FsReply { errno: Some(err.errno.as_str().into()), message: Some(err.to_string()), ..FsReply::default() }
}

/// The host's wall clock, in ms since the epoch.
pub fn wall_ms() -> u64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    u64::try_from(now).unwrap_or(u64::MAX)
}

/// Runs one request; returns the reply and the bytes of a read. A request
/// that changes the tree reads `now` (ms since the epoch) for the times it
/// sets: the guest's clock (virtual in deterministic mode, recorded and
/// replayed in a trace), so file times tell nothing the clock would not.
pub fn handle(
    tree: &mut Tree,
    request: FsRequest,
    data: &[u8],
    now: impl FnOnce() -> u64,
) -> (FsReply, Vec<u8>) {
    if matches!(
        request,
        FsRequest::Write { .. }
            | FsRequest::Mkdir { .. }
            | FsRequest::Remove { .. }
            | FsRequest::Rename { .. }
    ) {
        tree.set_time(now());
    }
    let ok = FsReply::default;
    let result = match request {
        FsRequest::Read { path } => {
            return tree.read(&path).map_or_else(|e| (failed(e), Vec::new()), |bytes| (ok(), bytes))
        }
        FsRequest::Write { path, mode } => {
            let mode = match mode.as_str() {
                "truncate" => WriteMode::Truncate,
                "append" => WriteMode::Append,
                "create_new" => WriteMode::CreateNew,
                other => {
                    return (
                        FsReply {
                            errno: Some("EINVAL".into()),
                            message: Some(format!("EINVAL: unknown write mode {other:?}")),
                            ..ok()
                        },
                        Vec::new(),
                    )
                }
            };
            tree.write(&path, data, mode).map(|()| ok())
        }
        FsRequest::Mkdir { path, recursive } => tree.mkdir(&path, recursive).map(|()| ok()),
        FsRequest::Readdir { path } => tree.readdir(&path).map(|entries| FsReply {
            entries: Some(entries.into_iter().map(|(name, k)| FsEntry { name, kind: kind(k) }).collect()),
            ..ok()
        }),
        FsRequest::Stat { path } => tree.stat(&path).map(|st| FsReply {
            stat: Some(FsStat { kind: kind(st.kind), size: st.size, mtime_ms: st.mtime_ms, mode: st.mode }),
            ..ok()
        }),
        FsRequest::Remove { path, recursive } => tree.remove(&path, recursive).map(|()| ok()),
        FsRequest::Rename { from, to } => tree.rename(&from, &to).map(|()| ok()),
        FsRequest::Chmod { path, mode } => tree.chmod(&path, mode).map(|()| ok()),
        FsRequest::Chdir { path } => tree.chdir(&path).map(|()| FsReply { cwd: Some(tree.cwd()), ..ok() }),
        FsRequest::Cwd => Ok(FsReply { cwd: Some(tree.cwd()), ..ok() }),
    };
    (result.unwrap_or_else(failed), Vec::new())
}

/// Serves an encoded request: the reply is a little-endian u32 length, the
/// encoded [`FsReply`], then the bytes of a read.
pub fn serve(tree: &mut Tree, request: &[u8], data: &[u8], now: impl FnOnce() -> u64) -> Vec<u8> {
    let (reply, payload) = match decode::<FsRequest>(request) {
        Ok(request) => handle(tree, request, data, now),
        Err(e) => (
            FsReply {
                errno: Some("EINVAL".into()),
                message: Some(format!("EINVAL: {e}")),
                ..FsReply::default()
            },
            Vec::new(),
        ),
    };
    let json = encode(&reply).unwrap_or_default();
    let mut out = Vec::with_capacity(4 + json.len() + payload.len());
    out.extend_from_slice(&u32::try_from(json.len()).unwrap_or(0).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&payload);
    out
}
