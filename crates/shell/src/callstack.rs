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

thread_local! {
    /// Pipelines started so far (only differences matter).
    static PIPELINES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts a pipeline; returns the count before it.
pub fn pipeline_started() -> u64 {
    PIPELINES.with(|n| {
        let before = n.get();
        n.set(before.wrapping_add(1));
        before
    })
}

/// Whether a pipeline ran inside the one counted as `before`.
pub fn inner_pipelines_ran(before: u64) -> bool {
    PIPELINES.with(|n| n.get().wrapping_sub(before) > 1)
}

/// Whether a pipeline is one compound command whose status is that of a
/// command inside it (`{ }`, `if`, `case`, loops), which already answered
/// to `set -e` and the ERR trap (when commands inside ran: a failed
/// redirection or expansion of its own still counts).
pub fn compound_passes_status(seq: &[ast::Command]) -> bool {
    matches!(
        seq,
        [ast::Command::Compound(
            ast::CompoundCommand::BraceGroup(_)
                | ast::CompoundCommand::IfClause(_)
                | ast::CompoundCommand::CaseClause(_)
                | ast::CompoundCommand::ForClause(_)
                | ast::CompoundCommand::ArithmeticForClause(_)
                | ast::CompoundCommand::WhileClause(_)
                | ast::CompoundCommand::UntilClause(_),
            _
        )]
    )
}
