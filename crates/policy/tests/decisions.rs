#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Decision fixtures (tests/fixtures/decisions.json): each case compiles a
//! policy and replays calls in order against one set of budgets.

use cordon_policy::{Budgets, Decision, Policy, PolicySpec};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    name: String,
    policy: serde_json::Value,
    calls: Vec<Call>,
}

#[derive(Deserialize)]
struct Call {
    tool: String,
    args: String,
    expect: String,
    message: Option<String>,
}

#[test]
fn decision_fixtures() {
    let cases: Vec<Case> = serde_json::from_str(include_str!("fixtures/decisions.json")).unwrap();
    let mut count = 0;
    for case in cases {
        let spec: PolicySpec = serde_json::from_value(case.policy).unwrap();
        let policy = Policy::compile(spec).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let mut budgets = Budgets::new(&policy);
        for call in case.calls {
            let decision = policy.check(&call.tool, call.args.as_bytes(), &mut budgets);
            let (got, message) = match &decision {
                Decision::Allow(allowed) => {
                    // The handler gets exactly the parsed arguments.
                    let reparsed: serde_json::Value = serde_json::from_str(&call.args).unwrap();
                    assert_eq!(allowed.args(), &reparsed);
                    ("allow".to_string(), None)
                }
                Decision::Deny(d) => (d.reason.as_str().to_string(), Some(d.message.clone())),
            };
            assert_eq!(got, call.expect, "{}: {} {} -> {:?}", case.name, call.tool, call.args, message);
            if let Some(expected) = call.message {
                assert_eq!(message.as_deref(), Some(expected.as_str()), "{}: {}", case.name, call.args);
            }
            count += 1;
        }
    }
    assert!(count > 60, "only {count} calls checked");
}

#[test]
fn malformed_policies_are_errors() {
    for (policy, message) in [
        (r#"{"tools":[{"name":"a..b"}]}"#, "tool name \"a..b\" has an empty segment"),
        (r#"{"tools":[{"name":"a"},{"name":"a"}]}"#, "tool \"a\" is registered twice"),
        (
            r#"{"tools":[{"name":"stripe.charges.create"},{"name":"get"}],"capabilities":[{"method":"get"},{"method":"stripe.charge.*"}]}"#,
            "capability \"stripe.charge.*\" matches no registered tool (the tools are: get, stripe.charges.create)",
        ),
        (
            r#"{"capabilities":[{"method":"**"}]}"#,
            "capability \"**\" matches no registered tool (the tools are: none)",
        ),
        (r#"{"tools":[{"name":"t"}],"constraints":{"t":{"path":"endswith-.json"}}}"#, ""),
        (r#"{"tools":[{"name":"t"}],"constraints":{"t":{"n":"<=abc"}}}"#, ""),
        (r#"{"tools":[{"name":"t"}],"constraints":{"t":{"n":"~5"}}}"#, ""),
        (r#"{"tools":[{"name":"t"}],"constraints":{"t":{"n":true}}}"#, ""),
        (r#"{"tools":[{"name":"t"}],"constraints":{"nope":{"n":"<=1"}}}"#, ""),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"n","op":"=~","value":1}}]}"#,
            "",
        ),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"n","op":"<=","value":"1"}}]}"#,
            "",
        ),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"n","op":"in","value":[]}}]}"#,
            "",
        ),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"n","op":"matches","value":"("}}]}"#,
            "",
        ),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"","op":"exists"}}]}"#,
            "",
        ),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"n","op":"exists","value":1}}]}"#,
            "",
        ),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"n","op":"<","value":1,"x":2}}]}"#,
            "",
        ),
        (
            r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t","constraints":{"param":"p","op":"pathWithin","value":"/a/../b"}}]}"#,
            "",
        ),
        (r#"{"tools":[{"name":"t"}],"capabilities":[{"method":"t..*"}]}"#, ""),
        (r#"{"tools":[{"name":"t","inputSchema":{"type":"nonsense"}}]}"#, ""),
        (r#"{"tools":[{"name":"t","inputSchema":{"$ref":"https://example.com/s.json"}}]}"#, ""),
    ] {
        let spec: PolicySpec = serde_json::from_str(policy).unwrap();
        let err = Policy::compile(spec).expect_err(policy);
        if !message.is_empty() {
            assert_eq!(err.message, message);
        }
    }
    // Unless the spec says to ignore them: they grant nothing.
    let spec: PolicySpec = serde_json::from_str(
        r#"{"tools":[{"name":"a"}],"capabilities":[{"method":"b"}],"ignoreUnmatched":true}"#,
    )
    .unwrap();
    let policy = Policy::compile(spec).unwrap();
    assert!(matches!(policy.check("a", b"{}", &mut Budgets::new(&policy)), Decision::Deny(_)));
    for unknown in [
        r#"{"tool":[]}"#,
        r#"{"capabilities":[{"method":"t","maxcalls":1}]}"#,
        r#"{"capabilities":[{"method":"t","maxCalls":-1}]}"#,
    ] {
        assert!(serde_json::from_str::<PolicySpec>(unknown).is_err(), "{unknown}");
    }
}

#[test]
fn grant_docs_state_each_capability_as_it_decides() {
    let spec: PolicySpec = serde_json::from_str(
        r#"{
            "tools": [{"name": "stripe/charges/create"}, {"name": "get_weather", "requireApproval": true},
                      {"name": "admin.drop"}, {"name": "mail.send"}],
            "capabilities": [
                {"method": "stripe.charges.*", "constraints": [
                    {"param": "amount", "op": "<=", "value": 10000},
                    {"or": [{"param": "currency", "op": "in", "value": ["USD", "EUR"]},
                            {"not": {"param": "test", "op": "exists"}}]}],
                 "maxCalls": 100, "params": ["amount", "currency", "test"]},
                {"method": "get_weather", "requireApproval": true}
            ],
            "constraints": {"mail.send": {"to": "endswith:@example.com"}},
            "maxCalls": {"mail.send": 3}
        }"#,
    )
    .unwrap();
    let policy = Policy::compile(spec).unwrap();
    let docs: Vec<_> = policy
        .grant_docs()
        .map(|g| (g.method, g.constraints, g.params.map(<[String]>::to_vec), g.max_calls, g.require_approval))
        .collect();
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        docs,
        vec![
            (
                "stripe.charges.*",
                Some(r#"amount <= 10000 and (currency in ["USD","EUR"] or (not test exists))"#.to_string()),
                Some(strings(&["amount", "currency", "test"])),
                Some(100),
                false,
            ),
            ("get_weather", None, None, None, true),
            ("mail.send", Some(r#"to endsWith "@example.com""#.to_string()), None, Some(3), false),
        ]
    );
    let name = |n: &str| cordon_policy::ToolName::parse(n).unwrap();
    assert!(policy.grants(&name("stripe.charges.create")));
    assert!(policy.grants(&name("stripe.charges.refund")), "an unregistered name is matched by pattern");
    assert!(!policy.grants(&name("admin.drop")));
    let approval: Vec<_> = policy.approval_tools().map(|n| n.as_str()).collect();
    assert_eq!(approval, ["get_weather"]);
}
