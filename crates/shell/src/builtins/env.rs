//! `env [-i] [-u NAME]... [-0] [-C DIR] [NAME=VALUE]... [COMMAND [ARG]...]`:
//! prints the environment (the shell's exported variables), or runs a
//! command with a changed one. The command runs as if in a child process:
//! the variables are set for it alone, and whatever it changes in the
//! shell's variables is undone afterwards. Only commands (not shell
//! functions) can be run, as with the real `env`. `-S` and the signal
//! options are not supported.

use super::args::{self, HasArg, Spec};
use super::common::quote::gnu_quote;
use super::Builtin;
use crate::ctx::Ctx;
use crate::state::{State, Var};

pub const BUILTIN: Builtin = Builtin {
    name: "env",
    run,
    help: "Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]\n\
Set each NAME to VALUE in the environment and run COMMAND.\n\n\
  -i, --ignore-environment  start with an empty environment\n\
  -0, --null           end each output line with NUL, not newline\n\
  -u, --unset=NAME     remove variable from the environment\n\
  -C, --chdir=DIR      change working directory to DIR\n\
      --help           display this help and exit\n\n\
A mere - implies -i.  If no COMMAND, print the resulting environment.\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "iu:0C:",
    long: &[
        ("ignore-environment", 'i', HasArg::No),
        ("unset", 'u', HasArg::Yes),
        ("null", '0', HasArg::No),
        ("chdir", 'C', HasArg::Yes),
    ],
    stop_at_operand: true,
};

/// Builtins that exist only inside a shell (no program of that name), which
/// `env` cannot run.
const SHELL_ONLY: &[&str] = &[
    ".", ":", "break", "cd", "command", "continue", "declare", "eval", "exit", "export", "local", "read",
    "readonly", "return", "set", "shift", "source", "type", "unset",
];

/// GNU env's status for its own failures.
const CANCELED: i32 = 125;

/// The parts of the shell's state a temporary environment changes.
struct Saved {
    vars: std::collections::BTreeMap<String, Var>,
    locals: Vec<std::collections::BTreeMap<String, Option<Var>>>,
    pending_export: std::collections::BTreeSet<String>,
}

fn save(state: &State) -> Saved {
    Saved {
        vars: state.vars.clone(),
        locals: state.locals.clone(),
        pending_export: state.pending_export.clone(),
    }
}

fn restore(state: &mut State, saved: Saved) {
    state.vars = saved.vars;
    state.locals = saved.locals;
    state.pending_export = saved.pending_export;
}

/// Applies `-i`, `-u` and `NAME=VALUE` to the state (bypassing `readonly`:
/// the change is for a child process).
fn apply(state: &mut State, clear: bool, unset: &[&str], assign: &[(&str, &str)]) {
    if clear {
        for var in state.vars.values_mut() {
            var.exported = false;
        }
        for frame in &mut state.locals {
            for var in frame.values_mut().flatten() {
                var.exported = false;
            }
        }
    }
    for name in unset {
        state.vars.remove(*name);
        for frame in &mut state.locals {
            if let Some(slot) = frame.get_mut(*name) {
                *slot = None;
            }
        }
    }
    for (name, value) in assign {
        let var = Var { value: (*value).to_string(), exported: true };
        state.pending_export.remove(*name);
        for frame in &mut state.locals {
            if let Some(slot) = frame.get_mut(*name) {
                *slot = Some(var.clone());
            }
        }
        state.vars.insert((*name).to_string(), var);
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("env", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return CANCELED;
        }
    };
    let mut clear = parsed.has('i');
    let null = parsed.has('0');
    let unset = parsed.values('u');
    for name in &unset {
        if name.is_empty() || name.contains('=') {
            ctx.err(format!("env: cannot unset {}: Invalid argument\n", gnu_quote(name)));
            return CANCELED;
        }
    }
    let mut rest = parsed.operands.as_slice();
    if rest.first().is_some_and(|a| a == "-") {
        clear = true;
        rest = &rest[1..];
    }
    let mut assign: Vec<(&str, &str)> = Vec::new();
    while let Some((name, value)) = rest.first().and_then(|a| a.split_once('=')) {
        assign.push((name, value));
        rest = &rest[1..];
    }
    let chdir = parsed.value('C');
    if rest.is_empty() {
        if chdir.is_some() {
            ctx.err("env: must specify command with --chdir (-C)\nTry 'env --help' for more information.\n");
            return CANCELED;
        }
        let saved = save(ctx.state());
        apply(ctx.state(), clear, &unset, &assign);
        let env = ctx.state().environment();
        restore(ctx.state(), saved);
        let end = if null { '\0' } else { '\n' };
        let mut out = String::new();
        for (name, value) in env {
            out.push_str(&name);
            out.push('=');
            out.push_str(&value);
            out.push(end);
        }
        let _ = ctx.out(out);
        return 0;
    }
    if null {
        ctx.err("env: cannot specify --null (-0) with command\nTry 'env --help' for more information.\n");
        return CANCELED;
    }
    let command = &rest[0];
    if !command.contains('/') && (super::find(command).is_none() || SHELL_ONLY.contains(&command.as_str())) {
        ctx.err(format!("env: {}: No such file or directory\n", gnu_quote(command)));
        return 127;
    }
    let old_dir = match chdir {
        Some(dir) => {
            let old = ctx.sys().cwd();
            if let Err(e) = ctx.sys().chdir(dir) {
                ctx.err(format!("env: cannot change directory to {}: {}\n", gnu_quote(dir), e.describe()));
                return CANCELED;
            }
            Some(old)
        }
        None => None,
    };
    let saved = save(ctx.state());
    apply(ctx.state(), clear, &unset, &assign);
    let status = ctx.exec(rest, None);
    restore(ctx.state(), saved);
    if let Some(old) = old_dir {
        let _ = ctx.sys().chdir(&old);
    }
    status
}
