#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Properties of the engine over generated inputs.

use cordon_policy::{parse_arguments, ArgLimits, Budgets, Decision, Policy, PolicySpec, ToolName};
use proptest::prelude::*;
use serde_json::json;

fn policy(max_a: u64, max_b: u64) -> Policy {
    let spec: PolicySpec = serde_json::from_value(json!({
        "tools": [{ "name": "t.one" }, { "name": "t.two" }],
        "capabilities": [
            { "method": "t.one", "maxCalls": max_a, "constraints": [{ "param": "n", "op": "<=", "value": 10 }] },
            { "method": "t.*", "maxCalls": max_b }
        ]
    }))
    .unwrap();
    Policy::compile(spec).unwrap()
}

proptest! {
    /// However calls interleave, no capability allows more than its budget.
    #[test]
    fn budgets_are_never_exceeded(max_a in 0u64..5, max_b in 0u64..5, calls in proptest::collection::vec((0u8..3, -5i64..20), 0..60)) {
        let policy = policy(max_a, max_b);
        let mut budgets = Budgets::new(&policy).with_run_max(1000);
        let mut allowed = 0u64;
        for (which, n) in calls {
            let name = ["t.one", "t.two", "t.three"][which as usize];
            if let Decision::Allow(a) = policy.check(name, format!("{{\"n\":{n}}}").as_bytes(), &mut budgets) {
                allowed += 1;
                prop_assert!(name != "t.three");
                if a.capability() == 0 { prop_assert!(n <= 10); }
            }
        }
        prop_assert!(budgets.used()[0] <= max_a);
        prop_assert!(budgets.used()[1] <= max_b);
        prop_assert_eq!(allowed, budgets.used()[0] + budgets.used()[1]);
    }

    /// A numeric comparison is never satisfied by anything but a number.
    #[test]
    fn numeric_constraints_never_accept_non_numbers(s in "\\PC{0,12}", b in any::<bool>()) {
        let policy = policy(100, 0);
        let mut budgets = Budgets::new(&policy);
        for value in [json!(s), json!(b), json!(null), json!([1]), json!({"n": 1})] {
            let args = json!({ "n": value }).to_string();
            let denied = matches!(policy.check("t.one", args.as_bytes(), &mut budgets), Decision::Deny(_));
            prop_assert!(denied);
        }
    }

    /// The argument parser never panics and accepts only what serde_json
    /// also accepts.
    #[test]
    fn argument_parser_is_total(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if parse_arguments(&bytes, ArgLimits::default()).is_ok() {
            prop_assert!(serde_json::from_slice::<serde_json::Value>(&bytes).is_ok());
        }
    }

    /// A parsed name is canonical: parsing it again gives itself.
    #[test]
    fn names_are_canonical(raw in "[a-z_./-]{1,20}") {
        if let Ok(name) = ToolName::parse(&raw) {
            prop_assert_eq!(ToolName::parse(name.as_str()).unwrap(), name.clone());
            prop_assert!(!name.as_str().contains('/'));
        }
    }
}
