//! Typed constraints on tool arguments, compiled once at `create()`.
//!
//! Every leaf names a parameter path (`amount`, `user.role`) and fails closed:
//! a missing parameter, or one of the wrong type, never satisfies it (only
//! `absent` is satisfied by a missing parameter). Numeric comparisons accept
//! finite JSON numbers only — never a boolean, a numeric string, null or an
//! array. `in` / `notIn` compare type and exact code points.
//!
//! A leaf whose check cannot be made (the value is missing, of the wrong type,
//! a path or URL that another layer could read differently, or a path that a
//! literal dotted key could also spell) is *unknown*, not false: `and`, `or`
//! and `not` follow three-valued logic, and only a constraint that *holds* lets
//! a call through, so `not(amount > 1000)` never admits `"5000"` or `[5000]`.

use std::fmt;

use regex::Regex;
use serde_json::{Map, Number, Value};

use crate::spec::ConfigError;

const MAX_PATH_DEPTH: usize = 16;
const MAX_NESTING: usize = 32;

/// A parameter path: object keys from the argument object down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParamPath(Vec<String>);

impl ParamPath {
    fn parse(raw: &str) -> Result<Self, ConfigError> {
        let keys: Vec<String> = raw.split('.').map(str::to_owned).collect();
        if raw.is_empty() || keys.iter().any(String::is_empty) || keys.len() > MAX_PATH_DEPTH {
            return Err(ConfigError::new(format!(
                "constraint param {raw:?} must be object keys joined by '.', at most {MAX_PATH_DEPTH} deep"
            )));
        }
        Ok(Self(keys))
    }

    fn lookup<'a>(&self, args: &'a Value) -> Option<&'a Value> {
        self.0.iter().try_fold(args, |value, key| value.as_object()?.get(key))
    }

    /// A key, on the way down, that spells more than one segment of the path
    /// (`"user.role"` beside `user: { role }`): a tool that reads dotted keys
    /// would see a value the constraint did not check.
    fn ambiguous_key(&self, args: &Value) -> Option<String> {
        let mut value = args;
        for (i, key) in self.0.iter().enumerate() {
            let obj = value.as_object()?;
            let mut joined = key.clone();
            for next in self.0.iter().skip(i + 1) {
                joined.push('.');
                joined.push_str(next);
                if obj.contains_key(&joined) {
                    return Some(joined);
                }
            }
            value = obj.get(key)?;
        }
        None
    }
}

impl fmt::Display for ParamPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("."))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    fn symbol(self) -> &'static str {
        match self {
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
            Self::Eq => "==",
            Self::Ne => "!=",
        }
    }

    fn holds(self, left: f64, right: f64) -> bool {
        match self {
            Self::Lt => left < right,
            Self::Le => left <= right,
            Self::Gt => left > right,
            Self::Ge => left >= right,
            Self::Eq => left == right,
            Self::Ne => left != right,
        }
    }
}

#[derive(Debug, Clone)]
enum Leaf {
    Cmp(CmpOp, Number),
    In(Vec<Value>),
    NotIn(Vec<Value>),
    StartsWith(String),
    EndsWith(String),
    Matches(Regex),
    PathWithin(String),
    UrlWithin(UrlBase),
    Exists,
    Absent,
}

/// A compiled constraint.
#[derive(Debug, Clone)]
pub enum Constraint {
    #[doc(hidden)]
    Leaf(ParamPathLeaf),
    And(Vec<Constraint>),
    Or(Vec<Constraint>),
    Not(Box<Constraint>),
}

/// A leaf constraint on one parameter (opaque).
#[derive(Debug, Clone)]
pub struct ParamPathLeaf {
    path: ParamPath,
    leaf: Leaf,
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

fn list(values: &[Value]) -> String {
    Value::Array(values.to_vec()).to_string()
}

/// Exact equality of scalars: same type, numbers by value, strings by code points.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// Characters that some layer could read as `.`, `/` or `\\` (compatibility
/// forms and look-alikes: fullwidth, small and halfwidth forms, leaders,
/// fraction and division slashes, ideographic full stops), or that hide in
/// text (format characters: zero-width, bidirectional controls, BOM).
fn is_look_alike(c: char) -> bool {
    matches!(
        c,
        '\u{2024}'..='\u{2026}' // one-dot, two-dot leader, ellipsis
            | '\u{2044}' // fraction slash
            | '\u{2215}' | '\u{2216}' // division slash, set minus
            | '\u{29F5}' | '\u{29F8}' | '\u{29F9}' // reverse solidus operator, big solidus, big reverse solidus
            | '\u{3002}' | '\u{FF61}' // ideographic and halfwidth ideographic full stop
            | '\u{FE52}' | '\u{FE68}' // small full stop, small reverse solidus
            | '\u{FF0E}' | '\u{FF0F}' | '\u{FF3C}' // fullwidth full stop, solidus, reverse solidus
            | '\u{2E2E}' | '\u{2E3C}' // reversed question mark, stenographic full stop
            | '\u{066B}'..='\u{066D}' // Arabic decimal and thousands separators, five-pointed star
            | '\u{06D4}' // Arabic full stop
            | '\u{0701}'..='\u{0702}' // Syriac supralinear, sublinear full stop
            | '\u{A4F8}'..='\u{A4FF}' // Lisu punctuation (ꓸ is a dot)
            | '\u{10101}' // Aegean word separator dot
            | '\u{00AD}' // soft hyphen
            | '\u{034F}' // combining grapheme joiner
            | '\u{061C}' // Arabic letter mark
            | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' // Hangul fillers
            | '\u{180E}' // Mongolian vowel separator
            | '\u{200B}'..='\u{200F}' // zero-width characters, direction marks
            | '\u{202A}'..='\u{202E}' // bidirectional embeddings and overrides
            | '\u{2060}'..='\u{206F}' // word joiner, invisible operators, isolates
            | '\u{FE00}'..='\u{FE0F}' // variation selectors
            | '\u{FEFF}' // byte order mark
            | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation
            | '\u{E0000}'..='\u{E007F}' // tags
    )
}

/// Whether `path` is an absolute path with nothing a later layer could
/// reinterpret: no `.`/`..` segments, no `//`, no backslash, no control
/// characters, no `%` (percent escapes mean something to URL layers), no
/// `;` (path parameters), no look-alikes of `.`, `/` or `\\`.
pub(crate) fn is_canonical_path(path: &str) -> bool {
    if !path.starts_with('/')
        || path.chars().any(|c| c == '\\' || c == '%' || c == ';' || c.is_control() || is_look_alike(c))
    {
        return false;
    }
    let body = path.strip_prefix('/').unwrap_or(path);
    let body = body.strip_suffix('/').unwrap_or(body);
    body.is_empty() || body.split('/').all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

fn within(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    root.is_empty() || path == root || path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
}

impl Leaf {
    fn describe(&self, path: &ParamPath) -> String {
        match self {
            Self::Cmp(op, n) => format!("{path} {} {n}", op.symbol()),
            Self::In(values) => format!("{path} in {}", list(values)),
            Self::NotIn(values) => format!("{path} not in {}", list(values)),
            Self::StartsWith(p) => format!("{path} startsWith {}", shown(&Value::String(p.clone()))),
            Self::EndsWith(s) => format!("{path} endsWith {}", shown(&Value::String(s.clone()))),
            Self::Matches(r) => format!("{path} matches /{}/", r.as_str()),
            Self::PathWithin(root) => format!("{path} pathWithin {}", shown(&Value::String(root.clone()))),
            Self::UrlWithin(base) => {
                format!("{path} urlWithin {}", shown(&Value::String(base.shown.clone())))
            }
            Self::Exists => format!("{path} exists"),
            Self::Absent => format!("{path} absent"),
        }
    }

    /// Whether `value` (the parameter, `None` when missing) satisfies it.
    fn check(&self, path: &ParamPath, value: Option<&Value>) -> Verdict {
        let Some(value) = value else {
            return match self {
                Self::Absent => Verdict::Holds,
                Self::Exists => {
                    Verdict::Fails(format!("{path} is missing (required by {})", self.describe(path)))
                }
                _ => Verdict::Unknown(format!("{path} is missing (required by {})", self.describe(path))),
            };
        };
        let got = || format!("got {} ({})", shown(value), kind(value));
        let holds = |ok: bool, why: String| if ok { Verdict::Holds } else { Verdict::Fails(why) };
        match self {
            Self::Absent => Verdict::Fails(format!("{path} must be absent, {}", got())),
            Self::Exists => Verdict::Holds,
            Self::Cmp(op, bound) => match (value.as_f64(), bound.as_f64()) {
                (Some(v), Some(b)) if value.is_number() && v.is_finite() => holds(
                    op.holds(v, b),
                    format!("{path} must be {} {bound}, got {}", op.symbol(), shown(value)),
                ),
                _ => Verdict::Unknown(format!("{path} must be a number {} {bound}, {}", op.symbol(), got())),
            },
            Self::In(values) => {
                if value.is_array() || value.is_object() {
                    Verdict::Unknown(format!("{path} must be one of {}, {}", list(values), got()))
                } else {
                    holds(
                        values.iter().any(|v| same(v, value)),
                        format!("{path} must be one of {}, {}", list(values), got()),
                    )
                }
            }
            Self::NotIn(values) => {
                if value.is_array() || value.is_object() {
                    Verdict::Unknown(format!("{path} must be a value not in {}, {}", list(values), got()))
                } else {
                    holds(
                        !values.iter().any(|v| same(v, value)),
                        format!("{path} must not be one of {}, got {}", list(values), shown(value)),
                    )
                }
            }
            Self::StartsWith(prefix) => {
                let Some(s) = value.as_str() else {
                    return Verdict::Unknown(format!(
                        "{path} must be a string starting with {prefix:?}, {}",
                        got()
                    ));
                };
                // A prefix that looks like a path is a path constraint: the
                // value must not be able to climb back out of it.
                if prefix.starts_with('/') && !is_canonical_path(s) {
                    return Verdict::Unknown(format!(
                        "{path} must be a normalised path starting with {prefix:?} ({PATH_RULES}), got {}",
                        shown(value)
                    ));
                }
                holds(
                    s.starts_with(prefix.as_str()),
                    format!("{path} must start with {prefix:?}, got {}", shown(value)),
                )
            }
            Self::EndsWith(suffix) => match value.as_str() {
                Some(s) => holds(
                    s.ends_with(suffix.as_str()),
                    format!("{path} must end with {suffix:?}, got {}", shown(value)),
                ),
                None => {
                    Verdict::Unknown(format!("{path} must be a string ending with {suffix:?}, {}", got()))
                }
            },
            Self::Matches(re) => match value.as_str() {
                Some(s) => holds(
                    re.is_match(s),
                    format!("{path} must match /{}/, got {}", re.as_str(), shown(value)),
                ),
                None => {
                    Verdict::Unknown(format!("{path} must be a string matching /{}/, {}", re.as_str(), got()))
                }
            },
            Self::PathWithin(root) => match value.as_str() {
                Some(s) if is_canonical_path(s) => holds(
                    within(s, root),
                    format!("{path} must be a path within {root:?}, got {}", shown(value)),
                ),
                Some(_) => Verdict::Unknown(format!(
                    "{path} must be a normalised path within {root:?} ({PATH_RULES}), got {}",
                    shown(value)
                )),
                None => Verdict::Unknown(format!("{path} must be a path string within {root:?}, {}", got())),
            },
            Self::UrlWithin(base) => match value.as_str().map(canonical_url) {
                Some(Some(url)) => holds(
                    base.admits(&url),
                    format!("{path} must be a URL within {}, got {}", base.shown, shown(value)),
                ),
                Some(None) => Verdict::Unknown(format!(
                    "{path} must be an absolute URL within {} in its normal form ({URL_RULES}), got {}",
                    base.shown,
                    shown(value)
                )),
                None => {
                    Verdict::Unknown(format!("{path} must be a URL string within {}, {}", base.shown, got()))
                }
            },
        }
    }
}

/// What a path constraint refuses, for its messages.
const PATH_RULES: &str =
    "no '.', '..', '//', '\\', '%', ';', control characters or look-alikes of '.' and '/'";

/// What a URL constraint refuses, for its messages.
const URL_RULES: &str =
    "no user name or password, no default port, no '.' or '..' segments, no backslashes or percent-encoded separators";

/// The outcome of a constraint on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Holds,
    /// The check was made and is false; why.
    Fails(String),
    /// The check could not be made (missing, wrong type, ambiguous); why.
    /// Neither it nor its negation lets a call through.
    Unknown(String),
}

/// A URL as `urlWithin` compares it: scheme, host, port, path.
#[derive(Debug, Clone)]
pub(crate) struct UrlBase {
    scheme: String,
    host: String,
    port: Option<u16>,
    /// The path prefix, ending in `/`.
    path: String,
    /// The base as given, for messages.
    shown: String,
}

impl UrlBase {
    fn parse(raw: &str) -> Result<Self, ConfigError> {
        let bad = |why: &str| {
            config(format!("constraint \"urlWithin\" needs an absolute http(s) URL {why}, got {raw:?}"))
        };
        let url = url::Url::parse(raw).map_err(|_| bad("that parses"))?;
        if url.cannot_be_a_base() || url.host_str().is_none() {
            return Err(bad("with a host"));
        }
        if !url.username().is_empty()
            || url.password().is_some()
            || url.query().is_some()
            || url.fragment().is_some()
        {
            return Err(bad("without user name, password, query or fragment"));
        }
        let mut path = url.path().to_owned();
        if !path.ends_with('/') {
            path.push('/');
        }
        Ok(Self {
            scheme: url.scheme().to_owned(),
            host: url.host_str().unwrap_or_default().to_owned(),
            port: url.port(),
            path,
            shown: raw.to_owned(),
        })
    }

    fn admits(&self, url: &url::Url) -> bool {
        let path = url.path();
        url.scheme() == self.scheme
            && url.host_str() == Some(self.host.as_str())
            && url.port() == self.port
            && (path.starts_with(&self.path) || format!("{path}/") == self.path)
    }
}

/// `raw` parsed by the WHATWG URL rules, when it is already in the form
/// those rules write it in (so no other parser can read it differently),
/// has a host, no credentials, and no encoded separators or dot segments.
fn canonical_url(raw: &str) -> Option<url::Url> {
    let url = url::Url::parse(raw).ok()?;
    let serialised = url.as_str();
    // `https://a.example` is written `https://a.example/`.
    let same = serialised == raw || (url.path() == "/" && serialised.strip_suffix('/') == Some(raw));
    if !same || url.cannot_be_a_base() || url.host_str().is_none() {
        return None;
    }
    if !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    let lower = url.path().to_ascii_lowercase();
    if ["%2e", "%2f", "%5c", "%00", "%25"].iter().any(|enc| lower.contains(enc)) {
        return None;
    }
    Some(url)
}

fn config(message: impl Into<String>) -> ConfigError {
    ConfigError::new(message)
}

fn number(value: &Value, op: &str) -> Result<Number, ConfigError> {
    match value {
        Value::Number(n) if n.as_f64().is_some_and(f64::is_finite) => Ok(n.clone()),
        other => Err(config(format!("constraint {op:?} needs a finite number, got {}", shown(other)))),
    }
}

fn scalars(value: &Value, op: &str) -> Result<Vec<Value>, ConfigError> {
    let Value::Array(items) = value else {
        return Err(config(format!("constraint {op:?} needs an array of values, got {}", shown(value))));
    };
    if items.is_empty() {
        return Err(config(format!("constraint {op:?} needs at least one value")));
    }
    for item in items {
        if item.is_array() || item.is_object() {
            return Err(config(format!(
                "constraint {op:?} values must be strings, numbers, booleans or null, got {}",
                shown(item)
            )));
        }
    }
    Ok(items.clone())
}

fn string(value: &Value, op: &str) -> Result<String, ConfigError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| config(format!("constraint {op:?} needs a string, got {}", shown(value))))
}

fn regex(pattern: &str) -> Result<Regex, ConfigError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| config(format!("constraint \"matches\" has an invalid regex {pattern:?}: {e}")))
}

fn path_root(root: &str) -> Result<String, ConfigError> {
    if !is_canonical_path(root) {
        return Err(config(format!(
            "constraint \"pathWithin\" needs a normalised absolute path, got {root:?}"
        )));
    }
    Ok(root.to_owned())
}

fn leaf(op: &str, value: Option<&Value>) -> Result<Leaf, ConfigError> {
    let need = || value.ok_or_else(|| config(format!("constraint {op:?} needs a \"value\"")));
    let leaf = match op {
        "<" => Leaf::Cmp(CmpOp::Lt, number(need()?, op)?),
        "<=" => Leaf::Cmp(CmpOp::Le, number(need()?, op)?),
        ">" => Leaf::Cmp(CmpOp::Gt, number(need()?, op)?),
        ">=" => Leaf::Cmp(CmpOp::Ge, number(need()?, op)?),
        "==" => Leaf::Cmp(CmpOp::Eq, number(need()?, op)?),
        "!=" => Leaf::Cmp(CmpOp::Ne, number(need()?, op)?),
        "in" => Leaf::In(scalars(need()?, op)?),
        "notIn" | "not_in" => Leaf::NotIn(scalars(need()?, op)?),
        "startsWith" | "starts_with" => Leaf::StartsWith(string(need()?, op)?),
        "endsWith" | "ends_with" => Leaf::EndsWith(string(need()?, op)?),
        "matches" => Leaf::Matches(regex(&string(need()?, op)?)?),
        "pathWithin" | "path_within" => Leaf::PathWithin(path_root(&string(need()?, op)?)?),
        "urlWithin" | "url_within" => Leaf::UrlWithin(UrlBase::parse(&string(need()?, op)?)?),
        "exists" | "absent" => {
            if value.is_some() {
                return Err(config(format!("constraint {op:?} takes no \"value\"")));
            }
            if op == "exists" {
                Leaf::Exists
            } else {
                Leaf::Absent
            }
        }
        other => {
            return Err(config(format!(
                "unknown constraint operator {other:?}; expected one of <, <=, >, >=, ==, !=, in, notIn, \
                 startsWith, endsWith, matches, pathWithin, urlWithin, exists, absent"
            )))
        }
    };
    Ok(leaf)
}

fn expect_keys(obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), ConfigError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => {
            Err(config(format!("unknown key {key:?} in constraint; expected {}", allowed.join(", "))))
        }
        None => Ok(()),
    }
}

impl Constraint {
    /// Compiles the long form: `{param, op, value}`, `{and: [...]}`,
    /// `{or: [...]}`, `{not: {...}}`, or an array (all must hold).
    pub fn from_json(value: &Value) -> Result<Self, ConfigError> {
        Self::from_json_at(value, 0)
    }

    fn from_json_at(value: &Value, depth: usize) -> Result<Self, ConfigError> {
        if depth > MAX_NESTING {
            return Err(config(format!("constraints are nested deeper than {MAX_NESTING} levels")));
        }
        let many = |items: &Value, op: &str| -> Result<Vec<Self>, ConfigError> {
            let Value::Array(items) = items else {
                return Err(config(format!("{op:?} needs an array of constraints")));
            };
            if items.is_empty() {
                return Err(config(format!("{op:?} needs at least one constraint")));
            }
            items.iter().map(|c| Self::from_json_at(c, depth + 1)).collect()
        };
        match value {
            Value::Array(_) => Ok(Self::And(many(value, "and")?)),
            Value::Object(obj) => {
                if let Some(items) = obj.get("and") {
                    expect_keys(obj, &["and"])?;
                    Ok(Self::And(many(items, "and")?))
                } else if let Some(items) = obj.get("or") {
                    expect_keys(obj, &["or"])?;
                    Ok(Self::Or(many(items, "or")?))
                } else if let Some(inner) = obj.get("not") {
                    expect_keys(obj, &["not"])?;
                    Ok(Self::Not(Box::new(Self::from_json_at(inner, depth + 1)?)))
                } else {
                    expect_keys(obj, &["param", "op", "value"])?;
                    let param = obj
                        .get("param")
                        .and_then(Value::as_str)
                        .ok_or_else(|| config("a constraint needs \"param\" (a string), or and/or/not"))?;
                    let op = obj.get("op").and_then(Value::as_str).ok_or_else(|| {
                        config(format!("the constraint on {param:?} needs \"op\" (a string)"))
                    })?;
                    Ok(Self::Leaf(ParamPathLeaf {
                        path: ParamPath::parse(param)?,
                        leaf: leaf(op, obj.get("value"))?,
                    }))
                }
            }
            other => Err(config(format!("a constraint must be an object or an array, got {}", shown(other)))),
        }
    }

    /// Compiles amla-sandbox's short form for one parameter: `"<=1000"`,
    /// `">0"`, `"==5"`, `"!=5"`, `"startswith:/api/"`, `"endswith:.json"`,
    /// `"matches:^[a-z]+$"`, `"pathwithin:/data"`,
    /// `"urlwithin:https://api.example.com/v1"`, `"exists"`, `"absent"`, an
    /// array (one of), or a number (equal). Anything else is an error.
    pub fn from_short(param: &str, spec: &Value) -> Result<Self, ConfigError> {
        let path = ParamPath::parse(param)?;
        let leaf = match spec {
            Value::Array(_) => leaf("in", Some(spec))?,
            Value::Number(_) => leaf("==", Some(spec))?,
            Value::String(text) => short_text(param, text.trim())?,
            other => {
                return Err(config(format!(
                    "constraint for {param:?} must be a string like \"<=1000\", an array or a number, got {}",
                    shown(other)
                )))
            }
        };
        Ok(Self::Leaf(ParamPathLeaf { path, leaf }))
    }

    /// Checks `args` (the argument object); the error says which constraint
    /// failed, or could not be checked, and with which value.
    pub fn check(&self, args: &Value) -> Result<(), String> {
        match self.verdict(args) {
            Verdict::Holds => Ok(()),
            Verdict::Fails(why) | Verdict::Unknown(why) => Err(why),
        }
    }

    /// Three-valued: an unknown leaf stays unknown under `not`, and makes an
    /// `and` or `or` unknown unless the others decide it.
    fn verdict(&self, args: &Value) -> Verdict {
        match self {
            Self::Leaf(l) => match l.path.ambiguous_key(args) {
                Some(key) => Verdict::Unknown(format!(
                    "{} cannot be checked: the arguments also have a key {} that spells it",
                    l.path,
                    shown(&Value::String(key))
                )),
                None => l.leaf.check(&l.path, l.path.lookup(args)),
            },
            Self::And(all) => {
                let mut unknown = None;
                for c in all {
                    match c.verdict(args) {
                        Verdict::Holds => {}
                        Verdict::Fails(why) => return Verdict::Fails(why),
                        Verdict::Unknown(why) => {
                            unknown.get_or_insert(why);
                        }
                    }
                }
                unknown.map_or(Verdict::Holds, Verdict::Unknown)
            }
            Self::Or(any) => {
                let mut reasons = Vec::new();
                let mut unknown = false;
                for c in any {
                    match c.verdict(args) {
                        Verdict::Holds => return Verdict::Holds,
                        Verdict::Fails(why) => reasons.push(why),
                        Verdict::Unknown(why) => {
                            unknown = true;
                            reasons.push(why);
                        }
                    }
                }
                let why = reasons.join(" or ");
                if unknown {
                    Verdict::Unknown(why)
                } else {
                    Verdict::Fails(why)
                }
            }
            Self::Not(inner) => match inner.verdict(args) {
                Verdict::Holds => Verdict::Fails(format!("must not satisfy ({})", inner.describe())),
                Verdict::Fails(_) => Verdict::Holds,
                Verdict::Unknown(why) => Verdict::Unknown(why),
            },
        }
    }

    /// A readable form (`amount <= 10000 and currency in ["USD"]`).
    pub fn describe(&self) -> String {
        match self {
            Self::Leaf(l) => l.leaf.describe(&l.path),
            Self::And(all) => all.iter().map(Self::describe_nested).collect::<Vec<_>>().join(" and "),
            Self::Or(any) => any.iter().map(Self::describe_nested).collect::<Vec<_>>().join(" or "),
            Self::Not(inner) => format!("not {}", inner.describe_nested()),
        }
    }

    fn describe_nested(&self) -> String {
        match self {
            Self::Leaf(_) => self.describe(),
            _ => format!("({})", self.describe()),
        }
    }
}

fn short_text(param: &str, text: &str) -> Result<Leaf, ConfigError> {
    for op in ["<=", ">=", "==", "!=", "<", ">"] {
        if let Some(rest) = text.strip_prefix(op) {
            let n: f64 = rest.trim().parse().map_err(|_| {
                config(format!("constraint {text:?} for {param:?}: {:?} is not a number", rest.trim()))
            })?;
            let n = Number::from_f64(n)
                .ok_or_else(|| config(format!("constraint {text:?} for {param:?} needs a finite number")))?;
            let n = match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Number::from(f as i64),
                _ => n,
            };
            return leaf(op, Some(&Value::Number(n)));
        }
    }
    if text.eq_ignore_ascii_case("exists") || text.eq_ignore_ascii_case("absent") {
        return leaf(&text.to_ascii_lowercase(), None);
    }
    if let Some((name, arg)) = text.split_once(':') {
        let op = match name.trim().to_ascii_lowercase().as_str() {
            "startswith" | "starts_with" => "startsWith",
            "endswith" | "ends_with" => "endsWith",
            "matches" | "regex" => "matches",
            "pathwithin" | "path_within" => "pathWithin",
            "urlwithin" | "url_within" => "urlWithin",
            _ => "",
        };
        if !op.is_empty() {
            return leaf(op, Some(&Value::String(arg.to_owned())));
        }
    }
    Err(config(format!(
        "unknown constraint {text:?} for {param:?}; use <, <=, >, >=, ==, != with a number, \
         startswith:, endswith:, matches:, pathwithin:, urlwithin:, exists, absent, or an array of allowed values"
    )))
}
