//! `expr`: GNU expr's grammar and messages. Integers are arbitrary
//! precision (like GNU expr built with GMP); `:` and `match` use anchored
//! POSIX basic regular expressions (GNU flavour: `\+ \? \|`, intervals,
//! classes), matched leftmost-longest. Back-references are not supported.
//!
//! Exit status: 0 when the result is neither empty nor 0, 1 when it is, 2 for
//! a syntax error, a non-integer argument or a division by zero (GNU's
//! `EXPR_INVALID`), 3 for a regular-expression matcher failure.

use super::common::cformat::big::Big;
use super::common::quote::gnu_quote;
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "expr",
    run,
    help: "Usage: expr EXPRESSION\n  or:  expr OPTION\n\n\
      --help     display this help and exit\n\n\
Print the value of EXPRESSION to standard output.  A blank line below\n\
separates increasing precedence groups.  EXPRESSION may be:\n\n\
  ARG1 | ARG2       ARG1 if it is neither null nor 0, otherwise ARG2\n\n\
  ARG1 & ARG2       ARG1 if neither argument is null or 0, otherwise 0\n\n\
  ARG1 < ARG2       ARG1 is less than ARG2\n\
  ARG1 <= ARG2      ARG1 is less than or equal to ARG2\n\
  ARG1 = ARG2       ARG1 is equal to ARG2\n\
  ARG1 != ARG2      ARG1 is unequal to ARG2\n\
  ARG1 >= ARG2      ARG1 is greater than or equal to ARG2\n\
  ARG1 > ARG2       ARG1 is greater than ARG2\n\n\
  ARG1 + ARG2       arithmetic sum of ARG1 and ARG2\n\
  ARG1 - ARG2       arithmetic difference of ARG1 and ARG2\n\n\
  ARG1 * ARG2       arithmetic product of ARG1 and ARG2\n\
  ARG1 / ARG2       arithmetic quotient of ARG1 divided by ARG2\n\
  ARG1 % ARG2       arithmetic remainder of ARG1 divided by ARG2\n\n\
  STRING : REGEXP   anchored pattern match of REGEXP in STRING\n\n\
  match STRING REGEXP        same as STRING : REGEXP\n\
  substr STRING POS LENGTH   substring of STRING, POS counted from 1\n\
  index STRING CHARS         index in STRING where any CHARS is found, or 0\n\
  length STRING              length of STRING\n\
  + TOKEN                    interpret TOKEN as a string, even if it is a\n\
                               keyword like 'match' or an operator like '/'\n\n\
  ( EXPRESSION )             value of EXPRESSION\n\n\
Exit status is 0 if EXPRESSION is neither null nor 0, 1 if EXPRESSION is null\n\
or 0, 2 if EXPRESSION is syntactically invalid, and 3 if an error occurred.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (out, err, status) = evaluate(args);
    if !out.is_empty() {
        let _ = ctx.out(out);
    }
    if !err.is_empty() {
        ctx.err(err);
    }
    status
}

/// Standard output, standard error and exit status of `expr ARGS`.
fn evaluate(args: &[String]) -> (String, String, i32) {
    let args = match args.first() {
        Some(first) if first == "--" => &args[1..],
        _ => args,
    };
    if args.is_empty() {
        return (String::new(), "expr: missing operand\nTry 'expr --help' for more information.\n".into(), 2);
    }
    let mut p = Parser { args, pos: 0 };
    let result = p.eval(true).and_then(|v| match p.args.get(p.pos) {
        Some(extra) => Err(Fail::Invalid(format!("syntax error: unexpected argument {}", quote(extra)))),
        None => Ok(v),
    });
    match result {
        Ok(v) => {
            let mut text = v.to_text();
            text.push('\n');
            (text, String::new(), i32::from(v.is_null()))
        }
        Err(Fail::Invalid(msg)) => (String::new(), format!("expr: {msg}\n"), 2),
        Err(Fail::Error(msg)) => (String::new(), format!("expr: {msg}\n"), 3),
    }
}

fn quote(s: &str) -> String {
    gnu_quote(s)
}

enum Fail {
    /// Status 2.
    Invalid(String),
    /// Status 3.
    Error(String),
}

/// A signed arbitrary-precision integer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Int {
    neg: bool,
    mag: Big,
}

impl Int {
    fn from_i64(v: i64) -> Int {
        Int { neg: v < 0, mag: Big::from_u64(v.unsigned_abs()) }
    }

    fn parse(s: &str) -> Option<Int> {
        let (neg, digits) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let mag = Big::parse(digits.as_bytes())?;
        Some(Int::norm(neg, mag))
    }

    fn norm(neg: bool, mag: Big) -> Int {
        let neg = neg && !mag.is_zero();
        Int { neg, mag }
    }

    fn is_zero(&self) -> bool {
        self.mag.is_zero()
    }

    fn add(&self, o: &Int) -> Int {
        if self.neg == o.neg {
            return Int::norm(self.neg, self.mag.add(&o.mag));
        }
        if self.mag >= o.mag {
            Int::norm(self.neg, self.mag.sub(&o.mag))
        } else {
            Int::norm(o.neg, o.mag.sub(&self.mag))
        }
    }

    fn neg(&self) -> Int {
        Int::norm(!self.neg, self.mag.clone())
    }

    fn mul(&self, o: &Int) -> Int {
        Int::norm(self.neg != o.neg, self.mag.mul(&o.mag))
    }

    /// Truncating division and the remainder with the dividend's sign.
    fn divmod(&self, o: &Int) -> (Int, Int) {
        let (q, r) = self.mag.divmod(&o.mag);
        (Int::norm(self.neg != o.neg, q), Int::norm(self.neg, r))
    }

    fn cmp(&self, o: &Int) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self.neg, o.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.mag.cmp(&o.mag),
            (true, true) => o.mag.cmp(&self.mag),
        }
    }

    fn to_text(&self) -> String {
        let digits = self.mag.to_decimal();
        if self.neg {
            format!("-{digits}")
        } else {
            digits
        }
    }

    /// GNU's `getsize`: negative or too big is "infinite".
    fn to_size(&self) -> usize {
        if self.neg || self.mag.bits() > 63 {
            usize::MAX
        } else {
            usize::try_from(self.mag.low_u64()).unwrap_or(usize::MAX)
        }
    }
}

#[derive(Debug, Clone)]
enum Value {
    Int(Int),
    Str(String),
}

fn looks_like_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

impl Value {
    fn is_null(&self) -> bool {
        match self {
            Value::Int(i) => i.is_zero(),
            Value::Str(s) => {
                if s.is_empty() {
                    return true;
                }
                let rest = s.strip_prefix('-').unwrap_or(s);
                !rest.is_empty() && rest.bytes().all(|b| b == b'0')
            }
        }
    }

    fn to_text(&self) -> String {
        match self {
            Value::Int(i) => i.to_text(),
            Value::Str(s) => s.clone(),
        }
    }

    fn to_int(&self) -> Option<Int> {
        match self {
            Value::Int(i) => Some(i.clone()),
            Value::Str(s) if looks_like_integer(s) => Int::parse(s),
            Value::Str(_) => None,
        }
    }
}

struct Parser<'a> {
    args: &'a [String],
    pos: usize,
}

impl Parser<'_> {
    fn next_is(&mut self, s: &str) -> bool {
        if self.args.get(self.pos).is_some_and(|a| a == s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn missing_after(&self) -> Fail {
        let prev = self.pos.checked_sub(1).and_then(|p| self.args.get(p)).map_or(String::new(), |a| quote(a));
        Fail::Invalid(format!("syntax error: missing argument after {prev}"))
    }

    /// `|`
    fn eval(&mut self, evaluate: bool) -> Result<Value, Fail> {
        let mut l = self.eval1(evaluate)?;
        while self.next_is("|") {
            let r = self.eval1(evaluate && l.is_null())?;
            if l.is_null() {
                l = if r.is_null() { Value::Int(Int::from_i64(0)) } else { r };
            }
        }
        Ok(l)
    }

    /// `&`
    fn eval1(&mut self, evaluate: bool) -> Result<Value, Fail> {
        let mut l = self.eval2(evaluate)?;
        while self.next_is("&") {
            let r = self.eval2(evaluate && !l.is_null())?;
            if l.is_null() || r.is_null() {
                l = Value::Int(Int::from_i64(0));
            }
        }
        Ok(l)
    }

    /// Comparisons.
    fn eval2(&mut self, evaluate: bool) -> Result<Value, Fail> {
        use std::cmp::Ordering;
        let mut l = self.eval3(evaluate)?;
        loop {
            let op = ["<", "<=", "=", "==", "!=", ">=", ">"]
                .into_iter()
                .find(|op| self.args.get(self.pos).is_some_and(|a| a == op));
            let Some(op) = op else { return Ok(l) };
            self.pos += 1;
            let r = self.eval3(evaluate)?;
            if evaluate {
                let (ls, rs) = (l.to_text(), r.to_text());
                let ord = if looks_like_integer(&ls) && looks_like_integer(&rs) {
                    match (Int::parse(&ls), Int::parse(&rs)) {
                        (Some(a), Some(b)) => a.cmp(&b),
                        _ => ls.as_bytes().cmp(rs.as_bytes()),
                    }
                } else {
                    ls.as_bytes().cmp(rs.as_bytes())
                };
                let truth = match op {
                    "<" => ord == Ordering::Less,
                    "<=" => ord != Ordering::Greater,
                    "=" | "==" => ord == Ordering::Equal,
                    "!=" => ord != Ordering::Equal,
                    ">=" => ord != Ordering::Less,
                    _ => ord == Ordering::Greater,
                };
                l = Value::Int(Int::from_i64(i64::from(truth)));
            }
        }
    }

    /// `+ -`
    fn eval3(&mut self, evaluate: bool) -> Result<Value, Fail> {
        let mut l = self.eval4(evaluate)?;
        loop {
            let minus = if self.next_is("+") {
                false
            } else if self.next_is("-") {
                true
            } else {
                return Ok(l);
            };
            let r = self.eval4(evaluate)?;
            if evaluate {
                let (Some(a), Some(b)) = (l.to_int(), r.to_int()) else {
                    return Err(Fail::Invalid("non-integer argument".into()));
                };
                l = Value::Int(if minus { a.add(&b.neg()) } else { a.add(&b) });
            }
        }
    }

    /// `* / %`
    fn eval4(&mut self, evaluate: bool) -> Result<Value, Fail> {
        let mut l = self.eval5(evaluate)?;
        loop {
            let op = if self.next_is("*") {
                '*'
            } else if self.next_is("/") {
                '/'
            } else if self.next_is("%") {
                '%'
            } else {
                return Ok(l);
            };
            let r = self.eval5(evaluate)?;
            if evaluate {
                let (Some(a), Some(b)) = (l.to_int(), r.to_int()) else {
                    return Err(Fail::Invalid("non-integer argument".into()));
                };
                l = Value::Int(match op {
                    '*' => a.mul(&b),
                    _ => {
                        if b.is_zero() {
                            return Err(Fail::Invalid("division by zero".into()));
                        }
                        let (q, rem) = a.divmod(&b);
                        if op == '/' {
                            q
                        } else {
                            rem
                        }
                    }
                });
            }
        }
    }

    /// `:`
    fn eval5(&mut self, evaluate: bool) -> Result<Value, Fail> {
        let mut l = self.eval6(evaluate)?;
        while self.next_is(":") {
            let r = self.eval6(evaluate)?;
            if evaluate {
                l = docolon(&l.to_text(), &r.to_text())?;
            }
        }
        Ok(l)
    }

    /// Keywords and `+ TOKEN`.
    fn eval6(&mut self, evaluate: bool) -> Result<Value, Fail> {
        if self.next_is("+") {
            let Some(tok) = self.args.get(self.pos) else { return Err(self.missing_after()) };
            self.pos += 1;
            return Ok(Value::Str(tok.clone()));
        }
        if self.next_is("length") {
            let r = self.eval6(evaluate)?;
            return Ok(Value::Int(Int::from_i64(r.to_text().len() as i64)));
        }
        if self.next_is("match") {
            let l = self.eval6(evaluate)?;
            let r = self.eval6(evaluate)?;
            return if evaluate { docolon(&l.to_text(), &r.to_text()) } else { Ok(l) };
        }
        if self.next_is("index") {
            let l = self.eval6(evaluate)?.to_text();
            let r = self.eval6(evaluate)?.to_text();
            let pos = l.bytes().position(|c| r.as_bytes().contains(&c)).map_or(0, |p| p + 1);
            return Ok(Value::Int(Int::from_i64(pos as i64)));
        }
        if self.next_is("substr") {
            let l = self.eval6(evaluate)?.to_text();
            let i1 = self.eval6(evaluate)?;
            let i2 = self.eval6(evaluate)?;
            let (Some(p), Some(n)) = (i1.to_int(), i2.to_int()) else {
                return Ok(Value::Str(String::new()));
            };
            let (pos, len) = (p.to_size(), n.to_size());
            let bytes = l.as_bytes();
            if bytes.len() < pos || pos == 0 || len == 0 || len == usize::MAX {
                return Ok(Value::Str(String::new()));
            }
            let take = len.min(bytes.len() - pos + 1);
            let sub = &bytes[pos - 1..pos - 1 + take];
            return Ok(Value::Str(String::from_utf8_lossy(sub).into_owned()));
        }
        self.eval7(evaluate)
    }

    /// Parentheses and plain tokens.
    fn eval7(&mut self, evaluate: bool) -> Result<Value, Fail> {
        if self.pos >= self.args.len() {
            return Err(self.missing_after());
        }
        if self.next_is("(") {
            let v = self.eval(evaluate)?;
            match self.args.get(self.pos) {
                None => {
                    let prev = self.args.get(self.pos - 1).map_or(String::new(), |a| quote(a));
                    return Err(Fail::Invalid(format!("syntax error: expecting ')' after {prev}")));
                }
                Some(a) if a == ")" => self.pos += 1,
                Some(a) => {
                    return Err(Fail::Invalid(format!("syntax error: expecting ')' instead of {}", quote(a))))
                }
            }
            return Ok(v);
        }
        if self.next_is(")") {
            return Err(Fail::Invalid("syntax error: unexpected ')'".into()));
        }
        let tok = self.args[self.pos].clone();
        self.pos += 1;
        Ok(Value::Str(tok))
    }
}

/// `STRING : REGEX`.
fn docolon(s: &str, pattern: &str) -> Result<Value, Fail> {
    let re = translate_bre(pattern).map_err(Fail::Invalid)?;
    let build = |body: &str| {
        regex::bytes::RegexBuilder::new(&format!("(?s-u)\\A(?:{body})\\z"))
            .size_limit(1 << 22)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => Fail::Invalid("Regular expression too big".into()),
                _ => Fail::Error("error in regular expression matcher".into()),
            })
    };
    let anchored = regex::bytes::RegexBuilder::new(&format!("(?s-u)\\A(?:{})", re.full))
        .size_limit(1 << 22)
        .build()
        .map_err(|_| Fail::Error("error in regular expression matcher".into()))?;
    let text = s.as_bytes();
    let Some(first) = anchored.find(text) else {
        return Ok(if re.groups > 0 { Value::Str(String::new()) } else { Value::Int(Int::from_i64(0)) });
    };
    // POSIX wants the longest match; the regex engine gives the leftmost-
    // first one. Look for a longer one (bounded work).
    let mut end = first.end();
    let mut whole = build(&re.full)?;
    if text.len() - end <= 4096 {
        if whole.is_match(text) {
            end = text.len();
        } else if text.len() > end + 1 {
            let prefix = build(&re.prefix)?;
            for e in (end + 1..text.len()).rev() {
                if prefix.is_match(&text[..e]) {
                    end = e;
                    whole = prefix;
                    break;
                }
            }
        }
    }
    if re.groups == 0 {
        return Ok(Value::Int(Int::from_i64(end as i64)));
    }
    let slice = &text[..end];
    let caps = if end == text.len() {
        build(&re.full)?.captures(slice)
    } else if whole.is_match(slice) {
        whole.captures(slice)
    } else {
        anchored.captures(text)
    };
    let group = caps.and_then(|c| c.get(1)).map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned());
    Ok(Value::Str(group.unwrap_or_default()))
}

struct Translated {
    /// For matching against the whole string.
    full: String,
    /// The same with `$` anchors that never match, for proper prefixes.
    prefix: String,
    groups: usize,
}

/// Translates a GNU basic regular expression to the `regex` crate's syntax.
fn translate_bre(p: &str) -> Result<Translated, String> {
    let b = p.as_bytes();
    let mut full = String::new();
    let mut prefix = String::new();
    let mut groups = 0usize;
    let mut open = 0usize;
    let mut i = 0;
    // Whether the previous item can take a repetition operator.
    let mut can_repeat = false;
    // Start of an expression: `^` anchors, `*` is literal.
    let mut at_start = true;
    let push = |full: &mut String, prefix: &mut String, s: &str| {
        full.push_str(s);
        prefix.push_str(s);
    };
    while i < b.len() {
        let c = b[i];
        let start_ctx = at_start;
        at_start = false;
        match c {
            b'\\' => {
                let Some(&n) = b.get(i + 1) else {
                    return Err("Trailing backslash".into());
                };
                i += 2;
                match n {
                    b'(' => {
                        groups += 1;
                        open += 1;
                        push(&mut full, &mut prefix, "(");
                        at_start = true;
                        can_repeat = false;
                        continue;
                    }
                    b')' => {
                        if open == 0 {
                            return Err("Unmatched ) or \\)".into());
                        }
                        open -= 1;
                        push(&mut full, &mut prefix, ")");
                        can_repeat = true;
                        continue;
                    }
                    b'|' => {
                        push(&mut full, &mut prefix, "|");
                        at_start = true;
                        can_repeat = false;
                        continue;
                    }
                    b'{' => {
                        if !can_repeat {
                            if start_ctx {
                                push(&mut full, &mut prefix, "\\{");
                                can_repeat = true;
                                continue;
                            }
                            return Err("Invalid preceding regular expression".into());
                        }
                        let close = p[i..].find("\\}").ok_or("Unmatched \\{")?;
                        let body = &p[i..i + close];
                        let valid = {
                            let (lo, hi) = match body.split_once(',') {
                                Some((lo, hi)) => (lo, Some(hi)),
                                None => (body, None),
                            };
                            let num = |s: &str| s.parse::<u32>().ok();
                            let ok_lo = lo.is_empty() || num(lo).is_some();
                            let ok_hi = hi.is_none_or(|h| h.is_empty() || num(h).is_some());
                            let ordered = match (num(lo), hi.and_then(num)) {
                                (Some(a), Some(b)) => a <= b,
                                _ => true,
                            };
                            ok_lo
                                && ok_hi
                                && ordered
                                && body.bytes().all(|c| c.is_ascii_digit() || c == b',')
                                && !body.is_empty()
                        };
                        if !valid {
                            return Err("Invalid content of \\{\\}".into());
                        }
                        let body = if body.starts_with(',') { format!("0{body}") } else { body.to_string() };
                        if body.split(',').filter_map(|n| n.parse::<u32>().ok()).any(|n| n > 32_767) {
                            return Err("Regular expression too big".into());
                        }
                        push(&mut full, &mut prefix, &format!("{{{body}}}"));
                        i += close + 2;
                        continue;
                    }
                    b'}' => {
                        push(&mut full, &mut prefix, "\\}");
                        can_repeat = true;
                        continue;
                    }
                    b'+' | b'?' => {
                        if can_repeat {
                            push(&mut full, &mut prefix, if n == b'+' { "+" } else { "?" });
                        } else {
                            push(&mut full, &mut prefix, if n == b'+' { "\\+" } else { "\\?" });
                            can_repeat = true;
                        }
                        continue;
                    }
                    b'1'..=b'9' => {
                        let k = usize::from(n - b'0');
                        if k > groups {
                            return Err("Invalid back reference".into());
                        }
                        return Err("back-references are not supported".into());
                    }
                    b'w' | b'W' | b's' | b'S' | b'b' | b'B' | b'<' | b'>' => {
                        let s = match n {
                            b'<' => "\\b{start}",
                            b'>' => "\\b{end}",
                            _ => match n {
                                b'w' => "\\w",
                                b'W' => "\\W",
                                b's' => "\\s",
                                b'S' => "\\S",
                                b'b' => "\\b",
                                _ => "\\B",
                            },
                        };
                        push(&mut full, &mut prefix, s);
                        can_repeat = matches!(n, b'w' | b'W' | b's' | b'S');
                        continue;
                    }
                    b'`' => {
                        push(&mut full, &mut prefix, "\\A");
                        can_repeat = false;
                        continue;
                    }
                    b'\'' => {
                        full.push_str("\\z");
                        prefix.push_str("(?:\\b\\B)");
                        can_repeat = false;
                        continue;
                    }
                    _ => {
                        // Any other escaped character is itself.
                        let ch = p[i - 1..].chars().next().unwrap_or('\\');
                        i += ch.len_utf8() - 1;
                        push(&mut full, &mut prefix, &regex::escape(&ch.to_string()));
                        can_repeat = true;
                        continue;
                    }
                }
            }
            b'^' if start_ctx => {
                push(&mut full, &mut prefix, "^");
                at_start = true;
                can_repeat = false;
                i += 1;
            }
            b'$' if i + 1 == b.len() || p[i + 1..].starts_with("\\)") || p[i + 1..].starts_with("\\|") => {
                full.push('$');
                prefix.push_str("(?:\\b\\B)");
                can_repeat = false;
                i += 1;
            }
            b'*' if !can_repeat => {
                push(&mut full, &mut prefix, "\\*");
                can_repeat = true;
                i += 1;
            }
            b'*' => {
                push(&mut full, &mut prefix, "*");
                i += 1;
            }
            b'.' => {
                push(&mut full, &mut prefix, ".");
                can_repeat = true;
                i += 1;
            }
            b'[' => {
                let (class, used) = translate_bracket(&p[i..])?;
                push(&mut full, &mut prefix, &class);
                can_repeat = true;
                i += used;
            }
            _ => {
                let ch = p[i..].chars().next().unwrap_or('?');
                push(&mut full, &mut prefix, &regex::escape(&ch.to_string()));
                can_repeat = true;
                i += ch.len_utf8();
            }
        }
    }
    if open > 0 {
        return Err("Unmatched ( or \\(".into());
    }
    Ok(Translated { full, prefix, groups })
}

/// A bracket expression starting at `p[0] == '['`: its translation and
/// the bytes it used.
fn translate_bracket(p: &str) -> Result<(String, usize), String> {
    const UNMATCHED: &str = "Unmatched [, [^, [:, [., or [=";
    let b = p.as_bytes();
    let mut i = 1;
    let mut out = String::new();
    let negated = b.get(i) == Some(&b'^');
    if negated {
        i += 1;
    }
    let mut first = true;
    loop {
        let Some(&c) = b.get(i) else { return Err(UNMATCHED.into()) };
        if c == b']' && !first {
            // A class left empty by reversed ranges matches nothing.
            let class = match (out.is_empty(), negated) {
                (true, false) => "(?:\\b\\B)".to_string(),
                (true, true) => "[\\x00-\\xFF]".to_string(),
                (false, false) => format!("[{out}]"),
                (false, true) => format!("[^{out}]"),
            };
            return Ok((class, i + 1));
        }
        first = false;
        if c == b'[' && matches!(b.get(i + 1), Some(b':' | b'.' | b'=')) {
            let kind = b[i + 1];
            let close = [kind, b']'];
            let rest = &b[i + 2..];
            let Some(end) = rest.windows(2).position(|w| w == close) else {
                return Err(UNMATCHED.into());
            };
            let name = &p[i + 2..i + 2 + end];
            match kind {
                b':' => {
                    const CLASSES: [&str; 12] = [
                        "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print",
                        "graph", "cntrl", "xdigit",
                    ];
                    if !CLASSES.contains(&name) {
                        return Err("Invalid character class name".into());
                    }
                    out.push_str(&format!("[:{name}:]"));
                }
                _ => {
                    // Collating symbols and equivalence classes: the
                    // character itself (C locale).
                    let mut chars = name.chars();
                    match (chars.next(), chars.next()) {
                        (Some(ch), None) => out.push_str(&class_char(ch)),
                        _ => return Err("Invalid collation character".into()),
                    }
                }
            }
            i += 2 + end + 2;
            continue;
        }
        let ch = p[i..].chars().next().unwrap_or('?');
        i += ch.len_utf8();
        // A range?
        if b.get(i) == Some(&b'-') && b.get(i + 1).is_some_and(|&n| n != b']') {
            let hi = p[i + 1..].chars().next().unwrap_or('?');
            i += 1 + hi.len_utf8();
            if hi < ch {
                continue;
            }
            out.push_str(&class_char(ch));
            out.push('-');
            out.push_str(&class_char(hi));
            continue;
        }
        out.push_str(&class_char(ch));
    }
}

fn class_char(c: char) -> String {
    if c.is_ascii_alphanumeric() || !c.is_ascii() {
        c.to_string()
    } else {
        format!("\\x{:02X}", u32::from(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(args: &[&str]) -> Result<String, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut p = Parser { args: &args, pos: 0 };
        match p.eval(true) {
            Ok(v) if p.pos == args.len() => Ok(v.to_text()),
            Ok(_) => Err("extra".into()),
            Err(Fail::Invalid(m) | Fail::Error(m)) => Err(m),
        }
    }

    #[test]
    fn arithmetic() {
        assert_eq!(ev(&["1", "+", "2"]), Ok("3".into()));
        assert_eq!(ev(&["-7", "/", "2"]), Ok("-3".into()));
        assert_eq!(ev(&["-7", "%", "2"]), Ok("-1".into()));
        assert_eq!(ev(&["2", "+", "3", "*", "4"]), Ok("14".into()));
        assert_eq!(ev(&["99999999999999999999", "+", "1"]), Ok("100000000000000000000".into()));
        assert_eq!(ev(&["1", "/", "0"]), Err("division by zero".into()));
        assert_eq!(ev(&["a", "+", "1"]), Err("non-integer argument".into()));
        assert_eq!(ev(&["1", "|", "1", "/", "0"]), Ok("1".into()));
    }

    #[test]
    fn strings_and_regex() {
        assert_eq!(ev(&["abc", ":", "a\\(.\\)c"]), Ok("b".into()));
        assert_eq!(ev(&["abc", ":", "a."]), Ok("2".into()));
        assert_eq!(ev(&["ab", ":", "a\\|ab"]), Ok("2".into()));
        assert_eq!(ev(&["abab", ":", "\\(ab\\)*"]), Ok("ab".into()));
        assert_eq!(ev(&["a+", ":", "a+"]), Ok("2".into()));
        assert_eq!(ev(&["abc", ":", "*a"]), Ok("0".into()));
        assert_eq!(ev(&["abc", ":", ".*$"]), Ok("3".into()));
        assert_eq!(ev(&["ab", ":", "a$b"]), Ok("0".into()));
        assert_eq!(ev(&["substr", "hello", "2", "3"]), Ok("ell".into()));
        assert_eq!(ev(&["index", "hello", "l"]), Ok("3".into()));
        assert_eq!(ev(&["length", "hello"]), Ok("5".into()));
        assert_eq!(ev(&["abc", ":", "\\(a"]), Err("Unmatched ( or \\(".into()));
    }
}
