//! Gives the memory pages an idle sandbox holds but did not change back to
//! the guest's image.
//!
//! Every instance maps the pre-initialised guest copy-on-write, so a page
//! costs a sandbox host memory only once the guest writes to it. Many pages a
//! run writes end up as they were: QuickJS counts references by writing them
//! (up and back down), and the pool copies the image back into the pages a
//! previous instance of the slot wrote. Once a sandbox has been idle for
//! [`idle`] (100 ms by default), the reaper thread finds its private pages (`PAGEMAP_SCAN`),
//! compares each with a pristine instance's, and drops those that are equal
//! (`MADV_DONTNEED`): the mapping then reads the image again, which holds the
//! same bytes, so the guest cannot tell. Its next run faults those pages in
//! again, as a fresh sandbox would.
//!
//! A dropped page is read back and compared once more: should a page not
//! come back with the same bytes (the module's memory not mapped from an
//! image, say), it is written back and trimming stops for the process.
//! A pass looks at [`PASS_PAGES`] private pages at most, holding the
//! sandbox's slot; a larger memory is trimmed over several passes.
//!
//! `CORDON_TRIM_IDLE_MS` sets the idle time (default 100), `off` turns
//! trimming off. Without `PAGEMAP_SCAN` (Linux before 6.7, any other OS) or
//! the pristine instance, nothing is trimmed.

use std::{
    fs::File,
    future::Future,
    ops::ControlFlow,
    pin::pin,
    sync::{
        atomic::{AtomicBool, Ordering},
        OnceLock,
    },
    task::{Context, Poll, Waker},
    time::Duration,
};

use wasmtime::{Engine, InstancePre, Store};

use crate::{
    entropy::Entropy,
    host::HostState,
    mounts::Tree,
    tools::{ToolLimits, ToolState},
};

/// How long a sandbox stays idle before it is trimmed, by default. A sandbox
/// run again and again is never trimmed; one waiting on its agent is.
const DEFAULT_IDLE: Duration = Duration::from_millis(100);
/// Private pages one pass compares at most (16 MiB).
const PASS_PAGES: usize = 4096;

/// Set once a dropped page did not read back the same: trimming is unsafe
/// in this process.
static UNSAFE: AtomicBool = AtomicBool::new(false);

/// The idle time from `CORDON_TRIM_IDLE_MS`: `Ok(None)` when trimming is
/// off, an error for a value that is neither a number of ms nor `off`.
pub(crate) fn idle() -> Result<Option<Duration>, String> {
    static IDLE: OnceLock<Result<Option<Duration>, String>> = OnceLock::new();
    IDLE.get_or_init(|| match std::env::var("CORDON_TRIM_IDLE_MS") {
        Err(_) => Ok(Some(DEFAULT_IDLE)),
        Ok(v) if v == "off" => Ok(None),
        Ok(v) => v
            .parse::<u64>()
            .map(|ms| Some(Duration::from_millis(ms)))
            .map_err(|_| format!("CORDON_TRIM_IDLE_MS must be a number of milliseconds or off, got {v:?}")),
    })
    .clone()
}

/// The linear memory of an instance that never ran, kept for the process's
/// lifetime (it holds one pool slot, reserved for it by `engine::config`),
/// and how long a sandbox stays idle before it is compared with it.
#[derive(Clone, Copy)]
pub(crate) struct Pristine {
    base: usize,
    len: usize,
    pub(crate) idle: Duration,
}

/// Instantiates the guest once, never to run it, and keeps its memory;
/// sandboxes idle for `idle` are trimmed against it.
pub(crate) fn pristine(engine: &Engine, pre: &InstancePre<HostState>, idle: Duration) -> Option<Pristine> {
    pagemap()?;
    let fs = Tree::new(cordon_vfs::Quotas::default(), &[]).ok()?;
    let tools = ToolState::new(None, ToolLimits { timeout: Duration::ZERO, result_bytes: 0 });
    let state =
        HostState::new(usize::MAX, tools, std::sync::Arc::new(std::sync::Mutex::new(fs)), Entropy::new(None));
    let mut store = Store::new(engine, state);
    // Instantiating runs no guest code (the module has no start function).
    store.set_epoch_deadline(u64::MAX);
    let instance = ready(pre.instantiate_async(&mut store))?.ok()?;
    let memory = instance.get_memory(&mut store, cordon_protocol::abi::EXPORT_MEMORY)?;
    let pristine = Pristine { base: memory.data_ptr(&store) as usize, len: memory.data_size(&store), idle };
    // The memory must outlive every comparison: the store is never dropped.
    std::mem::forget(store);
    Some(pristine)
}

/// The output of a future that completes without waiting, `None` otherwise.
fn ready<F: Future>(future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}

fn pagemap() -> Option<&'static File> {
    static PAGEMAP: OnceLock<Option<File>> = OnceLock::new();
    PAGEMAP
        .get_or_init(|| {
            if !wasmtime::PoolingAllocationConfig::is_pagemap_scan_available() {
                return None;
            }
            File::open("/proc/self/pagemap").ok()
        })
        .as_ref()
}

/// `struct page_region` of `<linux/fs.h>`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct PageRegion {
    start: u64,
    end: u64,
    categories: u64,
}

/// `struct pm_scan_arg` of `<linux/fs.h>`.
#[cfg(target_os = "linux")]
#[repr(C)]
struct ScanArg {
    size: u64,
    flags: u64,
    start: u64,
    end: u64,
    walk_end: u64,
    vec: u64,
    vec_len: u64,
    max_pages: u64,
    category_inverted: u64,
    category_mask: u64,
    category_anyof_mask: u64,
    return_mask: u64,
}

/// `_IOWR('f', 16, struct pm_scan_arg)`; the request's type is the libc's
/// (`unsigned long` in glibc, `int` in musl).
#[cfg(target_os = "linux")]
const PAGEMAP_SCAN: libc::Ioctl = 0xC060_6610_u32 as libc::Ioctl;
#[cfg(target_os = "linux")]
const PAGE_IS_FILE: u64 = 1 << 2;
#[cfg(target_os = "linux")]
const PAGE_IS_PRESENT: u64 = 1 << 3;
#[cfg(target_os = "linux")]
const PAGE_IS_PFNZERO: u64 = 1 << 5;

/// Fills `out` with the ranges of `[start, end)` whose pages are this
/// process's own (present, neither file-backed nor the zero page); returns
/// how many, and where the walk stopped.
#[cfg(target_os = "linux")]
fn scan(pagemap: &File, start: usize, end: usize, out: &mut [PageRegion]) -> std::io::Result<(usize, usize)> {
    use std::os::fd::AsRawFd;
    let mut arg = ScanArg {
        size: std::mem::size_of::<ScanArg>() as u64,
        flags: 0,
        start: start as u64,
        end: end as u64,
        walk_end: 0,
        vec: out.as_mut_ptr() as u64,
        vec_len: out.len() as u64,
        max_pages: 0,
        category_inverted: PAGE_IS_FILE | PAGE_IS_PFNZERO,
        category_mask: PAGE_IS_PRESENT | PAGE_IS_FILE | PAGE_IS_PFNZERO,
        category_anyof_mask: 0,
        return_mask: 0,
    };
    // SAFETY: PAGEMAP_SCAN takes a `struct pm_scan_arg *`: `arg` is one (`ScanArg` is its
    // `repr(C)` copy and `size` says so), live and writable for the call (the kernel writes
    // `walk_end` back). The kernel writes at most `vec_len` `struct page_region`s at `vec`,
    // which is `out`: `out.len()` `PageRegion`s (that struct's `repr(C)` copy), borrowed
    // mutably for the call. Of `[start, end)` it reads the page tables only, not the memory.
    let found = unsafe { libc::ioctl(pagemap.as_raw_fd(), PAGEMAP_SCAN, &mut arg) };
    if found < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((usize::try_from(found).unwrap_or(0).min(out.len()), arg.walk_end as usize))
}

/// `PAGEMAP_SCAN` is Linux's: elsewhere [`pagemap`] is `None` and no scan is made.
#[cfg(not(target_os = "linux"))]
fn scan(_: &File, _: usize, _: usize, _: &mut [PageRegion]) -> std::io::Result<(usize, usize)> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Calls `f` with each range of `[start, end)` that is this process's own
/// (see [`scan`]), in order, until it breaks; `None` when a scan fails.
fn walk<B>(
    start: usize,
    end: usize,
    mut f: impl FnMut(usize, usize) -> ControlFlow<B>,
) -> Option<ControlFlow<B>> {
    let pagemap = pagemap()?;
    let mut regions = [PageRegion::default(); 64];
    let mut at = start;
    while at < end {
        let (found, walk_end) = scan(pagemap, at, end, &mut regions).ok()?;
        for region in regions.iter().take(found) {
            if let ControlFlow::Break(b) = f(region.start as usize, (region.end as usize).min(end)) {
                return Some(ControlFlow::Break(b));
            }
        }
        // A full `regions` stopped the walk early; otherwise it is done.
        if found < regions.len() || walk_end <= at || walk_end >= end {
            break;
        }
        at = walk_end;
    }
    Some(ControlFlow::Continue(()))
}

/// How many pages of the memory at `base` (`len` bytes) are this process's
/// own rather than the image's or the zero page.
pub(crate) fn private_pages(base: *mut u8, len: usize) -> Option<usize> {
    let page = page_size();
    let mut pages = 0;
    let walked = walk::<()>(base as usize, base as usize + len, |from, to| {
        pages += (to - from) / page;
        ControlFlow::Continue(())
    });
    walked.map(|_| pages)
}

/// Runs of private pages a freed pool slot keeps in place: wasmtime's reset
/// copies the image back into at most this many runs, in address order, and
/// decommits the memory after the last, whose pages the next instance of the
/// slot then faults in again (a copy-on-write fault, and on a machine with
/// more than one CPU a TLB shootdown each).
const RESET_RUNS: usize = 32;
/// Runs [`coalesce`] leaves, below [`RESET_RUNS`] so that a slightly
/// different run does not cross it again.
const COALESCED_RUNS: usize = 24;
/// Pages [`coalesce`] makes private at most in one call: each is copied back
/// at every later reset of the slot.
const COALESCE_PAGES: usize = 32;

/// Before a pooled instance gives its slot back: when its private pages lie
/// in more runs than the reset keeps ([`RESET_RUNS`]), makes the pages of the
/// shortest gaps between them private too (each read and written back, so
/// it holds the same bytes), until [`COALESCED_RUNS`] runs are left or
/// [`COALESCE_PAGES`] pages were written. QuickJS's size-classed arenas
/// scatter a run's writes over many runs of pages; without this, the last
/// runs are decommitted at every reset and faulted in again by every fresh
/// sandbox of the slot.
///
/// # Safety
/// `base..base + len` is a guest's linear memory (page-aligned, a whole number
/// of 64 KiB wasm pages) that nothing else reads or writes during the call,
/// and that no Rust reference points into.
pub(crate) unsafe fn coalesce(base: *mut u8, len: usize) {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let walked = walk::<()>(base as usize, base as usize + len, |from, to| {
        if runs.len() == 8 * RESET_RUNS {
            // Too scattered to mend with a few pages.
            return ControlFlow::Break(());
        }
        runs.push((from, to));
        ControlFlow::Continue(())
    });
    if !matches!(walked, Some(ControlFlow::Continue(()))) || runs.len() <= RESET_RUNS - 2 {
        return;
    }
    let page = page_size();
    let mut gaps: Vec<(usize, usize)> =
        runs.iter().zip(runs.iter().skip(1)).map(|(a, b)| (b.0 - a.1, a.1)).collect();
    gaps.sort_unstable();
    let mut left = runs.len();
    let mut written = 0;
    for (size, at) in gaps {
        let pages = size / page;
        if left <= COALESCED_RUNS || written + pages > COALESCE_PAGES {
            break;
        }
        for i in 0..pages {
            let p = (at + i * page) as *mut u8;
            // SAFETY: `p` starts a page between two runs of private pages of the memory at
            // `base`, so it lies inside `base..base + len`: readable and writable guest memory
            // that nothing else uses during the call and no reference points into (this
            // function's contract). Writing back the byte read leaves the page's contents as
            // they were; only its backing becomes private.
            unsafe { std::ptr::write_volatile(p, std::ptr::read_volatile(p)) };
        }
        written += pages;
        left -= 1;
    }
}

/// Where a pass of [`trim`] stopped.
pub(crate) enum Pass {
    /// The whole memory was looked at.
    Done,
    /// [`PASS_PAGES`] pages were; the next pass starts at this offset.
    From(usize),
}

/// Drops the pages of the linear memory at `base` (`len` bytes), from
/// offset `from` on, that are private to it but hold the same bytes as
/// `pristine`'s (zeros past its end); adds how many to `dropped`.
///
/// # Safety
/// `base..base + len` is a guest's linear memory (page-aligned, a whole number
/// of 64 KiB wasm pages) that nothing reads or writes during the call (its
/// sandbox's slot is locked and no run holds it).
pub(crate) unsafe fn trim(
    pristine: Pristine,
    base: *mut u8,
    len: usize,
    from: usize,
    dropped: &mut usize,
) -> Pass {
    if UNSAFE.load(Ordering::Relaxed) {
        return Pass::Done;
    }
    let page = page_size();
    let start = base as usize;
    let mut looked = 0;
    let walked = walk(start + from.min(len), start + len, |from, to| {
        let mut run: Option<usize> = None;
        let mut page_at = from;
        while page_at < to {
            if looked == PASS_PAGES {
                if let Some(first) = run {
                    // SAFETY: `drop_pages`'s contract: `first..page_at` are whole pages (the
                    // kernel's regions start on a page, and `page_at` steps by pages) inside
                    // `start..start + len`, which nothing else uses during the call (this
                    // function's contract).
                    *dropped += unsafe { drop_pages(first, page_at - first, page) };
                }
                return ControlFlow::Break(page_at - start);
            }
            looked += 1;
            // SAFETY: `same_as_pristine`'s contract: `page_at` starts a page (the kernel's regions
            // are page-aligned) below `to`, itself page-aligned (a region's end, or the memory's:
            // `len` is a whole number of wasm pages, hence of OS pages), so `page` bytes at
            // `page_at` lie inside `start..start + len`: the guest's memory, readable, and not
            // written during the call (this function's contract).
            let same = unsafe { same_as_pristine(pristine, page_at as *const u8, page_at - start, page) };
            match (same, run) {
                (true, None) => run = Some(page_at),
                (false, Some(first)) => {
                    // SAFETY: `drop_pages`'s contract: `first..page_at` are whole pages inside
                    // `start..start + len` (as above), which nothing else uses during the call.
                    *dropped += unsafe { drop_pages(first, page_at - first, page) };
                    run = None;
                }
                _ => {}
            }
            page_at += page;
        }
        if let Some(first) = run {
            // SAFETY: `drop_pages`'s contract: `first..to` are whole pages (`to` is a region's
            // end or the memory's, both page-aligned) inside `start..start + len`, which nothing
            // else uses during the call (this function's contract).
            *dropped += unsafe { drop_pages(first, to - first, page) };
        }
        ControlFlow::Continue(())
    });
    match walked {
        Some(ControlFlow::Break(offset)) => Pass::From(offset),
        _ => Pass::Done,
    }
}

/// Whether the page at `page_ptr` (at `offset` in its memory) equals the
/// pristine memory's page at the same offset.
///
/// # Safety
/// `page_ptr` points at `page` readable bytes that nothing writes during the
/// call.
unsafe fn same_as_pristine(pristine: Pristine, page_ptr: *const u8, offset: usize, page: usize) -> bool {
    // SAFETY: this function's contract: `page` readable bytes at `page_ptr` (a u8 needs no
    // alignment), not written while `mine` lives.
    let mine = unsafe { std::slice::from_raw_parts(page_ptr, page) };
    if offset + page <= pristine.len {
        // SAFETY: `offset + page <= pristine.len`, so the range lies in the pristine instance's
        // memory, which stays mapped for the life of the process (`pristine` leaks its store) and
        // is never written (that instance never runs).
        let theirs = unsafe { std::slice::from_raw_parts((pristine.base + offset) as *const u8, page) };
        mine == theirs
    } else if offset >= pristine.len {
        mine.iter().all(|&b| b == 0)
    } else {
        false
    }
}

/// `madvise(MADV_DONTNEED)` over `len` bytes at `first`, then a check that
/// they read back the same; the pages dropped. Pages that do not are written
/// back, and trimming stops for the process.
///
/// # Safety
/// `first..first + len` are whole pages of a guest's memory that nothing else
/// reads or writes during the call.
unsafe fn drop_pages(first: usize, len: usize, page: usize) -> usize {
    // SAFETY: this function's contract: `len` bytes at `first` are readable guest memory that
    // nothing writes during the call; the slice is copied at once.
    let before = unsafe { std::slice::from_raw_parts(first as *const u8, len) }.to_vec();
    // SAFETY: `dont_need`'s contract, which is this function's: whole pages of a guest's memory
    // that nothing else uses, and no reference into them is alive here (`before` is a copy).
    if unsafe { dont_need(first, len) } != 0 {
        return 0;
    }
    // SAFETY: MADV_DONTNEED keeps the mapping (its pages read the image or zeros again), so
    // `len` bytes at `first` are still readable and writable guest memory, and nothing else reads
    // or writes them during the call (this function's contract): `after` is their only reference.
    let after = unsafe { std::slice::from_raw_parts_mut(first as *mut u8, len) };
    if after != before.as_slice() {
        after.copy_from_slice(&before);
        UNSAFE.store(true, Ordering::Relaxed);
        return 0;
    }
    len / page
}

/// `madvise(MADV_DONTNEED)`: 0 once the pages are dropped.
///
/// # Safety
/// As [`drop_pages`].
#[cfg(target_os = "linux")]
unsafe fn dont_need(first: usize, len: usize) -> i32 {
    // SAFETY: this function's contract: `first..first + len` are whole, page-aligned pages of a
    // guest's memory that nothing else uses during the call and no Rust reference points into:
    // MADV_DONTNEED only drops their private copies, so they read the image (or zeros) again.
    unsafe { libc::madvise(first as *mut libc::c_void, len, libc::MADV_DONTNEED) }
}

/// Only Linux's `MADV_DONTNEED` reads the image back (never called elsewhere:
/// without `PAGEMAP_SCAN` nothing is trimmed).
///
/// # Safety
/// None.
#[cfg(not(target_os = "linux"))]
unsafe fn dont_need(_: usize, _: usize) -> i32 {
    -1
}

#[cfg(unix)]
fn page_size() -> usize {
    // SAFETY: `sysconf` takes a constant name by value and touches no memory of ours.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

#[cfg(not(unix))]
fn page_size() -> usize {
    4096
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// The runs of private pages of `base..base + len`.
    fn runs(base: *mut u8, len: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let walked = walk::<()>(base as usize, base as usize + len, |from, to| {
            out.push((from - base as usize, to - base as usize));
            ControlFlow::Continue(())
        });
        assert!(matches!(walked, Some(ControlFlow::Continue(()))));
        out
    }

    #[test]
    fn coalesce_merges_the_shortest_gaps_and_keeps_the_bytes() {
        if pagemap().is_none() {
            return;
        }
        let page = page_size();
        let len = 256 * page;
        // SAFETY: a new private anonymous mapping, owned by this test and unmapped at its end.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED);
        let base = base.cast::<u8>();
        // SAFETY: `base..base + len` is the mapping made above, used by nothing else.
        let memory = unsafe { std::slice::from_raw_parts_mut(base, len) };
        // 40 runs of one written page: gaps of one page between the first 20, of three after.
        let mut at = 0;
        for i in 0..40 {
            memory[at * page + 7] = i as u8 + 1;
            at += if i < 20 { 2 } else { 4 };
        }
        assert_eq!(runs(base, len).len(), 40);
        // SAFETY: as above; no reference into the mapping is used across the call.
        unsafe { coalesce(base, len) };
        let after = runs(base, len);
        // The one-page gaps go first: 16 of them make 24 runs.
        assert_eq!(after.len(), 24);
        assert_eq!(after[0], (0, 17 * 2 * page - page));
        // SAFETY: as above.
        let memory = unsafe { std::slice::from_raw_parts(base, len) };
        let mut at = 0;
        for i in 0..40 {
            assert_eq!(memory[at * page + 7], i as u8 + 1);
            at += if i < 20 { 2 } else { 4 };
        }
        assert_eq!(memory.iter().map(|&b| u32::from(b)).sum::<u32>(), (1..=40).sum::<u32>());
        // A memory in few runs is left alone.
        let before = runs(base, len);
        // SAFETY: as above.
        unsafe { coalesce(base, len) };
        assert_eq!(runs(base, len), before);
        // SAFETY: the mapping made above, no longer referenced.
        assert_eq!(unsafe { libc::munmap(base.cast(), len) }, 0);
    }
}
