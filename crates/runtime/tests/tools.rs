#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Tool dispatch through the real engine and guest, with a Rust tool host in
//! the role of the embedder.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use cordon_runtime::{
    policy::{Policy, PolicySpec},
    BoxFuture, CancelFlag, ErrorCode, Language, Limits, Sandbox, ToolFailure, ToolHost, ToolInvocation,
    Tools,
};

#[derive(Default)]
struct Host {
    calls: Mutex<Vec<ToolInvocation>>,
}

impl ToolHost for Host {
    fn call(&self, call: &ToolInvocation) -> BoxFuture<Result<String, ToolFailure>> {
        let call = call.clone();
        self.calls.lock().unwrap().push(call.clone());
        Box::pin(async move {
            match call.name.as_str() {
                "slow" => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    Ok("1".into())
                }
                "hang" => std::future::pending().await,
                "fail" => Err(ToolFailure::Failed("nope".into())),
                "garbage" => Ok("{\"a\":1,\"a\":2}".into()),
                _ => Ok(call.args_json),
            }
        })
    }
}

fn sandbox(limits: Limits, policy: serde_json::Value) -> (Sandbox, Arc<Host>) {
    let spec: PolicySpec = serde_json::from_value(policy).unwrap();
    let host = Arc::new(Host::default());
    let tools = Tools { policy: Arc::new(Policy::compile(spec).unwrap()), host: host.clone() };
    (Sandbox::builder().limits(limits).tools(tools).build().unwrap(), host)
}

async fn run(sb: &Sandbox, code: &str) -> cordon_runtime::RunReport {
    sb.run(code, Language::Javascript, CancelFlag::new()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_calls_reach_the_host_with_the_validated_arguments() {
    let (sb, host) = sandbox(
        Limits::default(),
        serde_json::json!({
            "tools": [{ "name": "echo" }, { "name": "slow" }, { "name": "fail" }, { "name": "garbage" }],
            "capabilities": [{ "method": "echo", "constraints": [{ "param": "n", "op": "<", "value": 10 }] }, { "method": "slow" },
                             { "method": "fail" }, { "method": "garbage" }]
        }),
    );
    let report = run(
        &sb,
        r#"
        const out = [];
        out.push(await echo({ n: 1, s: "x" }));
        for (const [name, args] of [["echo", { n: 11 }], ["fail", {}], ["garbage", {}], ["nope", {}]]) {
            try { await tools.call(name, args) } catch (e) { out.push(e.code + " " + e.message) }
        }
        return out;
        "#,
    )
    .await;
    assert_eq!(report.exit_code, 0, "{}", report.stderr);
    let value: serde_json::Value = serde_json::from_str(report.value.as_deref().unwrap()).unwrap();
    assert_eq!(
        value,
        serde_json::json!([
            { "n": 1, "s": "x" },
            "DENIED echo denied: n must be < 10, got 11",
            "TOOL_ERROR fail failed: nope",
            "TOOL_RESULT_INVALID garbage returned a result that is not valid JSON: duplicate key \"a\" at line 1 column 10",
            "DENIED unknown tool \"nope\""
        ])
    );
    let calls = host.calls.lock().unwrap();
    assert_eq!(calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["echo", "fail", "garbage"]);
    assert_eq!(calls[0].args_json, r#"{"n":1,"s":"x"}"#);
    assert_eq!(report.tool_calls.len(), 5);
    assert_eq!(report.tool_calls[1].reason.as_deref(), Some("constraint"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_overlap_and_waiting_costs_no_cpu() {
    let (sb, _) = sandbox(
        Limits::default(),
        serde_json::json!({ "tools": [{ "name": "slow" }], "capabilities": [{ "method": "slow" }] }),
    );
    let started = Instant::now();
    let report = run(&sb, "await Promise.all([slow({}), slow({}), slow({}), slow({})])").await;
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(195) && elapsed < Duration::from_millis(500), "{elapsed:?}");
    assert!(report.stats.cpu_ms < 100.0, "cpu {}", report.stats.cpu_ms);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wall_clock_limit_covers_waiting_on_tools() {
    let (sb, _) = sandbox(
        Limits { timeout_ms: 100, tool_timeout_ms: 60_000, ..Limits::default() },
        serde_json::json!({ "tools": [{ "name": "hang" }], "capabilities": [{ "method": "hang" }] }),
    );
    let started = Instant::now();
    let err = sb.run("await hang({})", Language::Javascript, CancelFlag::new()).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(started.elapsed() < Duration::from_millis(150), "{:?}", started.elapsed());
    assert_eq!(run(&sb, "return 1").await.value.as_deref(), Some("1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_run_that_waits_on_a_tool() {
    let (sb, _) = sandbox(
        Limits::default(),
        serde_json::json!({ "tools": [{ "name": "hang" }], "capabilities": [{ "method": "hang" }] }),
    );
    let cancel = CancelFlag::new();
    let remote = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        remote.cancel();
    });
    let err = sb.run("await hang({})", Language::Javascript, cancel).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timers_fire_in_order() {
    let sb = Sandbox::new(Limits::default()).unwrap();
    let report = run(
        &sb,
        r#"
        const seen = [];
        setTimeout(() => seen.push("b"), 20);
        setTimeout(() => seen.push("a"), 5);
        const id = setTimeout(() => seen.push("never"), 10);
        clearTimeout(id);
        let n = 0;
        await new Promise((resolve) => { const t = setInterval(() => { seen.push("i" + ++n); if (n === 3) { clearInterval(t); resolve(); } }, 8); });
        await new Promise((r) => setTimeout(r, 30));
        return seen.join(",");
        "#,
    )
    .await;
    assert_eq!(report.value.as_deref(), Some("a,i1,i2,b,i3"));
    let thrown = run(
        &sb,
        "setTimeout(() => { throw new Error('late boom') }, 1); await new Promise((r) => setTimeout(r, 20))",
    )
    .await;
    assert_eq!(thrown.exit_code, 1);
    assert_eq!(thrown.error.unwrap().message, "late boom");
}
