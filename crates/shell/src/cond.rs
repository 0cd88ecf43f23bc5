//! `[[ … ]]`: like `test`, but on unsplit words, with patterns on the right
//! of `==`/`!=`, regular expressions with `=~` and arithmetic comparisons.

use brush_parser::ast::{BinaryPredicate, ExtendedTestExpr, UnaryPredicate};

use crate::builtins::test;
use crate::expand::ExpandError;
use crate::interp::Interp;

impl Interp<'_> {
    /// `-v name[sub]`: whether that element is set. The subscript is
    /// expanded (an associative array's key) or evaluated (an indexed
    /// array's). `None` for other tests and operands.
    pub(crate) fn element_is_set(&mut self, pred: &UnaryPredicate, operand: &str) -> Option<bool> {
        if !matches!(pred, UnaryPredicate::ShellVariableIsSetAndAssigned) {
            return None;
        }
        let (name, sub) = operand.strip_suffix(']')?.split_once('[')?;
        let name = self.state.resolve_name(name);
        if self.state.assoc.contains_key(&name) {
            let Ok(key) = self.expand_string(sub) else {
                return Some(false);
            };
            return Some(self.state.assoc.get(&name).is_some_and(|a| a.get(&key).is_some()));
        }
        if sub == "@" || sub == "*" {
            return Some(
                self.state.arrays.get(&name).is_some_and(|a| !a.is_empty()) || self.state.is_set(&name),
            );
        }
        let Ok(i) = self.subscript(sub) else {
            return Some(false);
        };
        Some(match self.state.arrays.get(&name) {
            Some(array) => array.resolve(i).is_some_and(|i| array.get(i).is_some()),
            None => i == 0 && self.state.is_set(&name),
        })
    }

    pub(crate) fn extended_test(&mut self, expr: &ExtendedTestExpr) -> Result<bool, ExpandError> {
        Ok(match expr {
            ExtendedTestExpr::And(a, b) => self.extended_test(a)? && self.extended_test(b)?,
            ExtendedTestExpr::Or(a, b) => self.extended_test(a)? || self.extended_test(b)?,
            ExtendedTestExpr::Not(a) => !self.extended_test(a)?,
            ExtendedTestExpr::Parenthesized(a) => self.extended_test(a)?,
            // Without extglob, `[[ !(x) ]]` is `[[ ! ( x ) ]]`.
            ExtendedTestExpr::UnaryTest(UnaryPredicate::StringHasNonZeroLength, word)
                if !self.state.options.shopt("extglob")
                    && word.value.len() > 3
                    && word.value.starts_with("!(")
                    && word.value.ends_with(')') =>
            {
                let inner = &word.value[2..word.value.len() - 1];
                self.expand_string(inner.trim())?.is_empty()
            }
            ExtendedTestExpr::UnaryTest(pred, word) => {
                let operand = self.expand_string(&word.value)?;
                match self.element_is_set(pred, &operand) {
                    Some(set) => set,
                    None => test::unary(&mut *self.sys, self.state, pred, &operand),
                }
            }
            ExtendedTestExpr::BinaryTest(pred, left, right) => {
                let l = self.expand_string(&left.value)?;
                match pred {
                    BinaryPredicate::StringExactlyMatchesPattern
                    | BinaryPredicate::StringDoesNotExactlyMatchPattern => {
                        let p = self.expand_pattern(&right.value)?;
                        let matched = self.match_pattern(&p, &l);
                        matched == matches!(pred, BinaryPredicate::StringExactlyMatchesPattern)
                    }
                    BinaryPredicate::StringMatchesRegex => {
                        let r = self.expand_regex(&right.value)?;
                        let re = match regex::RegexBuilder::new(&r)
                            .case_insensitive(self.state.options.shopt("nocasematch"))
                            .build()
                        {
                            Ok(re) => re,
                            Err(_) => {
                                self.report(&format!("{r}: invalid regular expression"));
                                return Err(ExpandError::Reported { fatal: false, status: 2 });
                            }
                        };
                        match re.captures(&l) {
                            Some(caps) => {
                                let groups = caps
                                    .iter()
                                    .map(|m| m.map_or_else(String::new, |m| m.as_str().to_string()))
                                    .collect();
                                self.state.arrays.insert("BASH_REMATCH".into(), groups);
                                true
                            }
                            None => {
                                self.state.arrays.insert("BASH_REMATCH".into(), Default::default());
                                false
                            }
                        }
                    }
                    BinaryPredicate::ArithmeticEqualTo
                    | BinaryPredicate::ArithmeticNotEqualTo
                    | BinaryPredicate::ArithmeticLessThan
                    | BinaryPredicate::ArithmeticLessThanOrEqualTo
                    | BinaryPredicate::ArithmeticGreaterThan
                    | BinaryPredicate::ArithmeticGreaterThanOrEqualTo => {
                        let a = self.arith_text(&l)?;
                        let r = self.expand_string(&right.value)?;
                        let b = self.arith_text(&r)?;
                        match pred {
                            BinaryPredicate::ArithmeticEqualTo => a == b,
                            BinaryPredicate::ArithmeticNotEqualTo => a != b,
                            BinaryPredicate::ArithmeticLessThan => a < b,
                            BinaryPredicate::ArithmeticLessThanOrEqualTo => a <= b,
                            BinaryPredicate::ArithmeticGreaterThan => a > b,
                            _ => a >= b,
                        }
                    }
                    _ => {
                        let r = self.expand_string(&right.value)?;
                        match test::binary(&mut *self.sys, pred, &l, &r) {
                            Ok(v) => v,
                            Err(message) => {
                                self.report(&message);
                                return Err(ExpandError::Reported { fatal: false, status: 2 });
                            }
                        }
                    }
                }
            }
        })
    }

    /// The right side of `=~`: quoted parts match literally.
    fn expand_regex(&mut self, raw: &str) -> Result<String, ExpandError> {
        self.expand_regex_text(raw)
    }
}
