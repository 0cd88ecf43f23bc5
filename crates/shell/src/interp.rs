//! Walks the syntax tree `brush-parser` produces: lists, pipelines,
//! compound commands, redirections and simple commands.

use std::rc::Rc;

use brush_parser::ast::{self, SourceLocation};

use crate::builtins;
use crate::ctx::{Ctx, Io};
use crate::expand::ExpandError;
use crate::io::{input, output, Output, Sink};
use crate::state::{Indexed, State, Var};
use crate::system::{Stream, System, WriteMode};

/// How deep functions, `eval`, `source` and command substitutions may nest.
/// Each level costs guest stack; bash has no limit but would crash instead.
pub(crate) const MAX_DEPTH: usize = 200;

/// A change of control flow travelling up the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Break(u32),
    Continue(u32),
    Return(i32),
    Exit(i32),
    /// An expansion error (`$(( 1/0 ))`): bash drops the rest of the
    /// top-level command it was running (the rest of its line) and goes on
    /// with the next one; a subshell ends.
    Abort(i32),
}

pub struct Interp<'a> {
    pub(crate) state: &'a mut State,
    pub(crate) sys: &'a mut dyn System,
    pub(crate) flow: Option<Flow>,
    /// `$0`, and the prefix of the shell's own messages.
    pub(crate) name: String,
    /// The line of the command being run, for messages and `$LINENO`.
    pub(crate) line: usize,
    /// Added to parsed line numbers (for `eval` and substitutions).
    line_base: usize,
    pub(crate) depth: usize,
    /// Inside an `if`/`while` condition or a non-final `&&`/`||` part, where
    /// `set -e` does not apply.
    condition: u32,
    /// How many loops enclose the current command (for `break`).
    pub(crate) loops: u32,
    /// Standard error of the command being expanded (for expansion errors).
    pub(crate) err: Output,
    /// The nesting depth of the running script's own top level (`sh -c`
    /// and script files start a new one).
    pub(crate) top_depth: usize,
    /// Standard input and descriptors 3 and up of the simple command being
    /// expanded: its command substitutions read and write them.
    pub(crate) subst_io: Option<(crate::io::InputRef, crate::fds::Fds)>,
    /// The temporary assignments of the function call about to be made.
    tempenv: Vec<(String, String)>,
    /// The status of the last command substitution of this command.
    pub(crate) subst_status: Option<i32>,
    /// State of `$RANDOM`.
    pub(crate) random: u64,
    /// A nesting limit was hit: the whole run ends, subshells included
    /// (otherwise `f() { f | f; }` would retry exponentially).
    pub(crate) aborted: bool,
    /// Streams replaced by `exec` redirections (see [`crate::fds`]).
    pub(crate) exec_io: Vec<(Io, Io)>,
    /// Files opened by `exec` redirections, written after each command.
    pub(crate) exec_files: Vec<PendingFile>,
    /// The `/dev/fd/N` paths of the process substitutions in use.
    pub(crate) proc_files: Vec<(String, crate::fds::ProcFile)>,
    /// The virtual clock of background jobs (see [`crate::jobs`]): the
    /// time the shell has slept or waited for jobs (milliseconds).
    pub(crate) clock_ms: u64,
    /// Inside a background job: the time it has slept so far.
    pub(crate) job_elapsed: Option<u64>,
    /// The `>(list)`s waiting for their command to finish.
    pub(crate) proc_pending: Vec<crate::fds::PendingProc>,
    /// The `trap` conditions whose actions are running (not re-entered).
    pub(crate) running_trap: Vec<u32>,
    /// `((` or `let` while one evaluates: the prefix of arithmetic errors.
    pub(crate) arith_cmd: &'static str,
    /// The last `$BASHPID` given to a subshell.
    pub(crate) pids: u32,
}

/// The process substitutions among a command's words.
type Procs<'a> = Vec<(usize, &'a ast::ProcessSubstitutionKind, &'a ast::SubshellCommand)>;

/// A file named by an output redirection: collected, then written.
pub(crate) struct PendingFile {
    pub(crate) path: String,
    pub(crate) sink: Output,
}

fn parser_options() -> brush_parser::ParserOptions {
    brush_parser::ParserOptions {
        enable_extended_globbing: true,
        posix_mode: false,
        sh_mode: false,
        tilde_expansion_at_word_start: true,
        tilde_expansion_after_colon: false,
        parser_impl: brush_parser::ParserImpl::default(),
    }
}

pub(crate) fn word_options() -> brush_parser::ParserOptions {
    parser_options()
}

/// Parses a whole script; the error is the message to print.
pub(crate) fn parse(script: &str) -> Result<ast::Program, (usize, String)> {
    let mut parser = brush_parser::Parser::new(std::io::Cursor::new(script), &parser_options());
    parser.parse_program().map_err(|e| describe_parse_error(script, &e))
}

/// The longest run of whole lines before line `error_line` that parses,
/// trying at most [`MAX_PREFIX_PARSES`] lengths (the command that fails
/// to parse usually starts a few lines up).
fn parsed_prefix(script: &str, error_line: usize) -> Option<(usize, ast::Program)> {
    let ends: Vec<usize> =
        script.match_indices('\n').map(|(i, _)| i + 1).take(error_line.saturating_sub(1)).collect();
    ends.iter().rev().take(MAX_PREFIX_PARSES).find_map(|&end| parse(&script[..end]).ok().map(|p| (end, p)))
}

/// The 0-based line at byte `at` of `script`.
fn start_line(script: &str, at: usize) -> usize {
    script[..at].matches('\n').count()
}

/// How many prefixes [`parsed_prefix`] tries.
const MAX_PREFIX_PARSES: usize = 32;

fn describe_parse_error(script: &str, err: &brush_parser::ParseError) -> (usize, String) {
    match err {
        brush_parser::ParseError::ParsingNear(pos) => {
            let token = token_at(script, pos.index);
            (pos.line, format!("syntax error near unexpected token `{token}'"))
        }
        brush_parser::ParseError::ParsingAtEndOfInput => {
            (script.matches('\n').count() + 1, "syntax error: unexpected end of file".to_string())
        }
        brush_parser::ParseError::Tokenizing { inner, position } => {
            let line = position.as_ref().map_or(1, |p| p.line);
            let text = inner.to_string();
            if text.contains("unterminated") || text.contains("end of input") {
                (line, format!("unexpected EOF while looking for matching token ({text})"))
            } else {
                (line, format!("syntax error: {text}"))
            }
        }
    }
}

fn token_at(script: &str, index: usize) -> String {
    let rest = script.get(index..).unwrap_or_default().trim_start_matches([' ', '\t']);
    if rest.starts_with('\n') || rest.is_empty() {
        return "newline".into();
    }
    for op in [";;", "&&", "||", ">>", "<<", ";", "&", "|", "(", ")", "<", ">"] {
        if rest.starts_with(op) {
            return op.into();
        }
    }
    rest.split(|c: char| c.is_whitespace() || ";&|()<>".contains(c)).next().unwrap_or_default().to_string()
}

pub(crate) fn run_script(
    state: &mut State,
    sys: &mut dyn System,
    script: &str,
    name: &str,
    stdin: Vec<u8>,
) -> i32 {
    let seed = sys.now_ms();
    let err = output(Sink::Host(Stream::Stderr));
    let mut interp = Interp {
        state,
        sys,
        flow: None,
        name: name.to_string(),
        line: 1,
        line_base: 0,
        depth: 0,
        condition: 0,
        loops: 0,
        err: err.clone(),
        subst_io: None,
        tempenv: Vec::new(),
        top_depth: 0,
        subst_status: None,
        random: seed | 1,
        aborted: false,
        exec_io: Vec::new(),
        exec_files: Vec::new(),
        proc_files: Vec::new(),
        proc_pending: Vec::new(),
        running_trap: Vec::new(),
        arith_cmd: "",
        pids: 1,
        clock_ms: 0,
        job_elapsed: None,
    };
    if interp.state.started_ms == 0 {
        interp.state.started_ms = seed;
    }
    // bash exports `PWD`, set from the working directory at startup.
    let cwd = interp.sys.cwd();
    interp.state.export("PWD", Some(cwd));
    let io = Io {
        stdin: input(stdin),
        stdout: output(Sink::Host(Stream::Stdout)),
        stderr: err,
        fds: crate::fds::no_fds(),
    };
    let status = interp.run_source_as(script, &io, true);
    let status = match interp.flow.take() {
        Some(Flow::Exit(code) | Flow::Abort(code)) => code,
        _ => status,
    };
    let status = interp.exit_trap(status, &io);
    interp.state.last_status = status;
    status
}

impl Interp<'_> {
    /// Prints `cordon: line N: message` to the current standard error.
    pub(crate) fn report(&mut self, message: &str) {
        let text = format!("{}: line {}: {message}\n", self.name, self.line);
        let _ = self.err.clone().borrow_mut().write(&mut *self.sys, text.as_bytes());
    }

    /// Parses and runs `script` (a whole script, `eval` text or a
    /// substitution) with these streams.
    pub(crate) fn run_source(&mut self, script: &str, io: &Io) -> i32 {
        self.run_source_as(script, io, false)
    }

    /// [`Self::run_source`]; `top`: the script itself, which a malformed
    /// `[[` ends with `$?` unchanged.
    fn run_source_as(&mut self, script: &str, io: &Io, top: bool) -> i32 {
        let base = self.line.saturating_sub(1);
        let program = match parse(script) {
            Ok(program) => program,
            Err((line, message)) => {
                // bash reads a command at a time: the commands before the
                // one that does not parse run first.
                let mut start = 0;
                if let Some((end, program)) = parsed_prefix(script, line) {
                    start = end;
                    self.run_program(&program, io, base);
                    if self.flow.is_some() {
                        return self.state.last_status;
                    }
                }
                let saved = std::mem::replace(&mut self.err, io.stderr.clone());
                // bash words errors in `[[ … ]]` its own way and keeps `$?`.
                let failing =
                    script[start..].lines().take(line.saturating_sub(start_line(script, start))).count();
                let rest: String = script[start..].split_inclusive('\n').take(failing).collect();
                let cond = crate::condsyntax::check(&rest);
                if let Some((at, message)) = cond {
                    self.line = base + start_line(script, start) + at + 1;
                    if let Some(message) = message {
                        // The script itself is bash's `-c` string.
                        let name = self.name.clone();
                        if top && self.depth == 0 {
                            self.name = format!("{name}: -c");
                        }
                        self.report(&message);
                        self.name = name;
                    }
                    self.err = saved;
                    if !top {
                        return 2;
                    }
                    self.flow = Some(Flow::Exit(self.state.last_status));
                    return self.state.last_status;
                }
                self.line = base + line;
                self.report(&message);
                self.err = saved;
                return 2;
            }
        };
        self.run_program(&program, io, base)
    }

    fn run_program(&mut self, program: &ast::Program, io: &Io, base: usize) -> i32 {
        let mut status = 0;
        for command in &program.complete_commands {
            status = self.exec_list_at(command, io, base);
            if let (Some(Flow::Abort(code)), true) = (self.flow, self.depth == self.top_depth) {
                // The script's own top level goes on with its next command
                // (unless `set -e`).
                self.flow = self.state.options.errexit.then_some(Flow::Exit(code));
                status = code;
                self.state.last_status = code;
            }
            if self.flow.is_some() {
                break;
            }
        }
        status
    }

    fn exec_list_at(&mut self, list: &ast::CompoundList, io: &Io, base: usize) -> i32 {
        let saved = self.line_base;
        self.line_base = base;
        let status = self.exec_list(list, io);
        self.line_base = saved;
        status
    }

    fn set_line(&mut self, loc: Option<brush_parser::SourceSpan>) {
        if let Some(loc) = loc {
            self.line = self.line_base + loc.start.line;
        }
    }

    pub(crate) fn exec_list(&mut self, list: &ast::CompoundList, io: &Io) -> i32 {
        let mut status = 0;
        for item in &list.0 {
            if matches!(item.1, ast::SeparatorOperator::Async) {
                status = self.exec_background(&item.0, io);
                if self.flow.is_some() {
                    break;
                }
                continue;
            }
            status = self.exec_and_or(&item.0, io);
            if self.flow.is_some() {
                break;
            }
        }
        status
    }

    /// `LIST &`: runs at once in a subshell with standard input empty, and
    /// is recorded as a job (see [`crate::jobs`]); the status is 0.
    fn exec_background(&mut self, list: &ast::AndOrList, io: &Io) -> i32 {
        let bg_io = Io { stdin: input(Vec::new()), ..io.clone() };
        let mut pid = 0;
        let outer = self.job_elapsed.replace(0);
        let status = self.subshell(|me| {
            pid = me.state.bashpid;
            me.exec_and_or(list, &bg_io)
        });
        let elapsed = std::mem::replace(&mut self.job_elapsed, outer).unwrap_or(0);
        if self.flow.is_some() {
            return status;
        }
        let now = self.clock_ms;
        self.state.jobs.add(
            pid,
            format!("{} &", crate::jobs::text(list)),
            status,
            now.saturating_add(elapsed),
            now,
        );
        self.set_pipestatus(&[0]);
        self.state.last_status = 0;
        0
    }

    fn exec_and_or(&mut self, list: &ast::AndOrList, io: &Io) -> i32 {
        let last = list.additional.len();
        let mut status = self.exec_pipeline(&list.first, io, last > 0);
        for (i, next) in list.additional.iter().enumerate() {
            if self.flow.is_some() {
                break;
            }
            let in_condition = i + 1 < last;
            match next {
                ast::AndOr::And(p) if status == 0 => status = self.exec_pipeline(p, io, in_condition),
                ast::AndOr::Or(p) if status != 0 => status = self.exec_pipeline(p, io, in_condition),
                _ => {}
            }
        }
        status
    }

    fn exec_pipeline(&mut self, pipeline: &ast::Pipeline, io: &Io, in_condition: bool) -> i32 {
        let guarded = in_condition || pipeline.bang;
        let started = crate::callstack::pipeline_started();
        if guarded {
            self.condition += 1;
        }
        let status = match pipeline.seq.as_slice() {
            [only] => {
                let status = self.exec_command(only, io);
                self.set_pipestatus(&[status]);
                status
            }
            stages => self.exec_stages(stages, io),
        };
        if guarded {
            self.condition -= 1;
        }
        let status = if pipeline.bang { i32::from(status == 0) } else { status };
        self.state.last_status = status;
        // A group, loop, `if` or `case` fails through its last command, which
        // already answered to `set -e` and the ERR trap (bash).
        // (Not when it failed before running anything, e.g. expanding its words.)
        let guarded = guarded
            || crate::callstack::compound_passes_status(&pipeline.seq)
                && crate::callstack::inner_pipelines_ran(started);
        if status != 0 && !guarded && self.condition == 0 && self.flow.is_none() {
            self.err_trap(io);
        }
        if status != 0 && !guarded && self.condition == 0 && self.state.options.errexit && self.flow.is_none()
        {
            self.flow = Some(Flow::Exit(status));
        }
        status
    }

    fn exec_stages(&mut self, stages: &[ast::Command], io: &Io) -> i32 {
        let mut stdin = io.stdin.clone();
        let mut statuses = Vec::with_capacity(stages.len());
        for (i, command) in stages.iter().enumerate() {
            let last = i + 1 == stages.len();
            let stdout = if last { io.stdout.clone() } else { output(Sink::Buffer(Vec::new())) };
            let stage = Io { stdin: stdin.clone(), stdout: stdout.clone(), ..io.clone() };
            // The `DEBUG` action runs in the shell itself, before each simple stage.
            if let ast::Command::Simple(simple) = command {
                self.set_line(simple.location());
                if !self.debug_trap(io) {
                    break;
                }
            }
            // `shopt -s lastpipe`: the last stage runs in this shell.
            if last && self.state.options.shopt("lastpipe") {
                statuses.push(self.exec_command(command, &stage));
            } else {
                statuses.push(self.subshell(|me| me.exec_command(command, &stage)));
            }
            if !last {
                let data = match &mut *stdout.borrow_mut() {
                    Sink::Buffer(buf) => std::mem::take(buf),
                    _ => Vec::new(),
                };
                stdin = input(data);
            }
            if self.flow.is_some() {
                break;
            }
        }
        let last = statuses.last().copied().unwrap_or(0);
        self.set_pipestatus(&statuses);
        if self.state.options.pipefail {
            statuses.iter().rev().copied().find(|s| *s != 0).unwrap_or(0)
        } else {
            last
        }
    }

    /// Runs `f` with a copy of the shell state that is thrown away after,
    /// and the working directory restored: `( )`, pipeline stages and
    /// command substitutions.
    pub(crate) fn subshell(&mut self, f: impl FnOnce(&mut Self) -> i32) -> i32 {
        let saved = self.state.clone();
        self.state.inherited_traps = Some(self.state.traps.clone());
        self.state.traps.remove(&builtins::trap::EXIT);
        self.state.traps.remove(&builtins::trap::DEBUG);
        // Nor `ERR` unless `set -E`: the subshell's status is the failed
        // command of the shell that started it.
        if !self.state.options.errtrace {
            self.state.traps.remove(&builtins::trap::ERR);
        }
        // Caught signals go back to their defaults; ignored ones stay ignored.
        self.state.traps.retain(|n, action| action.is_empty() || !builtins::trap::is_signal(*n));
        self.pids += 1;
        self.state.bashpid = self.pids;
        self.state.subshell = true;
        let cwd = self.sys.cwd();
        let loops = std::mem::replace(&mut self.loops, 0);
        let exec_io = self.exec_io.len();
        let mut status = f(self);
        self.flush_exec_files();
        self.exec_io.truncate(exec_io);
        if let Some(Flow::Exit(code) | Flow::Abort(code)) = self.flow {
            status = code;
        }
        self.flow = if self.aborted { Some(Flow::Exit(status)) } else { None };
        self.loops = loops;
        let last = status;
        *self.state = saved;
        self.state.last_status = last;
        if self.sys.cwd() != cwd {
            let _ = self.sys.chdir(&cwd);
        }
        status
    }

    fn exec_command(&mut self, command: &ast::Command, io: &Io) -> i32 {
        if self.sys.interrupted() {
            self.aborted = true;
            self.flow = Some(Flow::Exit(130));
            return 130;
        }
        if !self.exec_io.is_empty() {
            let io = self.effective_io(io);
            let status = self.exec_command_with(command, &io);
            self.flush_exec_files();
            return status;
        }
        let status = self.exec_command_with(command, io);
        self.flush_exec_files();
        status
    }

    fn exec_command_with(&mut self, command: &ast::Command, io: &Io) -> i32 {
        match command {
            ast::Command::Simple(simple) => self.exec_simple(simple, io),
            ast::Command::Compound(compound, redirects) => {
                self.set_line(compound.location());
                self.with_redirects(redirects.as_ref().map(|r| r.0.as_slice()), io, |me, io| {
                    me.exec_compound(compound, io)
                })
            }
            ast::Command::Function(def) => {
                self.set_line(def.fname.loc.clone());
                if def.fname.value.contains('$') {
                    // bash refuses a name with an expansion in it.
                    self.report(&format!("`{}': not a valid identifier", def.fname.value));
                    return 1;
                }
                if crate::posix::special(self.state, &def.fname.value) {
                    self.report(&format!("`{}': is a special builtin", def.fname.value));
                    self.flow = Some(Flow::Exit(2));
                    return 2;
                }
                self.state.functions.insert(def.fname.value.clone(), Rc::new(def.body.clone()));
                0
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.set_line(Some(test.loc.clone()));
                if !self.debug_trap(io) {
                    return self.state.last_status;
                }
                self.with_redirects(redirects.as_ref().map(|r| r.0.as_slice()), io, |me, io| {
                    let saved = std::mem::replace(&mut me.err, io.stderr.clone());
                    let status = match me.extended_test(&test.expr) {
                        Ok(true) => 0,
                        Ok(false) => 1,
                        Err(e) => me.expansion_failed(e),
                    };
                    me.err = saved;
                    status
                })
            }
        }
    }

    /// Turns an expansion error into a status (and an exit for fatal ones).
    pub(crate) fn expansion_failed(&mut self, err: ExpandError) -> i32 {
        match err {
            ExpandError::Reported { fatal, status } => {
                if fatal && self.flow.is_none() {
                    self.flow = Some(Flow::Exit(status));
                }
                status
            }
        }
    }

    fn exec_compound(&mut self, compound: &ast::CompoundCommand, io: &Io) -> i32 {
        match compound {
            ast::CompoundCommand::BraceGroup(group) => self.exec_list(&group.list, io),
            ast::CompoundCommand::Subshell(sub) => self.subshell(|me| {
                let status = me.exec_list(&sub.list, io);
                me.end_subshell(status, io)
            }),
            ast::CompoundCommand::ForClause(clause) => self.exec_for(clause, io),
            ast::CompoundCommand::ArithmeticForClause(clause) => self.exec_arith_for(clause, io),
            ast::CompoundCommand::CaseClause(clause) => self.exec_case(clause, io),
            ast::CompoundCommand::IfClause(clause) => self.exec_if(clause, io),
            ast::CompoundCommand::WhileClause(clause) => self.exec_while(clause, io, true),
            ast::CompoundCommand::UntilClause(clause) => self.exec_while(clause, io, false),
            ast::CompoundCommand::Arithmetic(arith) => {
                if !self.debug_trap(io) {
                    return self.state.last_status;
                }
                let saved = std::mem::replace(&mut self.err, io.stderr.clone());
                self.arith_cmd = "((";
                let result = self.arith_text(&arith.expr.value);
                self.arith_cmd = "";
                let status = match result {
                    Ok(v) => i32::from(v == 0),
                    Err(e) => self.expansion_failed(e),
                };
                self.err = saved;
                status
            }
            ast::CompoundCommand::Coprocess(_) => {
                self.report("coproc: not supported in the sandbox");
                1
            }
        }
    }

    fn condition<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.condition += 1;
        let out = f(self);
        self.condition -= 1;
        out
    }

    /// After a loop body: whether to leave the loop.
    fn leave_loop(&mut self) -> bool {
        if self.flow.is_none() && self.sys.interrupted() {
            self.aborted = true;
            self.flow = Some(Flow::Exit(130));
        }
        match self.flow {
            Some(Flow::Break(n)) => {
                self.flow = if n > 1 { Some(Flow::Break(n - 1)) } else { None };
                true
            }
            Some(Flow::Continue(n)) => {
                if n > 1 {
                    self.flow = Some(Flow::Continue(n - 1));
                    true
                } else {
                    self.flow = None;
                    false
                }
            }
            Some(_) => true,
            None => false,
        }
    }

    fn exec_for(&mut self, clause: &ast::ForClauseCommand, io: &Io) -> i32 {
        let saved = std::mem::replace(&mut self.err, io.stderr.clone());
        if !crate::builtins::valid_name(&clause.variable_name) {
            self.report(&format!("`{}': not a valid identifier", clause.variable_name));
            self.err = saved;
            return 1;
        }
        let values = match &clause.values {
            Some(words) => {
                let mut values = Vec::new();
                for word in words {
                    match self.expand_fields(&word.value) {
                        Ok(fields) => values.extend(fields),
                        Err(e) => {
                            self.err = saved;
                            return self.expansion_failed(e);
                        }
                    }
                }
                values
            }
            None => self.state.positional.clone(),
        };
        self.err = saved;
        let mut status = 0;
        self.loops += 1;
        let head = self.line;
        for value in values {
            self.line = head;
            if !self.debug_trap(io) {
                break;
            }
            if !self.state.set(&clause.variable_name, value) {
                self.report(&format!("{}: readonly variable", clause.variable_name));
                status = 1;
                break;
            }
            status = self.exec_list(&clause.body.list, io);
            if self.leave_loop() {
                break;
            }
        }
        self.loops -= 1;
        status
    }

    fn exec_arith_for(&mut self, clause: &ast::ArithmeticForClauseCommand, io: &Io) -> i32 {
        let saved = std::mem::replace(&mut self.err, io.stderr.clone());
        let mut status = 0;
        // An empty part is skipped; an empty condition is true.
        let part = |w: &Option<ast::UnexpandedArithmeticExpr>| {
            w.as_ref().map(|w| w.value.clone()).filter(|v| !v.trim().is_empty())
        };
        let (initializer, condition, updater) =
            (part(&clause.initializer), part(&clause.condition), part(&clause.updater));
        let head = self.line;
        if let Some(init) = &initializer {
            if !self.debug_trap(io) {
                self.err = saved;
                return self.state.last_status;
            }
            if let Err(e) = self.arith_text(init) {
                self.err = saved;
                return self.expansion_failed(e);
            }
        }
        self.loops += 1;
        loop {
            self.line = head;
            if let Some(cond) = &condition {
                if !self.debug_trap(io) {
                    break;
                }
                match self.arith_text(cond) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        status = self.expansion_failed(e);
                        break;
                    }
                }
            }
            status = self.exec_list(&clause.body.list, io);
            if self.leave_loop() {
                break;
            }
            self.line = head;
            if let Some(update) = &updater {
                if !self.debug_trap(io) {
                    break;
                }
                if let Err(e) = self.arith_text(update) {
                    status = self.expansion_failed(e);
                    break;
                }
            }
        }
        self.loops -= 1;
        self.err = saved;
        status
    }

    fn exec_case(&mut self, clause: &ast::CaseClauseCommand, io: &Io) -> i32 {
        if !self.debug_trap(io) {
            return self.state.last_status;
        }
        let saved = std::mem::replace(&mut self.err, io.stderr.clone());
        let subject = match self.expand_string(&clause.value.value) {
            Ok(s) => s,
            Err(e) => {
                self.err = saved;
                return self.expansion_failed(e);
            }
        };
        let mut status = 0;
        let mut fall_through = false;
        for item in &clause.cases {
            let mut matched = fall_through;
            if !matched {
                for pattern in &item.patterns {
                    match self.expand_pattern(&pattern.value) {
                        Ok(p) if self.match_pattern(&p, &subject) => {
                            matched = true;
                            break;
                        }
                        Ok(_) => {}
                        Err(e) => {
                            self.err = saved;
                            return self.expansion_failed(e);
                        }
                    }
                }
            }
            if !matched {
                continue;
            }
            status = match &item.cmd {
                Some(list) => self.exec_list(list, io),
                None => 0,
            };
            if self.flow.is_some() {
                break;
            }
            match item.post_action {
                ast::CaseItemPostAction::ExitCase => break,
                ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => fall_through = true,
                ast::CaseItemPostAction::ContinueEvaluatingCases => fall_through = false,
            }
        }
        self.err = saved;
        status
    }

    fn exec_if(&mut self, clause: &ast::IfClauseCommand, io: &Io) -> i32 {
        let cond = self.condition(|me| me.exec_list(&clause.condition, io));
        if self.flow.is_some() {
            return cond;
        }
        if cond == 0 {
            return self.exec_list(&clause.then, io);
        }
        for branch in clause.elses.iter().flatten() {
            match &branch.condition {
                Some(condition) => {
                    let cond = self.condition(|me| me.exec_list(condition, io));
                    if self.flow.is_some() {
                        return cond;
                    }
                    if cond == 0 {
                        return self.exec_list(&branch.body, io);
                    }
                }
                None => return self.exec_list(&branch.body, io),
            }
        }
        0
    }

    fn exec_while(&mut self, clause: &ast::WhileOrUntilClauseCommand, io: &Io, is_while: bool) -> i32 {
        let mut status = 0;
        self.loops += 1;
        loop {
            let cond = self.condition(|me| me.exec_list(&clause.0, io));
            if self.flow.is_some() {
                self.leave_loop();
                break;
            }
            if (cond == 0) != is_while {
                break;
            }
            status = self.exec_list(&clause.1.list, io);
            if self.leave_loop() {
                break;
            }
        }
        self.loops -= 1;
        status
    }

    fn exec_simple(&mut self, command: &ast::SimpleCommand, io: &Io) -> i32 {
        if let Some(status) = crate::alias::run(self, command, io) {
            return status;
        }
        let spaced: Vec<ast::Assignment>;
        let mut assignments: Vec<&ast::Assignment> = Vec::new();
        let mut redirects: Vec<&ast::IoRedirect> = Vec::new();
        // (word, is an assignment-looking argument of a declaration builtin)
        let mut words: Vec<(&ast::Word, Option<&ast::Assignment>)> = Vec::new();
        // (index of the word it comes before, kind, list)
        let mut procs: Procs = Vec::new();
        // `{name}>file`: (index in `redirects`, name)
        let mut named: Vec<(usize, String)> = Vec::new();
        let mut loc = None;
        for item in command.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => {
                    loc = loc.or_else(|| Some(a.loc.clone()));
                    assignments.push(a);
                }
                ast::CommandPrefixOrSuffixItem::Word(w) => {
                    loc = loc.or_else(|| w.loc.clone());
                    words.push((w, None));
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                    procs.push((words.len(), kind, sub));
                }
            }
        }
        if let Some(w) = &command.word_or_name {
            loc = loc.or_else(|| w.loc.clone());
            words.push((w, None));
        }
        let mut previous_word = false;
        for item in command.suffix.iter().flat_map(|s| s.0.iter()) {
            let was_word = std::mem::replace(&mut previous_word, false);
            match item {
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => {
                    if let (true, ast::IoRedirect::File(None, ..)) = (was_word, r) {
                        if let Some(name) = words.last().and_then(|(w, _)| crate::fds::named_fd(&w.value)) {
                            words.pop();
                            named.push((redirects.len(), name));
                        }
                    }
                    redirects.push(r);
                }
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => words.push((w, Some(a))),
                ast::CommandPrefixOrSuffixItem::Word(w) => {
                    previous_word = true;
                    words.push((w, None));
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                    procs.push((words.len(), kind, sub));
                }
            }
        }
        if let Some(joined) = spaced_assignments(&words) {
            spaced = joined;
            assignments.extend(spaced.iter());
            words.clear();
        }
        let owned;
        if !named.is_empty() {
            self.err = io.stderr.clone();
            owned = match self.named_fd_redirects(&redirects, &named, io) {
                Ok(owned) => owned,
                Err(status) => return status,
            };
            redirects = owned.iter().collect();
        }
        let mark = (self.proc_files.len(), self.proc_pending.len());
        let saved = self.subst_io.take();
        let status = self.exec_simple_with(io, &assignments, &redirects, &words, &procs, loc);
        self.subst_io = saved;
        self.finish_process_substitutions(mark, io);
        status
    }

    fn exec_simple_with(
        &mut self,
        io: &Io,
        assignments: &[&ast::Assignment],
        redirects: &[&ast::IoRedirect],
        words: &[(&ast::Word, Option<&ast::Assignment>)],
        procs: &Procs,
        loc: Option<brush_parser::SourceSpan>,
    ) -> i32 {
        self.set_line(loc);
        if !self.debug_trap(io) {
            return self.state.last_status;
        }
        self.err = io.stderr.clone();
        self.subst_io = Some((io.stdin.clone(), io.fds.clone()));
        self.subst_status = None;

        let mut argv: Vec<String> = Vec::new();
        let mut procs = procs.iter().peekable();
        for (i, (word, assignment)) in words.iter().enumerate() {
            while let Some((_, kind, sub)) = procs.next_if(|p| p.0 == i) {
                argv.push(self.process_substitution(kind, sub, io));
            }
            let expanded = match assignment {
                // Only a declaration builtin named literally (`typeset x=$y`,
                // not `$cmd x=$y`) takes assignments unsplit.
                Some(a) if words.first().is_some_and(|(w, _)| is_declaration(&w.value)) => {
                    self.assignment_text(a, &argv).map(|s| vec![s])
                }
                _ => self.expand_fields(&word.value),
            };
            match expanded {
                Ok(fields) => argv.extend(fields),
                Err(e) => return self.expansion_failed(e),
            }
        }
        for (_, kind, sub) in procs {
            argv.push(self.process_substitution(kind, sub, io));
        }

        if argv.is_empty() {
            for a in assignments {
                if let Err(status) = self.assign(a, false) {
                    // Assigning a readonly variable drops the rest of the line.
                    if self.is_readonly(a) && self.flow.is_none() {
                        self.flow = Some(Flow::Abort(status));
                    }
                    return status;
                }
                self.trace_assignment(assignment_name(a), io);
            }
            let status = self.subst_status.unwrap_or(0);
            self.state.last_arg = Some(String::new());
            return self.with_redirects(Some(redirects), io, |_, _| status);
        }

        // `NAME=value cmd`: the assignments hold for the command only.
        let mut saved: Vec<(String, Option<Var>)> = Vec::new();
        for a in assignments {
            let name = assignment_name(a).to_string();
            saved.push((name.clone(), self.state.vars.get(&name).cloned()));
            if let Err(status) = self.assign(a, true) {
                // A readonly one is reported and left out; the command runs.
                if self.is_readonly(a) {
                    continue;
                }
                self.restore_vars(saved);
                return status;
            }
            self.trace_assignment(assignment_name(a), io);
        }
        self.trace_command(&argv, io);
        self.state.last_arg = argv.last().cloned();
        if argv.first().is_some_and(|a| a == "exec") {
            let command = match argv.get(1).map(String::as_str) {
                Some("--") => &argv[2..],
                _ => &argv[1..],
            };
            if command.is_empty() {
                self.restore_vars(saved);
                return self.exec_redirects(redirects, io);
            }
            // `exec CMD`: the command runs, then the shell ends with its status.
            let command = command.to_vec();
            let status = self.with_redirects(Some(redirects), io, |me, io| me.exec_argv(&command, io));
            self.restore_vars(saved);
            if self.flow.is_none() {
                self.flow = Some(Flow::Exit(status));
            }
            return status;
        }
        let function = argv.first().is_some_and(|f| self.state.functions.contains_key(f));
        // Inside a function, `v=x eval …` (or `source`) runs in a scope of
        // its own: a `local` there ends with it.
        let scoped = !self.state.locals.is_empty()
            && argv.first().is_some_and(|c| matches!(c.as_str(), "eval" | "source" | "."));
        if !saved.is_empty() && (function || scoped) {
            // The temporary assignments belong to that frame.
            let temps = saved.iter().filter_map(|(name, _)| {
                self.state.vars.get(name).map(|var| (name.clone(), var.value.clone()))
            });
            let temps: Vec<(String, String)> = temps.collect();
            self.restore_vars(saved);
            if function {
                let status = self.with_redirects(Some(redirects), io, |me, io| {
                    me.tempenv = temps;
                    me.exec_argv(&argv, io)
                });
                self.tempenv.clear();
                return status;
            }
            self.state.push_scope(temps);
            let status = self.with_redirects(Some(redirects), io, |me, io| me.exec_argv(&argv, io));
            self.state.pop_frame();
            return status;
        }
        let status = self.with_redirects(Some(redirects), io, |me, io| me.exec_argv(&argv, io));
        // POSIX mode: assignments before a special builtin stay; one the
        // builtin unset was the temporary one, and shows what it hid.
        if argv.first().is_some_and(|name| crate::posix::special(self.state, name)) {
            let gone = saved.into_iter().filter(|(name, _)| !self.state.vars.contains_key(name)).collect();
            self.restore_vars(gone);
        } else {
            self.restore_vars(saved);
        }
        status
    }

    fn is_readonly(&self, a: &ast::Assignment) -> bool {
        self.state.readonly.contains(&self.state.resolve_name(assignment_name(a)))
    }

    fn restore_vars(&mut self, saved: Vec<(String, Option<Var>)>) {
        for (name, var) in saved.into_iter().rev() {
            match var {
                Some(var) => {
                    self.state.vars.insert(name, var);
                }
                None => {
                    self.state.vars.remove(&name);
                }
            }
        }
    }

    /// `name=value` for a declaration builtin's argument (`local x=$y`
    /// does not split `$y`).
    /// An array value (`declare -A m=([k]=v)`) is assigned here, as the
    /// kind the flags so far in `argv` ask for; the builtin gets the name.
    fn assignment_text(&mut self, a: &ast::Assignment, argv: &[String]) -> Result<String, ExpandError> {
        let name = assignment_name(a).to_string();
        let element = matches!(a.name, ast::AssignmentName::ArrayElementName(..));
        let declares = argv.first().is_some_and(|c| matches!(c.as_str(), "declare" | "typeset" | "local"));
        match &a.value {
            ast::AssignmentValue::Scalar(w) if !(element && declares) => {
                let value = self.expand_assignment(&w.value)?;
                let target = match &a.name {
                    // `export a[1]=x`: the builtin rejects the name.
                    ast::AssignmentName::ArrayElementName(_, index) => format!("{name}[{index}]"),
                    ast::AssignmentName::VariableName(_) => name,
                };
                Ok(format!("{target}{}={value}", if a.append { "+" } else { "" }))
            }
            // `declare a=(…)`, `local a[3]=4`: assigned here.
            _ => {
                let flags: String = argv
                    .iter()
                    .skip(1)
                    .filter_map(|w| w.strip_prefix('-'))
                    .filter(|f| !f.contains('='))
                    .collect();
                let local = argv.first().is_some_and(|c| c == "local") || !flags.contains('g');
                if local && !self.state.locals.is_empty() {
                    self.state.local_array(&name);
                }
                if flags.contains('A') && !self.state.assoc.contains_key(&name) {
                    self.state.vars.remove(&name);
                    self.state.arrays.remove(&name);
                    self.state.assoc.insert(name.clone(), Default::default());
                }
                for (flag, set) in [('i', 0), ('l', 1), ('u', 2)] {
                    if flags.contains(flag) {
                        let attrs = self.state.attrs.entry(name.clone()).or_default();
                        match set {
                            0 => attrs.integer = true,
                            1 => (attrs.lower, attrs.upper) = (true, false),
                            _ => (attrs.upper, attrs.lower) = (true, false),
                        }
                    }
                }
                match self.assign(a, false) {
                    Ok(()) => Ok(name),
                    Err(status) => Err(ExpandError::Reported { fatal: false, status }),
                }
            }
        }
    }

    /// Performs an assignment (`exported` for the `NAME=v cmd` form).
    fn assign(&mut self, a: &ast::Assignment, exported: bool) -> Result<(), i32> {
        if self.state.ref_target(assignment_name(a)).is_some_and(|t| t.is_empty()) {
            self.report(&format!("warning: {}: circular name reference", assignment_name(a)));
            return Err(1);
        }
        let name = self.state.resolve_name(assignment_name(a));
        if self.state.readonly.contains(&name) {
            self.report(&format!("{name}: readonly variable"));
            return Err(1);
        }
        self.state.declared.remove(&name);
        match (&a.name, &a.value) {
            (ast::AssignmentName::VariableName(_), ast::AssignmentValue::Scalar(w)) => {
                let value = self.expand_assignment(&w.value).map_err(|e| self.expansion_failed(e))?;
                let old = self.state.get(&name).unwrap_or_default().to_string();
                let value = self.attributed(&name, &old, value, a.append)?;
                if self.state.arrays.contains_key(&name) && !exported {
                    if let Some(array) = self.state.arrays.get_mut(&name) {
                        array.set(0, value);
                    }
                    return Ok(());
                }
                if exported {
                    self.state.vars.insert(name, Var { value, exported: true });
                } else {
                    self.state.set(&name, value);
                    if self.state.options.allexport {
                        self.state.export(&name, None);
                    }
                }
            }
            (ast::AssignmentName::VariableName(_), ast::AssignmentValue::Array(items))
                if self.state.assoc.contains_key(&name) =>
            {
                let mut assoc = if a.append {
                    self.state.assoc.get(&name).cloned().unwrap_or_default()
                } else {
                    Default::default()
                };
                let mut pending: Option<String> = None;
                let items: Vec<(Option<&str>, bool, &str)> = items
                    .iter()
                    .map(|(key, word)| match key {
                        Some(key) => (Some(key.value.as_str()), false, word.value.as_str()),
                        None => match keyed_element(&word.value) {
                            Some((key, append, raw)) => (Some(key), append, raw),
                            None => (None, false, word.value.as_str()),
                        },
                    })
                    .collect();
                // With any `[k]=v`, words without a key are left out.
                let keyed = items.iter().any(|(key, ..)| key.is_some());
                for (key, append, raw) in items {
                    let value = self.expand_string(raw).map_err(|e| self.expansion_failed(e))?;
                    match key {
                        Some(key) => {
                            let key = self.expand_string(key).map_err(|e| self.expansion_failed(e))?;
                            let old = assoc.get(&key).unwrap_or_default().to_string();
                            // bash 5.2 appends only in `a+=(…)`.
                            let value = self.attributed(&name, &old, value, append && a.append)?;
                            assoc.set(&key, value);
                        }
                        None if keyed => {
                            self.report(&format!(
                                "{name}: {raw}: must use subscript when assigning associative array"
                            ));
                        }
                        // `a=(k1 v1 k2 v2)`: keys and values in turn.
                        None => match pending.take() {
                            Some(key) => {
                                let value = self.attributed(&name, "", value, false)?;
                                assoc.set(&key, value);
                            }
                            None => pending = Some(value),
                        },
                    }
                }
                if let Some(key) = pending {
                    assoc.set(&key, String::new());
                }
                self.state.assoc.insert(name, assoc);
            }
            (ast::AssignmentName::ArrayElementName(_, index), ast::AssignmentValue::Scalar(w))
                if self.state.assoc.contains_key(&name) =>
            {
                let key = self.expand_string(index).map_err(|e| self.expansion_failed(e))?;
                let value = self.expand_assignment(&w.value).map_err(|e| self.expansion_failed(e))?;
                if key.is_empty() {
                    self.report(&format!("{name}[{index}]: bad array subscript"));
                    return Err(1);
                }
                let old =
                    self.state.assoc.get(&name).and_then(|m| m.get(&key)).unwrap_or_default().to_string();
                let value = self.attributed(&name, &old, value, a.append)?;
                if let Some(assoc) = self.state.assoc.get_mut(&name) {
                    assoc.set(&key, value);
                }
            }
            (ast::AssignmentName::VariableName(_), ast::AssignmentValue::Array(items)) => {
                // Every value is expanded first; then the elements are
                // stored in order, each subscript evaluated when its element
                // is stored (it sees the elements stored before it).
                let mut expanded = Vec::with_capacity(items.len());
                for (key, word) in items {
                    let (key, append, raw) = match key {
                        Some(key) => (Some(key.value.as_str()), false, word.value.as_str()),
                        None => match keyed_element(&word.value) {
                            Some((key, append, raw)) => (Some(key), append, raw),
                            None => (None, false, word.value.as_str()),
                        },
                    };
                    let fields = match key {
                        Some(_) => vec![self.expand_assignment(raw).map_err(|e| self.expansion_failed(e))?],
                        None => self.expand_fields(raw).map_err(|e| self.expansion_failed(e))?,
                    };
                    expanded.push((key, append, fields));
                }
                let start: Indexed = match (a.append, self.state.arrays.remove(&name)) {
                    (true, Some(array)) => array,
                    (true, None) => self.state.get(&name).map(str::to_string).into_iter().collect(),
                    (false, _) => Indexed::default(),
                };
                self.state.vars.remove(&name);
                // An element without `[i]=` goes after the previous one.
                let mut next = start.next_index();
                self.state.arrays.insert(name.clone(), start);
                for (key, append, fields) in expanded {
                    match key {
                        Some(key) => {
                            let index = self.subscript(key).map_err(|e| self.expansion_failed(e))?;
                            let resolved = self.state.arrays.get(&name).and_then(|v| v.resolve(index));
                            let Some(index) = resolved else {
                                self.report(&format!("{name}[{index}]: bad array subscript"));
                                return Err(1);
                            };
                            let value = fields.concat();
                            if let Some(array) = self.state.arrays.get_mut(&name) {
                                let slot = array.slot(index);
                                if append {
                                    slot.push_str(&value);
                                } else {
                                    *slot = value;
                                }
                            }
                            next = index + 1;
                        }
                        None => {
                            if let Some(array) = self.state.arrays.get_mut(&name) {
                                for field in fields {
                                    array.set(next, field);
                                    next += 1;
                                }
                            }
                        }
                    }
                }
            }
            (ast::AssignmentName::ArrayElementName(_, index), ast::AssignmentValue::Scalar(w)) => {
                if index.trim().is_empty() {
                    self.report(&format!("{name}[{index}]: bad array subscript"));
                    return Err(1);
                }
                let index = self.subscript(index).map_err(|e| self.expansion_failed(e))?;
                let value = self.expand_assignment(&w.value).map_err(|e| self.expansion_failed(e))?;
                let resolved = match self.state.arrays.get(&name) {
                    Some(array) => array.resolve(index),
                    None => usize::try_from(index).ok(),
                };
                let Some(index) = resolved else {
                    self.report(&format!("{name}[{index}]: bad array subscript"));
                    return Err(1);
                };
                let scalar = self.state.vars.remove(&name).map(|v| v.value);
                let array = self.state.arrays.entry(name).or_insert_with(|| scalar.into_iter().collect());
                let slot = array.slot(index);
                if a.append {
                    slot.push_str(&value);
                } else {
                    *slot = value;
                }
            }
            (ast::AssignmentName::ArrayElementName(..), ast::AssignmentValue::Array(_)) => {
                self.report(&format!("{name}: cannot assign list to array member"));
                return Err(1);
            }
        }
        Ok(())
    }

    /// A value as variable `name` stores it: arithmetic under `-i` (added to
    /// `old` for `+=`), else appended to `old` for `+=`; cased under `-l`/`-u`.
    pub(crate) fn attributed(
        &mut self,
        name: &str,
        old: &str,
        value: String,
        append: bool,
    ) -> Result<String, i32> {
        let attrs = self.state.attrs.get(name).copied().unwrap_or_default();
        let value = if attrs.integer {
            let n = self.arith_text(&value).map_err(|e| self.expansion_failed(e))?;
            let base = if append { self.arith_text(old).map_err(|e| self.expansion_failed(e))? } else { 0 };
            base.wrapping_add(n).to_string()
        } else if append {
            format!("{old}{value}")
        } else {
            value
        };
        Ok(attrs.apply(value))
    }

    /// Runs a command by name: a function, a builtin or a script file.
    pub(crate) fn exec_argv(&mut self, argv: &[String], io: &Io) -> i32 {
        let Some(name) = argv.first() else {
            return 0;
        };
        if self.flow.is_some() {
            return self.state.last_status;
        }
        if let Some(body) = self.state.functions.get(name).cloned() {
            return self.call_function(&body, argv, io);
        }
        self.exec_builtin_or_file(argv, io)
    }

    /// Like [`Interp::exec_argv`] but skipping functions (`command`).
    pub(crate) fn exec_builtin_or_file(&mut self, argv: &[String], io: &Io) -> i32 {
        let Some(name) = argv.first() else {
            return 0;
        };
        if let Some(builtin) = builtins::find(name) {
            // A file on `PATH` comes before a builtin that stands for a program.
            if !builtins::is_shell_builtin(name) {
                if let Some(path) = self.path_lookup(name, io) {
                    let argv: Vec<String> =
                        std::iter::once(path).chain(argv.iter().skip(1).cloned()).collect();
                    return self.exec_file(&argv, io);
                }
            }
            let mut ctx = Ctx::new(self, io.clone());
            return builtins::run(builtin, &mut ctx, argv.get(1..).unwrap_or_default());
        }
        if name.contains('/') {
            return self.exec_file(argv, io);
        }
        if let Some(path) = self.path_lookup(name, io) {
            let argv: Vec<String> = std::iter::once(path).chain(argv.iter().skip(1).cloned()).collect();
            return self.exec_file(&argv, io);
        }
        let denied = builtins::path_non_executable(&mut Ctx::new(self, io.clone()), name);
        let saved = std::mem::replace(&mut self.err, io.stderr.clone());
        match &denied {
            Some(path) => self.report(&format!("{path}: Permission denied")),
            None => self.report(&format!("{name}: command not found")),
        }
        self.err = saved;
        if denied.is_some() {
            126
        } else {
            127
        }
    }

    /// The executable file `PATH` gives for `name` (a script in the
    /// sandbox's file system).
    fn path_lookup(&mut self, name: &str, io: &Io) -> Option<String> {
        let mut ctx = Ctx::new(self, io.clone());
        builtins::path_files(&mut ctx, name, false).into_iter().next()
    }

    /// `./script.sh args`: a shell script in the sandbox's file system runs
    /// in a subshell with its own positional parameters.
    fn exec_file(&mut self, argv: &[String], io: &Io) -> i32 {
        let Some(path) = argv.first() else {
            return 0;
        };
        let saved = std::mem::replace(&mut self.err, io.stderr.clone());
        let result = match self.sys.stat(path) {
            Ok(meta) if meta.kind == crate::system::Kind::Dir => Err(format!("{path}: Is a directory")),
            Ok(_) => self.sys.read(path).map_err(|e| format!("{path}: {}", e.describe())),
            Err(e) => Err(format!("{path}: {}", e.describe())),
        };
        let script = match result {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(message) => {
                self.report(&message);
                self.err = saved;
                return if message.ends_with("No such file or directory") { 127 } else { 126 };
            }
        };
        self.err = saved;
        let first = script.lines().next().unwrap_or_default();
        if first.starts_with("#!")
            && (first.contains("node") || first.contains("deno") || first.contains("bun"))
        {
            let body: String = script.split_inclusive('\n').skip(1).collect();
            let args: Vec<String> = argv.get(1..).unwrap_or_default().to_vec();
            let stdin = io.stdin.borrow_mut().read_all();
            let outcome = self.sys.javascript(&body, &args, &stdin);
            let _ = io.stdout.borrow_mut().write(&mut *self.sys, &outcome.stdout);
            let _ = io.stderr.borrow_mut().write(&mut *self.sys, &outcome.stderr);
            return outcome.status;
        }
        self.run_script_text(&script, path, argv.get(1..).unwrap_or_default(), io)
    }

    /// Runs script text in a subshell as `name args…`.
    pub(crate) fn run_script_text(&mut self, script: &str, name: &str, args: &[String], io: &Io) -> i32 {
        if self.depth >= MAX_DEPTH {
            self.report(&format!("{name}: maximum nesting depth ({MAX_DEPTH}) exceeded"));
            return 1;
        }
        let name = name.to_string();
        let args = args.to_vec();
        self.subshell(move |me| {
            me.depth += 1;
            // A new shell: only ignored signals stay ignored.
            let mut ignored = std::mem::take(&mut me.state.traps);
            ignored.retain(|_, action| action.is_empty());
            *me.state = me.state.child();
            me.state.traps = ignored;
            me.state.positional = args;
            let saved_name = std::mem::replace(&mut me.name, name);
            let saved_line = std::mem::replace(&mut me.line, 1);
            let saved_top = std::mem::replace(&mut me.top_depth, me.depth);
            let status = me.run_source_as(script, io, true);
            let status = me.end_subshell(status, io);
            me.top_depth = saved_top;
            me.name = saved_name;
            me.line = saved_line;
            me.depth -= 1;
            status
        })
    }

    fn call_function(&mut self, body: &ast::FunctionBody, argv: &[String], io: &Io) -> i32 {
        if self.depth >= MAX_DEPTH {
            let saved = std::mem::replace(&mut self.err, io.stderr.clone());
            self.report(&format!(
                "{}: maximum function nesting level exceeded ({MAX_DEPTH})",
                argv.first().map_or("", String::as_str)
            ));
            self.err = saved;
            self.flow = Some(Flow::Exit(1));
            self.aborted = true;
            return 1;
        }
        let return_action = self.return_action();
        let positional =
            std::mem::replace(&mut self.state.positional, argv.get(1..).unwrap_or_default().to_vec());
        let calls = crate::callstack::enter(self.state, argv.first().map_or("", String::as_str), self.line);
        let temps = std::mem::take(&mut self.tempenv);
        self.state.push_frame_with(temps);
        self.depth += 1;
        let loops = std::mem::replace(&mut self.loops, 0);
        let line = self.line;
        let mut status = self.with_redirects(body.1.as_ref().map(|r| r.0.as_slice()), io, |me, io| {
            me.exec_compound(&body.0, io)
        });
        self.line = line;
        self.loops = loops;
        self.depth -= 1;
        self.state.pop_frame();
        crate::callstack::leave(self.state, calls);
        self.state.positional = positional;
        if let Some(Flow::Return(code)) = self.flow {
            self.flow = None;
            status = code;
        }
        self.state.last_status = status;
        self.function_return_trap(return_action, io);
        status
    }

    /// Applies redirections around `f`, then writes collected file output.
    fn with_redirects(
        &mut self,
        redirects: Option<&[impl std::borrow::Borrow<ast::IoRedirect>]>,
        io: &Io,
        f: impl FnOnce(&mut Self, &Io) -> i32,
    ) -> i32 {
        let redirects = redirects.unwrap_or_default();
        if redirects.is_empty() {
            return f(self, io);
        }
        let saved_err = std::mem::replace(&mut self.err, io.stderr.clone());
        let exec_io = self.exec_io.len();
        let procs = (self.proc_files.len(), self.proc_pending.len());
        let mut files = Vec::new();
        let outer = io;
        let mut io = io.clone();
        for r in redirects {
            if let Err(status) = self.redirect(r.borrow(), &mut io, &mut files) {
                self.flush(files);
                self.err = saved_err;
                self.finish_process_substitutions(procs, outer);
                return status;
            }
        }
        self.err = saved_err;
        let mut status = f(self, &io);
        self.exec_io.truncate(exec_io);
        self.finish_process_substitutions(procs, outer);
        if !self.flush(files) && status == 0 {
            status = 1;
        }
        status
    }

    /// Writes collected output to its files; `false` if one failed.
    fn flush(&mut self, files: Vec<PendingFile>) -> bool {
        let mut ok = true;
        for file in files {
            let data = match &mut *file.sink.borrow_mut() {
                Sink::Buffer(buf) => std::mem::take(buf),
                _ => Vec::new(),
            };
            if data.is_empty() {
                continue;
            }
            if let Err(e) = self.sys.write(&file.path, &data, WriteMode::Append) {
                self.report(&format!("{}: {}", file.path, e.describe()));
                ok = false;
            }
        }
        ok
    }

    pub(crate) fn redirect(
        &mut self,
        r: &ast::IoRedirect,
        io: &mut Io,
        files: &mut Vec<PendingFile>,
    ) -> Result<(), i32> {
        match r {
            ast::IoRedirect::File(fd, kind, target) => {
                let input_kind = matches!(
                    kind,
                    ast::IoFileRedirectKind::Read
                        | ast::IoFileRedirectKind::ReadAndWrite
                        | ast::IoFileRedirectKind::DuplicateInput
                );
                let fd = fd.map_or(if input_kind { 0 } else { 1 }, |fd| fd);
                match target {
                    ast::IoFileRedirectTarget::Filename(word) => {
                        // Split and globbed like an argument; it must make one word.
                        let mut fields =
                            self.expand_fields(&word.value).map_err(|e| self.expansion_failed(e))?;
                        if fields.len() != 1 {
                            self.report(&format!("{}: ambiguous redirect", word.value));
                            return Err(1);
                        }
                        let path = fields.remove(0);
                        match kind {
                            ast::IoFileRedirectKind::Read | ast::IoFileRedirectKind::ReadAndWrite => {
                                let data = self.open_input(&path, io)?;
                                self.set_fd_input(fd, input(data), io)
                            }
                            ast::IoFileRedirectKind::Write
                            | ast::IoFileRedirectKind::Clobber
                            | ast::IoFileRedirectKind::Append => {
                                let append = matches!(kind, ast::IoFileRedirectKind::Append);
                                if matches!(kind, ast::IoFileRedirectKind::Write) {
                                    self.noclobber_check(&path)?;
                                }
                                let sink = self.open_output(&path, append, io, files)?;
                                self.set_fd_output(fd, sink, io)
                            }
                            ast::IoFileRedirectKind::DuplicateOutput
                            | ast::IoFileRedirectKind::DuplicateInput => {
                                self.duplicate(fd, &path, io, input_kind, files)
                            }
                        }
                    }
                    ast::IoFileRedirectTarget::Fd(target) => {
                        self.duplicate(fd, &target.to_string(), io, input_kind, files)
                    }
                    ast::IoFileRedirectTarget::Duplicate(word) => {
                        let target = self.expand_string(&word.value).map_err(|e| self.expansion_failed(e))?;
                        self.duplicate(fd, &target, io, input_kind, files)
                    }
                    ast::IoFileRedirectTarget::ProcessSubstitution(kind, sub) => {
                        let path = self.process_substitution(kind, sub, io);
                        if input_kind {
                            let data = self.open_input(&path, io)?;
                            self.set_fd_input(fd, input(data), io)
                        } else {
                            let sink = self.open_output(&path, false, io, files)?;
                            self.set_fd_output(fd, sink, io)
                        }
                    }
                }
            }
            ast::IoRedirect::HereDocument(fd, doc) => {
                let mut body = if doc.requires_expansion {
                    self.expand_heredoc(&doc.doc.value).map_err(|e| self.expansion_failed(e))?
                } else {
                    doc.doc.value.clone()
                };
                if doc.remove_tabs {
                    body = body.split_inclusive('\n').map(|l| l.trim_start_matches('\t')).collect();
                }
                self.set_fd_input(fd.unwrap_or(0), input(body.into_bytes()), io)
            }
            ast::IoRedirect::HereString(fd, word) => {
                let mut text = self.expand_string(&word.value).map_err(|e| self.expansion_failed(e))?;
                text.push('\n');
                self.set_fd_input(fd.unwrap_or(0), input(text.into_bytes()), io)
            }
            ast::IoRedirect::OutputAndError(word, append) => {
                let path = self.expand_string(&word.value).map_err(|e| self.expansion_failed(e))?;
                if !*append {
                    self.noclobber_check(&path)?;
                }
                let sink = self.open_output(&path, *append, io, files)?;
                io.stdout = sink.clone();
                io.stderr = sink;
                Ok(())
            }
        }
    }

    fn open_input(&mut self, path: &str, io: &Io) -> Result<Vec<u8>, i32> {
        if let Some(result) = self.special_input(path, io) {
            return result.map_err(|e| {
                self.report(&format!("{path}: {}", e.describe()));
                1
            });
        }
        let result = match self.sys.stat(path) {
            Ok(meta) if meta.kind == crate::system::Kind::Dir => {
                Err(crate::system::FsError::new("EISDIR", path.to_string()))
            }
            _ => self.sys.read(path),
        };
        result.map_err(|e| {
            self.report(&format!("{path}: {}", e.describe()));
            1
        })
    }

    fn open_output(
        &mut self,
        path: &str,
        append: bool,
        io: &Io,
        files: &mut Vec<PendingFile>,
    ) -> Result<Output, i32> {
        if path.is_empty() {
            self.report(": No such file or directory");
            return Err(1);
        }
        if let Some(result) = self.special_output(path, io) {
            return result.map_err(|e| {
                self.report(&format!("{path}: {}", e.describe()));
                1
            });
        }
        let mode = if append { WriteMode::Append } else { WriteMode::Truncate };
        // A file made here gets 0666 under the umask (the file system's own
        // default is 0644, the default umask's result).
        let umask = self.state.umask.filter(|&u| u != crate::builtins::UMASK);
        let created = umask.is_some() && self.sys.stat(path).is_err();
        if let Err(e) = self.sys.write(path, b"", mode) {
            self.report(&format!("{path}: {}", e.describe()));
            return Err(1);
        }
        if let (true, Some(umask)) = (created, umask) {
            let _ = self.sys.chmod(path, 0o666 & !umask);
        }
        let sink = output(Sink::Buffer(Vec::new()));
        files.push(PendingFile { path: path.to_string(), sink: sink.clone() });
        Ok(sink)
    }

    fn duplicate(
        &mut self,
        fd: i32,
        target: &str,
        io: &mut Io,
        input_kind: bool,
        files: &mut Vec<PendingFile>,
    ) -> Result<(), i32> {
        if target == "-" || target.bytes().all(|c| c.is_ascii_digit()) {
            return self.duplicate_fd(fd, target, io, input_kind);
        }
        // `N>&M-` moves M to N.
        if let Some(m) =
            target.strip_suffix('-').filter(|m| !m.is_empty() && m.bytes().all(|c| c.is_ascii_digit()))
        {
            self.duplicate_fd(fd, m, io, input_kind)?;
            return self.duplicate_fd(m.parse().unwrap_or(-1), "-", io, input_kind);
        }
        match target {
            // `>& file` (csh style) means both outputs to the file.
            path if !input_kind => {
                let sink = self.open_output(path, false, io, files)?;
                io.stdout = sink.clone();
                io.stderr = sink;
                Ok(())
            }
            other => {
                self.report(&format!("{other}: ambiguous redirect"));
                Err(1)
            }
        }
    }
}

fn assignment_name(a: &ast::Assignment) -> &str {
    match &a.name {
        ast::AssignmentName::VariableName(name) | ast::AssignmentName::ArrayElementName(name, _) => name,
    }
}

/// Builtins whose `name=value` arguments are assignments (no splitting).
fn is_declaration(name: &str) -> bool {
    matches!(name, "local" | "export" | "declare" | "typeset" | "readonly")
}

/// An array literal's word that the parser left whole but that is a keyed
/// element: `[k]=v` or `[k]+=v` with brackets inside the key (`[a[0]]=v`).
/// The key, whether it appends, and the value's text.
fn keyed_element(word: &str) -> Option<(&str, bool, &str)> {
    let rest = word.strip_prefix('[')?;
    let mut depth = 1usize;
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    let key = &rest[..i];
                    let after = &rest[i + 1..];
                    return match after.strip_prefix("+=") {
                        Some(value) => Some((key, true, value)),
                        None => after.strip_prefix('=').map(|value| (key, false, value)),
                    };
                }
            }
            _ => {}
        }
    }
    None
}

/// `a[1 + 2]=x`: the parser splits an assignment whose subscript has
/// spaces into several words. When a command is nothing but such words,
/// they are joined back into element assignments.
fn spaced_assignments(words: &[(&ast::Word, Option<&ast::Assignment>)]) -> Option<Vec<ast::Assignment>> {
    let (first, None) = words.first()? else {
        return None;
    };
    let (name, _) = first.value.split_once('[')?;
    if !crate::builtins::valid_name(name) {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut text = words[i].0.value.clone();
        let mut j = i + 1;
        loop {
            if let Some(a) = element_assignment(&text, words[i].0.loc.clone()) {
                out.push(a);
                break;
            }
            let (next, _) = words.get(j)?;
            text.push(' ');
            text.push_str(&next.value);
            j += 1;
        }
        i = j;
    }
    // A single word that already was whole is not this case.
    (words.len() > out.len()).then_some(out)
}

/// `name[index]=value` or `name[index]+=value` (brackets in the index
/// balanced) as an assignment.
fn element_assignment(text: &str, loc: Option<brush_parser::SourceSpan>) -> Option<ast::Assignment> {
    let name = &text[..text.find('[')?];
    if !crate::builtins::valid_name(name) {
        return None;
    }
    let (index, append, value) = keyed_element(&text[name.len()..])?;
    Some(ast::Assignment {
        name: ast::AssignmentName::ArrayElementName(name.to_string(), index.to_string()),
        value: ast::AssignmentValue::Scalar(ast::Word { value: value.to_string(), loc: loc.clone() }),
        append,
        loc: loc.unwrap_or_default(),
    })
}
