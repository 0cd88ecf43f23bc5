//! Method patterns of capabilities: literal segments, `*` (exactly one
//! non-empty segment) and `**` (zero or more segments).

use crate::name::{quote, split, ToolName, MAX_NAME_LEN};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    One,
    Any,
}

/// A compiled method pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodPattern {
    source: String,
    segments: Vec<Segment>,
}

impl MethodPattern {
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.is_empty() || raw.len() > MAX_NAME_LEN {
            return Err(format!("method pattern {} must be 1 to {MAX_NAME_LEN} bytes", quote(raw)));
        }
        let mut segments = Vec::new();
        for segment in split(raw) {
            segments.push(match segment {
                "*" => Segment::One,
                "**" => Segment::Any,
                literal => {
                    // A literal segment follows the rules of a tool name.
                    ToolName::parse(literal).map_err(|_| {
                        format!(
                            "method pattern {} has an invalid segment {}; use names, '*' or '**' joined by '.'",
                            quote(raw),
                            quote(literal)
                        )
                    })?;
                    if literal.contains(['.', '/']) {
                        return Err(format!("method pattern {} is malformed", quote(raw)));
                    }
                    Segment::Literal(literal.to_string())
                }
            });
        }
        let source = segments
            .iter()
            .map(|s| match s {
                Segment::Literal(l) => l.as_str(),
                Segment::One => "*",
                Segment::Any => "**",
            })
            .collect::<Vec<_>>()
            .join(".");
        Ok(Self { source, segments })
    }

    /// The pattern in canonical form (`stripe.charges.*`).
    pub fn as_str(&self) -> &str {
        &self.source
    }

    pub fn matches(&self, name: &ToolName) -> bool {
        let parts: Vec<&str> = name.segments().collect();
        matches_from(&self.segments, &parts)
    }
}

fn matches_from(pattern: &[Segment], name: &[&str]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((Segment::Any, rest)) => {
            (0..=name.len()).any(|skip| name.get(skip..).is_some_and(|n| matches_from(rest, n)))
        }
        Some((Segment::One, rest)) => name.split_first().is_some_and(|(_, n)| matches_from(rest, n)),
        Some((Segment::Literal(lit), rest)) => {
            name.split_first().is_some_and(|(first, n)| first == lit && matches_from(rest, n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, name: &str) -> bool {
        MethodPattern::parse(pattern).unwrap().matches(&ToolName::parse(name).unwrap())
    }

    #[test]
    fn exact_star_and_double_star() {
        assert!(m("stripe.charges.create", "stripe/charges/create"));
        assert!(!m("stripe.charges.create", "stripe.charges.create.confirm"));
        assert!(m("stripe/charges/*", "stripe.charges.refund"));
        assert!(!m("stripe.charges.*", "stripe.charges"));
        assert!(!m("stripe.charges.*", "stripe.charges.create.confirm"));
        assert!(m("stripe.**", "stripe"));
        assert!(m("stripe.**", "stripe.charges.create.confirm"));
        assert!(!m("stripe.**", "stripes.x"));
        assert!(m("**", "anything.at.all"));
        assert!(m("a.**.z", "a.z"));
        assert!(m("a.**.z", "a.b.c.z"));
        assert!(!m("a.**.z", "a.b.c"));
    }

    #[test]
    fn malformed_patterns_are_errors() {
        for bad in ["", "a..b", "a.*x", "a.***", "a.\u{2215}", "a b", "stripe.charges.*."] {
            assert!(MethodPattern::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(MethodPattern::parse("stripe/charges/*").unwrap().as_str(), "stripe.charges.*");
    }
}
