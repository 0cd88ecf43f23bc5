//! `test` and `[`: conditional expressions (also used by `[[ ]]` for the
//! file and string predicates).

use brush_parser::ast::{BinaryPredicate, TestExpr, UnaryPredicate};

use super::Builtin;
use crate::ctx::Ctx;
use crate::state::State;
use crate::system::{Kind, System};

pub const BUILTIN: Builtin = Builtin { name: "test", run, help: HELP, help_flag: false };
pub const BRACKET: Builtin = Builtin { name: "[", run: run_bracket, help: HELP, help_flag: false };

const HELP: &str = "Usage: test EXPRESSION\n  or:  [ EXPRESSION ]\nEvaluates a conditional expression: status 0 if true, 1 if false, 2 on error.\n\
  -e/-f/-d/-s/-r/-w/-x FILE   file exists / is a file / is a directory / is not empty / readable / writable / executable\n\
  -z/-n STRING, S1 = S2, S1 != S2, S1 < S2, S1 > S2\n\
  N1 -eq/-ne/-lt/-le/-gt/-ge N2, FILE1 -nt/-ot FILE2, -v NAME\n\
  ! EXPR, EXPR -a EXPR, EXPR -o EXPR, ( EXPR )\n";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    evaluate(ctx, "test", args)
}

fn run_bracket(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.split_last() {
        Some((last, rest)) if last == "]" => evaluate(ctx, "[", rest),
        _ => {
            ctx.shell_error("[: missing `]'");
            2
        }
    }
}

fn evaluate(ctx: &mut Ctx, name: &str, args: &[String]) -> i32 {
    let expr = match brush_parser::test_command::parse(args) {
        Ok(expr) => expr,
        Err(_) => {
            let message = match args {
                [a, b, ..] if args.len() >= 3 => format!("{name}: {b}: binary operator expected"),
                [a, _] => format!("{name}: {a}: unary operator expected"),
                _ => format!("{name}: too many arguments"),
            };
            ctx.shell_error(&message);
            return 2;
        }
    };
    match eval(ctx, &expr) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(message) => {
            ctx.shell_error(&format!("{name}: {message}"));
            2
        }
    }
}

fn eval(ctx: &mut Ctx, expr: &TestExpr) -> Result<bool, String> {
    Ok(match expr {
        TestExpr::False => false,
        TestExpr::Literal(s) => !s.is_empty(),
        TestExpr::And(a, b) => eval(ctx, a)? && eval(ctx, b)?,
        TestExpr::Or(a, b) => eval(ctx, a)? || eval(ctx, b)?,
        TestExpr::Not(a) => !eval(ctx, a)?,
        TestExpr::Parenthesized(a) => eval(ctx, a)?,
        TestExpr::UnaryTest(pred, operand) => match ctx.interp.element_is_set(pred, operand) {
            Some(set) => set,
            None => {
                let interp = &mut *ctx.interp;
                unary(&mut *interp.sys, interp.state, pred, operand)
            }
        },
        TestExpr::BinaryTest(pred, l, r) => {
            let interp = &mut *ctx.interp;
            binary(&mut *interp.sys, pred, l, r)?
        }
    })
}

/// A unary predicate on a string or file.
pub(crate) fn unary(sys: &mut dyn System, state: &State, pred: &UnaryPredicate, operand: &str) -> bool {
    let stat = |sys: &mut dyn System| if operand.is_empty() { None } else { sys.stat(operand).ok() };
    match pred {
        UnaryPredicate::StringHasZeroLength => operand.is_empty(),
        UnaryPredicate::StringHasNonZeroLength => !operand.is_empty(),
        UnaryPredicate::FileExists => stat(sys).is_some(),
        UnaryPredicate::FileExistsAndIsDir => stat(sys).is_some_and(|m| m.kind == Kind::Dir),
        UnaryPredicate::FileExistsAndIsRegularFile => stat(sys).is_some_and(|m| m.kind == Kind::File),
        UnaryPredicate::FileExistsAndIsNotZeroLength => stat(sys).is_some_and(|m| m.size > 0),
        UnaryPredicate::FileExistsAndIsReadable => stat(sys).is_some(),
        UnaryPredicate::FileExistsAndIsWritable => {
            stat(sys).is_some() && (writable(operand) || !operand.starts_with('/') && writable(&sys.cwd()))
        }
        // The oracle's bash runs as (namespaced) root: a directory is always
        // searchable and a file is executable when any `x` bit is set.
        UnaryPredicate::FileExistsAndIsExecutable => {
            stat(sys).is_some_and(|m| m.kind == Kind::Dir || m.mode & 0o111 != 0)
        }
        UnaryPredicate::FileExistsAndOwnedByEffectiveUserId
        | UnaryPredicate::FileExistsAndOwnedByEffectiveGroupId => stat(sys).is_some(),
        // `-v a[k]` is `Interp::element_is_set`.
        UnaryPredicate::ShellVariableIsSetAndAssigned => state.is_set(operand),
        UnaryPredicate::FdIsOpenTerminal => false,
        UnaryPredicate::ShellOptionEnabled => super::set::option_on(&state.options, operand) == Some(true),
        _ => false,
    }
}

fn writable(path: &str) -> bool {
    path == "/workspace" || path.starts_with("/workspace/") || path == "/tmp" || path.starts_with("/tmp/")
}

fn integer(s: &str) -> Result<i64, String> {
    s.trim().parse::<i64>().map_err(|_| format!("{s}: integer expression expected"))
}

/// A binary predicate, `test`-style (integers must be integers).
pub(crate) fn binary(sys: &mut dyn System, pred: &BinaryPredicate, l: &str, r: &str) -> Result<bool, String> {
    Ok(match pred {
        BinaryPredicate::StringExactlyMatchesString | BinaryPredicate::StringExactlyMatchesPattern => l == r,
        BinaryPredicate::StringDoesNotExactlyMatchString
        | BinaryPredicate::StringDoesNotExactlyMatchPattern => l != r,
        BinaryPredicate::LeftSortsBeforeRight => l.as_bytes() < r.as_bytes(),
        BinaryPredicate::LeftSortsAfterRight => l.as_bytes() > r.as_bytes(),
        BinaryPredicate::StringContainsSubstring => l.contains(r),
        BinaryPredicate::ArithmeticEqualTo => integer(l)? == integer(r)?,
        BinaryPredicate::ArithmeticNotEqualTo => integer(l)? != integer(r)?,
        BinaryPredicate::ArithmeticLessThan => integer(l)? < integer(r)?,
        BinaryPredicate::ArithmeticLessThanOrEqualTo => integer(l)? <= integer(r)?,
        BinaryPredicate::ArithmeticGreaterThan => integer(l)? > integer(r)?,
        BinaryPredicate::ArithmeticGreaterThanOrEqualTo => integer(l)? >= integer(r)?,
        BinaryPredicate::LeftFileIsNewerOrExistsWhenRightDoesNot => {
            match (sys.stat(l).ok(), sys.stat(r).ok()) {
                (Some(a), Some(b)) => a.mtime_ms > b.mtime_ms,
                (Some(_), None) => true,
                _ => false,
            }
        }
        BinaryPredicate::LeftFileIsOlderOrDoesNotExistWhenRightDoes => {
            match (sys.stat(l).ok(), sys.stat(r).ok()) {
                (Some(a), Some(b)) => a.mtime_ms < b.mtime_ms,
                (None, Some(_)) => true,
                _ => false,
            }
        }
        BinaryPredicate::FilesReferToSameDeviceAndInodeNumbers => {
            sys.stat(l).is_ok() && sys.stat(r).is_ok() && canonical(sys, l) == canonical(sys, r)
        }
        BinaryPredicate::StringMatchesRegex => {
            regex::Regex::new(r).map_err(|_| format!("{r}: invalid regular expression"))?.is_match(l)
        }
    })
}

fn canonical(sys: &mut dyn System, path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", sys.cwd())
    }
}
