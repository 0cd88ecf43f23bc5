//! Compiling any policy text either fails with a message or yields a policy
//! that decides any call without panicking.
#![no_main]
use cordon_policy::{Budgets, Policy, PolicySpec};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = serde_json::from_slice::<PolicySpec>(data) else { return };
    let Ok(policy) = Policy::compile(spec) else { return };
    let mut budgets = Budgets::new(&policy);
    let names: Vec<String> = policy.tool_names().map(|n| n.to_string()).collect();
    for name in names {
        let _ = policy.check(&name, br#"{"amount":1,"path":"/a/b","user":{"role":"x"}}"#, &mut budgets);
    }
});
