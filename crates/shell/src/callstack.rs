//! `FUNCNAME` and `BASH_LINENO`: the stack of active function calls,
//! innermost first, kept as ordinary arrays while a function runs (bash
//! leaves them unset outside functions under `-c`); and which commands'
//! statuses `set -e` looks at.

use brush_parser::ast;

use crate::state::{Indexed, State};

const NAMES: &str = "FUNCNAME";
const LINES: &str = "BASH_LINENO";

/// The arrays as they were before a call, put back by [`leave`].
pub struct Saved(Option<Indexed>, Option<Indexed>);

/// Pushes the call of `name` made on `line`.
pub fn enter(state: &mut State, name: &str, line: usize) -> Saved {
    let saved = Saved(state.arrays.get(NAMES).cloned(), state.arrays.get(LINES).cloned());
    for (array, first) in [(NAMES, name.to_string()), (LINES, line.to_string())] {
        let mut pushed = Indexed::default();
        pushed.set(0, first);
        if let Some(old) = state.arrays.get(array) {
            for (i, v) in old.iter() {
                pushed.set(i + 1, v.clone());
            }
        }
        state.arrays.insert(array.into(), pushed);
    }
    saved
}

/// Restores the arrays saved by [`enter`].
pub fn leave(state: &mut State, saved: Saved) {
    for (array, old) in [(NAMES, saved.0), (LINES, saved.1)] {
        match old {
            Some(old) => state.arrays.insert(array.into(), old),
            None => state.arrays.remove(array),
        };
    }
}

/// Whether a pipeline is one compound command whose status is that of a
/// command inside it (`{ }`, `if`, `case`, loops), which already answered
/// to `set -e` and the ERR trap: `Some(redirected)`, where a failed
/// redirection still stops a `set -e` shell.
pub fn compound_passes_status(seq: &[ast::Command]) -> Option<bool> {
    match seq {
        [ast::Command::Compound(
            ast::CompoundCommand::BraceGroup(_)
            | ast::CompoundCommand::IfClause(_)
            | ast::CompoundCommand::CaseClause(_)
            | ast::CompoundCommand::ForClause(_)
            | ast::CompoundCommand::ArithmeticForClause(_)
            | ast::CompoundCommand::WhileClause(_)
            | ast::CompoundCommand::UntilClause(_),
            redirects,
        )] => Some(redirects.is_some()),
        _ => None,
    }
}
