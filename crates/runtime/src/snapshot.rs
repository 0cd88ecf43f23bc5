//! Snapshots of a session: the file system, the capability budgets and the
//! guest's linear memory (the JavaScript heap, globals included).
//!
//! Layout: `CORDONSS`, a u32 format version, the guest build's SHA-256 (hex),
//! the SHA-256 of the payload, then the payload: three length-prefixed
//! sections (file-system image, budgets as u64s, memory). A snapshot of
//! another version or guest build, or one whose checksum fails, is refused.
//! Memory can be carried across instances because between runs the guest's
//! only mutable state is its memory (its stack pointer is back at its start).

use sha2::{Digest, Sha256};

use crate::{engine, ErrorCode, RunFailure};

const MAGIC: &[u8; 8] = b"CORDONSS";
const VERSION: u32 = 1;

/// The parts of a snapshot.
pub(crate) struct Parts {
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

pub(crate) fn encode(parts: &Parts) -> Vec<u8> {
    let mut payload = Vec::with_capacity(parts.fs.len() + parts.memory.len() + 64);
    section(&mut payload, &parts.fs);
    let budgets: Vec<u8> = parts.budgets.iter().flat_map(|b| b.to_le_bytes()).collect();
    section(&mut payload, &budgets);
    section(&mut payload, &parts.memory);
    let mut out = Vec::with_capacity(payload.len() + 112);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(engine::guest().1.as_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&payload);
    out
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

pub(crate) fn decode(bytes: &[u8]) -> Result<Parts, RunFailure> {
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
    let digest = take(&mut rest, 32)?;
    if Sha256::digest(rest).as_slice() != digest {
        return Err(invalid("the snapshot is corrupt (checksum mismatch)"));
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
    Ok(Parts { fs, budgets, memory })
}
