//! A tool's input schema, compiled with a step budget.
//!
//! JSON Schema validation of a recursive schema (a filter tree: `oneOf`
//! branches that each `$ref` the whole tree again) can take time exponential
//! in the depth of the arguments: 160 bytes held a thread for seconds. The
//! schema is therefore compiled with a step counter beside every subschema
//! (the keyword [`STEP`], inserted where the validator evaluates schemas,
//! never inside `properties` names, `enum`, `const` or annotations), and one
//! validation may take at most [`budget`] steps. The counter lives in a
//! thread-local, set for each validation; a validation over its budget is
//! unwound at once (`resume_unwind`, which runs no panic hook) and the call
//! is denied. Steps grow with the arguments' size for honest schemas, so the
//! budget does too, up to [`MAX_STEPS`].

use std::{
    cell::Cell,
    panic::{self, AssertUnwindSafe},
};

use jsonschema::{Keyword, PatternOptions, ValidationError, Validator};
use serde_json::{Map, Value};

use crate::spec::ConfigError;

/// The counting keyword's name (no real schema uses it).
const STEP: &str = "x-cordon-step";

/// The most steps one validation may take, whatever the arguments' size.
pub const MAX_STEPS: u64 = 3_000_000;

/// Steps granted per JSON value of the arguments, plus a base.
const STEPS_PER_VALUE: u64 = 64;
const BASE_STEPS: u64 = 4_096;

thread_local! {
    /// Steps left in the validation running on this thread.
    static STEPS_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// The unwind payload of a validation over its budget.
struct OverBudget;

struct Step;

impl Step {
    fn take() {
        let left = STEPS_LEFT.get();
        if left == 0 {
            panic::resume_unwind(Box::new(OverBudget));
        }
        STEPS_LEFT.set(left - 1);
    }
}

impl<'i> Keyword<'i> for Step {
    fn validate(&self, _: &'i Value) -> Result<(), ValidationError<'i>> {
        Self::take();
        Ok(())
    }

    fn is_valid(&self, _: &'i Value) -> bool {
        Self::take();
        true
    }
}

/// The steps one validation of `args` may take.
pub fn budget(args: &Value) -> u64 {
    fn count(value: &Value) -> u64 {
        match value {
            Value::Array(items) => 1 + items.iter().map(count).sum::<u64>(),
            Value::Object(map) => 1 + map.values().map(count).sum::<u64>(),
            _ => 1,
        }
    }
    BASE_STEPS.saturating_add(count(args).saturating_mul(STEPS_PER_VALUE)).min(MAX_STEPS)
}

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] =
    &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

/// `schema` with the counting keyword in every subschema object.
fn instrument(schema: &Value, depth: usize) -> Value {
    let Value::Object(obj) = schema else { return schema.clone() };
    if depth > 256 {
        return schema.clone();
    }
    let mut out = Map::with_capacity(obj.len() + 1);
    for (key, value) in obj {
        let key_str = key.as_str();
        let walked = if ONE.contains(&key_str) && value.is_object() {
            instrument(value, depth + 1)
        } else if LIST.contains(&key_str) && value.is_array() {
            Value::Array(value.as_array().into_iter().flatten().map(|s| instrument(s, depth + 1)).collect())
        } else if MAP.contains(&key_str) && value.is_object() {
            let map = value.as_object().into_iter().flatten();
            Value::Object(map.map(|(k, s)| (k.clone(), instrument(s, depth + 1))).collect())
        } else {
            value.clone()
        };
        out.insert(key.clone(), walked);
    }
    out.insert(STEP.to_owned(), Value::Bool(true));
    Value::Object(out)
}

/// Steps allowed for finding the first error of invalid arguments.
const MESSAGE_STEPS: u64 = 2_048;

/// `f()`, or `None` when it took more than `steps` steps.
fn within<T>(steps: u64, f: impl FnOnce() -> T) -> Option<T> {
    let previous = STEPS_LEFT.replace(steps);
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    STEPS_LEFT.set(previous);
    match outcome {
        Ok(value) => Some(value),
        Err(payload) if payload.is::<OverBudget>() => None,
        Err(payload) => panic::resume_unwind(payload),
    }
}

/// A compiled input schema.
pub(crate) struct Schema {
    validator: Validator,
}

/// Why arguments were refused by a schema.
pub(crate) enum SchemaError {
    /// The first error found: where, and what.
    Invalid { at: String, message: String },
    /// The validation ran out of steps.
    TooComplex,
}

impl Schema {
    pub(crate) fn compile(name: &str, schema: &Value) -> Result<Self, ConfigError> {
        let validator = jsonschema::options()
            .with_pattern_options(PatternOptions::regex())
            .should_validate_formats(true)
            .with_keyword(STEP, |_, _, _| Ok(Box::new(Step)))
            .build(&instrument(schema, 0))
            .map_err(|e| ConfigError::new(format!("the inputSchema of tool {name:?} is invalid: {e}")))?;
        Ok(Self { validator })
    }

    /// Checks `args` within its step budget: first whether they are valid
    /// (no error is built on this path), then, for invalid ones, the first
    /// error, within at most [`MESSAGE_STEPS`] more steps (past that the
    /// error says only that they do not match).
    pub(crate) fn check(&self, args: &Value) -> Result<(), SchemaError> {
        match within(budget(args), || self.validator.is_valid(args)) {
            Some(true) => return Ok(()),
            Some(false) => {}
            None => return Err(SchemaError::TooComplex),
        }
        let first = within(MESSAGE_STEPS, || {
            self.validator
                .iter_errors(args)
                .next()
                .map(|error| (error.instance_path().to_string(), error.to_string()))
        });
        let (at, message) = first.flatten().unwrap_or_default();
        Err(SchemaError::Invalid { at, message })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn instrumenting_keeps_property_names_and_values() {
        let schema = json!({
            "type": "object",
            "properties": { "a": { "enum": [{ "x": 1 }] }, "b": { "const": { "y": 2 } } },
            "additionalProperties": false,
            "$defs": { "d": { "prefixItems": [{ "type": "string" }] } }
        });
        let out = instrument(&schema, 0);
        assert_eq!(out["properties"].as_object().unwrap().len(), 2);
        assert_eq!(out["properties"]["a"]["enum"], json!([{ "x": 1 }]));
        assert_eq!(out["properties"]["b"]["const"], json!({ "y": 2 }));
        assert_eq!(out["properties"]["a"][STEP], json!(true));
        assert_eq!(out["$defs"]["d"]["prefixItems"][0][STEP], json!(true));
        assert_eq!(out[STEP], json!(true));
        let s = Schema::compile("t", &schema).unwrap();
        assert!(s.check(&json!({ "a": { "x": 1 } })).is_ok());
        assert!(matches!(s.check(&json!({ "x-cordon-step": 1 })), Err(SchemaError::Invalid { .. })));
    }

    #[test]
    fn the_budget_grows_with_the_arguments_up_to_a_cap() {
        assert_eq!(budget(&json!({})), BASE_STEPS + STEPS_PER_VALUE);
        assert_eq!(budget(&json!(vec![0; 1_000_000])), MAX_STEPS);
    }
}
