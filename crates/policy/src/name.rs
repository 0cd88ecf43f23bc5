//! Tool names: segments of `[A-Za-z0-9_-]` joined by `.` (or `/`, the same
//! separator), at most [`MAX_NAME_LEN`] bytes.

use std::fmt;

/// Longest tool name accepted, in bytes.
pub const MAX_NAME_LEN: usize = 128;

/// A well-formed tool name in its canonical form (segments joined by `.`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolName(String);

fn is_segment_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Splits a name or pattern on `.` and `/`.
pub(crate) fn split(raw: &str) -> impl Iterator<Item = &str> {
    raw.split(['.', '/'])
}

pub(crate) fn quote(raw: &str) -> String {
    let shown: String = raw.chars().take(80).collect();
    let mut text = serde_json::to_string(&shown).unwrap_or_default();
    if raw.chars().count() > 80 {
        text.push('…');
    }
    text
}

impl ToolName {
    /// The canonical form, as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Parses a name; the error says what is wrong with it.
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.is_empty() {
            return Err("a tool name cannot be empty".into());
        }
        if raw.len() > MAX_NAME_LEN {
            return Err(format!("tool name {} is longer than {MAX_NAME_LEN} bytes", quote(raw)));
        }
        let mut canonical = String::with_capacity(raw.len());
        for (i, segment) in split(raw).enumerate() {
            if segment.is_empty() {
                return Err(format!("tool name {} has an empty segment", quote(raw)));
            }
            if let Some(bad) = segment.chars().find(|c| !is_segment_char(*c)) {
                return Err(format!(
                    "tool name {} contains {:?}; names are segments of A-Z a-z 0-9 _ - joined by '.' or '/'",
                    quote(raw),
                    bad
                ));
            }
            if i > 0 {
                canonical.push('.');
            }
            canonical.push_str(segment);
        }
        Ok(Self(canonical))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('.')
    }
}

/// Names order and compare as their canonical text, so a map of names can
/// be searched with a `&str`.
impl std::borrow::Borrow<str> for ToolName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_dotted_and_slashed_names_as_one() {
        assert_eq!(ToolName::parse("stripe/charges/create").unwrap().as_str(), "stripe.charges.create");
        assert_eq!(ToolName::parse("get_weather").unwrap().as_str(), "get_weather");
        assert_eq!(ToolName::parse("a-b.c_d/E9").unwrap().as_str(), "a-b.c_d.E9");
    }

    #[test]
    fn rejects_malformed_names() {
        for bad in [
            "",
            ".",
            "a..b",
            "a//b",
            "a.",
            "/a",
            "a\0b",
            "a\nb",
            "a b",
            "stripe\u{2215}charges",
            "stripe\u{ff0f}charges",
            "stripe\u{2044}x",
            "caf\u{e9}",
            "a*",
        ] {
            assert!(ToolName::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(ToolName::parse(&"a".repeat(128)).is_ok());
        assert!(ToolName::parse(&"a".repeat(129)).is_err());
    }
}
