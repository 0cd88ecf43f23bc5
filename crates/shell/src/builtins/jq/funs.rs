//! The filters jq 1.6 has that jaq lacks or spells differently, as native
//! filters over [`Env`] and as jq definitions layered over jaq's standard
//! library. Natives listed here come first, so they win over jaq's natives
//! of the same name; jaq definitions that would shadow them are dropped.

use std::cell::RefCell;

use jaq_core::box_iter::box_once;
use jaq_core::data::HasLut;
use jaq_core::load::parse::Def;
use jaq_core::native::{v, Filter, Fun};
use jaq_core::{DataT, Error, Exn, Lut, RunPtr, ValXs};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs};

use super::json::{self, str_bytes};
use super::reader::Reader;
use super::val::{self, V};

/// The data kind of cordon's jq.
pub struct Jq;

impl DataT for Jq {
    type V<'a> = V;
    type Data<'a> = &'a Env<'a>;
}

/// What natives can see while a filter runs.
pub struct Env<'a> {
    pub lut: &'a Lut<Jq>,
    pub inputs: Inputs<'a, V>,
    pub reader: &'a RefCell<Reader<'a>>,
    /// Messages from `debug`, `stderr` and `halt_error`, flushed by the caller.
    pub stderr: RefCell<Vec<u8>>,
    pub env: Val,
    pub now: f64,
}

impl<'a> HasLut<'a, Jq> for &'a Env<'a> {
    fn lut(&self) -> &'a Lut<Jq> {
        self.lut
    }
}

impl<'a> HasInputs<'a, V> for &'a Env<'a> {
    fn inputs(&self) -> Inputs<'a, V> {
        self.inputs
    }
}

/// jq's name for a value's type.
pub fn kind(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// A value as jq shows it in error messages: compact, cut to 11 bytes and
/// `...` when longer than 14.
pub fn trunc(v: &Val) -> String {
    trunc_bytes(&json::to_json(v))
}

pub fn trunc_bytes(s: &[u8]) -> String {
    if s.len() > 14 {
        let mut t = String::from_utf8_lossy(&s[..11]).into_owned();
        t.push_str("...");
        t
    } else {
        String::from_utf8_lossy(s).into_owned()
    }
}

/// `KIND (VALUE) MESSAGE`, jq's type error.
pub fn type_error(v: &Val, msg: &str) -> String {
    format!("{} ({}) {msg}", kind(v), trunc(v))
}

fn err<'a>(msg: impl Into<String>) -> ValXs<'a, V> {
    box_once(Err(Exn::from(val::fail(msg))))
}

fn ok<'a>(v: Val) -> ValXs<'a, V> {
    box_once(Ok(V(v)))
}

fn one<'a>(r: Result<Val, String>) -> ValXs<'a, V> {
    match r {
        Ok(v) => ok(v),
        Err(e) => err(e),
    }
}

fn res<'a>(r: Result<Val, Error<V>>) -> ValXs<'a, V> {
    box_once(r.map(V).map_err(Exn::from))
}

fn string(b: Vec<u8>) -> Val {
    match String::from_utf8(b) {
        Ok(s) => Val::from(s),
        Err(e) => Val::from(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// `tostring`: strings as they are, anything else as JSON text.
pub fn tostring(v: &Val) -> Vec<u8> {
    match str_bytes(v) {
        Some(s) => s.to_vec(),
        None => json::to_json(v),
    }
}

fn csv(v: &Val) -> Result<Val, String> {
    let Val::Arr(a) = v else { return Err(type_error(v, "cannot be csv-formatted, only array")) };
    let mut out = Vec::new();
    for (i, x) in a.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match x {
            Val::Null => {}
            Val::Bool(_) | Val::Num(_) => json::write_val(&mut out, x, &json::Style::COMPACT, 0),
            Val::TStr(s) | Val::BStr(s) => {
                out.push(b'"');
                for &b in s.iter() {
                    if b == b'"' {
                        out.push(b'"');
                    }
                    out.push(b);
                }
                out.push(b'"');
            }
            _ => return Err(type_error(x, "is not valid in a csv row")),
        }
    }
    Ok(string(out))
}

fn tsv(v: &Val) -> Result<Val, String> {
    let Val::Arr(a) = v else { return Err(type_error(v, "cannot be tsv-formatted, only array")) };
    let mut out = Vec::new();
    for (i, x) in a.iter().enumerate() {
        if i > 0 {
            out.push(b'\t');
        }
        match x {
            Val::Null => {}
            Val::Bool(_) | Val::Num(_) => json::write_val(&mut out, x, &json::Style::COMPACT, 0),
            Val::TStr(s) | Val::BStr(s) => {
                for &b in s.iter() {
                    match b {
                        b'\\' => out.extend_from_slice(b"\\\\"),
                        b'\t' => out.extend_from_slice(b"\\t"),
                        b'\n' => out.extend_from_slice(b"\\n"),
                        b'\r' => out.extend_from_slice(b"\\r"),
                        _ => out.push(b),
                    }
                }
            }
            _ => return Err(type_error(x, "is not valid in a tsv row")),
        }
    }
    Ok(string(out))
}

fn sh(v: &Val) -> Result<Val, String> {
    let items: Vec<&Val> = match v {
        Val::Arr(a) => a.iter().collect(),
        other => vec![other],
    };
    let mut out = Vec::new();
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        match x {
            Val::Arr(_) | Val::Obj(_) => return Err(type_error(x, "can not be escaped for shell")),
            Val::TStr(s) | Val::BStr(s) => {
                out.push(b'\'');
                for &b in s.iter() {
                    if b == b'\'' {
                        out.extend_from_slice(b"'\\''");
                    } else {
                        out.push(b);
                    }
                }
                out.push(b'\'');
            }
            _ => json::write_val(&mut out, x, &json::Style::COMPACT, 0),
        }
    }
    Ok(string(out))
}

fn html(v: &Val) -> Val {
    let mut out = Vec::new();
    for b in tostring(v) {
        match b {
            b'<' => out.extend_from_slice(b"&lt;"),
            b'>' => out.extend_from_slice(b"&gt;"),
            b'&' => out.extend_from_slice(b"&amp;"),
            b'\'' => out.extend_from_slice(b"&apos;"),
            b'"' => out.extend_from_slice(b"&quot;"),
            _ => out.push(b),
        }
    }
    string(out)
}

fn uri(v: &Val) -> Val {
    let mut out = Vec::new();
    for b in tostring(v) {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    string(out)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn base64_encode(data: &[u8], out: &mut Vec<u8>) {
    for chunk in data.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * k)) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
}

fn b64_value(c: u8) -> Option<u32> {
    B64.iter().position(|&x| x == c).map(|p| p as u32)
}

fn base64d(v: &Val) -> Result<Val, String> {
    let input = tostring(v);
    let mut out = Vec::new();
    let (mut acc, mut bits, mut n) = (0u32, 0, 0);
    for &c in &input {
        if c == b'=' {
            break;
        }
        let Some(d) = b64_value(c) else { return Err(type_error(v, "is not valid base64 data")) };
        acc = (acc << 6) | d;
        bits += 6;
        n += 1;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if n % 4 == 1 {
        return Err(type_error(v, "trailing base64 byte found"));
    }
    Ok(string(out))
}

fn base32(v: &Val) -> Val {
    const A: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let data = tostring(v);
    let mut out = Vec::new();
    for chunk in data.chunks(5) {
        let mut b = [0u8; 5];
        b[..chunk.len()].copy_from_slice(chunk);
        let n = b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x));
        let chars = (chunk.len() * 8).div_ceil(5);
        for k in 0..8 {
            if k < chars {
                out.push(A[((n >> (35 - 5 * k)) & 31) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
    string(out)
}

/// Parses text as one JSON value, with jq's messages.
pub fn parse_one(text: &[u8]) -> Result<Val, String> {
    let mut p = json::Parser::new(text);
    let first = match p.next_value() {
        None => return Ok(Val::Null),
        Some(Err(e)) => return Err(json::describe(text, &e)),
        Some(Ok((v, _))) => v,
    };
    match p.next_value() {
        None => Ok(first),
        Some(Err(e)) => Err(json::describe(text, &e)),
        Some(Ok(_)) => Err("Unexpected extra JSON values".into()),
    }
}

fn fromjson(v: &Val) -> Result<Val, String> {
    let Some(s) = str_bytes(v) else { return Err(type_error(v, "only strings can be parsed")) };
    parse_one(s).map_err(|e| format!("{e} (while parsing '{}')", String::from_utf8_lossy(s)))
}

fn tonumber(v: &Val) -> Result<Val, String> {
    match v {
        Val::Num(_) => Ok(v.clone()),
        Val::TStr(_) | Val::BStr(_) => match fromjson(v)? {
            n @ Val::Num(_) => Ok(n),
            _ => Err(type_error(v, "cannot be parsed as a number")),
        },
        _ => Err(type_error(v, "cannot be parsed as a number")),
    }
}

fn trim_fix(v: Val, fix: &Val, prefix: bool) -> Val {
    let (Some(s), Some(f)) = (str_bytes(&v), str_bytes(fix)) else { return v };
    let rest = if prefix { s.strip_prefix(f) } else { s.strip_suffix(f) };
    match rest {
        Some(r) => string(r.to_vec()),
        None => v,
    }
}

/// The natives that replace or add to jaq's.
pub fn natives() -> impl Iterator<Item = Fun<Jq>> {
    let list: Box<[Filter<RunPtr<Jq>>]> = Box::new([
        ("tostring", v(0), |cv| ok(string(tostring(&cv.1 .0)))),
        ("tojson", v(0), |cv| ok(string(json::to_json(&cv.1 .0)))),
        ("fromjson", v(0), |cv| one(fromjson(&cv.1 .0))),
        ("tonumber", v(0), |cv| one(tonumber(&cv.1 .0))),
        ("@csv", v(0), |cv| one(csv(&cv.1 .0))),
        ("@tsv", v(0), |cv| one(tsv(&cv.1 .0))),
        ("@sh", v(0), |cv| one(sh(&cv.1 .0))),
        ("@html", v(0), |cv| ok(html(&cv.1 .0))),
        ("@uri", v(0), |cv| ok(uri(&cv.1 .0))),
        ("@base64", v(0), |cv| {
            let mut out = Vec::new();
            base64_encode(&tostring(&cv.1 .0), &mut out);
            ok(string(out))
        }),
        ("@base64d", v(0), |cv| one(base64d(&cv.1 .0))),
        ("@base32", v(0), |cv| ok(base32(&cv.1 .0))),
        ("ltrimstr", v(1), |mut cv| {
            let fix = cv.0.pop_var();
            ok(trim_fix(cv.1 .0, &fix.0, true))
        }),
        ("rtrimstr", v(1), |mut cv| {
            let fix = cv.0.pop_var();
            ok(trim_fix(cv.1 .0, &fix.0, false))
        }),
        ("env", v(0), |cv| ok(cv.0.data().env.clone())),
        // jq 1.6: `error(null)` backtracks like `empty`
        ("error_empty", v(0), |cv| match cv.1 .0 {
            Val::Null => Box::new(std::iter::empty()),
            _ => box_once(Err(Exn::from(Error::new(cv.1)))),
        }),
        ("nan", v(0), |_| ok(Val::from(f64::NAN))),
        ("infinite", v(0), |_| ok(Val::from(f64::INFINITY))),
        ("length", v(0), |cv| res(val::length(&cv.1 .0))),
        ("contains", v(1), |mut cv| {
            let b = cv.0.pop_var();
            res(val::contains(&cv.1 .0, &b.0).map(Val::Bool))
        }),
        ("has", v(1), |mut cv| {
            let k = cv.0.pop_var();
            res(val::has(&cv.1 .0, &k.0).map(Val::Bool))
        }),
        ("indices", v(1), |mut cv| {
            let x = cv.0.pop_var();
            res(val::indices(&cv.1 .0, &x.0))
        }),
        ("delpaths", v(1), |mut cv| {
            let ps = cv.0.pop_var();
            res(val::delpaths(cv.1 .0, &ps.0))
        }),
        ("bsearch", v(1), |mut cv| {
            let x = cv.0.pop_var();
            res(val::bsearch(&cv.1 .0, &x.0))
        }),
        ("now", v(0), |cv| ok(Val::from(cv.0.data().now))),
        ("input_filename", v(0), |cv| {
            let name = cv.0.data().reader.borrow().filename();
            ok(name.map_or(Val::Null, Val::from))
        }),
        ("input_line_number", v(0), |cv| {
            let n = cv.0.data().reader.borrow_mut().line_number();
            ok(Val::from(n))
        }),
        ("input", v(0), |cv| {
            let mut inputs = cv.0.data().inputs;
            match inputs.next() {
                Some(Ok(v)) => box_once(Ok(v)),
                Some(Err(e)) => err(e),
                None => err("No more inputs"),
            }
        }),
        ("inputs", v(0), |cv| {
            let inputs = cv.0.data().inputs;
            Box::new(inputs.map(|r| r.map_err(|e| Exn::from(val::fail(e)))))
        }),
        ("debug_empty", v(0), |cv| {
            let mut msg = b"[\"DEBUG:\",".to_vec();
            json::write_val(&mut msg, &cv.1 .0, &json::Style::COMPACT, 0);
            msg.extend_from_slice(b"]\n");
            cv.0.data().stderr.borrow_mut().extend_from_slice(&msg);
            Box::new(std::iter::empty())
        }),
        ("stderr_empty", v(0), |cv| {
            let msg = json::to_json(&cv.1 .0);
            cv.0.data().stderr.borrow_mut().extend_from_slice(&msg);
            Box::new(std::iter::empty())
        }),
        ("halt_error", v(1), |mut cv| {
            let code = cv.0.pop_var();
            let Val::Num(n) = &code.0 else { return err("halt_error/1: number required") };
            let code = json::num_f64(n) as i32;
            let msg = match &cv.1 .0 {
                Val::TStr(s) | Val::BStr(s) => s.to_vec(),
                other => {
                    let mut m = json::to_json(other);
                    m.push(b'\n');
                    m
                }
            };
            cv.0.data().stderr.borrow_mut().extend_from_slice(&msg);
            box_once(Err(Exn::halt(code)))
        }),
    ]);
    list.into_vec().into_iter().map(jaq_core::native::run::<Jq>)
}

/// jq 1.6 definitions that replace jaq's or that jaq lacks.
const DEFS: &str = r#"
def @text: tostring;
def del(f): delpaths([path(f)]);
def @json: tojson;
def join($x): reduce .[] as $i (null; (if . == null then "" else . + $x end) + ($i | if . == null then "" elif type == "boolean" or type == "number" then tojson else . end)) // "";
def from_entries: map((.key // .Key // .name // .Name) as $k | if $k | type == "string" then {($k): (if has("value") then .value else .Value end)} else error("Cannot use \($k | type) (\($k | tojson)) as object key") end) | add + {} // {};
def with_entries(f): to_entries | map(f) | from_entries;
def walk(f): . as $in | if type == "object" then reduce keys_unsorted[] as $key ( {}; . + { ($key): ($in[$key] | walk(f)) } ) | f elif type == "array" then map( walk(f) ) | f else f end;
def limit($n; f): if $n < 0 then f else label $out | foreach f as $item (0; . + 1; $item, if . >= $n then break $out else empty end) end;
def todate: strftime("%Y-%m-%dT%H:%M:%SZ");
def dateadd(u; n): . + n;
def datesub(u; n): . - n;
def date: todate;
def leaf_paths: paths(scalars);
def getpath($p): if $p | length == 0 then . else .[$p[0]] | getpath($p[1:]) end;
def setpath($p; $x): getpath($p) = $x;
def recurse_down: recurse;
def tostream: path(def r: (.[]?|r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p+$q]);
def fromstream(f): { x: null, e: false } as $init | foreach f as $i ($init; if .e then $init else . end | if $i | length == 2 then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1]) else setpath(["e"]; $i[0] | length == 1) end; if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input | if (.[0]|length) > $n then setpath([0];.[0][$n:]) else empty end;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row|idx_expr|tostring] |= $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
"#;

/// Names of jaq definitions dropped because jq 1.6 defines them otherwise
/// (with the arity, `None` for all).
const DROPPED: &[(&str, Option<usize>)] = &[
    ("tostring", None),
    ("tonumber", None),
    ("walk", None),
    ("join", None),
    ("from_entries", None),
    ("with_entries", None),
    ("todate", None),
    ("limit", None),
    ("nan", None),
    ("infinite", None),
    ("del", None),
    ("delpaths", None),
    ("getpath", None),
    ("setpath", None),
    ("@sh", None),
    ("@html", None),
    ("@htmld", None),
    ("@uri", None),
    ("@urid", None),
    ("@base64", None),
    ("@base64d", None),
    ("@text", None),
    ("@json", None),
    ("halt_error", Some(1)),
];

/// The prelude: jaq's definitions without the dropped ones, then ours.
pub fn defs() -> Vec<Def<&'static str>> {
    let keep = |d: &Def<&'static str>| {
        !DROPPED.iter().any(|(n, a)| *n == d.name && a.is_none_or(|a| a == d.args.len()))
    };
    let mut all: Vec<_> =
        jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs()).filter(keep).collect();
    all.extend(jaq_core::load::parse(DEFS, |p| p.defs()).unwrap_or_default());
    all
}

/// Every native: ours first, then jaq's.
pub fn all_natives() -> Vec<Fun<Jq>> {
    natives().chain(jaq_core::funs()).chain(jaq_std::funs()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_defs_parse() {
        assert!(jaq_core::load::parse(DEFS, |p| p.defs()).is_some());
    }

    #[test]
    fn base64_and_32() {
        let mut out = Vec::new();
        base64_encode(b"test", &mut out);
        assert_eq!(out, b"dGVzdA==");
        assert_eq!(json::to_json(&base32(&Val::from("hi".to_string()))), b"\"NBUQ====\"");
        assert_eq!(json::to_json(&base64d(&Val::from("aGk".to_string())).unwrap_or(Val::Null)), b"\"hi\"");
    }

    #[test]
    fn formats() {
        let v = parse_one(br#"[1,"a\"b",null,true,1.5]"#).unwrap_or(Val::Null);
        assert_eq!(json::to_json(&csv(&v).unwrap_or(Val::Null)), br#""1,\"a\"\"b\",,true,1.5""#);
        let v = parse_one(br#"["a\tb","c\\d",null,1]"#).unwrap_or(Val::Null);
        assert_eq!(json::to_json(&tsv(&v).unwrap_or(Val::Null)), br#""a\\tb\tc\\\\d\t\t1""#);
    }
}
