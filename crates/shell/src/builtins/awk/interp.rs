//! The tree-walking evaluator: records and fields, variables and arrays,
//! the built-in functions, input (main input and `getline`) and output
//! (standard output, files).

use std::collections::HashMap;
use std::rc::Rc;

use super::format::{self, FmtError};
use super::lexer::Bi;
use super::parser::{
    BinOp, CmpOp, Expr, GetSrc, Pattern, Program, Redir, Stmt, StmtKind, VarRef, ARGC, ARGV, CONVFMT,
    ENVIRON, FILENAME, FNR, FS, NF, NR, NUM_SPECIAL, OFMT, OFS, ORS, RLENGTH, RS, RSTART, SUBSEP,
};
use super::regex::Re;
use super::value::{is_int_like, looks_numeric, Str, Value};
use crate::ctx::Ctx;
use crate::system::WriteMode;

/// The longest string an expression may build.
pub const MAX_STRING: usize = 64 * 1024 * 1024;
/// How deeply user functions may call each other.
pub const MAX_CALL_DEPTH: usize = 1000;
/// How deeply statements and expressions may be executing inside each
/// other (across function calls): a proxy for the stack they use, which
/// in the sandbox is 1 MiB (measured: 150 to 250 bytes per level in an
/// optimised wasm build).
const MAX_NEST: usize = 2500;
/// How much native stack recursion through user functions may use (a
/// guard for unoptimised builds, where frames are large).
const STACK_BUDGET: usize = 1024 * 1024;
/// The most fields a record may get by assignment.
const MAX_FIELDS: usize = 1_000_000;
/// The most elements one array may hold.
const MAX_ELEMENTS: usize = 20_000_000;
/// Output is buffered up to this size.
const OUT_BUFFER: usize = 64 * 1024;
const REGEX_CACHE: usize = 256;

/// Why evaluation stopped early.
pub enum Ctl {
    Next,
    NextFile,
    Exit,
    /// A fatal error: the full text to print on standard error.
    Error(String),
    /// Standard output was closed.
    Closed,
}

enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

type R<T> = Result<T, Ctl>;

#[derive(Clone)]
enum Cell {
    Val(Value),
    Arr(usize),
}

/// An associative array keeping insertion order.
#[derive(Default)]
pub struct Array {
    index: HashMap<Str, usize>,
    slots: Vec<Option<(Str, Value)>>,
    live: usize,
}

impl Array {
    fn get(&self, k: &[u8]) -> Option<&Value> {
        self.index.get(k).and_then(|&i| self.slots.get(i)).and_then(|s| s.as_ref()).map(|(_, v)| v)
    }

    fn contains(&self, k: &[u8]) -> bool {
        self.index.contains_key(k)
    }

    fn slot_mut(&mut self, k: Str) -> Result<&mut Value, ()> {
        let i = match self.index.get(&k) {
            Some(&i) => i,
            None => {
                if self.live >= MAX_ELEMENTS {
                    return Err(());
                }
                let i = self.slots.len();
                self.slots.push(Some((k.clone(), Value::Uninit)));
                self.index.insert(k, i);
                self.live += 1;
                i
            }
        };
        match self.slots.get_mut(i) {
            Some(Some((_, v))) => Ok(v),
            _ => Err(()),
        }
    }

    fn remove(&mut self, k: &[u8]) {
        if let Some(i) = self.index.remove(k) {
            if let Some(s) = self.slots.get_mut(i) {
                *s = None;
            }
            self.live -= 1;
            if self.slots.len() > 32 && self.live < self.slots.len() / 2 {
                self.compact();
            }
        }
    }

    fn compact(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.index.clear();
        for (k, v) in old.into_iter().flatten() {
            self.index.insert(k.clone(), self.slots.len());
            self.slots.push(Some((k, v)));
        }
    }

    fn clear(&mut self) {
        self.index.clear();
        self.slots.clear();
        self.live = 0;
    }

    fn keys(&self) -> Vec<Str> {
        self.slots.iter().flatten().map(|(k, _)| k.clone()).collect()
    }
}

struct Frame {
    locals: Vec<Cell>,
    /// Arrays created for this call (local arrays not passed in).
    owned: Vec<usize>,
}

/// Input read whole, and how far records have been taken from it.
struct Reader {
    data: Vec<u8>,
    pos: usize,
}

enum RsMode {
    Byte(u8),
    Para,
    Regex(Rc<Re>),
}

impl Reader {
    /// The next record's bounds.
    fn next(&mut self, rs: &RsMode) -> Option<(usize, usize)> {
        let len = self.data.len();
        match rs {
            RsMode::Byte(c) => {
                if self.pos >= len {
                    return None;
                }
                let start = self.pos;
                match self.data[start..].iter().position(|b| b == c) {
                    Some(i) => {
                        self.pos = start + i + 1;
                        Some((start, start + i))
                    }
                    None => {
                        self.pos = len;
                        Some((start, len))
                    }
                }
            }
            RsMode::Para => {
                while self.pos < len && self.data[self.pos] == b'\n' {
                    self.pos += 1;
                }
                if self.pos >= len {
                    return None;
                }
                let start = self.pos;
                let mut i = start;
                while i < len {
                    if self.data[i] == b'\n' && self.data.get(i + 1) == Some(&b'\n') {
                        let end = i;
                        let mut j = i;
                        while j < len && self.data[j] == b'\n' {
                            j += 1;
                        }
                        self.pos = j;
                        return Some((start, end));
                    }
                    i += 1;
                }
                self.pos = len;
                let mut end = len;
                if end > start && self.data[end - 1] == b'\n' {
                    end -= 1;
                }
                Some((start, end))
            }
            RsMode::Regex(re) => {
                if self.pos >= len {
                    return None;
                }
                let start = self.pos;
                let mut from = start;
                while from <= len {
                    match re.find_longest_at(&self.data, from) {
                        Some((s, e)) if e > s => {
                            self.pos = e;
                            return Some((start, s));
                        }
                        Some((s, _)) => from = s + 1,
                        None => break,
                    }
                }
                self.pos = len;
                Some((start, len))
            }
        }
    }
}

enum MainSrc {
    Stdin,
    File(Reader),
}

enum Splitter {
    Space,
    Byte(u8),
    Chars,
    Regex(Rc<Re>),
}

/// Where an output statement writes.
enum Dest {
    Stdout,
    Stderr,
    Null,
    File(Vec<u8>, Redir),
}

pub struct Runtime<'p, 'c, 'a, 'b> {
    prog: &'p Program,
    ctx: &'c mut Ctx<'a, 'b>,
    globals: Vec<Cell>,
    frames: Vec<Frame>,
    arrays: Vec<Array>,
    free_arrays: Vec<usize>,
    record: Vec<u8>,
    /// The fields once assigned to; before that, `ranges` of the record.
    fields: Vec<Value>,
    ranges: Vec<(usize, usize)>,
    fields_are_ranges: bool,
    nf: usize,
    split_done: bool,
    record_stale: bool,
    split_fs: Str,
    out: Vec<u8>,
    outputs: HashMap<Vec<u8>, Vec<u8>>,
    inputs: HashMap<Vec<u8>, MainSrc>,
    stdin: Option<Reader>,
    main: Option<MainSrc>,
    argi: usize,
    main_used_file: bool,
    regex_cache: HashMap<Vec<u8>, Rc<Re>>,
    splitter: Option<(Str, Rc<Splitter>)>,
    range_active: Vec<bool>,
    rand_seed: f64,
    rng: u64,
    line: usize,
    exit_code: i32,
    empty: Str,
    stack_base: usize,
    nest: usize,
}

/// An address near the top of the stack, to measure how deep it is.
#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

fn ok_or_closed(r: Result<(), crate::io::Closed>) -> R<()> {
    r.map_err(|_| Ctl::Closed)
}

impl<'p, 'c, 'a, 'b> Runtime<'p, 'c, 'a, 'b> {
    pub fn new(prog: &'p Program, ctx: &'c mut Ctx<'a, 'b>, argv: &[String]) -> Self {
        let empty: Str = Rc::from(&b""[..]);
        let mut rt = Runtime {
            prog,
            ctx,
            globals: Vec::new(),
            frames: Vec::new(),
            arrays: Vec::new(),
            free_arrays: Vec::new(),
            record: Vec::new(),
            fields: Vec::new(),
            ranges: Vec::new(),
            fields_are_ranges: false,
            nf: 0,
            split_done: true,
            record_stale: false,
            split_fs: Rc::from(&b" "[..]),
            out: Vec::new(),
            outputs: HashMap::new(),
            inputs: HashMap::new(),
            stdin: None,
            main: None,
            argi: 1,
            main_used_file: false,
            regex_cache: HashMap::new(),
            splitter: None,
            range_active: vec![false; prog.rules.len()],
            rand_seed: 0.0,
            rng: 0,
            line: 1,
            exit_code: 0,
            empty,
            stack_base: stack_position(),
            nest: 0,
        };
        rt.seed(0.0);
        for &is_array in prog.global_arrays.iter() {
            let cell = if is_array { Cell::Arr(rt.new_array()) } else { Cell::Val(Value::Uninit) };
            rt.globals.push(cell);
        }
        let s = |b: &[u8]| Cell::Val(Value::Str(Rc::from(b)));
        rt.globals[FS] = s(b" ");
        rt.globals[OFS] = s(b" ");
        rt.globals[ORS] = s(b"\n");
        rt.globals[RS] = s(b"\n");
        rt.globals[SUBSEP] = s(b"\x1c");
        rt.globals[CONVFMT] = s(b"%.6g");
        rt.globals[OFMT] = s(b"%.6g");
        rt.globals[NR] = Cell::Val(Value::Num(0.0));
        rt.globals[FNR] = Cell::Val(Value::Num(0.0));
        rt.globals[FILENAME] = s(b"");
        rt.globals[ARGC] = Cell::Val(Value::Num(argv.len() as f64));
        if let Cell::Arr(id) = rt.globals[ARGV] {
            for (i, a) in argv.iter().enumerate() {
                let key: Str = Rc::from(i.to_string().as_bytes());
                if let Ok(slot) = rt.arrays[id].slot_mut(key) {
                    *slot = Value::strnum(a.as_bytes());
                }
            }
        }
        if let Cell::Arr(id) = rt.globals[ENVIRON] {
            let env = rt.ctx.state().environment();
            for (k, v) in env {
                if let Ok(slot) = rt.arrays[id].slot_mut(Rc::from(k.as_bytes())) {
                    *slot = Value::strnum(v.as_bytes());
                }
            }
        }
        rt
    }

    // ----- errors -----

    fn fatal(&self, msg: impl std::fmt::Display) -> Ctl {
        Ctl::Error(format!("awk: {msg}\n"))
    }

    fn line_error(&self, msg: impl std::fmt::Display) -> Ctl {
        Ctl::Error(format!("awk: line {}: {msg}\n", self.line))
    }

    fn runtime_error(&mut self, msg: impl std::fmt::Display) -> Ctl {
        let filename = self.global_str(FILENAME);
        let fnr = self.num_to_str(self.global_val(FNR).to_num());
        let nr = self.num_to_str(self.global_val(NR).to_num());
        Ctl::Error(format!(
            "awk: run time error: {msg}\n\tFILENAME=\"{}\" FNR={} NR={}\n",
            String::from_utf8_lossy(&filename),
            String::from_utf8_lossy(&fnr),
            String::from_utf8_lossy(&nr)
        ))
    }

    fn too_long(&mut self) -> Ctl {
        self.runtime_error(format!("string too long (the limit is {} MiB)", MAX_STRING >> 20))
    }

    // ----- the program -----

    /// Runs the program; returns the exit status.
    pub fn run(&mut self, assigns: &[(String, String)]) -> i32 {
        for (name, value) in assigns {
            if let Err(c) = self.assign_operand(name, value) {
                return self.finish(Err(c));
            }
        }
        let r = self.run_inner();
        self.finish(r)
    }

    fn finish(&mut self, r: R<()>) -> i32 {
        let flushed = self.flush_all();
        match r {
            Ok(()) | Err(Ctl::Exit) | Err(Ctl::Next) | Err(Ctl::NextFile) => match flushed {
                Ok(()) => self.exit_code,
                Err(Ctl::Error(msg)) => {
                    self.ctx.err(msg);
                    2
                }
                Err(_) => 141,
            },
            Err(Ctl::Error(msg)) => {
                self.ctx.err(msg);
                2
            }
            Err(Ctl::Closed) => 141,
        }
    }

    fn run_inner(&mut self) -> R<()> {
        let prog = self.prog;
        let mut exiting = false;
        for body in &prog.begin {
            match self.exec_block(body) {
                Ok(_) => {}
                Err(Ctl::Exit) => {
                    exiting = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if !exiting && (!prog.rules.is_empty() || !prog.end.is_empty()) {
            match self.main_loop() {
                Ok(()) => {}
                Err(Ctl::Exit) => {}
                Err(e) => return Err(e),
            }
        }
        for body in &prog.end {
            match self.exec_block(body) {
                Ok(_) => {}
                Err(Ctl::Exit) | Err(Ctl::Next) | Err(Ctl::NextFile) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn main_loop(&mut self) -> R<()> {
        let prog = self.prog;
        'records: while self.next_main_record()? {
            for (i, rule) in prog.rules.iter().enumerate() {
                let matched = match &rule.pattern {
                    Pattern::All => true,
                    Pattern::Expr(e) => self.cond(e)?,
                    Pattern::Range(a, b) => {
                        if self.range_active[i] {
                            if self.cond(b)? {
                                self.range_active[i] = false;
                            }
                            true
                        } else if self.cond(a)? {
                            if !self.cond(b)? {
                                self.range_active[i] = true;
                            }
                            true
                        } else {
                            false
                        }
                    }
                };
                if !matched {
                    continue;
                }
                let r = match &rule.action {
                    None => self.print_record(),
                    Some(body) => self.exec_block(body).map(|_| ()),
                };
                match r {
                    Ok(()) => {}
                    Err(Ctl::Next) => continue 'records,
                    Err(Ctl::NextFile) => {
                        self.main = None;
                        continue 'records;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    fn print_record(&mut self) -> R<()> {
        self.ensure_record()?;
        let ors = self.global_str(ORS);
        self.out.extend_from_slice(&self.record);
        self.out.extend_from_slice(&ors);
        self.maybe_flush()
    }

    // ----- statements -----

    fn exec_block(&mut self, list: &[Stmt]) -> R<Flow> {
        for s in list {
            match self.exec(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, s: &Stmt) -> R<Flow> {
        if self.nest >= MAX_NEST {
            return Err(self.nest_error());
        }
        self.nest += 1;
        let r = self.exec_inner(s);
        self.nest -= 1;
        r
    }

    #[inline(never)]
    fn nest_error(&mut self) -> Ctl {
        self.runtime_error("recursion too deep (function calls nest too deeply for the sandbox's stack)")
    }

    #[inline(always)]
    fn exec_inner(&mut self, s: &Stmt) -> R<Flow> {
        self.line = s.line;
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Ok(Flow::Normal)
            }
            StmtKind::Block(list) => self.exec_block(list),
            StmtKind::If(c, a, b) => {
                if self.cond(c)? {
                    self.exec(a)
                } else if let Some(b) = b {
                    self.exec(b)
                } else {
                    Ok(Flow::Normal)
                }
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                Ok(Flow::Return(v))
            }
            _ => self.exec_other(s),
        }
    }

    #[inline(never)]
    fn exec_other(&mut self, s: &Stmt) -> R<Flow> {
        match &s.kind {
            StmtKind::Expr(_) | StmtKind::Block(_) | StmtKind::If(..) | StmtKind::Return(_) => {
                return self.exec(s)
            }
            StmtKind::Print(args, dest) => self.print(args, dest.as_ref())?,
            StmtKind::Printf(args, dest) => self.printf(args, dest.as_ref())?,
            StmtKind::While(c, body) => return self.exec_while(c, body),
            StmtKind::Do(body, c) => return self.exec_do(body, c),
            StmtKind::For(init, c, incr, body) => {
                return self.exec_for(init.as_ref(), c.as_ref(), incr.as_ref(), body)
            }
            StmtKind::ForIn(k, a, body) => return self.exec_for_in(*k, *a, body),
            StmtKind::Next => return Err(Ctl::Next),
            StmtKind::Nextfile => return Err(Ctl::NextFile),
            StmtKind::Exit(e) => {
                if let Some(e) = e {
                    let v = self.eval(e)?.to_num();
                    self.exit_code = (format::clamp_int(v) & 0xff) as i32;
                }
                return Err(Ctl::Exit);
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Delete(a, subs) => {
                let id = self.array_id(*a)?;
                match subs {
                    None => self.arrays[id].clear(),
                    Some(subs) => {
                        let key = self.subscript(subs)?;
                        self.arrays[id].remove(&key);
                    }
                }
            }
            StmtKind::Empty => {}
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_while(&mut self, c: &Expr, body: &Stmt) -> R<Flow> {
        while self.cond(c)? {
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_do(&mut self, body: &Stmt, c: &Expr) -> R<Flow> {
        loop {
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
            if !self.cond(c)? {
                break;
            }
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_for(
        &mut self,
        init: Option<&Expr>,
        c: Option<&Expr>,
        incr: Option<&Expr>,
        body: &Stmt,
    ) -> R<Flow> {
        if let Some(i) = init {
            self.eval(i)?;
        }
        loop {
            if let Some(c) = c {
                if !self.cond(c)? {
                    break;
                }
            }
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
            if let Some(i) = incr {
                self.eval(i)?;
            }
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_for_in(&mut self, k: VarRef, a: VarRef, body: &Stmt) -> R<Flow> {
        let id = self.array_id(a)?;
        let keys = self.arrays[id].keys();
        for key in keys {
            self.set_var(k, Value::Str(key))?;
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
        }
        Ok(Flow::Normal)
    }

    fn dest(&mut self, dest: Option<&(Redir, Expr)>) -> R<Dest> {
        let Some((redir, e)) = dest else { return Ok(Dest::Stdout) };
        let name = self.eval(e)?;
        let name = self.str_of(&name);
        if *redir == Redir::Pipe {
            return Err(self.line_error(format!(
                "output to a command (| \"{}\") is not supported: cordon's awk cannot run commands; pipe awk's output instead",
                String::from_utf8_lossy(&name)
            )));
        }
        Ok(match &name[..] {
            b"/dev/stdout" | b"-" => Dest::Stdout,
            b"/dev/stderr" => Dest::Stderr,
            b"/dev/null" => Dest::Null,
            _ => Dest::File(name.to_vec(), *redir),
        })
    }

    fn write(&mut self, dest: Dest, bytes: &[u8]) -> R<()> {
        match dest {
            Dest::Stdout => {
                self.out.extend_from_slice(bytes);
                self.maybe_flush()
            }
            Dest::Stderr => {
                self.ctx.err(bytes);
                Ok(())
            }
            Dest::Null => Ok(()),
            Dest::File(name, redir) => {
                if !self.outputs.contains_key(&name) {
                    let path = String::from_utf8_lossy(&name).into_owned();
                    let mode = if redir == Redir::Append { WriteMode::Append } else { WriteMode::Truncate };
                    if let Err(e) = self.ctx.sys().write(&path, b"", mode) {
                        return Err(
                            self.fatal(format!("cannot open \"{path}\" for output ({})", e.describe()))
                        );
                    }
                    self.outputs.insert(name.clone(), Vec::new());
                }
                let full = match self.outputs.get_mut(&name) {
                    Some(buf) => {
                        buf.extend_from_slice(bytes);
                        buf.len() >= OUT_BUFFER
                    }
                    None => false,
                };
                if full {
                    self.flush_file(&name)?;
                }
                Ok(())
            }
        }
    }

    fn flush_file(&mut self, name: &[u8]) -> R<()> {
        let Some(buf) = self.outputs.get_mut(name) else { return Ok(()) };
        if buf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(buf);
        let path = String::from_utf8_lossy(name).into_owned();
        if let Err(e) = self.ctx.sys().write(&path, &data, WriteMode::Append) {
            return Err(self.fatal(format!("write failure on \"{path}\" ({})", e.describe())));
        }
        Ok(())
    }

    fn flush_stdout(&mut self) -> R<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.out);
        let r = ok_or_closed(self.ctx.out(&data));
        self.out = data;
        self.out.clear();
        r
    }

    fn maybe_flush(&mut self) -> R<()> {
        if self.out.len() >= OUT_BUFFER {
            self.flush_stdout()
        } else {
            Ok(())
        }
    }

    fn flush_all(&mut self) -> R<()> {
        let names: Vec<Vec<u8>> = self.outputs.keys().cloned().collect();
        let mut result = Ok(());
        for n in names {
            if let Err(e) = self.flush_file(&n) {
                result = Err(e);
            }
        }
        let r = self.flush_stdout();
        result.and(r)
    }

    fn print(&mut self, args: &[Expr], dest: Option<&(Redir, Expr)>) -> R<()> {
        let mut buf: Vec<u8> = Vec::new();
        if args.is_empty() {
            self.ensure_record()?;
            buf.extend_from_slice(&self.record);
        } else {
            let ofs = self.global_str(OFS);
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(&ofs);
                }
                let v = self.eval(a)?;
                self.append_out(&mut buf, &v);
                if buf.len() > MAX_STRING {
                    return Err(self.too_long());
                }
            }
        }
        let ors = self.global_str(ORS);
        buf.extend_from_slice(&ors);
        let d = self.dest(dest)?;
        self.write(d, &buf)
    }

    fn printf(&mut self, args: &[Expr], dest: Option<&(Redir, Expr)>) -> R<()> {
        let mut partial = Vec::new();
        let r = self.sprintf(args, "printf", &mut partial);
        let d = self.dest(dest)?;
        match r {
            Ok(text) => self.write(d, &text),
            Err(e) => {
                // mawk prints what came before the bad conversion.
                self.write(d, &partial)?;
                Err(e)
            }
        }
    }

    fn sprintf(&mut self, args: &[Expr], what: &str, partial: &mut Vec<u8>) -> R<Vec<u8>> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a)?);
        }
        let Some(first) = vals.first() else { return Ok(Vec::new()) };
        let fmt = self.str_of(first);
        let convfmt = self.global_str(CONVFMT);
        let mut conv = |v: &Value| value_str_with(v, &convfmt);
        match format::sprintf(&fmt, &vals[1..], &mut conv, MAX_STRING) {
            Ok(v) => Ok(v),
            Err(FmtError::NotEnoughArgs(done)) => {
                *partial = done;
                Err(self.runtime_error(format!(
                    "not enough arguments passed to {what}(\"{}\")",
                    String::from_utf8_lossy(&fmt)
                )))
            }
            Err(FmtError::BadConversion(n, done)) => {
                *partial = done;
                Err(self.runtime_error(format!(
                    "improper conversion(number {n}) in {what}(\"{}\")",
                    String::from_utf8_lossy(&fmt)
                )))
            }
            Err(FmtError::TooWide) => Err(self.too_long()),
        }
    }

    // ----- records and fields -----

    fn set_record(&mut self, bytes: &[u8]) {
        self.record.clear();
        self.record.extend_from_slice(bytes);
        self.split_done = false;
        self.record_stale = false;
        self.split_fs = self.global_str(FS);
    }

    /// The field splitter for an FS value. (mawk does not add newline as
    /// a separator in paragraph mode, unlike POSIX.)
    fn splitter(&mut self, fs: &Str) -> R<Rc<Splitter>> {
        if let Some((cached, sp)) = &self.splitter {
            if cached[..] == fs[..] {
                return Ok(sp.clone());
            }
        }
        let sp = if &fs[..] == b" " {
            Splitter::Space
        } else if fs.is_empty() {
            Splitter::Chars
        } else if fs.len() == 1 && fs[0] != b' ' {
            Splitter::Byte(fs[0])
        } else {
            Splitter::Regex(self.regex(fs)?)
        };
        let sp = Rc::new(sp);
        self.splitter = Some((fs.clone(), sp.clone()));
        Ok(sp)
    }

    fn ensure_split(&mut self) -> R<()> {
        if self.split_done {
            return Ok(());
        }
        self.split_done = true;
        let fs = self.split_fs.clone();
        let sp = self.splitter(&fs)?;
        self.ranges.clear();
        split_ranges(&sp, &self.record, &mut self.ranges);
        self.nf = self.ranges.len();
        self.fields.clear();
        self.fields_are_ranges = true;
        Ok(())
    }

    /// Rebuilds `$0` from the fields after a field or NF changed.
    fn ensure_record(&mut self) -> R<()> {
        if !self.record_stale {
            return Ok(());
        }
        self.record_stale = false;
        let ofs = self.global_str(OFS);
        let convfmt = self.global_str(CONVFMT);
        let mut rec = std::mem::take(&mut self.record);
        rec.clear();
        for (i, f) in self.fields.iter().take(self.nf).enumerate() {
            if i > 0 {
                rec.extend_from_slice(&ofs);
            }
            rec.extend_from_slice(&value_str_with(f, &convfmt));
            if rec.len() > MAX_STRING {
                return Err(self.too_long());
            }
        }
        self.record = rec;
        Ok(())
    }

    fn get_field(&mut self, i: usize) -> R<Value> {
        if i == 0 {
            self.ensure_record()?;
            return Ok(Value::StrNum(Rc::from(&self.record[..])));
        }
        self.ensure_split()?;
        if self.fields_are_ranges {
            return Ok(match self.ranges.get(i - 1) {
                Some(&(a, b)) => Value::strnum(&self.record[a..b]),
                None => Value::Str(self.empty.clone()),
            });
        }
        Ok(self.fields.get(i - 1).cloned().unwrap_or_else(|| Value::Str(self.empty.clone())))
    }

    /// Turns the field ranges into values, before a field changes.
    fn materialize_fields(&mut self) {
        if self.fields_are_ranges {
            self.fields.clear();
            for &(a, b) in &self.ranges {
                self.fields.push(Value::strnum(&self.record[a..b]));
            }
            self.fields_are_ranges = false;
        }
    }

    fn set_field(&mut self, i: usize, v: Value) -> R<()> {
        if i == 0 {
            let s = self.str_of(&v);
            self.set_record(&s);
            return Ok(());
        }
        self.ensure_split()?;
        self.materialize_fields();
        if i > MAX_FIELDS {
            return Err(self.runtime_error(format!("${i} exceeds maximum field({MAX_FIELDS})")));
        }
        if i > self.nf {
            self.fields.truncate(self.nf);
            self.fields.resize(i, Value::Str(self.empty.clone()));
            self.nf = i;
        }
        self.fields[i - 1] = v;
        self.record_stale = true;
        Ok(())
    }

    fn set_nf(&mut self, v: f64) -> R<()> {
        self.ensure_split()?;
        self.materialize_fields();
        let n = v as i64;
        if n < 0 {
            return Err(self.runtime_error("negative value assigned to NF"));
        }
        if n as usize > MAX_FIELDS {
            return Err(self.runtime_error(format!("NF exceeds maximum field({MAX_FIELDS})")));
        }
        let n = n as usize;
        self.fields.truncate(self.nf);
        self.fields.resize(n, Value::Str(self.empty.clone()));
        self.nf = n;
        self.record_stale = true;
        Ok(())
    }

    fn field_index(&mut self, e: &Expr) -> R<usize> {
        let d = self.eval(e)?.to_num();
        if d < 0.0 {
            let shown = self.num_to_str_lossy(d);
            return Err(self.runtime_error(format!("negative field index ${shown}")));
        }
        if d > MAX_FIELDS as f64 {
            let shown = self.num_to_str_lossy(d);
            return Err(self.runtime_error(format!("${shown} exceeds maximum field({MAX_FIELDS})")));
        }
        Ok(d as usize)
    }

    // ----- input -----

    fn load_stdin(&mut self) {
        if self.stdin.is_none() {
            let data = self.ctx.stdin_all();
            self.stdin = Some(Reader { data, pos: 0 });
        }
    }

    fn rs_mode(&mut self) -> R<RsMode> {
        let rs = self.global_str(RS);
        Ok(match rs.len() {
            0 => RsMode::Para,
            1 => RsMode::Byte(rs[0]),
            _ => RsMode::Regex(self.regex(&rs)?),
        })
    }

    /// Reads the next record from `src` into `out`; false at its end.
    fn read_from(&mut self, which: Option<&[u8]>, out: &mut Vec<u8>) -> R<bool> {
        let rs = self.rs_mode()?;
        let src = match which {
            None => self.main.as_mut(),
            Some(name) => self.inputs.get_mut(name),
        };
        let reader = match src {
            Some(MainSrc::File(r)) => r,
            Some(MainSrc::Stdin) => match self.stdin.as_mut() {
                Some(r) => r,
                None => return Ok(false),
            },
            None => return Ok(false),
        };
        match reader.next(&rs) {
            Some((s, e)) => {
                out.clear();
                out.extend_from_slice(&reader.data[s..e]);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The next record of the main input, into `buf`; bumps NR and FNR.
    fn next_main_into(&mut self, buf: &mut Vec<u8>) -> R<bool> {
        loop {
            if self.main.is_some() {
                if self.read_from(None, buf)? {
                    let nr = self.global_val(NR).to_num() + 1.0;
                    let fnr = self.global_val(FNR).to_num() + 1.0;
                    self.globals[NR] = Cell::Val(Value::Num(nr));
                    self.globals[FNR] = Cell::Val(Value::Num(fnr));
                    return Ok(true);
                }
                self.main = None;
            }
            if !self.open_next_main()? {
                return Ok(false);
            }
        }
    }

    fn next_main_record(&mut self) -> R<bool> {
        let mut buf = std::mem::take(&mut self.record);
        let got = self.next_main_into(&mut buf);
        self.record = buf;
        let got = got?;
        if got {
            self.split_done = false;
            self.record_stale = false;
            self.split_fs = self.global_str(FS);
        }
        Ok(got)
    }

    fn open_next_main(&mut self) -> R<bool> {
        loop {
            let argc = self.global_val(ARGC).to_num();
            if (self.argi as f64) >= argc {
                break;
            }
            let i = self.argi;
            self.argi += 1;
            let Cell::Arr(argv) = self.globals[ARGV] else { break };
            let arg = match self.arrays[argv].get(i.to_string().as_bytes()) {
                Some(v) => v.clone(),
                None => continue,
            };
            let arg = self.str_of(&arg);
            if arg.is_empty() {
                continue;
            }
            if let Some((name, value)) = split_assignment(&arg) {
                self.assign_operand(&name, &value)?;
                continue;
            }
            self.main_used_file = true;
            self.globals[FILENAME] = Cell::Val(Value::StrNum(arg.clone()));
            self.globals[FNR] = Cell::Val(Value::Num(0.0));
            let path = String::from_utf8_lossy(&arg).into_owned();
            if path == "-" || path == "/dev/stdin" {
                self.load_stdin();
                self.main = Some(MainSrc::Stdin);
                return Ok(true);
            }
            match self.ctx.read_input(&path) {
                Ok(data) => {
                    self.main = Some(MainSrc::File(Reader { data, pos: 0 }));
                    return Ok(true);
                }
                Err(e) if e.errno == "EISDIR" => {
                    return Err(self.fatal(format!("read error ({})", e.describe())))
                }
                Err(e) => return Err(self.fatal(format!("cannot open {path} ({})", e.describe()))),
            }
        }
        if !self.main_used_file {
            self.main_used_file = true;
            self.globals[FNR] = Cell::Val(Value::Num(0.0));
            self.globals[FILENAME] = Cell::Val(Value::str(b"-"));
            self.load_stdin();
            self.main = Some(MainSrc::Stdin);
            return Ok(true);
        }
        Ok(false)
    }

    /// A `var=value` operand or `-v` option.
    pub fn assign_operand(&mut self, name: &str, value: &str) -> R<()> {
        let Some(idx) = self.prog.global(name) else { return Ok(()) };
        if self.prog.funcs.iter().any(|f| f.name == name) {
            return Err(self.fatal(format!("can't assign to function {name}")));
        }
        if self.prog.global_arrays.get(idx).copied().unwrap_or(false) {
            return Err(self.fatal(format!("can't assign to array {name}")));
        }
        let v = super::lexer::unescape(value.as_bytes());
        self.set_var(VarRef::Global(idx), Value::StrNum(Rc::from(v)))
    }

    fn getline(&mut self, src: &GetSrc, var: Option<&Expr>) -> R<Value> {
        match src {
            GetSrc::Cmd(cmd) => {
                let c = self.eval(cmd)?;
                let c = self.str_of(&c);
                Err(self.line_error(format!(
                    "input from a command (\"{}\" | getline) is not supported: cordon's awk cannot run commands",
                    String::from_utf8_lossy(&c)
                )))
            }
            GetSrc::Main => {
                let mut buf = Vec::new();
                if !self.next_main_into(&mut buf)? {
                    return Ok(Value::Num(0.0));
                }
                match var {
                    None => {
                        self.set_record(&buf);
                        // set_record snapshots FS like a normal record.
                    }
                    Some(v) => {
                        let p = self.place(v)?;
                        self.set_place(&p, Value::StrNum(Rc::from(buf)))?;
                    }
                }
                Ok(Value::Num(1.0))
            }
            GetSrc::File(f) => {
                let name = self.eval(f)?;
                let name = self.str_of(&name).to_vec();
                if !self.inputs.contains_key(&name) {
                    let path = String::from_utf8_lossy(&name).into_owned();
                    if path == "-" || path == "/dev/stdin" {
                        self.load_stdin();
                        self.inputs.insert(name.clone(), MainSrc::Stdin);
                    } else {
                        match self.ctx.read_input(&path) {
                            Ok(data) => {
                                self.inputs.insert(name.clone(), MainSrc::File(Reader { data, pos: 0 }));
                            }
                            Err(_) => return Ok(Value::Num(-1.0)),
                        }
                    }
                }
                let mut buf = Vec::new();
                if !self.read_from(Some(&name), &mut buf)? {
                    return Ok(Value::Num(0.0));
                }
                match var {
                    None => self.set_record(&buf),
                    Some(v) => {
                        let p = self.place(v)?;
                        self.set_place(&p, Value::StrNum(Rc::from(buf)))?;
                    }
                }
                Ok(Value::Num(1.0))
            }
        }
    }

    // ----- variables -----

    fn global_val(&self, i: usize) -> &Value {
        match self.globals.get(i) {
            Some(Cell::Val(v)) => v,
            _ => &Value::Uninit,
        }
    }

    fn global_str(&mut self, i: usize) -> Str {
        let v = self.global_val(i).clone();
        self.str_of(&v)
    }

    fn get_var(&mut self, v: VarRef) -> R<Value> {
        match v {
            VarRef::Global(NF) => {
                self.ensure_split()?;
                Ok(Value::Num(self.nf as f64))
            }
            VarRef::Global(i) => Ok(self.global_val(i).clone()),
            VarRef::Local(i) => match self.frames.last().and_then(|f| f.locals.get(i)) {
                Some(Cell::Val(v)) => Ok(v.clone()),
                _ => Ok(Value::Uninit),
            },
        }
    }

    fn set_var(&mut self, v: VarRef, val: Value) -> R<()> {
        match v {
            VarRef::Global(i) => {
                if i < NUM_SPECIAL {
                    match i {
                        NF => return self.set_nf(val.to_num()),
                        // $0 is rebuilt with the OFS in force when a field
                        // changed.
                        OFS => self.ensure_record()?,
                        _ => {}
                    }
                }
                if let Some(c) = self.globals.get_mut(i) {
                    *c = Cell::Val(val);
                }
            }
            VarRef::Local(i) => {
                if let Some(c) = self.frames.last_mut().and_then(|f| f.locals.get_mut(i)) {
                    *c = Cell::Val(val);
                }
            }
        }
        Ok(())
    }

    fn new_array(&mut self) -> usize {
        match self.free_arrays.pop() {
            Some(id) => id,
            None => {
                self.arrays.push(Array::default());
                self.arrays.len() - 1
            }
        }
    }

    fn array_id(&mut self, v: VarRef) -> R<usize> {
        let cell = match v {
            VarRef::Global(i) => self.globals.get(i),
            VarRef::Local(i) => self.frames.last().and_then(|f| f.locals.get(i)),
        };
        match cell {
            Some(Cell::Arr(id)) => Ok(*id),
            _ => Err(self.fatal("internal error: not an array")),
        }
    }

    fn subscript(&mut self, subs: &[Expr]) -> R<Str> {
        if subs.len() == 1 {
            let v = self.eval(&subs[0])?;
            return Ok(self.str_of(&v));
        }
        let sep = self.global_str(SUBSEP);
        let mut key = Vec::new();
        for (i, s) in subs.iter().enumerate() {
            if i > 0 {
                key.extend_from_slice(&sep);
            }
            let v = self.eval(s)?;
            key.extend_from_slice(&self.str_of(&v));
        }
        Ok(Rc::from(key))
    }

    fn elem(&mut self, id: usize, key: Str) -> R<Value> {
        match self.arrays[id].slot_mut(key) {
            Ok(v) => Ok(v.clone()),
            Err(()) => Err(self.runtime_error("array too large")),
        }
    }

    fn set_elem(&mut self, id: usize, key: Str, val: Value) -> R<()> {
        match self.arrays[id].slot_mut(key) {
            Ok(v) => {
                *v = val;
                Ok(())
            }
            Err(()) => Err(self.runtime_error("array too large")),
        }
    }

    // ----- lvalues -----

    fn place(&mut self, e: &Expr) -> R<Place> {
        match e {
            Expr::Var(v) => Ok(Place::Var(*v)),
            Expr::Field(i) => Ok(Place::Field(self.field_index(i)?)),
            Expr::Index(a, subs) => {
                let id = self.array_id(*a)?;
                let key = self.subscript(subs)?;
                Ok(Place::Elem(id, key))
            }
            Expr::Group(inner) => self.place(inner),
            _ => Err(self.fatal("internal error: not an lvalue")),
        }
    }

    fn get_place(&mut self, p: &Place) -> R<Value> {
        match p {
            Place::Var(v) => self.get_var(*v),
            Place::Field(i) => self.get_field(*i),
            Place::Elem(id, key) => self.elem(*id, key.clone()),
        }
    }

    fn set_place(&mut self, p: &Place, v: Value) -> R<()> {
        match p {
            Place::Var(var) => self.set_var(*var, v),
            Place::Field(i) => self.set_field(*i, v),
            Place::Elem(id, key) => self.set_elem(*id, key.clone(), v),
        }
    }

    // ----- conversions -----

    pub fn num_to_str(&mut self, d: f64) -> Str {
        if is_int_like(d) {
            return Rc::from(format!("{}", d as i64).as_bytes());
        }
        let fmt = self.global_val(CONVFMT).clone();
        let fmt = match &fmt {
            Value::Str(s) | Value::StrNum(s) => s.clone(),
            _ => Rc::from(&b"%.6g"[..]),
        };
        Rc::from(num_with_fmt(d, &fmt))
    }

    fn num_to_str_lossy(&mut self, d: f64) -> String {
        String::from_utf8_lossy(&self.num_to_str(d)).into_owned()
    }

    pub fn str_of(&mut self, v: &Value) -> Str {
        match v {
            Value::Uninit => self.empty.clone(),
            Value::Num(n) => self.num_to_str(*n),
            Value::Str(s) | Value::StrNum(s) => s.clone(),
        }
    }

    /// Appends a value as `print` shows it (numbers through OFMT).
    fn append_out(&mut self, buf: &mut Vec<u8>, v: &Value) {
        match v {
            Value::Uninit => {}
            Value::Num(n) => {
                if is_int_like(*n) {
                    buf.extend_from_slice(format!("{}", *n as i64).as_bytes());
                } else {
                    let fmt = self.global_str(OFMT);
                    buf.extend_from_slice(&num_with_fmt(*n, &fmt));
                }
            }
            Value::Str(s) | Value::StrNum(s) => buf.extend_from_slice(s),
        }
    }

    // ----- regular expressions -----

    fn regex(&mut self, src: &[u8]) -> R<Rc<Re>> {
        if let Some(re) = self.regex_cache.get(src) {
            return Ok(re.clone());
        }
        match Re::new(src) {
            Ok(re) => {
                if self.regex_cache.len() >= REGEX_CACHE {
                    self.regex_cache.clear();
                }
                let re = Rc::new(re);
                self.regex_cache.insert(src.to_vec(), re.clone());
                Ok(re)
            }
            Err(msg) => Err(self.line_error(format!(
                "regular expression compile failed ({msg})\n{}",
                String::from_utf8_lossy(src)
            ))),
        }
    }

    /// The regular expression an operand stands for: a literal, or a
    /// string used as one.
    fn regex_of(&mut self, e: &Expr) -> R<Rc<Re>> {
        if let Expr::Regex(i) = e {
            if let Some(re) = self.prog.regexes.get(*i) {
                return Ok(re.clone());
            }
        }
        let v = self.eval(e)?;
        let s = self.str_of(&v);
        self.regex(&s)
    }

    // ----- expressions -----

    fn cond(&mut self, e: &Expr) -> R<bool> {
        Ok(self.eval(e)?.truthy())
    }

    /// Evaluates an expression. The arms are out-of-line helpers so that
    /// this frame, which recursion through user functions repeats, stays
    /// small.
    fn eval(&mut self, e: &Expr) -> R<Value> {
        if self.nest >= MAX_NEST {
            return Err(self.nest_error());
        }
        self.nest += 1;
        let r = self.eval_inner(e);
        self.nest -= 1;
        r
    }

    #[inline(always)]
    fn eval_inner(&mut self, e: &Expr) -> R<Value> {
        match e {
            Expr::Num(n) => Ok(Value::Num(*n)),
            Expr::Str(s) => Ok(Value::Str(s.clone())),
            Expr::Var(v) => self.get_var(*v),
            Expr::Group(inner) => self.eval(inner),
            Expr::Call(f, args) => self.call(*f, args),
            Expr::Cond(c, a, b) => {
                let which = if self.cond(c)? { a } else { b };
                self.eval(which)
            }
            Expr::Bin(op, a, b) => self.eval_bin(*op, a, b),
            Expr::Assign(op, lhs, rhs) => self.assign(*op, lhs, rhs),
            Expr::Concat(parts) => self.concat(parts),
            Expr::Builtin(b, args) => self.builtin(*b, args),
            _ => self.eval_other(e),
        }
    }

    #[inline(never)]
    fn eval_bin(&mut self, op: BinOp, a: &Expr, b: &Expr) -> R<Value> {
        let x = self.eval(a)?.to_num();
        let y = self.eval(b)?.to_num();
        Ok(Value::Num(arith(op, x, y)))
    }

    #[inline(never)]
    fn eval_other(&mut self, e: &Expr) -> R<Value> {
        match e {
            Expr::Regex(i) => {
                let re = self.prog.regexes.get(*i).cloned();
                self.ensure_record()?;
                let m = re.is_some_and(|re| re.is_match(&self.record));
                Ok(bool_val(m))
            }
            Expr::Field(i) => {
                let i = self.field_index(i)?;
                self.get_field(i)
            }
            Expr::Index(a, subs) => {
                let id = self.array_id(*a)?;
                let key = self.subscript(subs)?;
                self.elem(id, key)
            }
            Expr::In(subs, a) => {
                let id = self.array_id(*a)?;
                let key = self.subscript(subs)?;
                Ok(bool_val(self.arrays[id].contains(&key)))
            }
            Expr::And(a, b) => Ok(bool_val(self.cond(a)? && self.cond(b)?)),
            Expr::Or(a, b) => Ok(bool_val(self.cond(a)? || self.cond(b)?)),
            Expr::Not(a) => Ok(bool_val(!self.cond(a)?)),
            Expr::Neg(a) => Ok(Value::Num(-self.eval(a)?.to_num())),
            Expr::Pos(a) => Ok(Value::Num(self.eval(a)?.to_num())),
            Expr::Cmp(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                Ok(bool_val(self.compare(*op, &x, &y)))
            }
            Expr::Match(neg, a, b) => {
                let x = self.eval(a)?;
                let s = self.str_of(&x);
                let re = self.regex_of(b)?;
                Ok(bool_val(re.is_match(&s) != *neg))
            }
            Expr::IncDec(pre, inc, lv) => {
                let p = self.place(lv)?;
                let old = self.get_place(&p)?.to_num();
                let new = if *inc { old + 1.0 } else { old - 1.0 };
                self.set_place(&p, Value::Num(new))?;
                Ok(Value::Num(if *pre { new } else { old }))
            }
            Expr::Getline(src, var) => self.getline(src, var.as_deref()),
            Expr::Num(_)
            | Expr::Str(_)
            | Expr::Var(_)
            | Expr::Group(_)
            | Expr::Call(..)
            | Expr::Cond(..)
            | Expr::Bin(..)
            | Expr::Assign(..)
            | Expr::Concat(_)
            | Expr::Builtin(..) => self.eval(e),
        }
    }

    #[inline(never)]
    fn assign(&mut self, op: Option<BinOp>, lhs: &Expr, rhs: &Expr) -> R<Value> {
        let p = self.place(lhs)?;
        let v = self.eval(rhs)?;
        let v = match op {
            None => v,
            Some(op) => {
                let old = self.get_place(&p)?.to_num();
                Value::Num(arith(op, old, v.to_num()))
            }
        };
        self.set_place(&p, v.clone())?;
        Ok(v)
    }

    fn concat(&mut self, parts: &[Expr]) -> R<Value> {
        let mut buf: Vec<u8> = Vec::new();
        for p in parts {
            let v = self.eval(p)?;
            match &v {
                Value::Str(s) | Value::StrNum(s) => buf.extend_from_slice(s),
                Value::Num(_) => {
                    let s = self.str_of(&v);
                    buf.extend_from_slice(&s);
                }
                Value::Uninit => {}
            }
            if buf.len() > MAX_STRING {
                return Err(self.too_long());
            }
        }
        Ok(Value::Str(Rc::from(buf)))
    }

    fn compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> bool {
        let num = |v: &Value| match v {
            Value::Uninit => Some(0.0),
            Value::Num(n) => Some(*n),
            Value::StrNum(s) => looks_numeric(s),
            Value::Str(_) => None,
        };
        let o = if let (Some(x), Some(y)) = (num(a), num(b)) {
            // mawk compares three-way, so NaN equals everything.
            if x > y {
                std::cmp::Ordering::Greater
            } else if x < y {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Equal
            }
        } else {
            let x = self.str_of(a);
            let y = self.str_of(b);
            x[..].cmp(&y[..])
        };
        match op {
            CmpOp::Lt => o.is_lt(),
            CmpOp::Le => o.is_le(),
            CmpOp::Gt => o.is_gt(),
            CmpOp::Ge => o.is_ge(),
            CmpOp::Eq => o.is_eq(),
            CmpOp::Ne => o.is_ne(),
        }
    }

    #[inline(never)]
    fn bind_args(&mut self, func: &super::parser::Func, args: &[Expr]) -> R<Frame> {
        let mut locals = Vec::with_capacity(func.nparams);
        let mut owned = Vec::new();
        for i in 0..func.nparams {
            let is_array = func.arrays.get(i).copied().unwrap_or(false);
            let arg = args.get(i);
            if is_array {
                let id = match arg {
                    Some(Expr::Var(v)) => self.array_id(*v)?,
                    Some(_) => {
                        return Err(self.runtime_error(format!(
                            "type error in arg({}) in call to {}",
                            i + 1,
                            func.name
                        )))
                    }
                    None => {
                        let id = self.new_array();
                        owned.push(id);
                        id
                    }
                };
                locals.push(Cell::Arr(id));
            } else {
                let v = match arg {
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                locals.push(Cell::Val(v));
            }
        }
        Ok(Frame { locals, owned })
    }

    #[inline(never)]
    fn pop_frame(&mut self) {
        if let Some(frame) = self.frames.pop() {
            for id in frame.owned {
                self.arrays[id].clear();
                self.free_arrays.push(id);
            }
        }
    }

    #[inline(never)]
    fn call_depth_error(&mut self, name: &str) -> Ctl {
        self.runtime_error(format!(
            "function call nesting too deep in {name} (at most {MAX_CALL_DEPTH} levels)"
        ))
    }

    fn call(&mut self, f: usize, args: &[Expr]) -> R<Value> {
        let prog = self.prog;
        let Some(func) = prog.funcs.get(f) else { return Ok(Value::Uninit) };
        if self.frames.len() >= MAX_CALL_DEPTH
            || self.stack_base.saturating_sub(stack_position()) > STACK_BUDGET
        {
            return Err(self.call_depth_error(&func.name));
        }
        let frame = self.bind_args(func, args)?;
        self.frames.push(frame);
        let line = self.line;
        let r = self.exec_block(&func.body);
        self.line = line;
        self.pop_frame();
        match r? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Value::Uninit),
        }
    }

    // ----- built-in functions -----

    fn arg_str(&mut self, args: &[Expr], i: usize) -> R<Str> {
        match args.get(i) {
            Some(e) => {
                let v = self.eval(e)?;
                Ok(self.str_of(&v))
            }
            None => Ok(self.empty.clone()),
        }
    }

    fn arg_num(&mut self, args: &[Expr], i: usize) -> R<f64> {
        match args.get(i) {
            Some(e) => Ok(self.eval(e)?.to_num()),
            None => Ok(0.0),
        }
    }

    fn builtin(&mut self, b: Bi, args: &[Expr]) -> R<Value> {
        match b {
            Bi::Length => {
                if let Some(Expr::Var(v)) = args.first() {
                    let cell = match v {
                        VarRef::Global(i) => self.globals.get(*i),
                        VarRef::Local(i) => self.frames.last().and_then(|f| f.locals.get(*i)),
                    };
                    if let Some(Cell::Arr(id)) = cell {
                        return Ok(Value::Num(self.arrays[*id].live as f64));
                    }
                }
                if args.is_empty() {
                    self.ensure_record()?;
                    return Ok(Value::Num(self.record.len() as f64));
                }
                let s = self.arg_str(args, 0)?;
                Ok(Value::Num(s.len() as f64))
            }
            Bi::Substr => {
                let s = self.arg_str(args, 0)?;
                let m = self.arg_num(args, 1)?;
                let n = if args.len() > 2 { Some(self.arg_num(args, 2)?) } else { None };
                Ok(Value::Str(Rc::from(substr(&s, m, n))))
            }
            Bi::Index => {
                let s = self.arg_str(args, 0)?;
                let t = self.arg_str(args, 1)?;
                let pos = if t.is_empty() {
                    1
                } else {
                    s.windows(t.len()).position(|w| w == &t[..]).map_or(0, |p| p + 1)
                };
                Ok(Value::Num(pos as f64))
            }
            Bi::Split => self.split(args),
            Bi::Sub | Bi::Gsub => self.sub(args, b == Bi::Gsub),
            Bi::Match => {
                let s = self.arg_str(args, 0)?;
                let re = match args.get(1) {
                    Some(e) => self.regex_of(e)?,
                    None => return Ok(Value::Num(0.0)),
                };
                let (start, len) = match re.find_longest_at(&s, 0) {
                    Some((a, b)) => ((a + 1) as f64, (b - a) as f64),
                    None => (0.0, -1.0),
                };
                self.globals[RSTART] = Cell::Val(Value::Num(start));
                self.globals[RLENGTH] = Cell::Val(Value::Num(len));
                Ok(Value::Num(start))
            }
            Bi::Sprintf => {
                let mut partial = Vec::new();
                Ok(Value::Str(Rc::from(self.sprintf(args, "sprintf", &mut partial)?)))
            }
            Bi::Sin => Ok(Value::Num(self.arg_num(args, 0)?.sin())),
            Bi::Cos => Ok(Value::Num(self.arg_num(args, 0)?.cos())),
            Bi::Atan2 => {
                let y = self.arg_num(args, 0)?;
                let x = self.arg_num(args, 1)?;
                Ok(Value::Num(y.atan2(x)))
            }
            Bi::Exp => Ok(Value::Num(self.arg_num(args, 0)?.exp())),
            Bi::Log => {
                let x = self.arg_num(args, 0)?;
                // C's log(-x) is -nan.
                Ok(Value::Num(if x < 0.0 { -f64::NAN } else { x.ln() }))
            }
            Bi::Sqrt => {
                let x = self.arg_num(args, 0)?;
                Ok(Value::Num(if x < 0.0 { -f64::NAN } else { x.sqrt() }))
            }
            Bi::Int => Ok(Value::Num(self.arg_num(args, 0)?.trunc())),
            Bi::Rand => Ok(Value::Num(self.next_rand())),
            Bi::Srand => {
                let prev = self.rand_seed;
                let seed = if args.is_empty() {
                    (self.ctx.sys().now_ms() / 1000) as f64
                } else {
                    self.arg_num(args, 0)?
                };
                self.seed(seed);
                Ok(Value::Num(prev))
            }
            Bi::Tolower | Bi::Toupper => {
                let s = self.arg_str(args, 0)?;
                let out: Vec<u8> =
                    if b == Bi::Tolower { s.to_ascii_lowercase() } else { s.to_ascii_uppercase() };
                Ok(Value::Str(Rc::from(out)))
            }
            Bi::System => {
                let c = self.arg_str(args, 0)?;
                Err(self.line_error(format!(
                    "system(\"{}\") is not supported: cordon's awk cannot run commands",
                    String::from_utf8_lossy(&c)
                )))
            }
            Bi::Close => {
                let name = self.arg_str(args, 0)?;
                let mut closed = false;
                if self.outputs.contains_key(&name[..]) {
                    self.flush_file(&name)?;
                    self.outputs.remove(&name[..]);
                    closed = true;
                }
                if self.inputs.remove(&name[..]).is_some() {
                    closed = true;
                }
                Ok(Value::Num(if closed { 0.0 } else { -1.0 }))
            }
            Bi::Fflush => {
                if args.is_empty() {
                    self.flush_stdout()?;
                    return Ok(Value::Num(0.0));
                }
                let name = self.arg_str(args, 0)?;
                match &name[..] {
                    b"/dev/stdout" | b"-" => {
                        self.flush_stdout()?;
                        Ok(Value::Num(0.0))
                    }
                    _ if self.outputs.contains_key(&name[..]) => {
                        self.flush_file(&name)?;
                        Ok(Value::Num(0.0))
                    }
                    _ => Ok(Value::Num(-1.0)),
                }
            }
        }
    }

    pub fn seed(&mut self, seed: f64) {
        self.rand_seed = seed;
        let bits = seed.to_bits() ^ 0x9E37_79B9_7F4A_7C15;
        self.rng = if bits == 0 { 0x2545_F491_4F6C_DD1D } else { bits };
    }

    fn next_rand(&mut self) -> f64 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 11) as f64 / (1u64 << 53) as f64
    }

    fn split(&mut self, args: &[Expr]) -> R<Value> {
        let s = self.arg_str(args, 0)?;
        let Some(Expr::Var(av)) = args.get(1) else { return Ok(Value::Num(0.0)) };
        let sp = match args.get(2) {
            None => {
                let fs = self.global_str(FS);
                self.splitter(&fs)?
            }
            Some(Expr::Regex(i)) => match self.prog.regexes.get(*i) {
                Some(re) => Rc::new(Splitter::Regex(re.clone())),
                None => return Ok(Value::Num(0.0)),
            },
            Some(e) => {
                let v = self.eval(e)?;
                let fs = self.str_of(&v);
                self.splitter(&fs)?
            }
        };
        let mut parts = Vec::new();
        split_ranges(&sp, &s, &mut parts);
        let id = self.array_id(*av)?;
        self.arrays[id].clear();
        let n = parts.len();
        for (i, (a, b)) in parts.into_iter().enumerate() {
            let key: Str = Rc::from((i + 1).to_string().as_bytes());
            self.set_elem(id, key, Value::strnum(&s[a..b]))?;
        }
        Ok(Value::Num(n as f64))
    }

    fn sub(&mut self, args: &[Expr], global: bool) -> R<Value> {
        let re = match args.first() {
            Some(e) => self.regex_of(e)?,
            None => return Ok(Value::Num(0.0)),
        };
        let repl = self.arg_str(args, 1)?;
        let target = match args.get(2) {
            Some(e) => self.place(e)?,
            None => Place::Field(0),
        };
        let cur = self.get_place(&target)?;
        let text = self.str_of(&cur);
        let mut out: Vec<u8> = Vec::with_capacity(text.len());
        let mut count = 0usize;
        let mut pos = 0usize;
        let mut last_end: Option<usize> = None;
        let len = text.len();
        while pos <= len {
            let Some((s, e)) = re.find_longest_at(&text, pos) else { break };
            if s == e && last_end == Some(s) {
                // An empty match right after the previous match.
                if s < len {
                    out.extend_from_slice(&text[pos..=s]);
                }
                pos = s + 1;
                continue;
            }
            out.extend_from_slice(&text[pos..s]);
            expand_replacement(&mut out, &repl, &text[s..e]);
            count += 1;
            if out.len() > MAX_STRING {
                return Err(self.too_long());
            }
            last_end = Some(e);
            if s == e {
                if s < len {
                    out.push(text[s]);
                }
                pos = s + 1;
            } else {
                pos = e;
            }
            if !global {
                break;
            }
        }
        if count > 0 {
            if pos < len {
                out.extend_from_slice(&text[pos..]);
            }
            self.set_place(&target, Value::Str(Rc::from(out)))?;
        }
        Ok(Value::Num(count as f64))
    }
}

enum Place {
    Var(VarRef),
    Field(usize),
    Elem(usize, Str),
}

fn bool_val(b: bool) -> Value {
    Value::Num(if b { 1.0 } else { 0.0 })
}

fn arith(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::Mod => {
            // fmod is slow in software; integers take the fast path.
            if x.fract() == 0.0 && y.fract() == 0.0 && x.abs() < 9e15 && y.abs() < 9e15 && y != 0.0 {
                let r = (x as i64) % (y as i64);
                if r == 0 && x.is_sign_negative() {
                    -0.0
                } else {
                    r as f64
                }
            } else {
                x % y
            }
        }
        BinOp::Pow => x.powf(y),
    }
}

/// A number through a CONVFMT/OFMT format.
fn num_with_fmt(d: f64, fmt: &[u8]) -> Vec<u8> {
    if fmt == b"%.6g" {
        return format::format_g(d, 6, false, false);
    }
    let mut conv = |v: &Value| match v {
        Value::Num(n) => format::format_g(*n, 6, false, false),
        Value::Str(s) | Value::StrNum(s) => s.to_vec(),
        Value::Uninit => Vec::new(),
    };
    format::sprintf(fmt, &[Value::Num(d)], &mut conv, 4096)
        .unwrap_or_else(|_| format::format_g(d, 6, false, false))
}

/// A value's string with the given CONVFMT.
fn value_str_with(v: &Value, convfmt: &[u8]) -> Vec<u8> {
    match v {
        Value::Uninit => Vec::new(),
        Value::Num(n) => {
            if is_int_like(*n) {
                format!("{}", *n as i64).into_bytes()
            } else {
                num_with_fmt(*n, convfmt)
            }
        }
        Value::Str(s) | Value::StrNum(s) => s.to_vec(),
    }
}

/// mawk's `substr`: positions and length truncated toward zero; a start
/// before 1 starts at 1 and (as mawk 1.3.4 does) lengthens the result by
/// how far before 0 it was.
fn substr(s: &[u8], m: f64, n: Option<f64>) -> Vec<u8> {
    let len = s.len() as i64;
    if len == 0 {
        return Vec::new();
    }
    // mawk converts with d_to_int (C int range) and computes in int.
    let to_int = |d: f64| format::clamp_int(d) as i32;
    let mut begin = to_int(m);
    let mut count = match n {
        None => i32::MAX,
        Some(n) => to_int(n),
    };
    if begin < 1 {
        if n.is_some() {
            count = count.wrapping_sub(begin);
        }
        begin = 1;
    }
    if count <= 0 {
        return Vec::new();
    }
    let begin = i64::from(begin);
    if begin > len {
        return Vec::new();
    }
    let start = (begin - 1) as usize;
    let end = (begin - 1 + i64::from(count)).min(len) as usize;
    if end <= start {
        return Vec::new();
    }
    s[start..end].to_vec()
}

/// Appends a `sub`/`gsub` replacement: `&` is the match, `\&` a literal
/// `&`, `\\` one backslash.
fn expand_replacement(out: &mut Vec<u8>, repl: &[u8], matched: &[u8]) {
    let mut i = 0;
    while i < repl.len() {
        let c = repl[i];
        if c == b'\\' {
            match repl.get(i + 1) {
                Some(b'&') => {
                    out.push(b'&');
                    i += 2;
                    continue;
                }
                Some(b'\\') => {
                    out.push(b'\\');
                    i += 2;
                    continue;
                }
                _ => out.push(b'\\'),
            }
        } else if c == b'&' {
            out.extend_from_slice(matched);
        } else {
            out.push(c);
        }
        i += 1;
    }
}

fn split_ranges(sp: &Splitter, s: &[u8], out: &mut Vec<(usize, usize)>) {
    match sp {
        Splitter::Space => {
            let mut i = 0;
            let n = s.len();
            loop {
                while i < n && matches!(s[i], b' ' | b'\t' | b'\n') {
                    i += 1;
                }
                if i >= n {
                    break;
                }
                let start = i;
                while i < n && !matches!(s[i], b' ' | b'\t' | b'\n') {
                    i += 1;
                }
                out.push((start, i));
            }
        }
        Splitter::Byte(c) => split_bytes(s, out, |b| b == *c),
        Splitter::Chars => out.extend((0..s.len()).map(|i| (i, i + 1))),
        Splitter::Regex(re) => {
            if s.is_empty() {
                return;
            }
            let mut start = 0;
            let mut from = 0;
            while from <= s.len() {
                match re.find_longest_at(s, from) {
                    Some((a, b)) if b > a => {
                        out.push((start, a));
                        start = b;
                        from = b;
                    }
                    Some((a, _)) => from = a + 1,
                    None => break,
                }
            }
            out.push((start, s.len()));
        }
    }
}

fn split_bytes(s: &[u8], out: &mut Vec<(usize, usize)>, is_sep: impl Fn(u8) -> bool) {
    if s.is_empty() {
        return;
    }
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        if is_sep(b) {
            out.push((start, i));
            start = i + 1;
        }
    }
    out.push((start, s.len()));
}

/// `name=value` with a valid variable name.
pub fn split_assignment(arg: &[u8]) -> Option<(String, String)> {
    let eq = arg.iter().position(|&b| b == b'=')?;
    let name = &arg[..eq];
    let first = *name.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    if !name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_') {
        return None;
    }
    Some((String::from_utf8_lossy(name).into_owned(), String::from_utf8_lossy(&arg[eq + 1..]).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substr_like_mawk() {
        let t = |m: f64, n: Option<f64>| String::from_utf8_lossy(&substr(b"hello", m, n)).into_owned();
        assert_eq!(t(2.0, None), "ello");
        assert_eq!(t(0.0, Some(2.0)), "he");
        assert_eq!(t(-1.0, Some(3.0)), "hell");
        assert_eq!(t(1.5, Some(1.5)), "h");
        assert_eq!(t(10.0, None), "");
        assert_eq!(t(2.0, Some(-1.0)), "");
        assert_eq!(t(-1.5, Some(0.4)), "h");
    }

    #[test]
    fn replacement() {
        let mut out = Vec::new();
        expand_replacement(&mut out, b"[&\\&\\\\&\\q]", b"A");
        assert_eq!(out, b"[A&\\A\\q]".to_vec());
    }

    #[test]
    fn splitting() {
        let mut out = Vec::new();
        split_ranges(&Splitter::Space, b"  a b\t c  ", &mut out);
        assert_eq!(out, vec![(2, 3), (4, 5), (7, 8)]);
        out.clear();
        split_ranges(&Splitter::Byte(b':'), b":a::b", &mut out);
        assert_eq!(out, vec![(0, 0), (1, 2), (3, 3), (4, 5)]);
        out.clear();
        split_ranges(&Splitter::Byte(b':'), b"", &mut out);
        assert_eq!(out.len(), 0);
    }

    #[test]
    fn assignments() {
        assert_eq!(split_assignment(b"x=1"), Some(("x".into(), "1".into())));
        assert_eq!(split_assignment(b"1x=1"), None);
        assert_eq!(split_assignment(b"./a=b"), None);
    }
}
