//! Running `trap` actions (see [`crate::builtins::trap`]).

use crate::builtins::trap::{DEBUG, ERR, EXIT, RETURN};
use crate::ctx::Io;
use crate::interp::{Flow, Interp};

impl Interp<'_> {
    /// Runs the action of condition `n`, if any, with `$?` kept: the action
    /// does not change `$?` unless it exits. It cannot trigger itself.
    fn run_trap(&mut self, n: u32, io: &Io) {
        let Some(action) = self.state.traps.get(&n).cloned() else { return };
        if action.is_empty() || self.running_trap.contains(&n) {
            return;
        }
        self.running_trap.push(n);
        let status = self.state.last_status;
        let line = self.line;
        let flow = self.flow.take();
        self.run_source(&action, io);
        self.line = line;
        if !matches!(self.flow, Some(Flow::Exit(_))) {
            self.flow = flow;
            self.state.last_status = status;
        }
        self.running_trap.pop();
    }

    /// The `EXIT` action when a script or subshell ends with `status`; an
    /// `exit N` in it changes the status.
    pub(crate) fn exit_trap(&mut self, status: i32, io: &Io) -> i32 {
        if !self.state.traps.contains_key(&EXIT) {
            return status;
        }
        let flow = self.flow.take();
        self.state.last_status = status;
        let action = self.state.traps.remove(&EXIT);
        if let Some(action) = action.filter(|a| !a.is_empty()) {
            let line = self.line;
            self.run_source(&action, io);
            self.line = line;
        }
        match self.flow.take() {
            Some(Flow::Exit(code)) => {
                self.flow = Some(Flow::Exit(code));
                code
            }
            _ => {
                self.flow = flow;
                status
            }
        }
    }

    /// The end of a subshell's commands (`( )`, `$( )`, `bash script`):
    /// its `EXIT` action runs with its status.
    pub(crate) fn end_subshell(&mut self, status: i32, io: &Io) -> i32 {
        let status = match self.flow {
            Some(Flow::Exit(code)) => code,
            _ => status,
        };
        self.exit_trap(status, io)
    }

    /// The `ERR` action after a failed command where `set -e` would apply
    /// (inside functions only under `set -E`).
    pub(crate) fn err_trap(&mut self, io: &Io) {
        if (self.state.locals.is_empty() || self.state.options.errtrace)
            && self.state.traps.contains_key(&ERR)
        {
            self.run_trap(ERR, io);
        }
    }

    /// The `DEBUG` action, before a simple command, `[[`, `((` and the
    /// heads of `for` and `case`; not inside functions (bash's `functrace`
    /// is off) nor subshells (see [`Interp::subshell`]). Its commands count
    /// against the step budget like any others. Returns whether to go on
    /// (not when the action ran `exit`, or failed under `set -e`).
    pub(crate) fn debug_trap(&mut self, io: &Io) -> bool {
        if self.state.locals.is_empty() && self.state.traps.contains_key(&DEBUG) {
            self.run_trap(DEBUG, io);
        }
        self.flow.is_none()
    }

    /// The `RETURN` action when a sourced script ends.
    pub(crate) fn return_trap(&mut self, io: &Io) {
        if self.state.traps.contains_key(&RETURN) {
            self.run_trap(RETURN, io);
        }
    }

    /// The `RETURN` action as a function starts (see [`Interp::function_return_trap`]).
    pub(crate) fn return_action(&self) -> Option<String> {
        self.state.traps.get(&RETURN).cloned()
    }

    /// The `RETURN` action when a function returns: only one the function
    /// set itself (`before` is the action when it was called), as functions
    /// do not inherit it while bash's `functrace` is off.
    pub(crate) fn function_return_trap(&mut self, before: Option<String>, io: &Io) {
        if self.state.traps.get(&RETURN) != before.as_ref() {
            self.return_trap(io);
        }
    }
}
