//! The few `wasi_snapshot_preview1` functions the guest's libc needs, and
//! nothing more: no preopened directories, no environment, no arguments, no
//! sockets. Standard output and error go to the run's capped buffers;
//! randomness comes from the host's secure source. A guest that imports any
//! other WASI function fails to instantiate.

use wasmtime::{Caller, Linker};

use crate::{
    error::Stop,
    host::{guest_range, memory, HostState},
    ErrorCode,
};

const MODULE: &str = "wasi_snapshot_preview1";

// errno values of WASI preview 1.
const SUCCESS: i32 = 0;
const EBADF: i32 = 8;
const EFAULT: i32 = 21;
const EINVAL: i32 = 28;
const ENOTSUP: i32 = 58;
const ESPIPE: i32 = 70;

const FILETYPE_CHARACTER_DEVICE: u8 = 2;
const RIGHT_FD_READ: u64 = 1 << 1;
const RIGHT_FD_WRITE: u64 = 1 << 6;

/// The guest exited through `proc_exit`.
#[derive(Debug)]
pub(crate) struct ProcExit(pub i32);

impl std::fmt::Display for ProcExit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "guest called proc_exit({})", self.0)
    }
}

impl std::error::Error for ProcExit {}

/// Writes `bytes` at guest address `ptr`; `false` when it does not fit.
fn store(caller: &mut Caller<'_, HostState>, ptr: i32, bytes: &[u8]) -> bool {
    let Some(memory) = memory(caller) else { return false };
    let data = memory.data_mut(caller);
    let Ok(len) = i32::try_from(bytes.len()) else { return false };
    match guest_range(ptr, len, data.len()).and_then(|r| data.get_mut(r)) {
        Some(dst) => {
            dst.copy_from_slice(bytes);
            true
        }
        None => false,
    }
}

fn store_u32s(caller: &mut Caller<'_, HostState>, values: &[(i32, u32)]) -> i32 {
    for &(ptr, value) in values {
        if !store(caller, ptr, &value.to_le_bytes()) {
            return EFAULT;
        }
    }
    SUCCESS
}

fn load_u32(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

pub(crate) fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    // No arguments and no environment.
    linker.func_wrap(MODULE, "args_sizes_get", |mut c: Caller<'_, HostState>, argc: i32, size: i32| {
        store_u32s(&mut c, &[(argc, 0), (size, 0)])
    })?;
    linker.func_wrap(MODULE, "args_get", |_: Caller<'_, HostState>, _argv: i32, _buf: i32| SUCCESS)?;
    linker.func_wrap(
        MODULE,
        "environ_sizes_get",
        |mut c: Caller<'_, HostState>, count: i32, size: i32| store_u32s(&mut c, &[(count, 0), (size, 0)]),
    )?;
    linker.func_wrap(MODULE, "environ_get", |_: Caller<'_, HostState>, _env: i32, _buf: i32| SUCCESS)?;

    linker.func_wrap(
        MODULE,
        "clock_time_get",
        |mut c: Caller<'_, HostState>, id: i32, _precision: i64, out: i32| -> wasmtime::Result<i32> {
            if !(0..=3).contains(&id) {
                return Ok(EINVAL);
            }
            let HostState { entropy, tracer, .. } = c.data_mut();
            let ns = tracer.clock(|| entropy.now_ns(id));
            if tracer.over_limit() {
                return Err(Stop(ErrorCode::TraceLimit).into());
            }
            Ok(if store(&mut c, out, &ns.to_le_bytes()) { SUCCESS } else { EFAULT })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "random_get",
        |mut c: Caller<'_, HostState>, buf: i32, len: i32| -> wasmtime::Result<i32> {
            let Some(memory) = memory(&mut c) else { return Ok(EFAULT) };
            let (data, state) = memory.data_and_store_mut(&mut c);
            match guest_range(buf, len, data.len()).and_then(|r| data.get_mut(r)) {
                Some(dst) => {
                    let HostState { entropy, tracer, .. } = state;
                    let filled = tracer.random(dst, |d| entropy.fill(d));
                    if tracer.over_limit() {
                        return Err(Stop(ErrorCode::TraceLimit).into());
                    }
                    Ok(if filled { SUCCESS } else { ENOTSUP })
                }
                None => Ok(EFAULT),
            }
        },
    )?;

    // Descriptors 0-2 exist (stdin is empty, stdout and stderr are captured);
    // there are no others.
    linker.func_wrap(
        MODULE,
        "fd_write",
        |mut c: Caller<'_, HostState>, fd: i32, iovs: i32, n: i32, out: i32| {
            if fd != 1 && fd != 2 {
                return EBADF;
            }
            let Some(memory) = memory(&mut c) else { return EFAULT };
            let (data, state) = memory.data_and_store_mut(&mut c);
            let Some(list) = n.checked_mul(8).and_then(|len| guest_range(iovs, len, data.len())) else {
                return EFAULT;
            };
            let mut written: u32 = 0;
            let mut at = list.start;
            while at < list.end {
                let (Some(ptr), Some(len)) = (load_u32(data, at), load_u32(data, at + 4)) else {
                    return EFAULT;
                };
                let (Ok(ptr), Ok(len)) = (i32::try_from(ptr), i32::try_from(len)) else { return EFAULT };
                let Some(bytes) = guest_range(ptr, len, data.len()).and_then(|r| data.get(r)) else {
                    return EFAULT;
                };
                state.write(fd, &String::from_utf8_lossy(bytes));
                written = written.saturating_add(len.unsigned_abs());
                at += 8;
            }
            store_u32s(&mut c, &[(out, written)])
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_read",
        |mut c: Caller<'_, HostState>, fd: i32, _iovs: i32, _n: i32, out: i32| {
            if fd != 0 {
                return EBADF;
            }
            store_u32s(&mut c, &[(out, 0)])
        },
    )?;
    linker.func_wrap(MODULE, "fd_fdstat_get", |mut c: Caller<'_, HostState>, fd: i32, out: i32| {
        let rights = match fd {
            0 => RIGHT_FD_READ,
            1 | 2 => RIGHT_FD_WRITE,
            _ => return EBADF,
        };
        // struct fdstat { u8 filetype; u16 flags; u64 rights_base; u64 rights_inheriting }
        let mut stat = Vec::with_capacity(24);
        stat.extend_from_slice(&[FILETYPE_CHARACTER_DEVICE, 0, 0, 0, 0, 0, 0, 0]);
        stat.extend_from_slice(&rights.to_le_bytes());
        stat.extend_from_slice(&[0; 8]);
        if store(&mut c, out, &stat) {
            SUCCESS
        } else {
            EFAULT
        }
    })?;
    linker.func_wrap(
        MODULE,
        "fd_seek",
        |_: Caller<'_, HostState>, fd: i32, _off: i64, _whence: i32, _out: i32| {
            if (0..=2).contains(&fd) {
                ESPIPE
            } else {
                EBADF
            }
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_close",
        |_: Caller<'_, HostState>, fd: i32| {
            if (0..=2).contains(&fd) {
                SUCCESS
            } else {
                EBADF
            }
        },
    )?;
    // No preopened directories.
    linker.func_wrap(MODULE, "fd_prestat_get", |_: Caller<'_, HostState>, _fd: i32, _out: i32| EBADF)?;
    linker.func_wrap(
        MODULE,
        "fd_prestat_dir_name",
        |_: Caller<'_, HostState>, _fd: i32, _p: i32, _l: i32| EBADF,
    )?;
    // Path and metadata calls libc links in for `std::fs`: with no preopened
    // directory libc never gets a descriptor to pass, and any that arrives is
    // refused.
    linker.func_wrap(MODULE, "fd_filestat_get", |_: Caller<'_, HostState>, _fd: i32, _out: i32| EBADF)?;
    linker.func_wrap(
        MODULE,
        "fd_readdir",
        |_: Caller<'_, HostState>, _fd: i32, _buf: i32, _len: i32, _cookie: i64, _used: i32| EBADF,
    )?;
    linker.func_wrap(
        MODULE,
        "path_filestat_get",
        |_: Caller<'_, HostState>, _fd: i32, _flags: i32, _p: i32, _l: i32, _out: i32| EBADF,
    )?;
    linker.func_wrap(
        MODULE,
        "path_open",
        |_: Caller<'_, HostState>,
         _fd: i32,
         _dirflags: i32,
         _p: i32,
         _l: i32,
         _oflags: i32,
         _base: i64,
         _inheriting: i64,
         _fdflags: i32,
         _opened: i32| EBADF,
    )?;
    linker.func_wrap(MODULE, "sched_yield", |_: Caller<'_, HostState>| SUCCESS)?;
    linker.func_wrap(MODULE, "proc_exit", |_: Caller<'_, HostState>, code: i32| -> wasmtime::Result<()> {
        Err(ProcExit(code).into())
    })?;
    Ok(())
}
