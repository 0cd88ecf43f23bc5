#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `cargo bench -p cordon-runtime`: the host's internals without Node in the
//! way. Each case runs a warm-up, then repeated samples; the median and p99
//! of the per-iteration time are printed. Every sample checks its output.
//!
//!   cargo bench -p cordon-runtime --bench runtime            all cases
//!   cargo bench -p cordon-runtime --bench runtime -- policy  cases whose name contains "policy"

use std::{
    hint::black_box,
    sync::Arc,
    time::{Duration, Instant},
};

use cordon_runtime::{
    policy::{Budgets, Policy, PolicySpec},
    vfs::{FileSystem, MemFs, Quotas, WriteMode},
    BoxFuture, CancelFlag, Language, Limits, Sandbox, ToolFailure, ToolHost, ToolInvocation, Tools,
};

struct Add;

impl ToolHost for Add {
    fn call(&self, call: &ToolInvocation) -> BoxFuture<Result<String, ToolFailure>> {
        let v: serde_json::Value = serde_json::from_str(&call.args_json).unwrap();
        let sum = (v["a"].as_i64().unwrap() + v["b"].as_i64().unwrap()).to_string();
        Box::pin(async move { Ok(sum) })
    }
}

fn add_tools() -> Tools {
    let spec: PolicySpec = serde_json::from_value(serde_json::json!({
        "tools": [{ "name": "add" }],
        "capabilities": [{ "method": "add" }],
    }))
    .unwrap();
    Tools { policy: Arc::new(Policy::compile(spec).unwrap()), host: Arc::new(Add) }
}

/// Times `iters` calls of `f` per sample and prints median and p99 per call.
fn bench(filter: &[String], name: &str, samples: usize, iters: u32, mut f: impl FnMut()) {
    if !filter.is_empty() && !filter.iter().any(|w| name.contains(w.as_str())) {
        return;
    }
    for _ in 0..(samples / 10).max(1) {
        f();
    }
    let mut times: Vec<Duration> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed() / iters
        })
        .collect();
    times.sort();
    let median = times[times.len() / 2];
    let p99 = times[(times.len() * 99 / 100).min(times.len() - 1)];
    println!("{name:<44} median {:>10.2?}   p99 {:>10.2?}", median, p99);
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    cordon_runtime::engine::warm_up().unwrap();
    let run = |sb: &Sandbox, code: &str| {
        rt.block_on(sb.run(code, Language::Javascript, CancelFlag::new())).unwrap()
    };

    bench(&filter, "sandbox: create + first run + drop", 200, 1, || {
        let sb = Sandbox::new(Limits::default()).unwrap();
        assert_eq!(run(&sb, "console.log('hi')").stdout, "hi\n");
    });
    let sb = Sandbox::new(Limits::default()).unwrap();
    bench(&filter, "run: console.log('hi') on a warm sandbox", 500, 1, || {
        assert_eq!(run(&sb, "console.log('hi')").stdout, "hi\n");
    });
    bench(&filter, "run: echo hi (shell) on a warm sandbox", 500, 1, || {
        let r = rt.block_on(sb.run("echo hi", Language::Shell, CancelFlag::new())).unwrap();
        assert_eq!(r.stdout, "hi\n");
    });
    let tools = Sandbox::builder().tools(add_tools()).build().unwrap();
    bench(&filter, "tool call: 100 sequential add() per call", 30, 1, || {
        let r = run(
            &tools,
            "let s = 0; for (let i = 0; i < 100; i++) s = await add({ a: s, b: 1 }); console.log(s)",
        );
        assert_eq!(r.stdout, "100\n");
    });
    bench(&filter, "tool call: 100 concurrent add() per call", 30, 1, || {
        let r = run(
            &tools,
            "const r = await Promise.all(Array.from({ length: 100 }, (_, i) => add({ a: i, b: 1 }))); \
             console.log(r.reduce((x, y) => x + y, 0))",
        );
        assert_eq!(r.stdout, "5050\n");
    });

    // The same Promise.all over an async function of the guest's own: what
    // QuickJS alone spends, the floor under the tool-call case above.
    bench(&filter, "guest only: 100 concurrent async calls", 30, 1, || {
        let r = run(
            &tools,
            "async function add2({ a, b }) { return a + b; } \
             const r = await Promise.all(Array.from({ length: 100 }, (_, i) => add2({ a: i, b: 1 }))); \
             console.log(r.reduce((x, y) => x + y, 0))",
        );
        assert_eq!(r.stdout, "5050\n");
    });

    let policy = add_tools().policy;
    let mut budgets = Budgets::new(&policy);
    bench(&filter, "policy: check an allowed call", 200, 1000, || {
        black_box(policy.check(black_box("add"), black_box(br#"{"a":1,"b":2}"#), &mut budgets));
    });

    let mut fs = MemFs::new(Quotas::default());
    let data = vec![7u8; 1 << 20];
    bench(&filter, "vfs: write 1 MiB", 100, 10, || {
        fs.write("/workspace/f.bin", &data, WriteMode::Truncate).unwrap();
    });
    bench(&filter, "vfs: read 1 MiB", 100, 10, || {
        assert_eq!(black_box(fs.read("/workspace/f.bin").unwrap()).len(), 1 << 20);
    });
}
