#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! End-to-end properties through the real engine and guest: whatever mix of
//! calls a script makes, concurrently or not, no denied call reaches the
//! tool handler and no budget is exceeded.

use std::sync::{Arc, Mutex};

use cordon_runtime::{
    policy::{Policy, PolicySpec},
    BoxFuture, CancelFlag, Language, Sandbox, ToolFailure, ToolHost, ToolInvocation, Tools,
};
use proptest::prelude::*;

#[derive(Default)]
struct Recorder(Mutex<Vec<(String, serde_json::Value)>>);

impl ToolHost for Recorder {
    fn call(&self, call: &ToolInvocation) -> BoxFuture<Result<String, ToolFailure>> {
        let args: serde_json::Value = serde_json::from_str(&call.args_json).unwrap();
        self.0.lock().unwrap().push((call.name.clone(), args));
        Box::pin(async move { Ok("1".to_string()) })
    }
}

const NAMES: [&str; 4] = ["pay.send", "pay.refund", "pay.admin.wipe", "other"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn denied_calls_never_reach_the_handler_and_budgets_hold(
        max_send in 0u64..4,
        calls in proptest::collection::vec((0usize..4, -50i64..150, any::<bool>()), 0..24),
        concurrent in any::<bool>(),
    ) {
        let spec: PolicySpec = serde_json::from_value(serde_json::json!({
            "tools": [{ "name": "pay.send" }, { "name": "pay.refund" }, { "name": "pay.admin.wipe" }, { "name": "other" }],
            "capabilities": [
                { "method": "pay.send", "maxCalls": max_send,
                  "constraints": [{ "param": "amount", "op": "<=", "value": 100 }, { "param": "amount", "op": ">", "value": 0 }] },
                { "method": "pay.refund", "constraints": [{ "param": "currency", "op": "in", "value": ["USD"] }] }
            ]
        })).unwrap();
        let host = Arc::new(Recorder::default());
        let tools = Tools { policy: Arc::new(Policy::compile(spec).unwrap()), host: host.clone() };
        let sandbox = Sandbox::builder().tools(tools).build().unwrap();
        let lines: Vec<String> = calls.iter().map(|(which, amount, usd)| {
            let currency = if *usd { "USD" } else { "EUR" };
            format!("tools.call({:?}, {{ amount: {amount}, currency: {currency:?} }}).then(() => 'ok', (e) => e.code)", NAMES[*which])
        }).collect();
        let code = if concurrent {
            format!("const r = await Promise.all([{}]); return r.join(',')", lines.join(", "))
        } else {
            format!("const r = []; {} return r.join(',')", lines.iter().map(|l| format!("r.push(await {l});")).collect::<String>())
        };
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let report = rt.block_on(sandbox.run(&code, Language::Javascript, CancelFlag::new())).unwrap();
        prop_assert_eq!(report.exit_code, 0, "{:?}", report.error);

        let reached = host.0.lock().unwrap().clone();
        let mut sends = 0;
        for (name, args) in &reached {
            let amount = args["amount"].as_i64().unwrap();
            match name.as_str() {
                "pay.send" => { sends += 1; prop_assert!(amount > 0 && amount <= 100); }
                "pay.refund" => prop_assert_eq!(args["currency"].as_str(), Some("USD")),
                other => prop_assert!(false, "{other} reached the handler"),
            }
        }
        prop_assert!(sends <= max_send);
        // The audit log agrees with the handler, call for call.
        let allowed = report.tool_calls.iter().filter(|c| c.decision == "allowed").count();
        prop_assert_eq!(allowed, reached.len());
        prop_assert_eq!(report.tool_calls.len(), calls.len());
    }
}
