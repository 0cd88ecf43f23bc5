//! The compiled program: addresses, commands, replacements.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rx {
    /// The empty regex: the last one used.
    Last,
    Idx(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Addr {
    Line(usize),
    Last,
    Re(Rx),
    Step(usize, usize),
    Zero,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Addr2 {
    Line(usize),
    Last,
    Re(Rx),
    Plus(usize),
    Tilde(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CaseOp {
    Upper,
    Lower,
    UpperOne,
    LowerOne,
    End,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Repl {
    Lit(Vec<u8>),
    Group(usize),
    Case(CaseOp),
}

#[derive(Debug)]
pub(super) struct Subst {
    pub(super) re: Rx,
    pub(super) repl: Vec<Repl>,
    pub(super) global: bool,
    pub(super) nth: usize,
    pub(super) print: bool,
    pub(super) write: Option<usize>,
    pub(super) needs_caps: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    Append,
    Insert,
    Change,
}

#[derive(Debug)]
pub(super) enum Op {
    /// `{`: the index of its `}`.
    Block(usize),
    EndBlock,
    Label,
    Subst(Box<Subst>),
    Translit(Box<[u8; 256]>),
    Text(TextKind, Vec<u8>),
    /// `b`, `t`, `T`: the target (a command index; `cmds.len()` is the end).
    Branch(u8, usize),
    Quit {
        silent: bool,
        code: i32,
    },
    List(Option<usize>),
    ReadFile(String),
    ReadLine(String),
    Write {
        file: usize,
        first_line: bool,
    },
    Simple(u8),
}

#[derive(Debug)]
pub(super) struct Cmd {
    pub(super) a1: Option<Addr>,
    pub(super) a2: Option<Addr2>,
    pub(super) negate: bool,
    pub(super) op: Op,
}

/// A compiled regex: the regex, its group count, and its variants for
/// POSIX leftmost-longest matching.
pub(super) struct SedRe {
    pub(super) re: Regex,
    pub(super) groups: usize,
    pub(super) longest: Option<posix::Longest>,
    /// A pattern with back-references: the backtracking engine (`re`
    /// then matches nothing).
    pub(super) slow: Option<fancy_regex::Regex>,
}

pub(super) struct Program {
    pub(super) cmds: Vec<Cmd>,
    pub(super) regexes: Vec<SedRe>,
    /// `w` files: their paths.
    pub(super) wfiles: Vec<String>,
    /// Raw text of `a`, `i`, `c` commands (normalized at the end).
    pub(super) raw_text: HashMap<usize, Vec<u8>>,
}
