#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Host heap held by an idle sandbox, counted by a global allocator: the
//! part of W7 (memory per idle sandbox) that is the host's own.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::atomic::{AtomicIsize, Ordering},
};

use cordon_runtime::{CancelFlag, Language, Limits, Sandbox};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every method passes its arguments to `System` unchanged and returns its result, so
// `Counting` keeps `GlobalAlloc`'s contract as `System` does (`alloc_zeroed` is the default, which
// calls `alloc`). The counting beside it is a relaxed atomic add, which neither allocates nor
// unwinds (sizes are at most `isize::MAX`, so the casts and the difference cannot overflow).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `layout` comes with `GlobalAlloc::alloc`'s contract (a non-zero size), which is
        // `System.alloc`'s, and is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract: `ptr` is a block this allocator returned for `layout`,
        // and every block it returns is `System`'s (`alloc`, the default `alloc_zeroed` and
        // `realloc` all get theirs from `System`).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as in `dealloc`, `ptr` is `System`'s block for `layout`; `new_size` comes with
        // `GlobalAlloc::realloc`'s contract, which is `System.realloc`'s, and is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn an_idle_sandbox_holds_little_host_heap() {
    const N: isize = 100;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    cordon_runtime::engine::warm_up().unwrap();
    // One sandbox first, so one-time allocations (caches, the ticker) are out
    // of the figure.
    let first = Sandbox::new(Limits::default()).unwrap();
    rt.block_on(first.run("console.log('hi')", Language::Javascript, CancelFlag::new())).unwrap();
    drop(first);
    cordon_runtime::reaper::drain();

    let start = LIVE.load(Ordering::Relaxed);
    let mut held = Vec::new();
    for _ in 0..N {
        held.push(Sandbox::new(Limits::default()).unwrap());
    }
    let created = LIVE.load(Ordering::Relaxed);
    for sb in &held {
        let report =
            rt.block_on(sb.run("console.log('hi')", Language::Javascript, CancelFlag::new())).unwrap();
        assert_eq!(report.stdout, "hi\n");
    }
    let ran = LIVE.load(Ordering::Relaxed);
    let per_created = (created - start) / N;
    let per_ran = (ran - start) / N;
    println!("host heap per sandbox: {per_created} B created, {per_ran} B after one run");
    // Without an instance a sandbox is its tree, limits and handles.
    assert!(per_created < 4 * 1024, "a sandbox without an instance holds {per_created} B of host heap");
    // With one, most of it is wasmtime's per-instance context: a 32-byte
    // function reference for each of the guest's 2064 table functions
    // (QuickJS's builtins), 66 KiB. Output buffers and the like must not
    // add to it while idle.
    assert!(per_ran < 96 * 1024, "an idle sandbox holds {per_ran} B of host heap");
    drop(held);
}
