//! The awk grammar: a recursive-descent parser producing the program's
//! tree, then a pass deciding which variables are arrays (through function
//! parameters too) and checking what the grammar cannot.

use std::collections::HashMap;
use std::rc::Rc;

use super::lexer::{Bi, Tok, Token};
use super::regex::Re;
use super::value::Str;

// The special variables, at fixed global slots.
pub const NF: usize = 0;
pub const NR: usize = 1;
pub const FNR: usize = 2;
pub const FS: usize = 3;
pub const OFS: usize = 4;
pub const ORS: usize = 5;
pub const RS: usize = 6;
pub const FILENAME: usize = 7;
pub const SUBSEP: usize = 8;
pub const RSTART: usize = 9;
pub const RLENGTH: usize = 10;
pub const CONVFMT: usize = 11;
pub const OFMT: usize = 12;
pub const ENVIRON: usize = 13;
pub const ARGC: usize = 14;
pub const ARGV: usize = 15;
pub const NUM_SPECIAL: usize = 16;

const SPECIAL_NAMES: [&str; NUM_SPECIAL] = [
    "NF", "NR", "FNR", "FS", "OFS", "ORS", "RS", "FILENAME", "SUBSEP", "RSTART", "RLENGTH", "CONVFMT",
    "OFMT", "ENVIRON", "ARGC", "ARGV",
];

/// How deeply expressions and statements may nest.
const MAX_NESTING: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarRef {
    Global(usize),
    Local(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redir {
    Truncate,
    Append,
    Pipe,
}

#[derive(Debug)]
pub enum GetSrc {
    Main,
    File(Box<Expr>),
    Cmd(Box<Expr>),
}

#[derive(Debug)]
pub enum Expr {
    Num(f64),
    Str(Str),
    /// A regular expression literal: `$0 ~ /re/` unless an operand of `~`
    /// or of a function taking a regular expression.
    Regex(usize),
    Var(VarRef),
    Field(Box<Expr>),
    Index(VarRef, Vec<Expr>),
    In(Vec<Expr>, VarRef),
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Pos(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Match(bool, Box<Expr>, Box<Expr>),
    Concat(Vec<Expr>),
    /// Pre (true) or post; increment (true) or decrement.
    IncDec(bool, bool, Box<Expr>),
    Call(usize, Vec<Expr>),
    Builtin(Bi, Vec<Expr>),
    Getline(GetSrc, Option<Box<Expr>>),
    Group(Box<Expr>),
}

#[derive(Debug)]
pub struct Stmt {
    pub line: usize,
    pub kind: StmtKind,
}

#[derive(Debug)]
pub enum StmtKind {
    Expr(Expr),
    Print(Vec<Expr>, Option<(Redir, Expr)>),
    Printf(Vec<Expr>, Option<(Redir, Expr)>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Do(Box<Stmt>, Expr),
    For(Option<Expr>, Option<Expr>, Option<Expr>, Box<Stmt>),
    ForIn(VarRef, VarRef, Box<Stmt>),
    Block(Vec<Stmt>),
    Next,
    Nextfile,
    Exit(Option<Expr>),
    Return(Option<Expr>),
    Break,
    Continue,
    Delete(VarRef, Option<Vec<Expr>>),
    Empty,
}

#[derive(Debug)]
pub enum Pattern {
    All,
    Expr(Expr),
    Range(Expr, Expr),
}

#[derive(Debug)]
pub struct Rule {
    pub pattern: Pattern,
    pub action: Option<Vec<Stmt>>,
}

#[derive(Debug)]
pub struct Func {
    pub name: String,
    pub params: Vec<String>,
    pub nparams: usize,
    /// Which parameters are arrays.
    pub arrays: Vec<bool>,
    pub body: Vec<Stmt>,
}

#[derive(Debug)]
pub struct Program {
    pub begin: Vec<Vec<Stmt>>,
    pub end: Vec<Vec<Stmt>>,
    pub rules: Vec<Rule>,
    pub funcs: Vec<Func>,
    pub global_names: Vec<String>,
    pub global_arrays: Vec<bool>,
    pub regexes: Vec<Rc<Re>>,
}

impl Program {
    pub fn global(&self, name: &str) -> Option<usize> {
        self.global_names.iter().position(|n| n == name)
    }
}

/// A compile error: one or more `(line, message)` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub Vec<(usize, String)>);

type PResult<T> = Result<T, ParseError>;

fn err<T>(line: usize, msg: impl Into<String>) -> PResult<T> {
    Err(ParseError(vec![(line, msg.into())]))
}

const NO_GT: u8 = 1;
const NO_IN: u8 = 2;

struct FuncSlot {
    name: String,
    def: Option<Func>,
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    globals: HashMap<String, usize>,
    global_names: Vec<String>,
    funcs: HashMap<String, usize>,
    func_slots: Vec<FuncSlot>,
    locals: Option<HashMap<String, usize>>,
    loop_depth: usize,
    in_begin_end: bool,
    regexes: Vec<Rc<Re>>,
    nesting: usize,
}

pub fn parse(toks: Vec<Token>) -> PResult<Program> {
    let mut globals = HashMap::new();
    let mut global_names = Vec::new();
    for (i, n) in SPECIAL_NAMES.iter().enumerate() {
        globals.insert(n.to_string(), i);
        global_names.push(n.to_string());
    }
    let mut p = Parser {
        toks,
        pos: 0,
        globals,
        global_names,
        funcs: HashMap::new(),
        func_slots: Vec::new(),
        locals: None,
        loop_depth: 0,
        in_begin_end: false,
        regexes: Vec::new(),
        nesting: 0,
    };
    let mut prog = Program {
        begin: Vec::new(),
        end: Vec::new(),
        rules: Vec::new(),
        funcs: Vec::new(),
        global_names: Vec::new(),
        global_arrays: Vec::new(),
        regexes: Vec::new(),
    };
    p.program(&mut prog)?;
    let eof_line = p.toks.last().map_or(1, |t| t.line);
    let mut funcs = Vec::new();
    for slot in std::mem::take(&mut p.func_slots) {
        match slot.def {
            Some(f) => funcs.push(f),
            None => return err(eof_line, format!("function {} never defined", slot.name)),
        }
    }
    prog.funcs = funcs;
    prog.global_names = std::mem::take(&mut p.global_names);
    prog.regexes = std::mem::take(&mut p.regexes);
    super::analyze::analyze(&mut prog)?;
    Ok(prog)
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.pos).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> &Tok {
        self.toks.get(self.pos + k).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn line(&self) -> usize {
        self.toks.get(self.pos).or(self.toks.last()).map_or(1, |t| t.line)
    }

    fn advance(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn syntax_error<T>(&self) -> PResult<T> {
        let t = self.peek();
        if *t == Tok::Eof {
            return err(self.line(), "missing } near end of file");
        }
        err(self.line(), format!("syntax error at or near {}", t.describe()))
    }

    fn expect(&mut self, t: Tok) -> PResult<()> {
        if *self.peek() == t {
            self.advance();
            Ok(())
        } else if t == Tok::RParen {
            let near = self.peek().describe();
            err(self.line(), format!("missing ) near {near}"))
        } else {
            self.syntax_error()
        }
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.advance();
        }
    }

    fn skip_terminators(&mut self) {
        while matches!(self.peek(), Tok::Newline | Tok::Semi) {
            self.advance();
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return err(self.line(), "program too deeply nested");
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    fn global(&mut self, name: &str) -> usize {
        if let Some(&i) = self.globals.get(name) {
            return i;
        }
        let i = self.global_names.len();
        self.globals.insert(name.to_string(), i);
        self.global_names.push(name.to_string());
        i
    }

    fn var(&mut self, name: &str) -> PResult<VarRef> {
        if let Some(locals) = &self.locals {
            if let Some(&i) = locals.get(name) {
                return Ok(VarRef::Local(i));
            }
        }
        if self.funcs.contains_key(name) {
            return self.syntax_error();
        }
        Ok(VarRef::Global(self.global(name)))
    }

    fn func_slot(&mut self, name: &str) -> usize {
        if let Some(&i) = self.funcs.get(name) {
            return i;
        }
        let i = self.func_slots.len();
        self.funcs.insert(name.to_string(), i);
        self.func_slots.push(FuncSlot { name: name.to_string(), def: None });
        i
    }

    fn regex(&mut self, src: &[u8], line: usize) -> PResult<usize> {
        match Re::new(src) {
            Ok(re) => {
                self.regexes.push(Rc::new(re));
                Ok(self.regexes.len() - 1)
            }
            Err(msg) => err(
                line,
                format!("regular expression compile failed ({msg})\n{}", String::from_utf8_lossy(src)),
            ),
        }
    }

    // ----- program structure -----

    fn program(&mut self, prog: &mut Program) -> PResult<()> {
        loop {
            self.skip_terminators();
            let line = self.line();
            match self.peek().clone() {
                Tok::Eof => return Ok(()),
                Tok::Function => self.function()?,
                Tok::Begin => {
                    self.advance();
                    if *self.peek() != Tok::LBrace {
                        return self.syntax_error();
                    }
                    self.in_begin_end = true;
                    let body = self.block()?;
                    self.in_begin_end = false;
                    prog.begin.push(body);
                }
                Tok::End => {
                    self.advance();
                    if *self.peek() != Tok::LBrace {
                        return self.syntax_error();
                    }
                    self.in_begin_end = true;
                    let body = self.block()?;
                    self.in_begin_end = false;
                    prog.end.push(body);
                }
                Tok::LBrace => {
                    let body = self.block()?;
                    prog.rules.push(Rule { pattern: Pattern::All, action: Some(body) });
                }
                Tok::RBrace => {
                    self.advance();
                    let near = match self.peek() {
                        Tok::Eof => "end of line".to_string(),
                        t => t.describe(),
                    };
                    return Err(ParseError(vec![
                        (line, "extra '}'".to_string()),
                        (line, format!("syntax error at or near {near}")),
                    ]));
                }
                _ => {
                    let first = self.expr(0)?;
                    let pattern = if *self.peek() == Tok::Comma {
                        self.advance();
                        self.skip_newlines();
                        let second = self.expr(0)?;
                        Pattern::Range(first, second)
                    } else {
                        Pattern::Expr(first)
                    };
                    let action = if *self.peek() == Tok::LBrace { Some(self.block()?) } else { None };
                    if action.is_none() && !matches!(self.peek(), Tok::Newline | Tok::Semi | Tok::Eof) {
                        return self.syntax_error();
                    }
                    prog.rules.push(Rule { pattern, action });
                }
            }
        }
    }

    fn function(&mut self) -> PResult<()> {
        let line = self.line();
        self.advance();
        let name = match self.advance() {
            Tok::Name(n) | Tok::FuncName(n) => n,
            _ => {
                self.pos -= 1;
                return self.syntax_error();
            }
        };
        if self.globals.contains_key(&name) {
            return err(line, format!("syntax error at or near {name}"));
        }
        let slot = self.func_slot(&name);
        if self.func_slots[slot].def.is_some() {
            return err(line, format!("function {name} redefined"));
        }
        self.expect(Tok::LParen)?;
        let mut params: HashMap<String, usize> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut count = 0;
        if *self.peek() != Tok::RParen {
            loop {
                self.skip_newlines();
                let pline = self.line();
                match self.advance() {
                    Tok::Name(p) => {
                        if params.contains_key(&p) {
                            return err(pline, format!("{p} is duplicated in argument list"));
                        }
                        if self.funcs.contains_key(&p) {
                            return err(pline, format!("syntax error at or near {p}"));
                        }
                        params.insert(p.clone(), count);
                        names.push(p);
                        count += 1;
                    }
                    _ => {
                        self.pos -= 1;
                        return self.syntax_error();
                    }
                }
                self.skip_newlines();
                if *self.peek() == Tok::Comma {
                    self.advance();
                    continue;
                }
                break;
            }
        }
        self.expect(Tok::RParen)?;
        self.skip_newlines();
        if *self.peek() != Tok::LBrace {
            return self.syntax_error();
        }
        self.locals = Some(params);
        // mawk allows `next` only in rules.
        self.in_begin_end = true;
        let body = self.block();
        self.in_begin_end = false;
        self.locals = None;
        let body = body?;
        self.func_slots[slot].def =
            Some(Func { name, params: names, nparams: count, arrays: vec![false; count], body });
        Ok(())
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.expect(Tok::LBrace)?;
        self.enter()?;
        let mut out = Vec::new();
        loop {
            self.skip_terminators();
            match self.peek() {
                Tok::RBrace => {
                    self.advance();
                    break;
                }
                Tok::Eof => return err(self.line(), "missing } near end of file"),
                _ => out.push(self.stmt()?),
            }
        }
        self.leave();
        Ok(out)
    }

    // ----- statements -----

    /// The end of a simple statement: `;`, a newline, or a `}` or the end
    /// of the program that follows.
    fn end_simple(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Semi | Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::RBrace | Tok::Eof => Ok(()),
            Tok::RParen => err(self.line(), "extra ')'"),
            _ => self.syntax_error(),
        }
    }

    fn body(&mut self) -> PResult<Stmt> {
        if *self.peek() == Tok::Semi {
            let line = self.line();
            self.advance();
            return Ok(Stmt { line, kind: StmtKind::Empty });
        }
        self.skip_newlines();
        self.stmt()
    }

    fn loop_body(&mut self) -> PResult<Stmt> {
        self.loop_depth += 1;
        let b = self.body();
        self.loop_depth -= 1;
        b
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let s = self.stmt_inner();
        self.leave();
        s
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let line = self.line();
        let kind = match self.peek().clone() {
            Tok::LBrace => StmtKind::Block(self.block()?),
            Tok::Semi => {
                self.advance();
                StmtKind::Empty
            }
            Tok::If => {
                self.advance();
                self.expect(Tok::LParen)?;
                let cond = self.expr(0)?;
                self.expect(Tok::RParen)?;
                let then = self.body()?;
                let save = self.pos;
                self.skip_newlines();
                let els = if *self.peek() == Tok::Else {
                    self.advance();
                    self.skip_newlines();
                    Some(Box::new(self.stmt()?))
                } else {
                    self.pos = save;
                    None
                };
                StmtKind::If(cond, Box::new(then), els)
            }
            Tok::While => {
                self.advance();
                self.expect(Tok::LParen)?;
                let cond = self.expr(0)?;
                self.expect(Tok::RParen)?;
                let body = self.loop_body()?;
                StmtKind::While(cond, Box::new(body))
            }
            Tok::Do => {
                self.advance();
                self.skip_newlines();
                self.loop_depth += 1;
                let body = self.stmt();
                self.loop_depth -= 1;
                let body = body?;
                self.skip_terminators();
                if *self.peek() != Tok::While {
                    return self.syntax_error();
                }
                self.advance();
                self.expect(Tok::LParen)?;
                let cond = self.expr(0)?;
                self.expect(Tok::RParen)?;
                self.end_simple()?;
                StmtKind::Do(Box::new(body), cond)
            }
            Tok::For => {
                self.advance();
                self.expect(Tok::LParen)?;
                if let (Tok::Name(k), Tok::In, Tok::Name(a), Tok::RParen) = (
                    self.peek_at(0).clone(),
                    self.peek_at(1).clone(),
                    self.peek_at(2).clone(),
                    self.peek_at(3).clone(),
                ) {
                    self.pos += 4;
                    let kv = self.var(&k)?;
                    let av = self.var(&a)?;
                    let body = self.loop_body()?;
                    StmtKind::ForIn(kv, av, Box::new(body))
                } else {
                    let init = if *self.peek() == Tok::Semi { None } else { Some(self.expr(0)?) };
                    self.expect(Tok::Semi)?;
                    self.skip_newlines();
                    let cond = if *self.peek() == Tok::Semi { None } else { Some(self.expr(0)?) };
                    self.expect(Tok::Semi)?;
                    self.skip_newlines();
                    let incr = if *self.peek() == Tok::RParen { None } else { Some(self.expr(0)?) };
                    self.expect(Tok::RParen)?;
                    let body = self.loop_body()?;
                    StmtKind::For(init, cond, incr, Box::new(body))
                }
            }
            _ => {
                let k = self.simple_stmt()?;
                self.end_simple()?;
                k
            }
        };
        Ok(Stmt { line, kind })
    }

    fn at_terminator(&self) -> bool {
        matches!(self.peek(), Tok::Semi | Tok::Newline | Tok::RBrace | Tok::Eof)
    }

    fn simple_stmt(&mut self) -> PResult<StmtKind> {
        let line = self.line();
        match self.peek().clone() {
            Tok::Print | Tok::Printf => {
                let is_printf = *self.peek() == Tok::Printf;
                self.advance();
                let args = match self.paren_list() {
                    Some(list) => list,
                    None if self.at_terminator()
                        || matches!(self.peek(), Tok::Gt | Tok::Append | Tok::Pipe) =>
                    {
                        Vec::new()
                    }
                    None => self.expr_list(NO_GT)?,
                };
                let dest = match self.peek() {
                    Tok::Gt => Some(Redir::Truncate),
                    Tok::Append => Some(Redir::Append),
                    Tok::Pipe => Some(Redir::Pipe),
                    _ => None,
                };
                let dest = match dest {
                    Some(r) => {
                        self.advance();
                        Some((r, self.ternary(0)?))
                    }
                    None => None,
                };
                if is_printf {
                    if args.is_empty() {
                        return err(line, "no arguments in call to printf");
                    }
                    Ok(StmtKind::Printf(args, dest))
                } else {
                    Ok(StmtKind::Print(args, dest))
                }
            }
            Tok::Delete => {
                self.advance();
                let name = match self.advance() {
                    Tok::Name(n) => n,
                    _ => {
                        self.pos -= 1;
                        return self.syntax_error();
                    }
                };
                let v = self.var(&name)?;
                if *self.peek() == Tok::LBracket {
                    self.advance();
                    let subs = self.expr_list(0)?;
                    self.expect(Tok::RBracket)?;
                    Ok(StmtKind::Delete(v, Some(subs)))
                } else {
                    Ok(StmtKind::Delete(v, None))
                }
            }
            Tok::Next | Tok::Nextfile => {
                let t = self.advance();
                if self.in_begin_end {
                    return err(line, format!("improper use of {}", t.describe()));
                }
                Ok(if t == Tok::Next { StmtKind::Next } else { StmtKind::Nextfile })
            }
            Tok::Exit => {
                self.advance();
                let e = if self.at_terminator() { None } else { Some(self.expr(0)?) };
                Ok(StmtKind::Exit(e))
            }
            Tok::Return => {
                self.advance();
                if self.locals.is_none() {
                    return err(line, "return outside function body");
                }
                let e = if self.at_terminator() { None } else { Some(self.expr(0)?) };
                Ok(StmtKind::Return(e))
            }
            Tok::Break | Tok::Continue => {
                let t = self.advance();
                if self.loop_depth == 0 {
                    return err(line, format!("{} statement outside of loop", t.describe()));
                }
                Ok(if t == Tok::Break { StmtKind::Break } else { StmtKind::Continue })
            }
            _ => Ok(StmtKind::Expr(self.expr(0)?)),
        }
    }

    /// `print (a, b) > f`: a parenthesised list followed by the end of the
    /// statement or a redirection. Anything else is left for the
    /// expression parser (`print (a)(b)`, `print (1+2)*3`).
    fn paren_list(&mut self) -> Option<Vec<Expr>> {
        if *self.peek() != Tok::LParen {
            return None;
        }
        let save = self.pos;
        let nesting = self.nesting;
        self.advance();
        let list = self.expr_list(0).ok();
        self.nesting = nesting;
        if let Some(list) = list {
            if *self.peek() == Tok::RParen {
                self.advance();
                if self.at_terminator() || matches!(self.peek(), Tok::Gt | Tok::Append | Tok::Pipe) {
                    return Some(list);
                }
            }
        }
        self.pos = save;
        None
    }

    fn expr_list(&mut self, fl: u8) -> PResult<Vec<Expr>> {
        let mut out = vec![self.expr(fl)?];
        while *self.peek() == Tok::Comma {
            self.advance();
            self.skip_newlines();
            out.push(self.expr(fl)?);
        }
        Ok(out)
    }

    // ----- expressions -----

    fn expr(&mut self, fl: u8) -> PResult<Expr> {
        self.enter()?;
        let r = self.expr_inner(fl);
        self.leave();
        r
    }

    fn expr_inner(&mut self, fl: u8) -> PResult<Expr> {
        let lhs = self.ternary(fl)?;
        let op = match self.peek() {
            Tok::Assign => None,
            Tok::AddAssign => Some(BinOp::Add),
            Tok::SubAssign => Some(BinOp::Sub),
            Tok::MulAssign => Some(BinOp::Mul),
            Tok::DivAssign => Some(BinOp::Div),
            Tok::ModAssign => Some(BinOp::Mod),
            Tok::PowAssign => Some(BinOp::Pow),
            _ => return Ok(lhs),
        };
        if !is_lvalue(&lhs) {
            return self.syntax_error();
        }
        self.advance();
        self.skip_newlines();
        let rhs = self.expr(fl)?;
        Ok(Expr::Assign(op, Box::new(lhs), Box::new(rhs)))
    }

    fn ternary(&mut self, fl: u8) -> PResult<Expr> {
        let cond = self.or(fl)?;
        if *self.peek() != Tok::Question {
            return Ok(cond);
        }
        self.advance();
        self.skip_newlines();
        let a = self.expr(fl)?;
        self.skip_newlines();
        if *self.peek() != Tok::Colon {
            return self.syntax_error();
        }
        self.advance();
        self.skip_newlines();
        let b = self.expr(fl)?;
        Ok(Expr::Cond(Box::new(cond), Box::new(a), Box::new(b)))
    }

    fn or(&mut self, fl: u8) -> PResult<Expr> {
        let mut lhs = self.and(fl)?;
        while *self.peek() == Tok::Or {
            self.advance();
            self.skip_newlines();
            let rhs = self.and(fl)?;
            lhs = Expr::Or(Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn and(&mut self, fl: u8) -> PResult<Expr> {
        let mut lhs = self.in_expr(fl)?;
        while *self.peek() == Tok::And {
            self.advance();
            self.skip_newlines();
            let rhs = self.in_expr(fl)?;
            lhs = Expr::And(Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn in_expr(&mut self, fl: u8) -> PResult<Expr> {
        let mut lhs = self.match_expr(fl)?;
        while fl & NO_IN == 0 && *self.peek() == Tok::In {
            self.advance();
            let name = match self.advance() {
                Tok::Name(n) => n,
                _ => {
                    self.pos -= 1;
                    return self.syntax_error();
                }
            };
            let arr = self.var(&name)?;
            let subs = match lhs {
                Expr::Group(inner) => vec![*inner],
                other => vec![other],
            };
            lhs = Expr::In(subs, arr);
        }
        Ok(lhs)
    }

    fn match_expr(&mut self, fl: u8) -> PResult<Expr> {
        let mut lhs = self.cmp(fl)?;
        loop {
            let neg = match self.peek() {
                Tok::Tilde => false,
                Tok::NoMatch => true,
                _ => return Ok(lhs),
            };
            self.advance();
            let rhs = self.cmp(fl)?;
            lhs = Expr::Match(neg, Box::new(lhs), Box::new(rhs));
        }
    }

    fn cmp(&mut self, fl: u8) -> PResult<Expr> {
        let mut lhs = self.concat(fl)?;
        loop {
            if *self.peek() == Tok::Pipe && *self.peek_at(1) == Tok::Getline {
                self.advance();
                self.advance();
                let var = self.getline_var()?;
                lhs = Expr::Getline(GetSrc::Cmd(Box::new(lhs)), var);
                continue;
            }
            let op = match self.peek() {
                Tok::Lt => CmpOp::Lt,
                Tok::Le => CmpOp::Le,
                Tok::Gt if fl & NO_GT == 0 => CmpOp::Gt,
                Tok::Ge => CmpOp::Ge,
                Tok::Eq => CmpOp::Eq,
                Tok::Ne => CmpOp::Ne,
                _ => return Ok(lhs),
            };
            self.advance();
            let rhs = self.concat(fl)?;
            lhs = Expr::Cmp(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn concat(&mut self, fl: u8) -> PResult<Expr> {
        let first = self.additive(fl)?;
        let mut parts = vec![first];
        while matches!(
            self.peek(),
            Tok::Number(_)
                | Tok::Str(_)
                | Tok::Ere(_)
                | Tok::Name(_)
                | Tok::FuncName(_)
                | Tok::Builtin(_)
                | Tok::Dollar
                | Tok::LParen
                | Tok::Incr
                | Tok::Decr
        ) {
            // `x in a` is not a concatenation of `x` and `in`.
            parts.push(self.additive(fl)?);
        }
        if parts.len() == 1 {
            Ok(parts.pop().unwrap_or(Expr::Num(0.0)))
        } else {
            Ok(Expr::Concat(parts))
        }
    }

    fn additive(&mut self, fl: u8) -> PResult<Expr> {
        let mut lhs = self.mul(fl)?;
        loop {
            let op = match self.peek() {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                _ => return Ok(lhs),
            };
            self.advance();
            let rhs = self.mul(fl)?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn mul(&mut self, fl: u8) -> PResult<Expr> {
        let mut lhs = self.unary(fl)?;
        loop {
            let op = match self.peek() {
                Tok::Star => BinOp::Mul,
                Tok::Slash => BinOp::Div,
                Tok::Percent => BinOp::Mod,
                _ => return Ok(lhs),
            };
            self.advance();
            let rhs = self.unary(fl)?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self, fl: u8) -> PResult<Expr> {
        self.enter()?;
        let r = match self.peek() {
            Tok::Not => {
                self.advance();
                self.unary(fl).map(|e| Expr::Not(Box::new(e)))
            }
            Tok::Minus => {
                self.advance();
                self.unary(fl).map(|e| Expr::Neg(Box::new(e)))
            }
            Tok::Plus => {
                self.advance();
                self.unary(fl).map(|e| Expr::Pos(Box::new(e)))
            }
            _ => self.power(fl),
        };
        self.leave();
        r
    }

    fn power(&mut self, fl: u8) -> PResult<Expr> {
        let base = self.postfix(fl)?;
        if *self.peek() != Tok::Caret {
            return Ok(base);
        }
        self.advance();
        // Right associative, and the exponent may have a sign.
        let exp = self.unary(fl)?;
        Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exp)))
    }

    fn postfix(&mut self, fl: u8) -> PResult<Expr> {
        let e = self.primary(fl)?;
        if is_lvalue(&e) {
            match self.peek() {
                Tok::Incr => {
                    self.advance();
                    return Ok(Expr::IncDec(false, true, Box::new(e)));
                }
                Tok::Decr => {
                    self.advance();
                    return Ok(Expr::IncDec(false, false, Box::new(e)));
                }
                _ => {}
            }
        }
        Ok(e)
    }

    fn name_ref(&mut self, name: &str) -> PResult<Expr> {
        let v = self.var(name)?;
        if *self.peek() == Tok::LBracket {
            self.advance();
            let subs = self.expr_list(0)?;
            if *self.peek() != Tok::RBracket {
                return self.syntax_error();
            }
            self.advance();
            Ok(Expr::Index(v, subs))
        } else {
            Ok(Expr::Var(v))
        }
    }

    /// The operand of `$`: a primary, or a prefix increment/sign.
    fn field_operand(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = match self.peek() {
            Tok::Incr | Tok::Decr => self.primary(0),
            Tok::Minus => {
                self.advance();
                self.field_operand().map(|e| Expr::Neg(Box::new(e)))
            }
            Tok::Plus => {
                self.advance();
                self.field_operand().map(|e| Expr::Pos(Box::new(e)))
            }
            Tok::Not => {
                self.advance();
                self.field_operand().map(|e| Expr::Not(Box::new(e)))
            }
            _ => self.primary(0),
        };
        self.leave();
        r
    }

    /// An optional variable after `getline`.
    fn getline_var(&mut self) -> PResult<Option<Box<Expr>>> {
        match self.peek().clone() {
            Tok::Dollar => {
                self.advance();
                let e = self.field_operand()?;
                Ok(Some(Box::new(Expr::Field(Box::new(e)))))
            }
            Tok::Name(n) => {
                self.advance();
                Ok(Some(Box::new(self.name_ref(&n)?)))
            }
            _ => Ok(None),
        }
    }

    fn primary(&mut self, _fl: u8) -> PResult<Expr> {
        self.enter()?;
        let r = self.primary_inner();
        self.leave();
        r
    }

    fn primary_inner(&mut self) -> PResult<Expr> {
        let line = self.line();
        match self.advance() {
            Tok::Number(n) => Ok(Expr::Num(n)),
            Tok::Str(s) => Ok(Expr::Str(Rc::from(s))),
            Tok::Ere(s) => Ok(Expr::Regex(self.regex(&s, line)?)),
            Tok::LParen => {
                let first = self.expr(0)?;
                if *self.peek() == Tok::Comma {
                    let mut list = vec![first];
                    while *self.peek() == Tok::Comma {
                        self.advance();
                        self.skip_newlines();
                        list.push(self.expr(0)?);
                    }
                    self.expect(Tok::RParen)?;
                    if *self.peek() != Tok::In {
                        return self.syntax_error();
                    }
                    self.advance();
                    let name = match self.advance() {
                        Tok::Name(n) => n,
                        _ => {
                            self.pos -= 1;
                            return self.syntax_error();
                        }
                    };
                    let arr = self.var(&name)?;
                    return Ok(Expr::In(list, arr));
                }
                self.expect(Tok::RParen)?;
                Ok(Expr::Group(Box::new(first)))
            }
            Tok::Dollar => {
                let e = self.field_operand()?;
                Ok(Expr::Field(Box::new(e)))
            }
            t @ (Tok::Incr | Tok::Decr) => {
                let target = match self.peek().clone() {
                    Tok::Dollar => {
                        self.advance();
                        Expr::Field(Box::new(self.field_operand()?))
                    }
                    Tok::Name(n) => {
                        self.advance();
                        self.name_ref(&n)?
                    }
                    _ => return self.syntax_error(),
                };
                Ok(Expr::IncDec(true, t == Tok::Incr, Box::new(target)))
            }
            Tok::Minus => self.unary(0).map(|e| Expr::Neg(Box::new(e))),
            Tok::Plus => self.unary(0).map(|e| Expr::Pos(Box::new(e))),
            Tok::Not => self.unary(0).map(|e| Expr::Not(Box::new(e))),
            Tok::Name(n) => self.name_ref(&n),
            Tok::FuncName(n) => {
                if self.locals.as_ref().is_some_and(|l| l.contains_key(&n)) || self.globals.contains_key(&n) {
                    // A variable followed by a parenthesised expression.
                    return self.name_ref(&n);
                }
                let f = self.func_slot(&n);
                self.expect(Tok::LParen)?;
                let args = self.call_args()?;
                Ok(Expr::Call(f, args))
            }
            Tok::Builtin(b) => self.builtin(b, line),
            Tok::Getline => {
                let var = self.getline_var()?;
                if *self.peek() == Tok::Lt {
                    self.advance();
                    let file = self.primary(0)?;
                    Ok(Expr::Getline(GetSrc::File(Box::new(file)), var))
                } else {
                    Ok(Expr::Getline(GetSrc::Main, var))
                }
            }
            _ => {
                self.pos -= 1;
                self.syntax_error()
            }
        }
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        self.skip_newlines();
        if *self.peek() == Tok::RParen {
            self.advance();
            return Ok(args);
        }
        if matches!(self.peek(), Tok::RBrace | Tok::Semi | Tok::Eof) {
            let near = self.peek().describe();
            return err(self.line(), format!("missing ) near {near}"));
        }
        loop {
            args.push(self.expr(0)?);
            self.skip_newlines();
            if *self.peek() == Tok::Comma {
                self.advance();
                self.skip_newlines();
                continue;
            }
            self.expect(Tok::RParen)?;
            return Ok(args);
        }
    }

    fn builtin(&mut self, b: Bi, line: usize) -> PResult<Expr> {
        if b == Bi::Length && *self.peek() != Tok::LParen {
            return Ok(Expr::Builtin(b, Vec::new()));
        }
        if *self.peek() != Tok::LParen {
            return self.syntax_error();
        }
        self.advance();
        let args = self.call_args()?;
        let (min, max) = match b {
            Bi::Length => (0, 1),
            Bi::Substr => (2, 3),
            Bi::Index => (2, 2),
            Bi::Split => (2, 3),
            Bi::Sub | Bi::Gsub => (2, 3),
            Bi::Match => (2, 2),
            Bi::Sprintf => (1, usize::MAX),
            Bi::Sin | Bi::Cos | Bi::Exp | Bi::Log | Bi::Sqrt | Bi::Int => (1, 1),
            Bi::Atan2 => (2, 2),
            Bi::Rand => (0, 0),
            Bi::Srand => (0, 1),
            Bi::Tolower | Bi::Toupper => (1, 1),
            Bi::System | Bi::Close => (1, 1),
            Bi::Fflush => (0, 1),
        };
        if args.len() < min || args.len() > max {
            return err(line, format!("wrong number of arguments in call to {}", b.name()));
        }
        if b == Bi::Split && !matches!(args.get(1), Some(Expr::Var(_))) {
            return err(line, "syntax error at or near )");
        }
        if matches!(b, Bi::Sub | Bi::Gsub) && args.get(2).is_some_and(|e| !is_lvalue(e)) {
            return err(line, format!("syntax error at or near {}", b.name()));
        }
        Ok(Expr::Builtin(b, args))
    }
}

pub fn is_lvalue(e: &Expr) -> bool {
    matches!(e, Expr::Var(_) | Expr::Field(_) | Expr::Index(..))
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn parses(src: &str) -> Result<Program, ParseError> {
        let mut s = src.as_bytes().to_vec();
        s.push(b'\n');
        let toks = lex(&s).map_err(|e| ParseError(vec![(e.line, e.message)]))?;
        parse(toks)
    }

    fn error(src: &str) -> String {
        match parses(src) {
            Ok(_) => "ok".to_string(),
            Err(ParseError(lines)) => {
                lines.iter().map(|(l, m)| format!("{l}: {m}")).collect::<Vec<_>>().join("; ")
            }
        }
    }

    #[test]
    fn accepts_common_programs() {
        for p in [
            "{ print $1, $2 > \"out\" }",
            "NR==1, /end/ { n++ } END { print n }",
            "function f(a, b) { return a + b } BEGIN { print f(1, 2) }",
            "BEGIN { if (x) print 1; else print 2 }",
            "{ a[$1] += $2 } END { for (k in a) print k, a[k] }",
            "BEGIN { while ((getline line < \"f\") > 0) n++ }",
            "{ print (1)(2) }",
            "BEGIN { x = y = 3; print x ? \"a\" : \"b\" }",
            "!seen[$0]++",
            "BEGIN { do x++; while (x < 3) }",
            "BEGIN { print length }",
            "BEGIN { if ((1,2) in a) print }",
            "{ $3 = \"\"; print }",
            "BEGIN { printf(\"%d\\n\", 3) > \"/dev/stderr\" }",
        ] {
            assert_eq!(error(p), "ok", "{p}");
        }
    }

    #[test]
    fn reports_errors() {
        assert_eq!(error("BEGIN{x = }"), "1: syntax error at or near }");
        assert_eq!(error("BEGIN{x=1"), "2: missing } near end of file");
        assert_eq!(error("BEGIN { next }"), "1: improper use of next");
        assert_eq!(error("BEGIN { f(1) }"), "2: function f never defined");
        assert_eq!(error("BEGIN{print 1}}"), "1: extra '}'; 1: syntax error at or near end of line");
        assert_eq!(error("BEGIN{x=1; x[1]=2}"), "1: illegal reference to variable x");
    }
}
