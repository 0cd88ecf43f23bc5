//! Strict parsing of tool arguments from the guest's bytes: one JSON value,
//! no duplicate keys, no non-finite numbers (`1e400`), no trailing data, no
//! byte-order mark, bounded depth and size.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Bounds of the argument parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgLimits {
    /// Largest argument text, in bytes. Default 1 MiB.
    pub max_bytes: usize,
    /// Deepest nesting of arrays and objects. Default 64.
    pub max_depth: usize,
}

impl Default for ArgLimits {
    fn default() -> Self {
        Self { max_bytes: 1024 * 1024, max_depth: 64 }
    }
}

/// Parses one JSON value strictly. The error completes a sentence such as
/// "the arguments are …" (`not valid JSON: duplicate key "a" at line 1 column 9`).
pub fn parse_arguments(bytes: &[u8], limits: ArgLimits) -> Result<Value, String> {
    if bytes.len() > limits.max_bytes {
        return Err(format!("{} bytes, over the limit of {}", bytes.len(), limits.max_bytes));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = Strict { depth: 0, max_depth: limits.max_depth }
        .deserialize(&mut de)
        .map_err(|e| format!("not valid JSON: {e}"))?;
    de.end().map_err(|e| format!("not valid JSON: {e}"))?;
    Ok(value)
}

#[derive(Clone, Copy)]
struct Strict {
    depth: usize,
    max_depth: usize,
}

impl Strict {
    fn nested<E: de::Error>(self) -> Result<Self, E> {
        if self.depth >= self.max_depth {
            return Err(E::custom(format!("nested deeper than {} levels", self.max_depth)));
        }
        Ok(Self { depth: self.depth + 1, ..self })
    }
}

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("numbers must be finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            // JavaScript code that copies objects with assignment reads this
            // key as the prototype, not as data.
            if key == "__proto__" {
                return Err(de::Error::custom("a key \"__proto__\" (JavaScript reads it as the prototype)"));
            }
            let value = map.next_value_seed(inner)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Value, String> {
        parse_arguments(text.as_bytes(), ArgLimits::default())
    }

    #[test]
    fn parses_plain_json() {
        assert_eq!(
            parse(r#"{"a":[1,2.5,"x",null,true]}"#).unwrap(),
            serde_json::json!({"a":[1,2.5,"x",null,true]})
        );
    }

    #[test]
    fn rejects_what_a_lenient_parser_would_accept() {
        for bad in [
            r#"{"amount":99999,"currency":"USD","amount":1}"#,
            r#"{"a":{"b":1,"b":2}}"#,
            r#"{"amount":1e400}"#,
            r#"{"amount":-1e400}"#,
            r#"{"amount":1} {"amount":2}"#,
            "\u{feff}{}",
            r#"{"a":NaN}"#,
            r#"{"a":1,}"#,
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert_eq!(parse(r#"{"a":1}"#).unwrap()["a"], 1);
    }

    #[test]
    fn depth_and_size_are_bounded() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = parse(&deep).unwrap_err();
        assert!(err.contains("nested deeper than 64 levels"), "{err}");
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse(&ok).is_ok());
        let big = ArgLimits { max_bytes: 4, ..ArgLimits::default() };
        assert!(parse_arguments(b"[1,2]", big).is_err());
    }
}
