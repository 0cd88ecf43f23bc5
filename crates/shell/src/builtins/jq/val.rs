//! jq's values: a thin wrapper over jaq's [`Val`] that behaves like jq 1.6
//! where jaq chose otherwise: updating `null` builds objects and arrays
//! (`null | .a.b = 1`), assigning past the end of an array pads it with
//! nulls, numbers index arrays even when they are floats, objects refuse
//! number indices, `%` works on integers, division by zero is an error, and
//! values print with jq's number format.

use std::fmt;
use std::rc::Rc;

use jaq_core::box_iter::BoxIter;
use jaq_core::path::Opt;
use jaq_core::{Error, Exn, ValR, ValX};
use jaq_json::{Map, Num, Val};

use super::json;

/// A jq value.
#[derive(Clone, Debug, Default)]
pub struct V(pub Val);

pub type R = ValR<V>;

/// A jq error with this message.
pub fn fail(msg: impl Into<String>) -> Error<V> {
    Error::new(V(Val::from(msg.into())))
}

/// jaq's error about its own values, as an error about ours.
fn conv(e: Error<Val>) -> Error<V> {
    Error::new(V(e.into_val()))
}

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

/// `KIND (VALUE)`, the value cut like jq does (11 bytes and `...`).
pub fn shown(v: &Val) -> String {
    let s = json::to_json(v);
    let t = if s.len() > 14 {
        let mut t = String::from_utf8_lossy(&s[..11]).into_owned();
        t.push_str("...");
        t
    } else {
        String::from_utf8_lossy(&s).into_owned()
    };
    format!("{} ({t})", kind(v))
}

fn index_error(v: &Val, k: &Val) -> Error<V> {
    match json::str_bytes(k) {
        Some(s) => fail(format!("Cannot index {} with string \"{}\"", kind(v), String::from_utf8_lossy(s))),
        None => fail(format!("Cannot index {} with {}", kind(v), kind(k))),
    }
}

/// A number as a double.
pub fn f64_of(v: &Val) -> Option<f64> {
    match v {
        Val::Num(n) => Some(json::num_f64(n)),
        _ => None,
    }
}

impl PartialEq for V {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for V {}

impl PartialOrd for V {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for V {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

impl fmt::Display for V {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&json::to_json(&self.0)))
    }
}

impl From<bool> for V {
    fn from(b: bool) -> Self {
        V(Val::Bool(b))
    }
}

impl From<isize> for V {
    fn from(i: isize) -> Self {
        V(Val::from(i))
    }
}

impl From<usize> for V {
    fn from(i: usize) -> Self {
        V(Val::from(i))
    }
}

impl From<f64> for V {
    fn from(f: f64) -> Self {
        V(Val::from(f))
    }
}

impl From<String> for V {
    fn from(s: String) -> Self {
        V(Val::from(s))
    }
}

impl From<jaq_core::val::Range<V>> for V {
    fn from(r: jaq_core::val::Range<V>) -> Self {
        V(Val::from(r.start.map(|v| v.0)..r.end.map(|v| v.0)))
    }
}

impl FromIterator<V> for V {
    fn from_iter<T: IntoIterator<Item = V>>(iter: T) -> Self {
        V(Val::Arr(Rc::new(iter.into_iter().map(|v| v.0).collect())))
    }
}

fn binop_error(l: &Val, r: &Val, what: &str) -> Error<V> {
    fail(format!("{} and {} cannot be {what}", shown(l), shown(r)))
}

impl std::ops::Add for V {
    type Output = R;
    fn add(self, rhs: Self) -> R {
        match (&self.0, &rhs.0) {
            (Val::Null, _) => Ok(rhs),
            (_, Val::Null) => Ok(self),
            (Val::Num(_), Val::Num(_))
            | (Val::TStr(_) | Val::BStr(_), Val::TStr(_) | Val::BStr(_))
            | (Val::Arr(_), Val::Arr(_))
            | (Val::Obj(_), Val::Obj(_)) => (self.0 + rhs.0).map(V).map_err(conv),
            (l, r) => Err(binop_error(l, r, "added")),
        }
    }
}

impl std::ops::Sub for V {
    type Output = R;
    fn sub(self, rhs: Self) -> R {
        match (&self.0, &rhs.0) {
            (Val::Num(_), Val::Num(_)) | (Val::Arr(_), Val::Arr(_)) => (self.0 - rhs.0).map(V).map_err(conv),
            (l, r) => Err(binop_error(l, r, "subtracted")),
        }
    }
}

impl std::ops::Mul for V {
    type Output = R;
    fn mul(self, rhs: Self) -> R {
        match (&self.0, &rhs.0) {
            (Val::TStr(s) | Val::BStr(s), Val::Num(n)) | (Val::Num(n), Val::TStr(s) | Val::BStr(s)) => {
                let times = json::num_f64(n);
                if times.is_nan() || times < 1.0 {
                    return Ok(V(Val::Null));
                }
                let times = times.min(1e9) as usize;
                let total = s.len().saturating_mul(times);
                if total > 1 << 26 {
                    return Err(fail("Repeat string result too long"));
                }
                Ok(V(Val::utf8_str(s.repeat(times))))
            }
            (Val::Num(_), Val::Num(_)) | (Val::Obj(_), Val::Obj(_)) => (self.0 * rhs.0).map(V).map_err(conv),
            (l, r) => Err(binop_error(l, r, "multiplied")),
        }
    }
}

impl std::ops::Div for V {
    type Output = R;
    fn div(self, rhs: Self) -> R {
        match (&self.0, &rhs.0) {
            (Val::Num(_), Val::Num(d)) => {
                if json::num_f64(d) == 0.0 {
                    return Err(binop_error(&self.0, &rhs.0, "divided because the divisor is zero"));
                }
                let q = f64_of(&self.0).unwrap_or(f64::NAN) / json::num_f64(d);
                Ok(V(json::num_val(q)))
            }
            (Val::TStr(_) | Val::BStr(_), Val::TStr(_) | Val::BStr(_)) => {
                (self.0 / rhs.0).map(V).map_err(conv)
            }
            (l, r) => Err(binop_error(l, r, "divided")),
        }
    }
}

impl std::ops::Rem for V {
    type Output = R;
    fn rem(self, rhs: Self) -> R {
        match (&self.0, &rhs.0) {
            (Val::Num(a), Val::Num(b)) => {
                let (a, b) = (json::num_f64(a) as i64, json::num_f64(b) as i64);
                if b == 0 {
                    return Err(binop_error(
                        &self.0,
                        &rhs.0,
                        "divided (remainder) because the divisor is zero",
                    ));
                }
                Ok(V(json::num_val(a.wrapping_rem(b) as f64)))
            }
            (l, r) => Err(binop_error(l, r, "divided")),
        }
    }
}

impl std::ops::Neg for V {
    type Output = R;
    fn neg(self) -> R {
        match &self.0 {
            Val::Num(Num::Int(0)) => Ok(V(Val::from(-0.0))),
            Val::Num(_) => (-self.0).map(V).map_err(conv),
            other => Err(fail(format!("{} cannot be negated", shown(other)))),
        }
    }
}

/// An array index as jq reads it: integral numbers only (`None` otherwise).
fn int_index(k: &Val) -> Option<i64> {
    let f = f64_of(k)?;
    (f.fract() == 0.0 && f.is_finite()).then_some(f as i64)
}

fn string_obj_key(k: &Val) -> bool {
    matches!(k, Val::TStr(_) | Val::BStr(_))
}

/// Rounds slice bounds like jq 1.6: start down, end up.
fn slice_bounds(v: &Val, r: &jaq_core::val::Range<&V>) -> Result<(Option<V>, Option<V>), Error<V>> {
    let fix = |b: Option<&V>, up: bool| -> Result<Option<V>, Error<V>> {
        match b.map(|b| &b.0) {
            None | Some(Val::Null) => Ok(None),
            Some(Val::Num(n)) => {
                let f = json::num_f64(n);
                let f = if up { f.ceil() } else { f.floor() };
                let f = f.clamp(-(isize::MAX as f64), isize::MAX as f64);
                Ok(Some(V(Val::from(f as isize))))
            }
            Some(_) => Err(fail(format!("Start and end indices of an {} slice must be numbers", kind(v)))),
        }
    };
    Ok((fix(r.start, false)?, fix(r.end, true)?))
}

impl jaq_core::ValT for V {
    fn from_num(n: &str) -> R {
        json::parse_number(n.as_bytes()).map(V).ok_or_else(|| fail(format!("Invalid numeric literal {n}")))
    }

    fn from_map<I: IntoIterator<Item = (Self, Self)>>(iter: I) -> R {
        let mut m = Map::default();
        for (k, v) in iter {
            if !string_obj_key(&k.0) {
                return Err(fail(format!("Cannot use {} as object key", shown(&k.0))));
            }
            m.insert(k.0, v.0);
        }
        Ok(V(Val::obj(m)))
    }

    fn key_values(self) -> BoxIter<'static, ValR<(Self, Self), Self>> {
        match self.0 {
            Val::Arr(_) | Val::Obj(_) => {
                Box::new(self.0.key_values().map(|r| r.map(|(k, v)| (V(k), V(v))).map_err(conv)))
            }
            other => Box::new(std::iter::once(Err(fail(format!("{} has no keys", shown(&other)))))),
        }
    }

    fn values(self) -> Box<dyn Iterator<Item = R>> {
        match self.0 {
            Val::Arr(_) | Val::Obj(_) => Box::new(self.0.values().map(|r| r.map(V).map_err(conv))),
            other => Box::new(std::iter::once(Err(fail(format!("Cannot iterate over {}", shown(&other)))))),
        }
    }

    fn index(self, index: &Self) -> R {
        let k = &index.0;
        match (&self.0, k) {
            (Val::Null, Val::Num(_) | Val::TStr(_) | Val::BStr(_) | Val::Obj(_) | Val::Null) => {
                Ok(V(Val::Null))
            }
            (Val::Obj(o), _) if string_obj_key(k) => Ok(V(o.get(k).cloned().unwrap_or_default())),
            (Val::Arr(a), Val::Num(_)) => {
                let Some(i) = int_index(k) else { return Ok(V(Val::Null)) };
                let i = if i < 0 { i + a.len() as i64 } else { i };
                Ok(V(usize::try_from(i).ok().and_then(|i| a.get(i)).cloned().unwrap_or_default()))
            }
            (Val::Arr(_), Val::Arr(_)) | (Val::Arr(_) | Val::TStr(_) | Val::BStr(_), Val::Obj(_)) => {
                jaq_core::ValT::index(self.0, k).map(V).map_err(conv)
            }
            (v, k) => Err(index_error(v, k)),
        }
    }

    fn range(self, range: jaq_core::val::Range<&Self>) -> R {
        match &self.0 {
            Val::Null => Ok(V(Val::Null)),
            Val::Arr(_) | Val::TStr(_) | Val::BStr(_) => {
                let (s, e) = slice_bounds(&self.0, &range)?;
                let (s, e) = (s.map(|v| v.0), e.map(|v| v.0));
                jaq_core::ValT::range(self.0, s.as_ref()..e.as_ref()).map(V).map_err(conv)
            }
            other => Err(fail(format!("Cannot index {} with object", kind(other)))),
        }
    }

    fn map_values<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        match self.0 {
            Val::Arr(a) => {
                let a = Rc::try_unwrap(a).unwrap_or_else(|a| (*a).clone());
                let mut out = Vec::with_capacity(a.len());
                for x in a {
                    if let Some(y) = f(V(x)).next() {
                        out.push(y?.0);
                    }
                }
                Ok(V(Val::Arr(out.into())))
            }
            Val::Obj(o) => {
                let o = Rc::try_unwrap(o).unwrap_or_else(|o| (*o).clone());
                let mut out = Map::default();
                for (k, x) in o {
                    if let Some(y) = f(V(x)).next() {
                        out.insert(k, y?.0);
                    }
                }
                Ok(V(Val::obj(out)))
            }
            other => {
                let msg = format!("Cannot iterate over {}", shown(&other));
                opt.fail(V(other), |_| Exn::from(fail(msg)))
            }
        }
    }

    fn map_index<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        index: &Self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        let k = &index.0;
        if let Val::Obj(_) = k {
            if let Val::Null | Val::Arr(_) | Val::TStr(_) | Val::BStr(_) = self.0 {
                let range = match k {
                    Val::Obj(o) => {
                        let start = o.get(&Val::from("start".to_string())).cloned().map(V);
                        let end = o.get(&Val::from("end".to_string())).cloned().map(V);
                        (start, end)
                    }
                    _ => (None, None),
                };
                return self.map_range(range.0.as_ref()..range.1.as_ref(), opt, f);
            }
        }
        let this = match (self.0, k) {
            (Val::Null, Val::TStr(_) | Val::BStr(_)) => Val::obj(Map::default()),
            (Val::Null, Val::Num(_)) => Val::Arr(Rc::new(Vec::new())),
            (v, _) => v,
        };
        match this {
            Val::Obj(mut o) if string_obj_key(k) => {
                let map = Rc::make_mut(&mut o);
                let cur = map.get(k).cloned().unwrap_or_default();
                match f(V(cur)).next() {
                    Some(y) => {
                        map.insert(k.clone(), y?.0);
                    }
                    None => {
                        map.shift_remove(k);
                    }
                }
                Ok(V(Val::Obj(o)))
            }
            Val::Arr(mut a) if matches!(k, Val::Num(_)) => {
                let i = f64_of(k).unwrap_or(0.0) as i64;
                let len = a.len() as i64;
                let i = if i < 0 { i + len } else { i };
                if i < 0 {
                    return opt
                        .fail(V(Val::Arr(a)), |_| Exn::from(fail("Out of bounds negative array index")));
                }
                let i = usize::try_from(i).unwrap_or(usize::MAX);
                if i > 100_000_000 {
                    return Err(Exn::from(fail("Array index too large")));
                }
                let vec = Rc::make_mut(&mut a);
                let cur = vec.get(i).cloned().unwrap_or_default();
                match f(V(cur)).next() {
                    Some(y) => {
                        let y = y?.0;
                        if vec.len() <= i {
                            vec.resize(i + 1, Val::Null);
                        }
                        vec[i] = y;
                    }
                    None => {
                        if i < vec.len() {
                            vec.remove(i);
                        }
                    }
                }
                Ok(V(Val::Arr(a)))
            }
            other => {
                let e = index_error(&other, k);
                opt.fail(V(other), |_| Exn::from(e))
            }
        }
    }

    fn map_range<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        range: jaq_core::val::Range<&Self>,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        let this = match self.0 {
            Val::Null => Val::Arr(Rc::new(Vec::new())),
            v => v,
        };
        match this {
            Val::Arr(mut a) => {
                let (s, e) = slice_bounds(&Val::Null, &range)?;
                let len = a.len() as isize;
                let abs = |b: Option<V>, default: isize| -> usize {
                    let i = b.and_then(|v| jaq_std::ValT::as_isize(&v.0)).unwrap_or(default);
                    let i = if i < 0 { i + len } else { i };
                    i.clamp(0, len) as usize
                };
                let start = abs(s, 0);
                let end = abs(e, len).max(start);
                let slice: Vec<Val> = a[start..end].to_vec();
                let y = match f(V(Val::Arr(Rc::new(slice)))).next() {
                    Some(y) => y?.0,
                    None => Val::Arr(Rc::new(Vec::new())),
                };
                let Val::Arr(ys) = y else {
                    return Err(Exn::from(fail("A slice of an array can only be assigned another array")));
                };
                Rc::make_mut(&mut a).splice(start..end, ys.iter().cloned());
                Ok(V(Val::Arr(a)))
            }
            other => {
                let msg = format!("Cannot update field at object index of {}", kind(&other));
                opt.fail(V(other), |_| Exn::from(fail(msg)))
            }
        }
    }

    fn as_bool(&self) -> bool {
        !matches!(self.0, Val::Null | Val::Bool(false))
    }

    fn into_string(self) -> Self {
        match self.0 {
            Val::TStr(_) => self,
            Val::BStr(b) => V(Val::TStr(b)),
            other => V(Val::utf8_str(json::to_json(&other))),
        }
    }
}

impl jaq_std::ValT for V {
    fn into_seq<S: FromIterator<Self>>(self) -> Result<S, Self> {
        match self.0 {
            Val::Arr(a) => Ok(match Rc::try_unwrap(a) {
                Ok(a) => a.into_iter().map(V).collect(),
                Err(a) => a.iter().cloned().map(V).collect(),
            }),
            other => Err(V(other)),
        }
    }

    fn is_int(&self) -> bool {
        match &self.0 {
            Val::Num(Num::Int(_) | Num::BigInt(_)) => true,
            Val::Num(n) => {
                let f = json::num_f64(n);
                f.is_finite() && f.fract() == 0.0
            }
            _ => false,
        }
    }

    fn as_isize(&self) -> Option<isize> {
        match &self.0 {
            Val::Num(Num::Int(i)) => Some(*i),
            Val::Num(n) => {
                let f = json::num_f64(n);
                (f.is_finite() && f.fract() == 0.0 && f.abs() < isize::MAX as f64).then_some(f as isize)
            }
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        f64_of(&self.0)
    }

    fn is_utf8_str(&self) -> bool {
        matches!(self.0, Val::TStr(_))
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        json::str_bytes(&self.0)
    }

    fn as_sub_str(&self, sub: &[u8]) -> Self {
        V(jaq_std::ValT::as_sub_str(&self.0, sub))
    }

    fn from_utf8_bytes(b: impl AsRef<[u8]> + Send + 'static) -> Self {
        V(<Val as jaq_std::ValT>::from_utf8_bytes(b))
    }
}

/// jq's `length`.
pub fn length(v: &Val) -> Result<Val, Error<V>> {
    Ok(match v {
        Val::Null => Val::from(0isize),
        Val::Bool(_) => return Err(fail(format!("{} has no length", shown(v)))),
        Val::Num(n) => json::num_val(json::num_f64(n).abs()),
        Val::TStr(s) | Val::BStr(s) => Val::from(String::from_utf8_lossy(s).chars().count()),
        Val::Arr(a) => Val::from(a.len()),
        Val::Obj(o) => Val::from(o.len()),
    })
}

/// jq's `contains`.
pub fn contains(a: &Val, b: &Val) -> Result<bool, Error<V>> {
    Ok(match (a, b) {
        (Val::Obj(x), Val::Obj(y)) => {
            for (k, bv) in y.iter() {
                match x.get(k) {
                    Some(av) => {
                        if !contains(av, bv)? {
                            return Ok(false);
                        }
                    }
                    None => return Ok(false),
                }
            }
            true
        }
        (Val::Arr(x), Val::Arr(y)) => {
            for bv in y.iter() {
                let mut found = false;
                for av in x.iter() {
                    if kind(av) == kind(bv) && contains(av, bv)? {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Ok(false);
                }
            }
            true
        }
        (Val::TStr(x) | Val::BStr(x), Val::TStr(y) | Val::BStr(y)) => {
            y.is_empty() || x.windows(y.len()).any(|w| w == &y[..])
        }
        _ if kind(a) == kind(b) => a == b,
        _ => {
            return Err(fail(format!("{} and {} cannot have their containment checked", shown(a), shown(b))))
        }
    })
}

/// jq's `has`.
pub fn has(v: &Val, k: &Val) -> Result<bool, Error<V>> {
    match (v, k) {
        (Val::Obj(o), Val::TStr(_) | Val::BStr(_)) => Ok(o.contains_key(k)),
        (Val::Arr(a), Val::Num(n)) => {
            let f = json::num_f64(n);
            Ok(f >= 0.0 && f < a.len() as f64)
        }
        _ => Err(fail(format!("Cannot check whether {} has a {} key", kind(v), kind(k)))),
    }
}

/// jq's `indices` (byte offsets for strings, as in jq 1.6).
pub fn indices(v: &Val, x: &Val) -> Result<Val, Error<V>> {
    let found: Vec<usize> = match (v, x) {
        (Val::Null, _) | (_, Val::Null) => return Ok(Val::Null),
        (Val::TStr(s) | Val::BStr(s), Val::TStr(t) | Val::BStr(t)) => {
            if t.is_empty() {
                return Ok(Val::Null);
            }
            s.windows(t.len()).enumerate().filter(|(_, w)| *w == &t[..]).map(|(i, _)| i).collect()
        }
        (Val::Arr(a), Val::Arr(b)) => {
            if b.is_empty() {
                return Ok(Val::Null);
            }
            a.windows(b.len()).enumerate().filter(|(_, w)| *w == &b[..]).map(|(i, _)| i).collect()
        }
        (Val::Arr(a), other) => a.iter().enumerate().filter(|(_, e)| *e == other).map(|(i, _)| i).collect(),
        (v, k) => return Err(index_error(v, k)),
    };
    Ok(Val::Arr(Rc::new(found.into_iter().map(Val::from).collect())))
}

/// jq's `bsearch`.
pub fn bsearch(v: &Val, x: &Val) -> Result<Val, Error<V>> {
    let Val::Arr(a) = v else { return Err(fail(format!("{} cannot be searched from", shown(v)))) };
    Ok(Val::from(match a.binary_search(x) {
        Ok(i) => i as isize,
        Err(i) => -1 - i as isize,
    }))
}

/// Deletes one path (a no-op when it does not exist), like jq's `delpaths`.
fn delpath(v: Val, path: &[Val]) -> Result<Val, Error<V>> {
    let Some((k, rest)) = path.split_first() else { return Ok(Val::Null) };
    match v {
        Val::Null => Ok(Val::Null),
        Val::Obj(mut o) if string_obj_key(k) => {
            if rest.is_empty() {
                Rc::make_mut(&mut o).shift_remove(k);
            } else if let Some(child) = o.get(k).cloned() {
                let new = delpath(child, rest)?;
                Rc::make_mut(&mut o).insert(k.clone(), new);
            }
            Ok(Val::Obj(o))
        }
        Val::Arr(mut a) => match k {
            Val::Num(_) => {
                let len = a.len() as i64;
                let Some(i) = f64_of(k).map(|f| f as i64) else { return Ok(Val::Arr(a)) };
                let i = if i < 0 { i + len } else { i };
                let Ok(i) = usize::try_from(i) else {
                    return Err(fail("Out of bounds negative array index"));
                };
                if i >= a.len() {
                    return Ok(Val::Arr(a));
                }
                if rest.is_empty() {
                    Rc::make_mut(&mut a).remove(i);
                } else {
                    let new = delpath(a[i].clone(), rest)?;
                    Rc::make_mut(&mut a)[i] = new;
                }
                Ok(Val::Arr(a))
            }
            Val::Obj(r) if rest.is_empty() => {
                let len = a.len() as isize;
                let bound = |name: &str, default: isize, up: bool| -> usize {
                    let b = r.get(&Val::from(name.to_string())).and_then(f64_of);
                    let i = b.map_or(default, |f| if up { f.ceil() as isize } else { f.floor() as isize });
                    let i = if i < 0 { i + len } else { i };
                    i.clamp(0, len) as usize
                };
                let (s, e) = (bound("start", 0, false), bound("end", len, true));
                if s < e {
                    Rc::make_mut(&mut a).drain(s..e);
                }
                Ok(Val::Arr(a))
            }
            other => Err(fail(format!("Cannot delete field at index {} of array", kind(other)))),
        },
        other => Err(fail(format!("Cannot delete field at {} index of {}", kind(k), kind(&other)))),
    }
}

/// jq's `delpaths`: deletes the longest paths first so indices stay valid.
pub fn delpaths(v: Val, paths: &Val) -> Result<Val, Error<V>> {
    let Val::Arr(ps) = paths else { return Err(fail("Paths must be specified as an array")) };
    let mut ps: Vec<Val> = ps.iter().cloned().collect();
    ps.sort();
    ps.dedup();
    let mut v = v;
    for p in ps.iter().rev() {
        let Val::Arr(p) = p else { return Err(fail("Path must be specified as an array")) };
        v = delpath(v, p)?;
    }
    Ok(v)
}
