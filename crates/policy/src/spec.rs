//! The policy as the user writes it (deserialized from the options of
//! `Sandbox.create`), before compilation.

use std::{collections::BTreeMap, fmt};

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A policy that cannot be compiled: reported at `create()` as `INVALID_OPTIONS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub message: String,
}

impl ConfigError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// A registered tool.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    /// What the tool does, for descriptions shown to guest code.
    #[serde(default)]
    pub description: Option<String>,
    /// JSON Schema of the argument object. Remote `$ref`s are not resolved.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// Every allowed call of this tool asks the host's `approve` hook first,
    /// whichever capability allows it (an AI SDK tool's `needsApproval`).
    #[serde(default)]
    pub require_approval: bool,
}

/// A grant: which tools, under which constraints, how often.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CapabilitySpec {
    /// `stripe.charges.create`, `stripe.charges.*` (one segment), `stripe.**` (any).
    pub method: String,
    /// Long-form constraints (an object or an array of them).
    #[serde(default)]
    pub constraints: Option<Value>,
    /// Calls this capability may allow over the sandbox's life (until reset).
    /// `null` is an error, not "unlimited".
    #[serde(default, deserialize_with = "present")]
    pub max_calls: Option<u64>,
    /// The only top-level parameters a call may pass.
    #[serde(default)]
    pub params: Option<Vec<String>>,
    /// Ask the host's `approve` hook before each allowed call.
    #[serde(default)]
    pub require_approval: bool,
}

/// An optional field that, when present, must hold a value (`null` is an
/// error rather than "absent": a NaN budget serialised by JavaScript arrives
/// as `null` and must not mean "unlimited").
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// Everything the policy is compiled from.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PolicySpec {
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    #[serde(default)]
    pub capabilities: Vec<CapabilitySpec>,
    /// amla-sandbox's short form: `{ tool: { param: "<=1000", other: ["A", "B"] } }`.
    #[serde(default)]
    pub constraints: BTreeMap<String, BTreeMap<String, Value>>,
    /// amla-sandbox's short form: `{ tool: 10 }`.
    #[serde(default)]
    pub max_calls: BTreeMap<String, u64>,
    /// Accept capabilities that match no registered tool (they grant
    /// nothing). Off, such a capability is an error: it is most likely a
    /// misspelt name. On where the tools are a subset chosen later (the AI
    /// SDK's code caller binds the tools a call routes to it).
    #[serde(default)]
    pub ignore_unmatched: bool,
}
