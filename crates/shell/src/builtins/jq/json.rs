//! JSON text as jq 1.6 reads and writes it: a streaming parser that follows
//! jq's own state machine (so errors say what jq says, at the line and
//! column jq reports), and a printer with jq's number format (17
//! significant digits, shortest form, `1e+17`), indentation and escapes.

use jaq_json::{Map, Num, Val};

/// Parsing deeper than this fails, like jq (`Exceeds depth limit for parsing`).
const MAX_DEPTH: usize = 256;

/// Values nested deeper than this are printed as `null` rather than
/// recursing without bound.
const MAX_PRINT_DEPTH: usize = 10_000;

/// A parse error: jq's message and where it was noticed (`None`: at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub msg: &'static str,
    pub at: Option<usize>,
}

#[derive(Clone)]
enum Frame {
    /// An array whose items so far are `vals[start..]`.
    Arr(usize),
    /// An object whose entries so far are `kvs[start..]`.
    Obj(usize),
    /// An object waiting for the value of this key.
    Key(usize, Val),
}

/// A stream of JSON texts in one buffer.
pub struct Parser<'a> {
    data: &'a [u8],
    /// The same bytes as a shared string, so that strings without escapes
    /// can point into it instead of being copied.
    whole: Option<Val>,
    pos: usize,
    stack: Vec<Frame>,
    vals: Vec<Val>,
    kvs: Vec<(Val, Val)>,
    next: Option<Val>,
    tok_start: Option<usize>,
    in_string: bool,
    done: bool,
    /// Whether arrays and objects at the top are read by [`Parser::direct`]
    /// (off only in tests, which compare the two readings).
    direct: bool,
}

impl<'a> Parser<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        // jq skips a UTF-8 byte order mark at the start
        let pos = if data.starts_with(&[0xEF, 0xBB, 0xBF]) { 3 } else { 0 };
        Self {
            data,
            whole: None,
            pos,
            stack: Vec::new(),
            vals: Vec::new(),
            kvs: Vec::new(),
            next: None,
            tok_start: None,
            in_string: false,
            done: false,
            direct: true,
        }
    }

    /// A parser whose strings share `whole`, a string value holding `data`.
    pub fn shared(data: &'a [u8], whole: Val) -> Self {
        let mut p = Self::new(data);
        if json_bytes(&whole).is_some_and(|b| b.len() == data.len()) {
            p.whole = Some(whole);
        }
        p
    }

    /// The next complete value and the index at which it was completed
    /// (the data's length when completed by the end of input).
    pub fn next_value(&mut self) -> Option<Result<(Val, usize), ParseError>> {
        if self.done {
            return None;
        }
        match self.run() {
            Ok(Some(v)) => Some(Ok(v)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    fn run(&mut self) -> Result<Option<(Val, usize)>, ParseError> {
        let data = self.data;
        while let Some(&c) = data.get(self.pos) {
            let i = self.pos;
            if self.direct
                && matches!(c, b'[' | b'{')
                && self.stack.is_empty()
                && self.tok_start.is_none()
                && self.next.is_none()
            {
                if let Some((v, end)) = self.direct(i) {
                    self.pos = end + 1;
                    return Ok(Some((v, end)));
                }
            }
            self.pos += 1;
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    if self.tok_start.is_none() {
                        continue;
                    }
                    self.check_literal(i)?;
                }
                b'[' | b',' | b']' | b'{' | b':' | b'}' => {
                    self.check_literal(i)?;
                    self.token(c, i)?;
                }
                b'"' => {
                    self.check_literal(i)?;
                    self.in_string = true;
                    let Some((end, ascii)) = find_string_end(data, i + 1) else {
                        self.pos = data.len();
                        break;
                    };
                    self.in_string = false;
                    self.pos = end + 1;
                    let s =
                        self.string(i + 1, end, ascii).map_err(|msg| ParseError { msg, at: Some(end) })?;
                    self.value(s, end)?;
                    if self.stack.is_empty() {
                        if let Some(v) = self.next.take() {
                            return Ok(Some((v, end)));
                        }
                    }
                    continue;
                }
                _ => {
                    if self.tok_start.is_none() {
                        self.tok_start = Some(i);
                    }
                    continue;
                }
            }
            if self.stack.is_empty() {
                if let Some(v) = self.next.take() {
                    return Ok(Some((v, i)));
                }
            }
        }
        // end of input
        if self.in_string {
            return Err(ParseError { msg: "Unfinished string at EOF", at: None });
        }
        let len = data.len();
        self.check_literal(len).map_err(|e| ParseError { msg: at_eof(e.msg), at: None })?;
        if !self.stack.is_empty() {
            return Err(ParseError { msg: "Unfinished JSON term at EOF", at: None });
        }
        Ok(self.next.take().map(|v| (v, len)))
    }

    /// The string between `start` and `end` (exclusive), shared with the
    /// input when it needs no decoding; `ascii` when [`find_string_end`]
    /// found it plain ASCII, which spares the checks.
    fn string(&self, start: usize, end: usize, ascii: bool) -> Result<Val, &'static str> {
        let raw = &self.data[start..end];
        let plain = ascii
            || (raw.iter().all(|&b| b != b'\\' && !(b > 0 && b < 0x1f)) && std::str::from_utf8(raw).is_ok());
        if plain {
            if let Some(Val::TStr(b) | Val::BStr(b)) = &self.whole {
                return Ok(Val::TStr(Box::new(b.slice(start..end))));
            }
        }
        decode_string(raw)
    }

    fn value(&mut self, v: Val, at: usize) -> Result<(), ParseError> {
        if self.next.is_some() {
            return Err(ParseError { msg: "Expected separator between values", at: Some(at) });
        }
        self.next = Some(v);
        Ok(())
    }

    fn check_literal(&mut self, at: usize) -> Result<(), ParseError> {
        let Some(start) = self.tok_start.take() else { return Ok(()) };
        let v = literal(&self.data[start..at]).map_err(|msg| ParseError { msg, at: Some(at) })?;
        self.value(v, at)
    }

    /// Reads the array or object that starts at `at` by recursive descent,
    /// returning it and the index of its closing bracket: the state
    /// machine's reading of well-formed text, without its frame stack and
    /// byte-by-byte dispatch. On anything else (an error, or nesting the
    /// state machine refuses) it returns `None` having consumed nothing, and
    /// the state machine reads the text again to report what jq reports,
    /// where jq reports it; a bad text is thus read at most twice.
    fn direct(&mut self, at: usize) -> Option<(Val, usize)> {
        let (vals, kvs) = (self.vals.len(), self.kvs.len());
        let mut pos = at;
        let v = self.direct_value(&mut pos, 0);
        if v.is_none() {
            self.vals.truncate(vals);
            self.kvs.truncate(kvs);
        }
        Some((v?, pos - 1))
    }

    /// The value at the first non-blank byte from `*pos` inside `depth`
    /// arrays and objects; `*pos` ends just after it.
    fn direct_value(&mut self, pos: &mut usize, depth: usize) -> Option<Val> {
        let data = self.data;
        let i = skip_blanks(data, *pos);
        match *data.get(i)? {
            b'[' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                let start = self.vals.len();
                *pos = i + 1;
                if data.get(skip_blanks(data, *pos)) != Some(&b']') {
                    loop {
                        let v = self.direct_value(pos, depth + 1)?;
                        self.vals.push(v);
                        let j = skip_blanks(data, *pos);
                        *pos = j + 1;
                        match data.get(j)? {
                            b',' => {}
                            b']' => break,
                            _ => return None,
                        }
                    }
                } else {
                    *pos = skip_blanks(data, *pos) + 1;
                }
                let items: Vec<Val> = self.vals.drain(start..).collect();
                Some(Val::Arr(items.into()))
            }
            b'{' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                let start = self.kvs.len();
                let mut j = skip_blanks(data, i + 1);
                if data.get(j) == Some(&b'}') {
                    *pos = j + 1;
                    return Some(self.object(start));
                }
                loop {
                    if data.get(j) != Some(&b'"') {
                        return None;
                    }
                    let (end, ascii) = find_string_end(data, j + 1)?;
                    let key = self.string(j + 1, end, ascii).ok()?;
                    let colon = skip_blanks(data, end + 1);
                    if data.get(colon) != Some(&b':') {
                        return None;
                    }
                    *pos = colon + 1;
                    let v = self.direct_value(pos, depth + 1)?;
                    self.kvs.push((key, v));
                    let k = skip_blanks(data, *pos);
                    *pos = k + 1;
                    match data.get(k)? {
                        b',' => j = skip_blanks(data, *pos),
                        b'}' => break,
                        _ => return None,
                    }
                }
                Some(self.object(start))
            }
            b'"' => {
                let (end, ascii) = find_string_end(data, i + 1)?;
                *pos = end + 1;
                self.string(i + 1, end, ascii).ok()
            }
            _ => {
                // a literal runs to the next blank, bracket, separator or quote
                let len = data.get(i..)?.iter().position(|&b| ends_literal(b)).unwrap_or(data.len() - i);
                *pos = i + len;
                if len == 0 {
                    return None;
                }
                literal(data.get(i..i + len)?).ok()
            }
        }
    }

    fn token(&mut self, c: u8, i: usize) -> Result<(), ParseError> {
        let err = |msg| Err(ParseError { msg, at: Some(i) });
        match c {
            b'[' | b'{' => {
                if self.stack.len() >= MAX_DEPTH {
                    return err("Exceeds depth limit for parsing");
                }
                if self.next.is_some() {
                    return err("Expected separator between values");
                }
                self.stack.push(if c == b'[' {
                    Frame::Arr(self.vals.len())
                } else {
                    Frame::Obj(self.kvs.len())
                });
            }
            b':' => {
                let Some(&Frame::Obj(start)) = self.stack.last() else {
                    return err("':' not as part of an object");
                };
                let Some(key) = self.next.take() else {
                    return err("Expected string key before ':'");
                };
                if !matches!(key, Val::TStr(_)) {
                    return err("Object keys must be strings");
                }
                self.stack.pop();
                self.stack.push(Frame::Key(start, key));
            }
            b',' => {
                if self.next.is_none() {
                    return err("Expected value before ','");
                }
                match self.stack.last() {
                    None => return err("',' not as part of an object or array"),
                    Some(Frame::Obj(_)) => return err("Objects must consist of key:value pairs"),
                    Some(Frame::Arr(_)) => {
                        if let Some(v) = self.next.take() {
                            self.vals.push(v);
                        }
                    }
                    Some(Frame::Key(..)) => {
                        if let (Some(Frame::Key(start, k)), Some(v)) = (self.stack.pop(), self.next.take()) {
                            self.kvs.push((k, v));
                            self.stack.push(Frame::Obj(start));
                        }
                    }
                }
            }
            b']' => match self.stack.last() {
                Some(&Frame::Arr(start)) => {
                    if let Some(v) = self.next.take() {
                        self.vals.push(v);
                    } else if self.vals.len() > start {
                        return err("Expected another array element");
                    }
                    self.stack.pop();
                    let items: Vec<Val> = self.vals.drain(start..).collect();
                    self.next = Some(Val::Arr(items.into()));
                }
                _ => return err("Unmatched ']'"),
            },
            _ => match self.stack.last() {
                None => return err("Unmatched '}'"),
                Some(Frame::Key(..)) => {
                    if self.next.is_none() {
                        return err("Unmatched '}'");
                    }
                    if let (Some(Frame::Key(start, k)), Some(v)) = (self.stack.pop(), self.next.take()) {
                        self.kvs.push((k, v));
                        self.next = Some(self.object(start));
                    }
                }
                Some(&Frame::Obj(start)) => {
                    if self.next.is_some() {
                        return err("Objects must consist of key:value pairs");
                    }
                    if self.kvs.len() > start {
                        return err("Expected another key-value pair");
                    }
                    self.stack.pop();
                    self.next = Some(self.object(start));
                }
                Some(Frame::Arr(_)) => {
                    return err(if self.next.is_some() {
                        "Objects must consist of key:value pairs"
                    } else {
                        "Unmatched '}'"
                    });
                }
            },
        }
        Ok(())
    }

    fn object(&mut self, start: usize) -> Val {
        let n = self.kvs.len() - start;
        let mut map = Map::with_capacity_and_hasher(n, Default::default());
        for (k, v) in self.kvs.drain(start..) {
            map.insert(k, v);
        }
        Val::obj(map)
    }
}

fn json_bytes(v: &Val) -> Option<&[u8]> {
    match v {
        Val::TStr(b) | Val::BStr(b) => Some(b),
        _ => None,
    }
}

fn at_eof(msg: &'static str) -> &'static str {
    match msg {
        "Invalid literal" => "Invalid literal at EOF",
        "Invalid numeric literal" => "Invalid numeric literal at EOF",
        _ => "Expected separator between values at EOF",
    }
}

/// Formats a parse error as jq does: `MSG at line L, column C`.
pub fn describe(data: &[u8], e: &ParseError) -> String {
    let (line, col) = match e.at {
        Some(i) => {
            let upto = data.get(..=i).unwrap_or(data);
            let line = 1 + count_newlines(upto);
            let col = if data.get(i) == Some(&b'\n') {
                0
            } else {
                let start = upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                i + 1 - start
            };
            (line, col)
        }
        None => {
            let line = 1 + count_newlines(data);
            let start = data.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            (line, data.len() - start)
        }
    };
    format!("{} at line {line}, column {col}", e.msg)
}

pub fn count_newlines(data: &[u8]) -> usize {
    data.iter().filter(|&&b| b == b'\n').count()
}

/// The index of the closing quote of a string whose contents start at
/// `from`, and whether those contents are plain ASCII: no escapes, no
/// control characters, nothing to decode or check.
fn find_string_end(data: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut i = from;
    let mut plain = true;
    while let Some(&b) = data.get(i) {
        match b {
            b'"' => return Some((i, plain)),
            b'\\' => {
                plain = false;
                i += 2;
            }
            _ => {
                plain &= (0x20..0x80).contains(&b);
                i += 1;
            }
        }
    }
    None
}

/// The blanks jq skips between tokens.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The first index from `i` that is not a blank.
fn skip_blanks(data: &[u8], mut i: usize) -> usize {
    while data.get(i).is_some_and(|&b| is_blank(b)) {
        i += 1;
    }
    i
}

/// The bytes that end a literal (`true`, a number, ...) in jq's tokenizer.
fn ends_literal(b: u8) -> bool {
    is_blank(b) || matches!(b, b'[' | b',' | b']' | b'{' | b':' | b'}' | b'"')
}

/// The value of a literal token, or jq's message for a bad one.
fn literal(tok: &[u8]) -> Result<Val, &'static str> {
    match tok.first() {
        Some(b't') => (tok == b"true").then_some(Val::Bool(true)).ok_or("Invalid literal"),
        Some(b'f') => (tok == b"false").then_some(Val::Bool(false)).ok_or("Invalid literal"),
        Some(b'n') => (tok == b"null").then_some(Val::Null).ok_or("Invalid literal"),
        _ => parse_number(tok).ok_or("Invalid numeric literal"),
    }
}

fn hex4(s: &[u8]) -> Option<u32> {
    if s.len() < 4 {
        return None;
    }
    let mut v = 0u32;
    for &b in &s[..4] {
        v = v * 16 + (b as char).to_digit(16)?;
    }
    Some(v)
}

/// Decodes the contents of a JSON string (between the quotes) like jq.
fn decode_string(raw: &[u8]) -> Result<Val, &'static str> {
    let plain = raw.iter().all(|&b| b != b'\\' && !(b > 0 && b < 0x1f));
    if plain {
        return Ok(match std::str::from_utf8(raw) {
            Ok(_) => Val::utf8_str(raw.to_vec()),
            Err(_) => Val::from(String::from_utf8_lossy(raw).into_owned()),
        });
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        i += 1;
        if b != b'\\' {
            if b > 0 && b < 0x1f {
                return Err("Invalid string: control characters from U+0000 through U+001F must be escaped");
            }
            out.push(b);
            continue;
        }
        let Some(&e) = raw.get(i) else { return Err("Expected escape character at end of string") };
        i += 1;
        match e {
            b'\\' | b'"' | b'/' => out.push(e),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b't' => out.push(b'\t'),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b'u' => {
                let rest = raw.get(i..).unwrap_or_default();
                if rest.len() < 4 {
                    return Err("Invalid \\uXXXX escape");
                }
                let Some(mut cp) = hex4(rest) else { return Err("Invalid characters in \\uXXXX escape") };
                i += 4;
                if (0xD800..=0xDBFF).contains(&cp) {
                    let rest = raw.get(i..).unwrap_or_default();
                    let low = if rest.len() >= 6 && rest[0] == b'\\' && rest[1] == b'u' {
                        hex4(&rest[2..])
                    } else {
                        None
                    };
                    match low {
                        Some(low) if (0xDC00..=0xDFFF).contains(&low) => {
                            cp = 0x10000 + (((cp - 0xD800) << 10) | (low - 0xDC00));
                            i += 6;
                        }
                        _ => return Err("Invalid \\uXXXX\\uXXXX surrogate pair escape"),
                    }
                }
                let c = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err("Invalid escape"),
        }
    }
    Ok(match String::from_utf8(out) {
        Ok(s) => Val::from(s),
        Err(e) => Val::from(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    })
}

/// A number the way jq stores it: a double. Integral values that fit are
/// kept as integers so that they index arrays.
pub fn num_val(f: f64) -> Val {
    if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 && !(f == 0.0 && f.is_sign_negative()) {
        let i = f as i64;
        if let Ok(i) = isize::try_from(i) {
            return Val::Num(Num::Int(i));
        }
    }
    Val::Num(Num::Float(f))
}

/// Parses a numeric literal as C's `strtod` would accept it in jq.
pub fn parse_number(tok: &[u8]) -> Option<Val> {
    // fast path: a plain integer
    if !tok.is_empty() && tok.len() <= 15 {
        let (neg, digits) = match tok.first() {
            Some(b'-') => (true, &tok[1..]),
            _ => (false, tok),
        };
        if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
            let mut v: i64 = 0;
            for &d in digits {
                v = v * 10 + i64::from(d - b'0');
            }
            if neg && v == 0 {
                return Some(Val::Num(Num::Float(-0.0)));
            }
            return Some(num_val(if neg { -(v as f64) } else { v as f64 }));
        }
    }
    let s = std::str::from_utf8(tok).ok()?;
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let mut ndigits = i - int_start;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let f = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        ndigits += i - f;
    }
    if ndigits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let e = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > e {
            i = j;
        }
    }
    if i != b.len() {
        return None;
    }
    let f: f64 = s.strip_prefix('+').unwrap_or(s).parse().ok()?;
    Some(num_val(f))
}

/// Appends a number as jq 1.6 prints it.
pub fn write_f64(out: &mut Vec<u8>, f: f64) {
    if f.is_nan() {
        out.extend_from_slice(b"null");
        return;
    }
    let f = if f.is_infinite() { f64::MAX.copysign(f) } else { f };
    if f == 0.0 {
        out.extend_from_slice(if f.is_sign_negative() { b"-0" } else { b"0" });
        return;
    }
    let s = format!("{f:e}");
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.as_str()),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    let nd = digits.len() as i64;
    let decpt = exp + 1;
    if neg {
        out.push(b'-');
    }
    if decpt <= -4 || decpt > nd + 15 {
        out.push(digits.first().copied().unwrap_or(b'0'));
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        let e = decpt - 1;
        out.push(if e < 0 { b'-' } else { b'+' });
        let ea = e.unsigned_abs();
        if ea < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(ea.to_string().as_bytes());
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        for _ in 0..(-decpt) {
            out.push(b'0');
        }
        out.extend_from_slice(&digits);
    } else if decpt >= nd {
        out.extend_from_slice(&digits);
        for _ in 0..(decpt - nd) {
            out.push(b'0');
        }
    } else {
        let d = decpt as usize;
        out.extend_from_slice(&digits[..d]);
        out.push(b'.');
        out.extend_from_slice(&digits[d..]);
    }
}

/// The value of a number as a double.
pub fn num_f64(n: &Num) -> f64 {
    match n {
        Num::Int(i) => *i as f64,
        Num::Float(f) => *f,
        other => jaq_std::ValT::as_f64(&Val::Num(other.clone())).unwrap_or(f64::NAN),
    }
}

pub fn write_num(out: &mut Vec<u8>, n: &Num) {
    match n {
        Num::Int(i) if u64::try_from(i.unsigned_abs()).is_ok_and(|u| u < 1_000_000_000_000_000) => {
            out.extend_from_slice(i.to_string().as_bytes());
        }
        other => write_f64(out, num_f64(other)),
    }
}

/// How values are printed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// Spaces per level; 0 is compact output.
    pub indent: usize,
    pub tab: bool,
    pub sort_keys: bool,
    pub ascii: bool,
}

impl Style {
    pub const COMPACT: Style = Style { indent: 0, tab: false, sort_keys: false, ascii: false };
}

/// Appends a string with JSON escapes, quoted.
pub fn write_str(out: &mut Vec<u8>, s: &[u8], ascii: bool) {
    let owned;
    let s = match std::str::from_utf8(s) {
        Ok(s) => s,
        Err(_) => {
            owned = String::from_utf8_lossy(s).into_owned();
            owned.as_str()
        }
    };
    out.push(b'"');
    let bytes = s.as_bytes();
    let special = |b: u8| b < 0x20 || b == b'"' || b == b'\\' || b == 0x7f || (ascii && b >= 0x80);
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !special(b) {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[run..i]);
        if b >= 0x80 {
            // a whole character, escaped as UTF-16
            let c = s.get(i..).and_then(|r| r.chars().next()).unwrap_or('\u{FFFD}');
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.extend_from_slice(format!("\\u{u:04x}").as_bytes());
            }
            i += c.len_utf8();
        } else {
            match b {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                8 => out.extend_from_slice(b"\\b"),
                12 => out.extend_from_slice(b"\\f"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                _ => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            }
            i += 1;
        }
        run = i;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

fn newline_indent(out: &mut Vec<u8>, style: &Style, level: usize) {
    out.push(b'\n');
    if style.tab {
        out.extend(std::iter::repeat_n(b'\t', level));
    } else {
        out.extend(std::iter::repeat_n(b' ', level * style.indent));
    }
}

/// The bytes of a string value.
pub fn str_bytes(v: &Val) -> Option<&[u8]> {
    match v {
        Val::TStr(b) | Val::BStr(b) => Some(b),
        _ => None,
    }
}

fn write_key(out: &mut Vec<u8>, k: &Val, style: &Style) {
    match str_bytes(k) {
        Some(s) => write_str(out, s, style.ascii),
        None => {
            let mut tmp = Vec::new();
            write_val(&mut tmp, k, &Style::COMPACT, 0);
            write_str(out, &tmp, style.ascii);
        }
    }
}

/// Appends a value as JSON text.
pub fn write_val(out: &mut Vec<u8>, v: &Val, style: &Style, level: usize) {
    let pretty = style.indent > 0 || style.tab;
    match v {
        Val::Null => out.extend_from_slice(b"null"),
        Val::Bool(true) => out.extend_from_slice(b"true"),
        Val::Bool(false) => out.extend_from_slice(b"false"),
        Val::Num(n) => write_num(out, n),
        Val::TStr(s) | Val::BStr(s) => write_str(out, s, style.ascii),
        _ if level >= MAX_PRINT_DEPTH => out.extend_from_slice(b"null"),
        Val::Arr(a) => {
            if a.is_empty() {
                out.extend_from_slice(b"[]");
                return;
            }
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if pretty {
                    newline_indent(out, style, level + 1);
                }
                write_val(out, x, style, level + 1);
            }
            if pretty {
                newline_indent(out, style, level);
            }
            out.push(b']');
        }
        Val::Obj(o) => {
            if o.is_empty() {
                out.extend_from_slice(b"{}");
                return;
            }
            out.push(b'{');
            let mut entries: Vec<(&Val, &Val)> = o.iter().collect();
            if style.sort_keys {
                entries.sort_by(|a, b| key_order(a.0, b.0));
            }
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if pretty {
                    newline_indent(out, style, level + 1);
                }
                write_key(out, k, style);
                out.push(b':');
                if pretty {
                    out.push(b' ');
                }
                write_val(out, x, style, level + 1);
            }
            if pretty {
                newline_indent(out, style, level);
            }
            out.push(b'}');
        }
    }
}

fn key_order(a: &Val, b: &Val) -> std::cmp::Ordering {
    match (str_bytes(a), str_bytes(b)) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// A value as compact JSON text.
pub fn to_json(v: &Val) -> Vec<u8> {
    let mut out = Vec::new();
    write_val(&mut out, v, &Style::COMPACT, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> String {
        let mut out = Vec::new();
        write_f64(&mut out, s.parse().unwrap_or(f64::NAN));
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn numbers_like_jq() {
        assert_eq!(num("1"), "1");
        assert_eq!(num("1.5"), "1.5");
        assert_eq!(num("1e1000"), "1.7976931348623157e+308");
        assert_eq!(num("-1e1000"), "-1.7976931348623157e+308");
        assert_eq!(num("100000000000000000000"), "1e+20");
        assert_eq!(num("12345678901234567890"), "12345678901234567000");
        assert_eq!(num("1e17"), "1e+17");
        assert_eq!(num("1e16"), "1e+16");
        assert_eq!(num("1e15"), "1000000000000000");
        assert_eq!(num("1e-5"), "1e-05");
        assert_eq!(num("0.0001"), "0.0001");
        assert_eq!(num("3.14159265358979323846"), "3.141592653589793");
        assert_eq!(num("-0"), "-0");
        assert_eq!(num("1.5e300"), "1.5e+300");
        assert_eq!(num("0.1"), "0.1");
        assert_eq!(num("1e-7"), "1e-07");
        assert_eq!(num("0.3333333333333333"), "0.3333333333333333");
        assert_eq!(num("2000000000000000.5"), "2000000000000000.5");
    }

    fn parse_all(s: &str) -> Result<Vec<String>, String> {
        let mut p = Parser::new(s.as_bytes());
        let mut out = Vec::new();
        while let Some(r) = p.next_value() {
            match r {
                Ok((v, _)) => out.push(String::from_utf8_lossy(&to_json(&v)).into_owned()),
                Err(e) => return Err(describe(s.as_bytes(), &e)),
            }
        }
        Ok(out)
    }

    #[test]
    fn parses_streams() {
        assert_eq!(
            parse_all("1 2\n[3, {\"a\": null}]"),
            Ok(vec!["1".into(), "2".into(), "[3,{\"a\":null}]".into()])
        );
        assert_eq!(parse_all("{\"a\":1}{\"b\":2}"), Ok(vec!["{\"a\":1}".into(), "{\"b\":2}".into()]));
        assert_eq!(parse_all("\"\\u00e9\\ud83d\\ude00\""), Ok(vec!["\"é😀\"".into()]));
        assert_eq!(parse_all("1.0 1e3 -0"), Ok(vec!["1".into(), "1000".into(), "-0".into()]));
    }

    #[test]
    fn errors_like_jq() {
        assert_eq!(parse_all("{\n"), Err("Unfinished JSON term at EOF at line 2, column 0".into()));
        assert_eq!(parse_all("[1,,2]\n"), Err("Expected value before ',' at line 1, column 4".into()));
        assert_eq!(
            parse_all("{\"a\" 1}\n"),
            Err("Expected separator between values at line 1, column 7".into())
        );
        assert_eq!(
            parse_all("{\"a\":1,}\n"),
            Err("Expected another key-value pair at line 1, column 8".into())
        );
        assert_eq!(parse_all("]\n"), Err("Unmatched ']' at line 1, column 1".into()));
        assert_eq!(parse_all("{1:2}\n"), Err("Object keys must be strings at line 1, column 3".into()));
        assert_eq!(parse_all("\"abc\n"), Err("Unfinished string at EOF at line 2, column 0".into()));
        assert_eq!(parse_all("tru\n"), Err("Invalid literal at line 2, column 0".into()));
        assert_eq!(parse_all("tru"), Err("Invalid literal at EOF at line 1, column 3".into()));
        assert_eq!(parse_all("\"a\\qb\"\n"), Err("Invalid escape at line 1, column 6".into()));
        assert_eq!(parse_all("1.2.3\n"), Err("Invalid numeric literal at line 2, column 0".into()));
        assert_eq!(parse_all("[1,\n2,\n,3]"), Err("Expected value before ',' at line 3, column 1".into()));
        assert_eq!(parse_all("\"a\tb\""), Err("Invalid string: control characters from U+0000 through U+001F must be escaped at line 1, column 5".into()));
    }

    /// Every value, end index and error the parser reads from `data`.
    fn read_all(data: &[u8], direct: bool) -> Vec<Result<(Val, usize), ParseError>> {
        let whole = Val::utf8_str(data.to_vec());
        let mut p = Parser::shared(data, whole);
        p.direct = direct;
        std::iter::from_fn(|| p.next_value()).collect()
    }

    /// A small deterministic generator (xorshift), so that a failure names
    /// its case and repeats.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    fn gen_value(r: &mut Rng, depth: usize, out: &mut Vec<u8>) {
        const ATOMS: &[&str] = &[
            "0",
            "-0",
            "12",
            "-3.5",
            "1e3",
            "2E-2",
            "1.",
            ".5",
            "+1",
            "true",
            "false",
            "null",
            "\"\"",
            "\"plain\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
            "\"é\"",
            "\"\\ud83d\\ude00\"",
            "\"\x1f\"",
            "nan",
            "tru",
            "1.2.3",
            "-",
            "\"\\q\"",
        ];
        const BLANKS: &[&str] = &["", "", " ", "\n", "\t ", "\r\n"];
        let blank =
            |r: &mut Rng, out: &mut Vec<u8>| out.extend_from_slice(BLANKS[r.below(BLANKS.len())].as_bytes());
        let kind = if depth > 4 { 2 } else { r.below(3) };
        if kind == 2 {
            out.extend_from_slice(ATOMS[r.below(ATOMS.len())].as_bytes());
            return;
        }
        // an array (kind 0) or an object (kind 1) of up to three items
        out.push(if kind == 0 { b'[' } else { b'{' });
        for k in 0..r.below(4) {
            if k > 0 {
                out.push(b',');
            }
            blank(r, out);
            if kind == 1 {
                out.extend_from_slice(["\"a\"", "\"b\"", "\"a\"", "\"\\u0061\""][r.below(4)].as_bytes());
                blank(r, out);
                out.push(b':');
                blank(r, out);
            }
            gen_value(r, depth + 1, out);
            blank(r, out);
        }
        out.push(if kind == 0 { b']' } else { b'}' });
    }

    #[test]
    fn direct_reading_matches_the_state_machine() {
        const NOISE: &[u8] = b"[]{},:\" \n1a\\\xc3";
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut values, mut errors) = (0, 0);
        for case in 0..20_000 {
            let mut data = Vec::new();
            for _ in 0..1 + r.below(3) {
                gen_value(&mut r, 0, &mut data);
                data.extend_from_slice([&b" "[..], b"\n", b""][r.below(3)]);
            }
            // most cases get a few bytes inserted, replaced or removed
            for _ in 0..r.below(4) {
                let at = r.below(data.len() + 1);
                match r.below(3) {
                    0 => data.insert(at, NOISE[r.below(NOISE.len())]),
                    1 if at < data.len() => data[at] = NOISE[r.below(NOISE.len())],
                    _ if at < data.len() => {
                        data.remove(at);
                    }
                    _ => {}
                }
            }
            let direct = read_all(&data, true);
            assert_eq!(direct, read_all(&data, false), "case {case}: {}", String::from_utf8_lossy(&data));
            values += direct.iter().filter(|r| r.is_ok()).count();
            errors += direct.iter().filter(|r| r.is_err()).count();
        }
        // both readings were exercised
        assert!(values > 10_000 && errors > 10_000, "{values} values, {errors} errors");
    }

    #[test]
    fn direct_reading_stops_where_the_state_machine_does() {
        // nesting: 256 arrays are read, the 257th is refused at its bracket
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for n in [255, 256, 257] {
            let data = deep(n);
            assert_eq!(read_all(data.as_bytes(), true), read_all(data.as_bytes(), false), "depth {n}");
        }
        assert_eq!(
            parse_all(&deep(257)),
            Err("Exceeds depth limit for parsing at line 1, column 257".into())
        );
        // a value after a well-formed array, and a bad one after it
        assert_eq!(parse_all("[1] [2]"), Ok(vec!["[1]".into(), "[2]".into()]));
        assert_eq!(parse_all("[1]tru"), Err("Invalid literal at EOF at line 1, column 6".into()));
    }

    #[test]
    fn prints_pretty_and_escapes() {
        let mut p = Parser::new(b"{\"a\":[1,{}],\"b\":\"\\u007f\\u0001\\n\"}");
        let v = match p.next_value() {
            Some(Ok((v, _))) => v,
            _ => Val::Null,
        };
        let mut out = Vec::new();
        write_val(&mut out, &v, &Style { indent: 2, ..Style::default() }, 0);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"\\u007f\\u0001\\n\"\n}"
        );
    }
}
