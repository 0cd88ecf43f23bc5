//! The shell's session state: variables, functions, options and positional
//! parameters. It persists across runs of one sandbox (the working directory
//! lives in the file system, shared with JavaScript).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use brush_parser::ast;

/// `set` options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `-e`: exit when a command fails outside a condition.
    pub errexit: bool,
    /// `-u`: expanding an unset variable is an error.
    pub nounset: bool,
    /// `-o pipefail`: a pipeline fails when any stage fails.
    pub pipefail: bool,
    /// `-x`: print commands before running them.
    pub xtrace: bool,
    /// `-f`: no pathname expansion.
    pub noglob: bool,
}

/// A shell variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    pub value: String,
    pub exported: bool,
}

/// Everything a script can change that outlives one command.
#[derive(Debug, Default, Clone)]
pub struct State {
    /// Global variables.
    pub vars: BTreeMap<String, Var>,
    /// Indexed arrays (`a=(x y)`), global.
    pub arrays: BTreeMap<String, Vec<String>>,
    /// One frame per active function call: its `local` variables (`None`:
    /// declared but unset).
    pub locals: Vec<BTreeMap<String, Option<Var>>>,
    pub functions: BTreeMap<String, Rc<ast::FunctionBody>>,
    pub options: Options,
    /// `$1`…
    pub positional: Vec<String>,
    /// `$?`.
    pub last_status: i32,
    /// Variables marked readonly.
    pub readonly: BTreeSet<String>,
    /// Exported before being given a value (`export X`): not in `env` yet.
    pub pending_export: BTreeSet<String>,
}

impl State {
    pub fn new() -> Self {
        let mut state = Self::default();
        for (name, value) in [
            ("HOME", "/workspace"),
            ("PATH", "/usr/bin:/bin"),
            ("SHELL", "/bin/sh"),
            ("USER", "user"),
            ("LANG", "C.UTF-8"),
            ("TERM", "dumb"),
        ] {
            state.vars.insert(name.into(), Var { value: value.into(), exported: true });
        }
        for (name, value) in [("IFS", " \t\n"), ("OPTIND", "1")] {
            state.vars.insert(name.into(), Var { value: value.into(), exported: false });
        }
        state
    }

    /// A variable's value, locals first.
    pub fn get(&self, name: &str) -> Option<&str> {
        for frame in self.locals.iter().rev() {
            if let Some(slot) = frame.get(name) {
                return slot.as_ref().map(|v| v.value.as_str());
            }
        }
        if let Some(var) = self.vars.get(name) {
            return Some(var.value.as_str());
        }
        self.arrays.get(name).and_then(|a| a.first()).map(String::as_str)
    }

    pub fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Assigns, to the innermost local of that name or else the global.
    /// Returns `false` (and changes nothing) for a readonly variable.
    pub fn set(&mut self, name: &str, value: impl Into<String>) -> bool {
        if self.readonly.contains(name) {
            return false;
        }
        let value = value.into();
        self.pending_export.remove(name);
        for frame in self.locals.iter_mut().rev() {
            if let Some(slot) = frame.get_mut(name) {
                let exported = slot.as_ref().is_some_and(|v| v.exported);
                *slot = Some(Var { value, exported });
                return true;
            }
        }
        match self.vars.get_mut(name) {
            Some(var) => var.value = value,
            None => {
                self.arrays.remove(name);
                self.vars.insert(name.to_string(), Var { value, exported: false });
            }
        }
        true
    }

    /// Marks a variable exported (creating it empty-valued only if `value`).
    pub fn export(&mut self, name: &str, value: Option<String>) -> bool {
        if let Some(value) = value {
            if !self.set(name, value) {
                return false;
            }
        }
        for frame in self.locals.iter_mut().rev() {
            if let Some(Some(var)) = frame.get_mut(name) {
                var.exported = true;
                return true;
            }
        }
        match self.vars.get_mut(name) {
            Some(var) => var.exported = true,
            None => {
                // `export NAME` without a value marks it for later; bash shows
                // it in `export -p` but not in `env` until it has a value.
                self.vars.insert(name.to_string(), Var { value: String::new(), exported: true });
                self.pending_export.insert(name.to_string());
            }
        }
        true
    }

    /// Removes a variable (the innermost local, or the global).
    pub fn unset(&mut self, name: &str) -> bool {
        if self.readonly.contains(name) {
            return false;
        }
        for frame in self.locals.iter_mut().rev() {
            if let Some(slot) = frame.get_mut(name) {
                *slot = None;
                return true;
            }
        }
        self.vars.remove(name);
        self.arrays.remove(name);
        self.pending_export.remove(name);
        true
    }

    /// Declares `name` local to the current function (error outside one).
    pub fn local(&mut self, name: &str, value: Option<String>) -> bool {
        let Some(frame) = self.locals.last_mut() else {
            return false;
        };
        let var = value.map(|value| Var { value, exported: false });
        frame.insert(name.to_string(), var);
        true
    }

    /// Exported variables with a value, sorted by name, as `env` shows them.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut out: BTreeMap<String, String> = BTreeMap::new();
        for (name, var) in &self.vars {
            if var.exported && !self.pending_export.contains(name) {
                out.insert(name.clone(), var.value.clone());
            }
        }
        for frame in &self.locals {
            for (name, slot) in frame {
                match slot {
                    Some(var) if var.exported => {
                        out.insert(name.clone(), var.value.clone());
                    }
                    _ => {
                        out.remove(name);
                    }
                }
            }
        }
        out.into_iter().collect()
    }
}
