//! `set -o posix`: what changes for POSIX's special builtins.

use crate::state::State;

/// POSIX's special builtins.
const SPECIAL: &[&str] = &[
    ":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set", "shift",
    "times", "trap", "unset",
];

/// Whether `set -o posix` is on.
pub fn on(state: &State) -> bool {
    state.options.others.contains("posix")
}

/// Whether `name` is a special builtin that POSIX mode treats as one:
/// assignments before it stay, and no function may take its name.
pub fn special(state: &State, name: &str) -> bool {
    on(state) && SPECIAL.contains(&name)
}
