//! The compiled policy and its decisions.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{
    args::{parse_arguments, ArgLimits},
    constraint::Constraint,
    name::{quote, ToolName},
    pattern::MethodPattern,
    schema::{Schema, SchemaError},
    spec::{ConfigError, PolicySpec},
};

struct Tool {
    schema: Option<Schema>,
    description: Option<String>,
    /// The schema as given, as JSON text.
    schema_json: Option<String>,
    /// The capabilities whose pattern matches this tool, in order: a call
    /// consults only these (the patterns are matched once, at compile).
    capabilities: Vec<usize>,
    /// Every call asks for approval, whichever capability allows it.
    require_approval: bool,
}

struct Capability {
    pattern: MethodPattern,
    constraint: Option<Constraint>,
    max_calls: Option<u64>,
    params: Option<Vec<String>>,
    require_approval: bool,
}

/// A compiled, immutable policy. Share it; keep [`Budgets`] per sandbox.
pub struct Policy {
    tools: BTreeMap<ToolName, Tool>,
    capabilities: Vec<Capability>,
    arg_limits: ArgLimits,
    /// SHA-256 of the policy's canonical form (see [`Policy::digest`]).
    digest: [u8; 32],
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("capabilities", &self.capabilities.len())
            .finish()
    }
}

/// Why a call was refused. The string forms are public API (`err.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenyReason {
    /// The name is malformed or not registered.
    UnknownTool,
    /// The tool is registered, but no capability grants it.
    NotGranted,
    /// The arguments are not one well-formed JSON object.
    InvalidArguments,
    /// The arguments do not satisfy the tool's input schema.
    Schema,
    /// A parameter is not in the capability's `params` list.
    ParameterNotAllowed,
    /// A constraint of the capability failed.
    Constraint,
    /// The capability's `maxCalls` is used up.
    Budget,
    /// The run's total of tool calls is used up.
    RunBudget,
    /// The host's approval hook said no.
    Approval,
}

impl DenyReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownTool => "unknown_tool",
            Self::NotGranted => "not_granted",
            Self::InvalidArguments => "invalid_arguments",
            Self::Schema => "schema",
            Self::ParameterNotAllowed => "parameter_not_allowed",
            Self::Constraint => "constraint",
            Self::Budget => "budget",
            Self::RunBudget => "run_budget",
            Self::Approval => "approval",
        }
    }

    /// Denials before a capability was consulted keep more specific reasons
    /// from being overwritten; among capability failures the first wins.
    fn rank(self) -> u8 {
        match self {
            Self::Constraint | Self::ParameterNotAllowed => 2,
            Self::Budget => 1,
            _ => 0,
        }
    }
}

/// A refused call: why, in a sentence a model can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub reason: DenyReason,
    pub message: String,
    /// The canonical tool name, when the name was well formed.
    pub tool: Option<String>,
    /// Index of the capability that decided, when one matched.
    pub capability: Option<usize>,
}

/// Proof that a call was checked and allowed: the only way to reach a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Allowed {
    name: ToolName,
    args: Value,
    capability: usize,
    require_approval: bool,
    /// The capability asks for approval (not only the tool).
    capability_asks: bool,
}

impl Allowed {
    pub fn name(&self) -> &ToolName {
        &self.name
    }

    /// Exactly the validated arguments.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// Moves the validated arguments out (for the tool handler).
    pub fn into_args(self) -> Value {
        self.args
    }

    /// Moves the name out, once the arguments are no longer needed.
    pub fn into_name(self) -> ToolName {
        self.name
    }

    pub fn capability(&self) -> usize {
        self.capability
    }

    pub fn requires_approval(&self) -> bool {
        self.require_approval
    }

    /// Whether the capability that allowed the call asks for approval; when
    /// only the tool does, its own rule (`needsApproval`) may waive it.
    pub fn capability_asks(&self) -> bool {
        self.capability_asks
    }
}

/// The outcome of [`Policy::check`].
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Allow(Allowed),
    Deny(Denial),
}

/// One capability, for documentation ([`Policy::grant_docs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantDoc<'a> {
    /// The method pattern (`stripe.charges.*`).
    pub method: &'a str,
    /// The constraint's readable form (`amount <= 10000 and ...`).
    pub constraints: Option<String>,
    /// The only parameters a call may pass, when restricted.
    pub params: Option<&'a [String]>,
    pub max_calls: Option<u64>,
    pub require_approval: bool,
}

/// Calls used, per capability (over the sandbox's life) and in this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budgets {
    used: Vec<u64>,
    run_used: u64,
    run_max: u64,
}

impl Budgets {
    /// Fresh budgets for `policy`, with the default per-run total of 1000.
    pub fn new(policy: &Policy) -> Self {
        Self { used: vec![0; policy.capabilities.len()], run_used: 0, run_max: 1000 }
    }

    /// Sets the most calls one run may make.
    pub fn with_run_max(mut self, run_max: u64) -> Self {
        self.run_max = run_max;
        self
    }

    /// Starts a new run: the per-run total resets, capability budgets do not.
    pub fn start_run(&mut self) {
        self.run_used = 0;
    }

    /// Calls allowed so far by each capability.
    pub fn used(&self) -> &[u64] {
        &self.used
    }

    /// Restores the counts of [`used`](Self::used) (from a snapshot); false,
    /// and nothing changed, when the number of capabilities differs.
    pub fn restore_used(&mut self, used: &[u64]) -> bool {
        if used.len() != self.used.len() {
            return false;
        }
        self.used.copy_from_slice(used);
        true
    }
}

impl Policy {
    /// Compiles tools and capabilities; any malformed name, pattern,
    /// constraint, schema or budget is an error.
    pub fn compile(spec: PolicySpec) -> Result<Self, ConfigError> {
        let digest = digest_of(&spec);
        let spec_ignores_unmatched = spec.ignore_unmatched;
        let mut tools = BTreeMap::new();
        for tool in &spec.tools {
            let name = ToolName::parse(&tool.name).map_err(ConfigError::new)?;
            let schema = match &tool.input_schema {
                Some(schema) => Some(Schema::compile(name.as_str(), schema)?),
                None => None,
            };
            let doc = Tool {
                schema,
                description: tool.description.clone(),
                schema_json: tool.input_schema.as_ref().map(|s| s.to_string()),
                capabilities: Vec::new(),
                require_approval: tool.require_approval,
            };
            if tools.insert(name.clone(), doc).is_some() {
                return Err(ConfigError::new(format!("tool {:?} is registered twice", name.as_str())));
            }
        }
        let mut capabilities = Vec::new();
        for cap in spec.capabilities {
            let pattern = MethodPattern::parse(&cap.method).map_err(ConfigError::new)?;
            let constraint = match &cap.constraints {
                Some(value) => Some(Constraint::from_json(value).map_err(|e| {
                    ConfigError::new(format!("capability {:?}: {}", pattern.as_str(), e.message))
                })?),
                None => None,
            };
            if let Some(params) = &cap.params {
                if let Some(bad) = params.iter().find(|p| p.is_empty()) {
                    return Err(ConfigError::new(format!(
                        "capability {:?}: params has an empty name {bad:?}",
                        pattern.as_str()
                    )));
                }
            }
            capabilities.push(Capability {
                pattern,
                constraint,
                max_calls: cap.max_calls,
                params: cap.params,
                require_approval: cap.require_approval,
            });
        }
        // amla-sandbox's short form becomes one capability per named tool.
        let mut short: BTreeMap<ToolName, (Vec<Constraint>, Option<u64>)> = BTreeMap::new();
        for (tool, params) in &spec.constraints {
            let name = ToolName::parse(tool).map_err(ConfigError::new)?;
            let entry = short.entry(name).or_default();
            for (param, value) in params {
                entry.0.push(
                    Constraint::from_short(param, value)
                        .map_err(|e| ConfigError::new(format!("constraints for {tool:?}: {}", e.message)))?,
                );
            }
        }
        for (tool, max) in &spec.max_calls {
            let name = ToolName::parse(tool).map_err(ConfigError::new)?;
            short.entry(name).or_default().1 = Some(*max);
        }
        for (name, (constraints, max_calls)) in short {
            if !tools.contains_key(&name) {
                return Err(ConfigError::new(format!(
                    "constraints or maxCalls name {:?}, which is not a registered tool",
                    name.as_str()
                )));
            }
            capabilities.push(Capability {
                pattern: MethodPattern::parse(name.as_str()).map_err(ConfigError::new)?,
                constraint: (!constraints.is_empty()).then_some(Constraint::And(constraints)),
                max_calls,
                params: None,
                require_approval: false,
            });
        }
        for (name, tool) in &mut tools {
            tool.capabilities = capabilities
                .iter()
                .enumerate()
                .filter(|(_, c)| c.pattern.matches(name))
                .map(|(i, _)| i)
                .collect();
        }
        // A pattern that matches no tool grants nothing: most likely a
        // misspelt name, which would otherwise deny every call silently.
        let mut matched = vec![false; capabilities.len()];
        for i in tools.values().flat_map(|t| &t.capabilities) {
            if let Some(m) = matched.get_mut(*i) {
                *m = true;
            }
        }
        let unused = matched.iter().position(|m| !m).and_then(|i| capabilities.get(i));
        if let Some(unused) = unused.filter(|_| !spec_ignores_unmatched) {
            const SHOWN: usize = 20;
            let mut registered: Vec<&str> = tools.keys().take(SHOWN).map(ToolName::as_str).collect();
            let more = format!("and {} more", tools.len().saturating_sub(SHOWN));
            if tools.len() > SHOWN {
                registered.push(&more);
            }
            return Err(ConfigError::new(format!(
                "capability {:?} matches no registered tool (the tools are: {})",
                unused.pattern.as_str(),
                if registered.is_empty() { "none".to_owned() } else { registered.join(", ") }
            )));
        }
        Ok(Self { tools, capabilities, arg_limits: ArgLimits::default(), digest })
    }

    /// A digest of everything that decides calls: each tool's name, schema
    /// and approval, each capability in order (pattern, constraints, budget,
    /// parameters, approval) and the short forms. Two policies with the same
    /// digest decide every call the same way and count budgets alike.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// Registered tool names, sorted.
    pub fn tool_names(&self) -> impl Iterator<Item = &ToolName> {
        self.tools.keys()
    }

    /// Each registered tool with its description and schema (JSON text),
    /// sorted by name.
    pub fn tool_docs(&self) -> impl Iterator<Item = (&ToolName, Option<&str>, Option<&str>)> {
        self.tools.iter().map(|(name, t)| (name, t.description.as_deref(), t.schema_json.as_deref()))
    }

    /// Whether some capability grants `name` at all (ignoring arguments).
    pub fn grants(&self, name: &ToolName) -> bool {
        self.tools.get(name).map_or_else(
            || self.capabilities.iter().any(|c| c.pattern.matches(name)),
            |tool| !tool.capabilities.is_empty(),
        )
    }

    /// Each capability as a reader should see it, in the order calls
    /// consult them: the `capabilities` list, then one per tool named in
    /// the short forms (`constraints`, `maxCalls`), sorted by name.
    pub fn grant_docs(&self) -> impl Iterator<Item = GrantDoc<'_>> {
        self.capabilities.iter().map(|c| GrantDoc {
            method: c.pattern.as_str(),
            constraints: c.constraint.as_ref().map(Constraint::describe),
            params: c.params.as_deref(),
            max_calls: c.max_calls,
            require_approval: c.require_approval,
        })
    }

    /// Registered tools whose every call asks for approval (`requireApproval`
    /// on the tool), sorted.
    pub fn approval_tools(&self) -> impl Iterator<Item = &ToolName> {
        self.tools.iter().filter(|(_, t)| t.require_approval).map(|(name, _)| name)
    }

    /// Decides one call. On `Allow`, the budgets are charged.
    pub fn check(&self, raw_name: &str, raw_args: &[u8], budgets: &mut Budgets) -> Decision {
        let deny = |reason, message: String, tool: Option<&ToolName>, capability| {
            Decision::Deny(Denial { reason, message, tool: tool.map(|t| t.as_str().to_owned()), capability })
        };
        // A registered name in its canonical form (the usual call) is found
        // as it is; parsing it would give the same name.
        let (name, tool) = match self.tools.get_key_value(raw_name) {
            Some((name, tool)) => (name.clone(), tool),
            None => {
                let name = match ToolName::parse(raw_name) {
                    Ok(name) => name,
                    Err(why) => return deny(DenyReason::UnknownTool, why, None, None),
                };
                let Some(tool) = self.tools.get(&name) else {
                    return deny(
                        DenyReason::UnknownTool,
                        format!("unknown tool {}", quote(name.as_str())),
                        None,
                        None,
                    );
                };
                (name, tool)
            }
        };
        if tool.capabilities.is_empty() {
            return deny(
                DenyReason::NotGranted,
                format!("{name} denied: no capability grants this tool"),
                Some(&name),
                None,
            );
        }
        let args = match parse_arguments(raw_args, self.arg_limits) {
            Ok(args) => args,
            Err(why) => {
                return deny(DenyReason::InvalidArguments, format!("{name}: {why}"), Some(&name), None)
            }
        };
        if !args.is_object() {
            return deny(
                DenyReason::InvalidArguments,
                format!(
                    "{name} takes one object argument, like {name}({{ key: value }}); got {}",
                    kind_of(&args)
                ),
                Some(&name),
                None,
            );
        }
        if let Some(schema) = &tool.schema {
            let message = match schema.check(&args) {
                Ok(()) => None,
                Err(SchemaError::Invalid { at, message }) => {
                    let at = if at.is_empty() { String::new() } else { format!(" at {}", excerpt(&at, 120)) };
                    let why = if message.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", excerpt(&message, 200))
                    };
                    Some(format!("{name}: arguments do not match the input schema{at}{why}"))
                }
                Err(SchemaError::TooComplex) => Some(format!(
                    "{name}: arguments too complex to check against the input schema (over {} validation \
                     steps for arguments of this size)",
                    crate::schema::budget(&args)
                )),
            };
            if let Some(message) = message {
                return deny(DenyReason::Schema, message, Some(&name), None);
            }
        }
        if budgets.run_used >= budgets.run_max {
            return deny(
                DenyReason::RunBudget,
                format!(
                    "{name} denied: this run already made {} tool calls, the most allowed",
                    budgets.run_max
                ),
                Some(&name),
                None,
            );
        }
        let mut first: Option<Denial> = None;
        for &index in &tool.capabilities {
            let Some(cap) = self.capabilities.get(index) else { continue };
            let failure = cap_failure(cap, &args, budgets.used.get(index).copied().unwrap_or(u64::MAX));
            match failure {
                None => {
                    if let Some(used) = budgets.used.get_mut(index) {
                        *used += 1;
                    }
                    budgets.run_used += 1;
                    return Decision::Allow(Allowed {
                        name,
                        args,
                        capability: index,
                        require_approval: cap.require_approval || tool.require_approval,
                        capability_asks: cap.require_approval,
                    });
                }
                Some((reason, why)) => {
                    let denial = Denial {
                        reason,
                        message: format!("{name} denied: {why}"),
                        tool: Some(name.as_str().to_owned()),
                        capability: Some(index),
                    };
                    if first.as_ref().is_none_or(|f| f.reason.rank() < reason.rank()) {
                        first = Some(denial);
                    }
                }
            }
        }
        Decision::Deny(first.unwrap_or(Denial {
            reason: DenyReason::NotGranted,
            message: format!("{name} denied: no capability grants this tool"),
            tool: Some(name.as_str().to_owned()),
            capability: None,
        }))
    }
}

/// SHA-256 of `spec` in a canonical form (JSON objects with sorted keys;
/// arrays, and so the order of capabilities, as given).
fn digest_of(spec: &PolicySpec) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let tools: Vec<Value> = spec
        .tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "inputSchema": t.input_schema,
                "requireApproval": t.require_approval,
            })
        })
        .collect();
    let capabilities: Vec<Value> = spec
        .capabilities
        .iter()
        .map(|c| {
            serde_json::json!({
                "method": c.method,
                "constraints": c.constraints,
                "maxCalls": c.max_calls,
                "params": c.params,
                "requireApproval": c.require_approval,
            })
        })
        .collect();
    let canonical = serde_json::json!({
        "tools": tools,
        "capabilities": capabilities,
        "constraints": spec.constraints,
        "maxCalls": spec.max_calls,
    });
    Sha256::digest(canonical.to_string().as_bytes()).into()
}

/// At most `max` characters of `text` (which may quote the guest's input),
/// with control characters escaped and an ellipsis where it was cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array (positional arguments)",
        Value::Object(_) => "an object",
    }
}

fn cap_failure(cap: &Capability, args: &Value, used: u64) -> Option<(DenyReason, String)> {
    if let (Some(allowed), Some(obj)) = (&cap.params, args.as_object()) {
        if let Some(extra) = obj.keys().find(|k| !allowed.contains(k)) {
            return Some((
                DenyReason::ParameterNotAllowed,
                format!("parameter {extra:?} is not allowed; allowed parameters: {}", allowed.join(", ")),
            ));
        }
    }
    if let Some(constraint) = &cap.constraint {
        if let Err(why) = constraint.check(args) {
            return Some((DenyReason::Constraint, why));
        }
    }
    if let Some(max) = cap.max_calls {
        if used >= max {
            return Some((
                DenyReason::Budget,
                format!("the budget of {max} calls for {} is used up", cap.pattern.as_str()),
            ));
        }
    }
    None
}
