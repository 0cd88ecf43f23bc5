//! Any name and argument bytes against a fixed policy: no panic, budgets
//! never exceeded, and an allowed call satisfies the constraints it passed.
#![no_main]
use std::sync::OnceLock;

use cordon_policy::{Budgets, Decision, Policy, PolicySpec};
use libfuzzer_sys::fuzz_target;

static POLICY: OnceLock<Policy> = OnceLock::new();

fn policy() -> Policy {
    let spec: PolicySpec = serde_json::from_str(
        r#"{
        "tools": [{ "name": "stripe/charges/create" }, { "name": "fs.read" }, { "name": "admin.x" }],
        "capabilities": [
            { "method": "stripe.charges.*", "maxCalls": 3, "params": ["amount", "currency"],
              "constraints": [{ "param": "amount", "op": "<=", "value": 100 }, { "param": "currency", "op": "in", "value": ["USD"] }] },
            { "method": "fs.read", "constraints": { "param": "path", "op": "pathWithin", "value": "/data" } }
        ]
    }"#,
    )
    .expect("fixed policy parses");
    Policy::compile(spec).expect("fixed policy compiles")
}

fuzz_target!(|data: &[u8]| {
    let policy = POLICY.get_or_init(policy);
    let mut budgets = Budgets::new(&policy);
    let (name, args) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&b"stripe.charges.create"[..], data),
    };
    let name = String::from_utf8_lossy(name);
    for _ in 0..5 {
        if let Decision::Allow(allowed) = policy.check(&name, args, &mut budgets) {
            let args = allowed.args();
            match allowed.name().as_str() {
                "stripe.charges.create" => {
                    assert!(args["amount"].as_f64().is_some_and(|a| a <= 100.0));
                    assert_eq!(args["currency"], "USD");
                    assert!(args.as_object().is_some_and(|o| o.keys().all(|k| k == "amount" || k == "currency")));
                }
                "fs.read" => {
                    let path = args["path"].as_str().expect("path is a string");
                    assert!(path == "/data" || path.starts_with("/data/"));
                    assert!(!path.split('/').any(|s| s == ".." || s == "."));
                }
                other => panic!("{other} was allowed"),
            }
        }
    }
    assert!(budgets.used()[0] <= 3);
});
