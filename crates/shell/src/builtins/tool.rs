//! `tool`: calls a host tool through the same capability checks as
//! JavaScript, and prints its JSON result.
//!
//! `tool stripe.charges.create --amount 500 --currency USD` sends
//! `{"amount":500,"currency":"USD"}`: a value that is a JSON number,
//! `true` or `false` keeps that type, anything else is a string; a flag with
//! no value is `true`; `--a.b x` nests (`{"a":{"b":"x"}}`). `--json '{…}'`
//! gives the arguments as JSON (flags after it add to that object).

use serde_json::{Map, Value};

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "tool",
    run,
    help: "Usage: tool NAME [--KEY VALUE]... [--json JSON]\n       tool --list\n       tool NAME --help\n\
Calls the host tool NAME with the given arguments (under the sandbox's capabilities) and prints its\n\
result as JSON. Numbers, true and false keep their type; other values are strings; --KEY alone is true;\n\
--a.b VALUE nests. --json takes the whole argument object. A denied or failed call prints the reason\n\
on stderr and exits with status 1.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let Some((name, rest)) = args.split_first() else {
        ctx.err("tool: missing tool name\nTry 'tool --help' for more information.\n");
        return 2;
    };
    if name == "--list" || name == "-l" {
        let tools = ctx.sys().tools();
        let mut text = String::new();
        for t in tools {
            if t.description.is_empty() {
                text.push_str(&format!("{}\n", t.name));
            } else {
                text.push_str(&format!("{}\t{}\n", t.name, t.description));
            }
        }
        let _ = ctx.out(text);
        return 0;
    }
    if name.starts_with('-') {
        ctx.err(format!("tool: unrecognized option '{name}'\nTry 'tool --help' for more information.\n"));
        return 2;
    }
    if rest.first().is_some_and(|a| a == "--help") {
        return describe(ctx, name);
    }
    let arguments = match parse_arguments(rest) {
        Ok(v) => v,
        Err(message) => {
            ctx.err(format!("tool: {message}\n"));
            return 2;
        }
    };
    let json = Value::Object(arguments).to_string();
    match ctx.sys().tool_call(name, &json) {
        Ok(result) => {
            let _ = ctx.out(format!("{result}\n"));
            0
        }
        Err(e) => {
            let reason = e.reason.map(|r| format!(" ({r})")).unwrap_or_default();
            ctx.err(format!("tool: {name}: {}{reason}: {}\n", e.code, e.message));
            1
        }
    }
}

fn describe(ctx: &mut Ctx, name: &str) -> i32 {
    let tools = ctx.sys().tools();
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        ctx.err(format!("tool: {name}: no such tool in this sandbox\n"));
        return 1;
    };
    let mut text = format!("tool {}\n", tool.name);
    if !tool.description.is_empty() {
        text.push_str(&format!("{}\n", tool.description));
    }
    let schema: Option<Value> = serde_json::from_str(&tool.schema).ok();
    match schema.as_ref().and_then(|s| s.get("properties")).and_then(Value::as_object) {
        Some(props) => {
            let required: Vec<&str> = schema
                .as_ref()
                .and_then(|s| s.get("required"))
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            text.push_str("Arguments:\n");
            for (key, prop) in props {
                let ty =
                    prop.get("type").map_or_else(|| "any".to_string(), |t| t.to_string().replace('"', ""));
                let req = if required.contains(&key.as_str()) { " (required)" } else { "" };
                let doc = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!("  {d}"))
                    .unwrap_or_default();
                text.push_str(&format!("  --{key} <{ty}>{req}{doc}\n"));
            }
        }
        None => text.push_str("Arguments: any (no schema given)\n"),
    }
    let _ = ctx.out(text);
    0
}

/// A flag's value as JSON: numbers and booleans keep their type.
fn typed(value: &str) -> Value {
    match value {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    let numeric = value.chars().next().is_some_and(|c| c == '-' || c.is_ascii_digit());
    if numeric {
        if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(value) {
            return Value::Number(n);
        }
    }
    Value::String(value.to_string())
}

fn insert(object: &mut Map<String, Value>, key: &str, value: Value) -> Result<(), String> {
    let mut parts = key.split('.').peekable();
    let mut target = object;
    while let Some(part) = parts.next() {
        if part.is_empty() {
            return Err(format!("--{key}: empty key segment"));
        }
        if parts.peek().is_none() {
            if target.contains_key(part) {
                return Err(format!("--{key} given twice"));
            }
            target.insert(part.to_string(), value);
            return Ok(());
        }
        let slot = target.entry(part.to_string()).or_insert_with(|| Value::Object(Map::new()));
        target = match slot {
            Value::Object(map) => map,
            _ => return Err(format!("--{key}: {part} is already a value")),
        };
    }
    Ok(())
}

pub(crate) fn parse_arguments(args: &[String]) -> Result<Map<String, Value>, String> {
    let mut object = Map::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let Some(flag) = arg.strip_prefix("--") else {
            return Err(format!("unexpected argument '{arg}' (arguments are --KEY VALUE pairs)"));
        };
        let (key, inline) = match flag.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (flag, None),
        };
        if key == "json" {
            let text = match inline {
                Some(v) => v,
                None => {
                    let v = args.get(i).cloned().ok_or("--json needs a JSON object")?;
                    i += 1;
                    v
                }
            };
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => {
                    for (k, v) in map {
                        if object.contains_key(&k) {
                            return Err(format!("--{k} given twice"));
                        }
                        object.insert(k, v);
                    }
                }
                Ok(_) => return Err("--json needs a JSON object".into()),
                Err(e) => return Err(format!("--json: invalid JSON: {e}")),
            }
            continue;
        }
        if key.is_empty() {
            return Err("empty flag '--'".into());
        }
        let value = match inline {
            Some(v) => typed(&v),
            None => match args.get(i) {
                Some(next) if !next.starts_with("--") => {
                    i += 1;
                    typed(next)
                }
                _ => Value::Bool(true),
            },
        };
        insert(&mut object, key, value)?;
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::parse_arguments;

    fn parse(args: &[&str]) -> Result<String, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse_arguments(&args).map(|m| serde_json::Value::Object(m).to_string())
    }

    #[test]
    fn flags_become_typed_json() {
        assert_eq!(
            parse(&["--amount", "500", "--currency", "USD", "--live", "--zip", "02134", "--c.id=7"]),
            Ok(r#"{"amount":500,"c":{"id":7},"currency":"USD","live":true,"zip":"02134"}"#.into())
        );
        assert_eq!(parse(&["--json", r#"{"a":[1,2]}"#, "--b", "x"]), Ok(r#"{"a":[1,2],"b":"x"}"#.into()));
        assert_eq!(parse(&["--a", "1", "--a", "2"]), Err("--a given twice".into()));
        assert_eq!(
            parse(&["oops"]),
            Err("unexpected argument 'oops' (arguments are --KEY VALUE pairs)".into())
        );
        assert_eq!(parse(&["--json", "[1]"]), Err("--json needs a JSON object".into()));
        assert_eq!(parse(&["--n", "-1.5e3"]), Ok(r#"{"n":-1500.0}"#.into()));
    }
}
