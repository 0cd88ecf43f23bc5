//! Snapshots of a session: the file system, the capability budgets and the
//! guest's linear memory (the JavaScript heap, globals included).
//!
//! Layout: `CORDONSS`, a u32 format version, the guest build's SHA-256 (hex),
//! the policy's digest, the SHA-256 of the payload, a MAC (HMAC-SHA256 with
//! the embedder's key of everything before it, or zeros without a key), then
//! the payload: three length-prefixed sections (file-system image, budgets
//! as u64s, memory). A snapshot of another version, guest build or policy,
//! one whose checksum fails, or (when a key is given) one whose MAC does not
//! match that key is refused. Without a key a snapshot is trusted input: its
//! checksum guards against corruption, not against whoever can edit it.
//! Memory can be carried across instances because between runs the guest's
//! only mutable state is its memory (its stack pointer is back at its start).

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::{engine, ErrorCode, RunFailure};

const MAGIC: &[u8; 8] = b"CORDONSS";
const VERSION: u32 = 2;
/// The shortest key accepted for a snapshot's MAC.
pub const MIN_KEY_BYTES: usize = 16;

/// The parts of a snapshot.
pub(crate) struct Parts {
    /// The digest of the policy the budgets belong to (zeros without tools).
    pub(crate) policy: [u8; 32],
    pub(crate) fs: Vec<u8>,
    pub(crate) budgets: Vec<u64>,
    /// Empty when the sandbox had no live guest (fresh, or lost to a trap).
    pub(crate) memory: Vec<u8>,
}

fn invalid(message: impl Into<String>) -> RunFailure {
    RunFailure::new(ErrorCode::InvalidSnapshot, message)
}

fn section(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn mac(key: &[u8], signed: &[u8]) -> Result<[u8; 32], RunFailure> {
    if key.len() < MIN_KEY_BYTES {
        return Err(RunFailure::new(
            ErrorCode::InvalidOptions,
            format!("a snapshot key must be at least {MIN_KEY_BYTES} bytes, got {}", key.len()),
        ));
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(key)
        .map_err(|_| RunFailure::new(ErrorCode::InvalidOptions, "the snapshot key cannot be used"))?;
    mac.update(signed);
    Ok(mac.finalize().into_bytes().into())
}

pub(crate) fn encode(parts: &Parts, key: Option<&[u8]>) -> Result<Vec<u8>, RunFailure> {
    let mut payload = Vec::with_capacity(parts.fs.len() + parts.memory.len() + 64);
    section(&mut payload, &parts.fs);
    let budgets: Vec<u8> = parts.budgets.iter().flat_map(|b| b.to_le_bytes()).collect();
    section(&mut payload, &budgets);
    section(&mut payload, &parts.memory);
    let mut out = Vec::with_capacity(payload.len() + 112);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(engine::guest().1.as_bytes());
    out.extend_from_slice(&parts.policy);
    out.extend_from_slice(&Sha256::digest(&payload));
    let tag = match key {
        Some(key) => mac(key, &out)?,
        None => [0; 32],
    };
    out.extend_from_slice(&tag);
    out.extend_from_slice(&payload);
    Ok(out)
}

fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], RunFailure> {
    let (head, tail) = rest.split_at_checked(n).ok_or_else(|| invalid("the snapshot is truncated"))?;
    *rest = tail;
    Ok(head)
}

fn take_section<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8], RunFailure> {
    let len = take(rest, 8)?;
    let len = u64::from_le_bytes(len.try_into().map_err(|_| invalid("the snapshot is truncated"))?);
    take(rest, usize::try_from(len).map_err(|_| invalid("the snapshot is malformed"))?)
}

/// Decodes a snapshot for a sandbox whose policy has digest `policy`,
/// checking its MAC with `key` when one is given.
pub(crate) fn decode(bytes: &[u8], policy: [u8; 32], key: Option<&[u8]>) -> Result<Parts, RunFailure> {
    let mut rest = bytes;
    if take(&mut rest, 8).ok() != Some(MAGIC.as_slice()) {
        return Err(invalid("these bytes are not a cordon snapshot"));
    }
    let version = u32::from_le_bytes(take(&mut rest, 4)?.try_into().map_err(|_| invalid("malformed"))?);
    if version != VERSION {
        return Err(invalid(format!(
            "the snapshot has format version {version}; this cordon reads {VERSION}"
        )));
    }
    let guest = take(&mut rest, 64)?;
    if guest != engine::guest().1.as_bytes() {
        return Err(invalid(
            "the snapshot was taken with another guest build; restore it with the same cordon version",
        ));
    }
    let taken_with = take(&mut rest, 32)?;
    let digest = take(&mut rest, 32)?;
    let signed_len = bytes.len() - rest.len();
    let tag = take(&mut rest, 32)?;
    if let Some(key) = key {
        let expected = mac(key, bytes.get(..signed_len).unwrap_or_default())?;
        // The comparison's time does not depend on where the bytes differ.
        if expected.iter().zip(tag).fold(0u8, |acc, (a, b)| acc | (a ^ b)) != 0 {
            return Err(invalid(
                "the snapshot's MAC does not match the key: it was edited, or taken with another key",
            ));
        }
    }
    if Sha256::digest(rest).as_slice() != digest {
        return Err(invalid("the snapshot is corrupt (checksum mismatch)"));
    }
    if taken_with != policy {
        return Err(invalid(
            "the snapshot was taken with other tools or capabilities; restore it with the same ones, in the same order",
        ));
    }
    let fs = take_section(&mut rest)?.to_vec();
    let budgets = take_section(&mut rest)?
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    let memory = take_section(&mut rest)?.to_vec();
    if !rest.is_empty() {
        return Err(invalid("the snapshot has trailing bytes"));
    }
    let mut digest = [0; 32];
    digest.copy_from_slice(taken_with);
    Ok(Parts { policy: digest, fs, budgets, memory })
}
