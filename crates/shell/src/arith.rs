//! Shell arithmetic: `$(( ))`, `(( ))`, `let`, array subscripts. 64-bit
//! integers with wrapping, as bash does; division by zero is an error.

use brush_parser::ast::{
    ArithmeticExpr, ArithmeticTarget, BinaryOperator, UnaryAssignmentOperator, UnaryOperator,
};

use crate::expand::ExpandError;
use crate::interp::Interp;

/// How deeply variable values may refer to further expressions (`a=b`,
/// `b=a` would loop forever).
const MAX_RECURSION: u32 = 64;

impl Interp<'_> {
    /// Expands parameters in `text`, then evaluates it.
    pub(crate) fn arith_text(&mut self, text: &str) -> Result<i64, ExpandError> {
        let expanded = self.expand_arith_words(text)?;
        self.arith_eval_str(&expanded, 0)
    }

    /// An indexed array's subscript: double quotes in it are removed
    /// (`a["1"]`), then it is evaluated.
    pub(crate) fn subscript(&mut self, text: &str) -> Result<i64, ExpandError> {
        if text.contains('"') {
            let unquoted = self.expand_string(text)?;
            return self.arith_eval_str(&unquoted, 0);
        }
        self.arith_text(text)
    }

    fn expand_arith_words(&mut self, text: &str) -> Result<String, ExpandError> {
        if !text.contains(['$', '`', '\'', '"', '\\']) {
            return Ok(text.to_string());
        }
        // Arithmetic text expands like a double-quoted string; quotes in it
        // are removed (`$(( "1 + 2" * 3 ))`, `A['k']`).
        if text.contains('"') || (text.contains('\'') && quotes_only_in_subscripts(text)) {
            return self.expand_string(text);
        }
        self.expand_heredoc(text)
    }

    fn arith_error(&mut self, expr: &str, message: &str) -> ExpandError {
        let expr = expr.trim_start();
        match self.arith_cmd {
            "" => self.report(&format!("{expr}: {message}")),
            cmd => self.report(&format!("{cmd}: {expr}: {message}")),
        }
        ExpandError::Reported { fatal: false, status: 1 }
    }

    pub(crate) fn arith_eval_str(&mut self, text: &str, depth: u32) -> Result<i64, ExpandError> {
        if depth > MAX_RECURSION {
            return Err(self.arith_error(text, "expression recursion level exceeded"));
        }
        if text.trim().is_empty() {
            return Ok(0);
        }
        let normalized = match numbers(text) {
            Ok(t) => t,
            Err((end, token, message)) => {
                let upto = text.get(..end).unwrap_or(text);
                return Err(self.arith_error(upto, &format!("{message} (error token is \"{token}\")")));
            }
        };
        let trimmed = normalized.trim();
        if let Ok(n) = trimmed.parse::<i64>() {
            return Ok(n);
        }
        let expr = match brush_parser::arithmetic::parse(trimmed) {
            Ok(expr) => expr,
            Err(_) => {
                let shown = text.trim_start();
                let body = shown.trim_end();
                let message = if body.ends_with(|c: char| "+-*/%<>=&|^!~?:,(".contains(c)) {
                    let start = body.rfind(|c: char| !"+-*/%<>=&|^!~?:,(".contains(c)).map_or(0, |i| i + 1);
                    format!("syntax error: operand expected (error token is \"{}\")", &shown[start..])
                } else {
                    let token = body.split_whitespace().last().unwrap_or(body).to_string();
                    format!("syntax error: invalid arithmetic operator (error token is \"{token}\")")
                };
                return Err(self.arith_error(text, &message));
            }
        };
        self.arith_eval(&expr, text, depth)
    }

    fn arith_var(&mut self, name: &str, depth: u32) -> Result<i64, ExpandError> {
        let value = match self.state.get(name) {
            Some(v) => Some(v.to_string()),
            None => self.dynamic_var(name),
        };
        match value {
            None => {
                if self.state.options.nounset {
                    return Err(self.arith_unbound(name));
                }
                Ok(0)
            }
            Some(v) if v.trim().is_empty() => Ok(0),
            Some(v) => self.arith_eval_str(&v, depth + 1),
        }
    }

    fn arith_target_get(
        &mut self,
        target: &ArithmeticTarget,
        expr: &str,
        depth: u32,
    ) -> Result<i64, ExpandError> {
        match target {
            ArithmeticTarget::Variable(name) => self.arith_var(name, depth),
            ArithmeticTarget::ArrayElement(name, index) if self.state.assoc.contains_key(name) => {
                let key = assoc_key(index);
                match self.state.assoc.get(name).and_then(|a| a.get(&key)).map(str::to_string) {
                    Some(v) => self.arith_eval_str(&v, depth + 1),
                    None if self.unbound_whole(name) => Err(self.arith_unbound(name)),
                    None => Ok(0),
                }
            }
            ArithmeticTarget::ArrayElement(name, index) => {
                let i = self.arith_eval(index, expr, depth)?;
                let value = self
                    .state
                    .arrays
                    .get(name)
                    .and_then(|a| a.resolve(i).and_then(|i| a.get(i)))
                    .cloned()
                    .or_else(|| if i == 0 { self.state.get(name).map(str::to_string) } else { None });
                match value {
                    Some(v) => self.arith_eval_str(&v, depth + 1),
                    None if self.unbound_whole(name) => Err(self.arith_unbound(name)),
                    None => Ok(0),
                }
            }
        }
    }

    /// `set -u` and a variable with no value at all.
    fn unbound_whole(&self, name: &str) -> bool {
        self.state.options.nounset
            && self.state.get(name).is_none()
            && self.state.arrays.get(name).is_none_or(|a| a.is_empty())
            && self.state.assoc.get(name).is_none_or(|a| a.is_empty())
    }

    /// bash's non-interactive shell exits with 127 on an unbound variable.
    fn arith_unbound(&mut self, name: &str) -> ExpandError {
        self.report(&format!("{name}: unbound variable"));
        ExpandError::Reported { fatal: true, status: 127 }
    }

    fn arith_target_set(
        &mut self,
        target: &ArithmeticTarget,
        value: i64,
        expr: &str,
        depth: u32,
    ) -> Result<(), ExpandError> {
        match target {
            ArithmeticTarget::Variable(name) => {
                if !self.state.set(name, value.to_string()) {
                    return Err(self.arith_error(name, "readonly variable"));
                }
            }
            ArithmeticTarget::ArrayElement(name, index) if self.state.assoc.contains_key(name) => {
                let key = assoc_key(index);
                if self.state.readonly.contains(name) {
                    return Err(self.arith_error(name, "readonly variable"));
                }
                if let Some(assoc) = self.state.assoc.get_mut(name) {
                    assoc.set(&key, value.to_string());
                }
            }
            ArithmeticTarget::ArrayElement(name, index) => {
                let i = self.arith_eval(index, expr, depth)?;
                let resolved = match self.state.arrays.get(name) {
                    Some(array) => array.resolve(i),
                    None => usize::try_from(i).ok(),
                };
                let Some(i) = resolved else {
                    return Err(self.arith_error(expr, "bad array subscript"));
                };
                let scalar = self.state.vars.remove(name).map(|v| v.value);
                let array =
                    self.state.arrays.entry(name.clone()).or_insert_with(|| scalar.into_iter().collect());
                array.set(i, value.to_string());
            }
        }
        Ok(())
    }

    fn arith_eval(&mut self, e: &ArithmeticExpr, text: &str, depth: u32) -> Result<i64, ExpandError> {
        Ok(match e {
            ArithmeticExpr::Literal(n) => *n,
            ArithmeticExpr::Reference(target) => self.arith_target_get(target, text, depth)?,
            ArithmeticExpr::UnaryOp(op, inner) => {
                let v = self.arith_eval(inner, text, depth)?;
                match op {
                    UnaryOperator::UnaryPlus => v,
                    UnaryOperator::UnaryMinus => v.wrapping_neg(),
                    UnaryOperator::BitwiseNot => !v,
                    UnaryOperator::LogicalNot => i64::from(v == 0),
                }
            }
            ArithmeticExpr::BinaryOp(op, l, r) => match op {
                BinaryOperator::LogicalAnd => {
                    let l = self.arith_eval(l, text, depth)?;
                    if l == 0 {
                        0
                    } else {
                        i64::from(self.arith_eval(r, text, depth)? != 0)
                    }
                }
                BinaryOperator::LogicalOr => {
                    let l = self.arith_eval(l, text, depth)?;
                    if l != 0 {
                        1
                    } else {
                        i64::from(self.arith_eval(r, text, depth)? != 0)
                    }
                }
                _ => {
                    let l = self.arith_eval(l, text, depth)?;
                    let r = self.arith_eval(r, text, depth)?;
                    self.binary(op, l, r, text)?
                }
            },
            ArithmeticExpr::Conditional(c, a, b) => {
                if self.arith_eval(c, text, depth)? != 0 {
                    self.arith_eval(a, text, depth)?
                } else {
                    self.arith_eval(b, text, depth)?
                }
            }
            ArithmeticExpr::Assignment(target, value) => {
                let v = self.arith_eval(value, text, depth)?;
                self.arith_target_set(target, v, text, depth)?;
                v
            }
            ArithmeticExpr::BinaryAssignment(op, target, value) => {
                let current = self.arith_target_get(target, text, depth)?;
                let v = self.arith_eval(value, text, depth)?;
                let v = self.binary(op, current, v, text)?;
                self.arith_target_set(target, v, text, depth)?;
                v
            }
            ArithmeticExpr::UnaryAssignment(op, target) => {
                let current = self.arith_target_get(target, text, depth)?;
                let (new, result) = match op {
                    UnaryAssignmentOperator::PrefixIncrement => {
                        (current.wrapping_add(1), current.wrapping_add(1))
                    }
                    UnaryAssignmentOperator::PrefixDecrement => {
                        (current.wrapping_sub(1), current.wrapping_sub(1))
                    }
                    UnaryAssignmentOperator::PostfixIncrement => (current.wrapping_add(1), current),
                    UnaryAssignmentOperator::PostfixDecrement => (current.wrapping_sub(1), current),
                };
                self.arith_target_set(target, new, text, depth)?;
                result
            }
        })
    }

    fn binary(&mut self, op: &BinaryOperator, l: i64, r: i64, text: &str) -> Result<i64, ExpandError> {
        Ok(match op {
            BinaryOperator::Power => {
                if r < 0 {
                    let t = text.trim_end();
                    let start =
                        t.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
                    let message = format!("exponent less than 0 (error token is \"{}\")", &t[start..]);
                    return Err(self.arith_error(text, &message));
                }
                l.wrapping_pow(u32::try_from(r).unwrap_or(u32::MAX))
            }
            BinaryOperator::Multiply => l.wrapping_mul(r),
            BinaryOperator::Divide | BinaryOperator::Modulo => {
                if r == 0 {
                    let token = text.rsplit(['/', '%']).next().unwrap_or("0").trim_start().to_string();
                    return Err(
                        self.arith_error(text, &format!("division by 0 (error token is \"{token}\")"))
                    );
                }
                if matches!(op, BinaryOperator::Divide) {
                    l.wrapping_div(r)
                } else {
                    l.wrapping_rem(r)
                }
            }
            BinaryOperator::Comma => r,
            BinaryOperator::Add => l.wrapping_add(r),
            BinaryOperator::Subtract => l.wrapping_sub(r),
            BinaryOperator::ShiftLeft => l.wrapping_shl(u32::try_from(r & 63).unwrap_or(0)),
            BinaryOperator::ShiftRight => l.wrapping_shr(u32::try_from(r & 63).unwrap_or(0)),
            BinaryOperator::LessThan => i64::from(l < r),
            BinaryOperator::LessThanOrEqualTo => i64::from(l <= r),
            BinaryOperator::GreaterThan => i64::from(l > r),
            BinaryOperator::GreaterThanOrEqualTo => i64::from(l >= r),
            BinaryOperator::Equals => i64::from(l == r),
            BinaryOperator::NotEquals => i64::from(l != r),
            BinaryOperator::BitwiseAnd => l & r,
            BinaryOperator::BitwiseXor => l ^ r,
            BinaryOperator::BitwiseOr => l | r,
            BinaryOperator::LogicalAnd => i64::from(l != 0 && r != 0),
            BinaryOperator::LogicalOr => i64::from(l != 0 || r != 0),
        })
    }
}

/// The key of an associative array's element in arithmetic (`m[k]`,
/// `m[$w]` after expansion): the subscript's text, not its value.
fn assoc_key(index: &ArithmeticExpr) -> String {
    match index {
        ArithmeticExpr::Reference(ArithmeticTarget::Variable(name)) => name.clone(),
        ArithmeticExpr::Literal(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// Rewrites the numbers of an arithmetic text in decimal: `010` (octal),
/// `0x1f`, `BASE#DIGITS` (bases 2 to 64: `0-9a-zA-Z@_`, letters of either
/// case the same up to base 36), wrapping to 64 bits. A bad number is
/// `(end of its token, token, message)`.
fn numbers(text: &str) -> Result<String, (usize, String, &'static str)> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'@' || b == b'#';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let starts =
            b.is_ascii_digit() && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if !starts {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let start = i;
        while i < bytes.len() && word(bytes[i]) {
            i += 1;
        }
        let token = &text[start..i];
        let bad = |message| (i, token.to_string(), message);
        let (base, digits) = if let Some((base, digits)) = token.split_once('#') {
            match base.parse::<u32>() {
                // bash reads `0…#` as an octal or hex number before the `#`.
                _ if base.starts_with('0') => return Err(bad("invalid number")),
                Ok(b) if (2..=64).contains(&b) => (b, digits),
                _ => return Err(bad("invalid arithmetic base")),
            }
        } else if let Some(hex) = token.strip_prefix("0x").or_else(|| token.strip_prefix("0X")) {
            (16, hex)
        } else if token.len() > 1 && token.starts_with('0') {
            (8, &token[1..])
        } else {
            (10, token)
        };
        let mut value: u64 = 0;
        for c in digits.chars() {
            let d = match c {
                '0'..='9' => u32::from(c) - u32::from('0'),
                'a'..='z' => u32::from(c) - u32::from('a') + 10,
                'A'..='Z' if base <= 36 => u32::from(c) - u32::from('A') + 10,
                'A'..='Z' => u32::from(c) - u32::from('A') + 36,
                '@' => 62,
                '_' => 63,
                _ => return Err(bad("value too great for base")),
            };
            if d >= base {
                return Err(bad("value too great for base"));
            }
            value = value.wrapping_mul(u64::from(base)).wrapping_add(u64::from(d));
        }
        let value = value as i64;
        match value {
            i64::MIN => out.push_str("(-9223372036854775807-1)"),
            v if v < 0 => out.push_str(&format!("({v})")),
            v => out.push_str(&v.to_string()),
        }
    }
    Ok(out)
}

/// Whether every single quote of `text` is inside `[…]` (`A['k']`): bash
/// refuses single quotes elsewhere in arithmetic.
fn quotes_only_in_subscripts(text: &str) -> bool {
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '\'' if depth == 0 => return false,
            _ => {}
        }
    }
    true
}
