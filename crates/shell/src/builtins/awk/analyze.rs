//! Decides which variables are arrays: from how each is used, and through
//! function calls (an argument and the parameter it is passed to are the
//! same kind), by unification. Reports mixed uses.

use super::lexer::Bi;
use super::parser::{Expr, GetSrc, ParseError, Program, Stmt, StmtKind, VarRef, ARGV, ENVIRON, NUM_SPECIAL};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unknown,
    Scalar,
    Array,
}

struct Analyzer {
    parent: Vec<usize>,
    kind: Vec<Kind>,
    names: Vec<String>,
    /// The first node of each function's parameters.
    base: Vec<usize>,
    nparams: Vec<usize>,
    func_names: Vec<String>,
}

type AResult = Result<(), ParseError>;

fn fail(line: usize, msg: String) -> AResult {
    Err(ParseError(vec![(line, msg)]))
}

impl Analyzer {
    fn find(&mut self, mut n: usize) -> usize {
        while self.parent[n] != n {
            let p = self.parent[n];
            self.parent[n] = self.parent[p];
            n = p;
        }
        n
    }

    fn node(&self, scope: Option<usize>, v: VarRef) -> usize {
        match (v, scope) {
            (VarRef::Global(i), _) => i,
            (VarRef::Local(i), Some(f)) => self.base[f] + i,
            // A local outside a function cannot be parsed.
            (VarRef::Local(i), None) => i,
        }
    }

    fn use_as(&mut self, scope: Option<usize>, v: VarRef, k: Kind, line: usize) -> AResult {
        let n = self.node(scope, v);
        let r = self.find(n);
        match self.kind[r] {
            Kind::Unknown => {
                self.kind[r] = k;
                Ok(())
            }
            have if have == k => Ok(()),
            Kind::Scalar => fail(line, format!("illegal reference to variable {}", self.names[n])),
            _ => fail(line, format!("illegal reference to array {}", self.names[n])),
        }
    }

    fn link(&mut self, a: usize, b: usize, line: usize, what: String) -> AResult {
        let ra = self.find(a);
        let rb = self.find(b);
        if ra == rb {
            return Ok(());
        }
        let k = match (self.kind[ra], self.kind[rb]) {
            (Kind::Unknown, k) | (k, Kind::Unknown) => k,
            (x, y) if x == y => x,
            _ => return fail(line, format!("type error in {what}")),
        };
        self.parent[ra] = rb;
        self.kind[rb] = k;
        Ok(())
    }

    fn stmts(&mut self, list: &[Stmt], scope: Option<usize>) -> AResult {
        for s in list {
            self.stmt(s, scope)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, scope: Option<usize>) -> AResult {
        let line = s.line;
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e, scope, line),
            StmtKind::Print(args, dest) | StmtKind::Printf(args, dest) => {
                for a in args {
                    self.expr(a, scope, line)?;
                }
                if let Some((_, d)) = dest {
                    self.expr(d, scope, line)?;
                }
                Ok(())
            }
            StmtKind::If(c, a, b) => {
                self.expr(c, scope, line)?;
                self.stmt(a, scope)?;
                if let Some(b) = b {
                    self.stmt(b, scope)?;
                }
                Ok(())
            }
            StmtKind::While(c, body) | StmtKind::Do(body, c) => {
                self.expr(c, scope, line)?;
                self.stmt(body, scope)
            }
            StmtKind::For(a, b, c, body) => {
                for e in [a, b, c].into_iter().flatten() {
                    self.expr(e, scope, line)?;
                }
                self.stmt(body, scope)
            }
            StmtKind::ForIn(k, a, body) => {
                self.use_as(scope, *k, Kind::Scalar, line)?;
                self.use_as(scope, *a, Kind::Array, line)?;
                self.stmt(body, scope)
            }
            StmtKind::Block(list) => self.stmts(list, scope),
            StmtKind::Exit(e) | StmtKind::Return(e) => match e {
                Some(e) => self.expr(e, scope, line),
                None => Ok(()),
            },
            StmtKind::Delete(v, subs) => {
                self.use_as(scope, *v, Kind::Array, line)?;
                for e in subs.iter().flatten() {
                    self.expr(e, scope, line)?;
                }
                Ok(())
            }
            StmtKind::Next | StmtKind::Nextfile | StmtKind::Break | StmtKind::Continue | StmtKind::Empty => {
                Ok(())
            }
        }
    }

    fn expr(&mut self, e: &Expr, scope: Option<usize>, line: usize) -> AResult {
        match e {
            Expr::Num(_) | Expr::Str(_) | Expr::Regex(_) => Ok(()),
            Expr::Var(v) => self.use_as(scope, *v, Kind::Scalar, line),
            Expr::Field(e) | Expr::Not(e) | Expr::Neg(e) | Expr::Pos(e) | Expr::Group(e) => {
                self.expr(e, scope, line)
            }
            Expr::IncDec(_, _, e) => self.expr(e, scope, line),
            Expr::Index(v, subs) => {
                self.use_as(scope, *v, Kind::Array, line)?;
                for s in subs {
                    self.expr(s, scope, line)?;
                }
                Ok(())
            }
            Expr::In(subs, v) => {
                self.use_as(scope, *v, Kind::Array, line)?;
                for s in subs {
                    self.expr(s, scope, line)?;
                }
                Ok(())
            }
            Expr::Assign(_, a, b)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Bin(_, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::Match(_, a, b) => {
                self.expr(a, scope, line)?;
                self.expr(b, scope, line)
            }
            Expr::Cond(a, b, c) => {
                self.expr(a, scope, line)?;
                self.expr(b, scope, line)?;
                self.expr(c, scope, line)
            }
            Expr::Concat(parts) => {
                for p in parts {
                    self.expr(p, scope, line)?;
                }
                Ok(())
            }
            Expr::Call(f, args) => {
                let f = *f;
                if args.len() > self.nparams[f] {
                    return fail(line, format!("too many arguments in call to {}", self.func_names[f]));
                }
                for (i, a) in args.iter().enumerate() {
                    match a {
                        Expr::Var(v) => {
                            let n = self.node(scope, *v);
                            let what = format!("arg({}) in call to {}", i + 1, self.func_names[f]);
                            self.link(n, self.base[f] + i, line, what)?;
                        }
                        other => {
                            self.expr(other, scope, line)?;
                            // An expression is a scalar.
                            let p = self.base[f] + i;
                            let r = self.find(p);
                            if self.kind[r] == Kind::Array {
                                return fail(
                                    line,
                                    format!("type error in arg({}) in call to {}", i + 1, self.func_names[f]),
                                );
                            }
                            self.kind[r] = Kind::Scalar;
                        }
                    }
                }
                Ok(())
            }
            Expr::Builtin(Bi::Length, args) if matches!(args.first(), Some(Expr::Var(_))) => Ok(()),
            Expr::Builtin(Bi::Split, args) => {
                for (i, a) in args.iter().enumerate() {
                    match (i, a) {
                        (1, Expr::Var(v)) => self.use_as(scope, *v, Kind::Array, line)?,
                        _ => self.expr(a, scope, line)?,
                    }
                }
                Ok(())
            }
            Expr::Builtin(_, args) => {
                for a in args {
                    self.expr(a, scope, line)?;
                }
                Ok(())
            }
            Expr::Getline(src, var) => {
                match src {
                    GetSrc::Main => {}
                    GetSrc::File(e) | GetSrc::Cmd(e) => self.expr(e, scope, line)?,
                }
                if let Some(v) = var {
                    self.expr(v, scope, line)?;
                }
                Ok(())
            }
        }
    }
}

pub fn analyze(prog: &mut Program) -> Result<(), ParseError> {
    let nglobals = prog.global_names.len();
    let mut names = prog.global_names.clone();
    let mut base = Vec::new();
    let mut nparams = Vec::new();
    let mut func_names = Vec::new();
    for f in &prog.funcs {
        if prog.global_names.contains(&f.name) {
            return fail(1, format!("syntax error at or near {}", f.name));
        }
        base.push(names.len());
        nparams.push(f.nparams);
        func_names.push(f.name.clone());
        names.extend(f.params.iter().cloned());
    }
    let total = names.len();
    let mut a = Analyzer {
        parent: (0..total).collect(),
        kind: vec![Kind::Unknown; total],
        names,
        base,
        nparams,
        func_names,
    };
    for i in 0..NUM_SPECIAL.min(nglobals) {
        a.kind[i] = if i == ENVIRON || i == ARGV { Kind::Array } else { Kind::Scalar };
    }
    // Function bodies first, so that a call passing the wrong kind is the
    // error (as in mawk, where functions usually come first).
    for (fi, f) in prog.funcs.iter().enumerate() {
        a.stmts(&f.body, Some(fi))?;
    }
    for body in prog.begin.iter().chain(prog.end.iter()) {
        a.stmts(body, None)?;
    }
    for rule in &prog.rules {
        match &rule.pattern {
            super::parser::Pattern::All => {}
            super::parser::Pattern::Expr(e) => a.expr(e, None, 1)?,
            super::parser::Pattern::Range(x, y) => {
                a.expr(x, None, 1)?;
                a.expr(y, None, 1)?;
            }
        }
        if let Some(body) = &rule.action {
            a.stmts(body, None)?;
        }
    }
    let mut global_arrays = vec![false; nglobals];
    for (i, g) in global_arrays.iter_mut().enumerate() {
        let r = a.find(i);
        *g = a.kind[r] == Kind::Array;
    }
    for fi in 0..prog.funcs.len() {
        let b = a.base[fi];
        let n = a.nparams[fi];
        let kinds: Vec<bool> = (0..n)
            .map(|i| {
                let r = a.find(b + i);
                a.kind[r] == Kind::Array
            })
            .collect();
        if let Some(f) = prog.funcs.get_mut(fi) {
            f.arrays = kinds;
        }
    }
    prog.global_arrays = global_arrays;
    Ok(())
}
