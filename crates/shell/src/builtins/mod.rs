//! The builtin commands: one file each, listed in [`REGISTRY`].
//!
//! A builtin is a plain function from its context and arguments to an exit
//! status. It reads standard input and writes standard output and error only
//! through [`Ctx`], touches files only through the sandbox's file system,
//! and follows GNU coreutils' behaviour and messages where agents rely on
//! them. Unknown options are an error with status 2; `--help` prints usage.

pub mod args;

mod alias;
mod awk;
mod base64;
mod basename;
mod break_;
mod builtin_;
mod cat;
mod cd;
mod chmod;
pub(crate) use chmod::UMASK;
mod colon;
mod column;
mod comm;
mod command;
pub(crate) mod common;
mod compgen;
mod complete;
pub(crate) mod compspec;
mod continue_;
mod cp;
mod cut;
mod date;
mod declare;
pub(crate) use declare::{declaration_items, value_text as declare_value_text};
mod diff;
mod dirname;
mod dirs;
mod du;
mod echo;
mod env;
mod eval;
mod exit;
mod export;
pub(crate) use export::valid_name;
mod expr;
mod false_;
mod file;
mod find;
mod fold;
mod getopts;
mod grep;
mod hash;
mod head;
mod help;
mod history;
mod jobs;
pub(crate) mod jq;
mod js;
mod kill;
mod let_;
mod ln;
mod local;
mod ls;
mod mapfile;
mod md5sum;
mod mkdir;
mod mktemp;
mod mv;
mod nl;
mod od;
mod paste;
mod printenv;
mod printf;
mod pwd;
mod read;
mod readonly;
mod realpath;
mod return_;
mod rev;
mod rm;
mod rmdir;
mod sed;
mod seq;
pub(crate) mod set;
mod sh;
mod sha256sum;
mod shift;
pub(crate) mod shopt;
mod sleep;
mod sort;
mod source;
mod split;
mod stat;
mod tac;
mod tail;
mod tee;
pub(crate) mod test;
mod times;
mod tool;
mod touch;
mod tr;
pub(crate) mod trap;
mod true_;
mod type_;
mod ulimit;
mod umask;
mod uniq;
mod unset;
mod wait;
mod wc;
mod which;
mod xargs;
mod xxd;
mod yes;

use crate::ctx::Ctx;

/// A builtin command.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    pub run: fn(&mut Ctx, &[String]) -> i32,
    /// Printed by `NAME --help`.
    pub help: &'static str,
    /// Whether a first argument `--help` prints [`Builtin::help`] (not for
    /// `echo`, `test` and the like, where it is an ordinary argument).
    pub help_flag: bool,
}

/// Every builtin, sorted by name.
pub static REGISTRY: &[Builtin] = BUILTINS;

const BUILTINS: &[Builtin] = &[
    source::DOT,
    colon::BUILTIN,
    test::BRACKET,
    alias::ALIAS,
    awk::BUILTIN,
    base64::BUILTIN,
    basename::BUILTIN,
    sh::BASH,
    jobs::BG,
    break_::BUILTIN,
    builtin_::BUILTIN,
    cat::BUILTIN,
    cd::BUILTIN,
    chmod::BUILTIN,
    column::BUILTIN,
    comm::BUILTIN,
    command::BUILTIN,
    compgen::BUILTIN,
    complete::COMPLETE,
    complete::COMPOPT,
    continue_::BUILTIN,
    cp::BUILTIN,
    cut::BUILTIN,
    date::BUILTIN,
    declare::BUILTIN,
    diff::BUILTIN,
    dirname::BUILTIN,
    dirs::DIRS,
    jobs::DISOWN,
    du::BUILTIN,
    echo::BUILTIN,
    grep::EGREP,
    env::BUILTIN,
    eval::BUILTIN,
    exit::BUILTIN,
    export::BUILTIN,
    expr::BUILTIN,
    false_::BUILTIN,
    jobs::FG,
    grep::FGREP,
    file::BUILTIN,
    find::BUILTIN,
    fold::BUILTIN,
    getopts::BUILTIN,
    grep::BUILTIN,
    hash::BUILTIN,
    head::BUILTIN,
    help::BUILTIN,
    history::BUILTIN,
    jobs::JOBS,
    jq::BUILTIN,
    js::BUILTIN,
    kill::BUILTIN,
    let_::BUILTIN,
    ln::BUILTIN,
    local::BUILTIN,
    ls::BUILTIN,
    mapfile::MAPFILE,
    md5sum::BUILTIN,
    mkdir::BUILTIN,
    mktemp::BUILTIN,
    mv::BUILTIN,
    nl::BUILTIN,
    js::NODE,
    od::BUILTIN,
    paste::BUILTIN,
    dirs::POPD,
    printenv::BUILTIN,
    printf::BUILTIN,
    dirs::PUSHD,
    pwd::BUILTIN,
    read::BUILTIN,
    mapfile::READARRAY,
    readonly::BUILTIN,
    realpath::BUILTIN,
    return_::BUILTIN,
    rev::BUILTIN,
    rm::BUILTIN,
    rmdir::BUILTIN,
    sed::BUILTIN,
    seq::BUILTIN,
    set::BUILTIN,
    sh::BUILTIN,
    sha256sum::BUILTIN,
    shift::BUILTIN,
    shopt::BUILTIN,
    sleep::BUILTIN,
    sort::BUILTIN,
    source::BUILTIN,
    split::BUILTIN,
    stat::BUILTIN,
    tac::BUILTIN,
    tail::BUILTIN,
    tee::BUILTIN,
    test::BUILTIN,
    times::BUILTIN,
    tool::BUILTIN,
    touch::BUILTIN,
    tr::BUILTIN,
    trap::BUILTIN,
    true_::BUILTIN,
    type_::BUILTIN,
    declare::TYPESET,
    ulimit::BUILTIN,
    umask::BUILTIN,
    alias::UNALIAS,
    uniq::BUILTIN,
    unset::BUILTIN,
    wait::BUILTIN,
    wc::BUILTIN,
    which::BUILTIN,
    xargs::BUILTIN,
    xxd::BUILTIN,
    yes::BUILTIN,
];

/// The builtin called `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    REGISTRY.binary_search_by(|b| b.name.cmp(name)).ok().and_then(|i| REGISTRY.get(i))
}

/// Builtins of the shell alone: not programs on a real system, so a real
/// `xargs` cannot run them.
const SHELL_ONLY: &[&str] = &[
    ".",
    ":",
    "alias",
    "break",
    "builtin",
    "cd",
    "continue",
    "declare",
    "dirs",
    "eval",
    "exit",
    "export",
    "getopts",
    "hash",
    "local",
    "popd",
    "pushd",
    "read",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "trap",
    "type",
    "typeset",
    "unalias",
    "unset",
    "let",
    "wait",
    "mapfile",
    "readarray",
    "compgen",
    "complete",
    "compopt",
    "help",
    "ulimit",
    "jobs",
    "fg",
    "bg",
    "disown",
    "times",
    "history",
];

/// Whether `xargs` or `find -exec` can run `name`: a builtin that is also
/// a program on a real system (not a shell-only builtin or a function).
pub(crate) fn runnable(name: &str) -> bool {
    find(name).is_some() && !SHELL_ONLY.contains(&name)
}

/// The names of the builtins that are programs on a real system (`cat`,
/// `jq`, `[`, …), sorted: the commands a script can run. A constant, so a
/// crate that reads it (the host's `describe()`) links no builtin's code.
pub const PROGRAMS: [&str; BUILTINS.len() - shell_only_count()] = programs();

const fn same(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.split_first(), b.split_first()) {
            (None, None) => return true,
            (Some((x, rest_a)), Some((y, rest_b))) if *x == *y => (a, b) = (rest_a, rest_b),
            _ => return false,
        }
    }
}

const fn is_shell_only(name: &str) -> bool {
    let mut rest = SHELL_ONLY;
    while let Some((first, tail)) = rest.split_first() {
        if same(first, name) {
            return true;
        }
        rest = tail;
    }
    false
}

const fn shell_only_count() -> usize {
    let (mut rest, mut count) = (BUILTINS, 0);
    while let Some((first, tail)) = rest.split_first() {
        count += is_shell_only(first.name) as usize;
        rest = tail;
    }
    count
}

// Evaluated by the compiler: an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const fn programs() -> [&'static str; BUILTINS.len() - shell_only_count()] {
    let mut out = [""; BUILTINS.len() - shell_only_count()];
    let (mut rest, mut i) = (BUILTINS, 0);
    while let Some((first, tail)) = rest.split_first() {
        if !is_shell_only(first.name) {
            out[i] = first.name;
            i += 1;
        }
        rest = tail;
    }
    out
}

/// Runs a builtin; `args` excludes the command name.
pub fn run(builtin: &Builtin, ctx: &mut Ctx, args: &[String]) -> i32 {
    if builtin.help_flag && args.first().is_some_and(|a| a == "--help") {
        let _ = ctx.out(builtin.help);
        return 0;
    }
    (builtin.run)(ctx, args)
}

pub(crate) use builtin_::is_shell_builtin;
pub(crate) use type_::{path_files, path_non_executable};

/// Prints an option-parsing error and returns status 2.
pub fn usage_error(ctx: &mut Ctx, message: &str) -> i32 {
    ctx.err(message);
    2
}

#[cfg(test)]
mod tests {
    #[test]
    fn registry_is_sorted_and_unique() {
        let names: Vec<_> = super::REGISTRY.iter().map(|b| b.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }

    #[test]
    fn programs_are_the_builtins_xargs_can_run() {
        let runnable: Vec<_> =
            super::REGISTRY.iter().map(|b| b.name).filter(|n| super::runnable(n)).collect();
        assert_eq!(super::PROGRAMS.to_vec(), runnable);
        assert!(super::PROGRAMS.contains(&"jq") && !super::PROGRAMS.contains(&"cd"));
    }
}
