//! cordon's capability engine: decides, before any tool runs, whether a call
//! from guest code — this tool, these argument bytes — is allowed.
//!
//! Pure: no wasmtime, no Node, no I/O. Default deny: a name that is not
//! registered is never dispatched, and a registered tool that no capability
//! grants cannot be called. Every decision carries its reason, and an allowed
//! call yields an [`Allowed`] token (private fields) holding exactly the
//! validated arguments, which is the only way to reach a tool.
//!
//! ```
//! use cordon_policy::{Budgets, Decision, Policy, PolicySpec};
//! let spec: PolicySpec = serde_json::from_value(serde_json::json!({
//!     "tools": [{ "name": "stripe.charges.create" }],
//!     "capabilities": [{
//!         "method": "stripe.charges.*",
//!         "constraints": [{ "param": "amount", "op": "<=", "value": 10000 }],
//!         "maxCalls": 100
//!     }]
//! })).unwrap();
//! let policy = Policy::compile(spec).unwrap();
//! let mut budgets = Budgets::new(&policy);
//! let ok = policy.check("stripe/charges/create", br#"{"amount":500}"#, &mut budgets);
//! assert!(matches!(ok, Decision::Allow(_)));
//! let no = policy.check("stripe.charges.create", br#"{"amount":50000}"#, &mut budgets);
//! let Decision::Deny(denial) = no else { panic!() };
//! assert_eq!(denial.message, "stripe.charges.create denied: amount must be <= 10000, got 50000");
//! ```

mod args;
mod constraint;
mod name;
mod pattern;
mod policy;
mod schema;
mod spec;

pub use args::{parse_arguments, ArgLimits};
pub use constraint::Constraint;
pub use name::{ToolName, MAX_NAME_LEN};
pub use pattern::MethodPattern;
pub use policy::{Allowed, Budgets, Decision, Denial, DenyReason, GrantDoc, Policy};
pub use schema::MAX_STEPS;
pub use spec::{CapabilitySpec, ConfigError, PolicySpec, ToolSpec};
