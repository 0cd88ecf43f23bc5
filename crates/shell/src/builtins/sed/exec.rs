//! Running a program over the input: the pattern and hold spaces, the
//! cycle, and every command.

use super::*;

pub(super) enum Flow {
    /// End of the script: autoprint.
    End,
    /// `d`: no autoprint.
    Delete,
    /// `D` with a newline: restart without reading.
    Restart,
    Quit {
        code: i32,
        autoprint: bool,
    },
}

pub(super) enum Pending {
    Text(usize),
    File(String),
    Line(String),
}

#[derive(Clone, Copy, Default)]
pub(super) struct Range {
    pub(super) active: bool,
    pub(super) end: usize,
}

pub(super) struct Sed<'p> {
    pub(super) prog: &'p Program,
    pub(super) quiet: bool,
    pub(super) line_len: usize,
    pub(super) sep: u8,
    pub(super) ps: Vec<u8>,
    pub(super) hs: Vec<u8>,
    pub(super) scratch: Vec<u8>,
    pub(super) chomped: bool,
    pub(super) lineno: usize,
    pub(super) tflag: bool,
    pub(super) append: Vec<Pending>,
    pub(super) out: Vec<u8>,
    /// Writing to a file (`-i`): never flushed to stdout.
    pub(super) to_file: bool,
    pub(super) missing_newline: bool,
    pub(super) ranges: Vec<Range>,
    pub(super) last_re: Option<usize>,
    pub(super) status: i32,
    pub(super) quit: Option<i32>,
    pub(super) closed: bool,
    pub(super) locs: Vec<Option<CaptureLocations>>,
    /// Group spans of the current match (reused).
    pub(super) spans: Vec<Option<(usize, usize)>>,
    /// `R` files: contents and read position.
    pub(super) rfiles: HashMap<String, (Vec<u8>, usize)>,
    /// Output for `w` files, written at the end.
    pub(super) wbufs: Vec<Vec<u8>>,
}

impl<'p> Sed<'p> {
    pub(super) fn new(prog: &'p Program, opts: &Opts) -> Self {
        let ranges = prog.cmds.iter().map(|c| Range { active: c.a1 == Some(Addr::Zero), end: 0 }).collect();
        Sed {
            prog,
            quiet: opts.quiet,
            line_len: opts.line_len,
            sep: if opts.null_data { 0 } else { b'\n' },
            ps: Vec::new(),
            hs: Vec::new(),
            scratch: Vec::new(),
            chomped: true,
            lineno: 0,
            tflag: false,
            append: Vec::new(),
            out: Vec::new(),
            to_file: false,
            missing_newline: false,
            ranges,
            last_re: None,
            status: 0,
            quit: None,
            closed: false,
            locs: prog.regexes.iter().map(|_| None).collect(),
            spans: Vec::new(),
            rfiles: HashMap::new(),
            wbufs: prog.wfiles.iter().map(|_| Vec::new()).collect(),
        }
    }

    pub(super) fn flush(&mut self, ctx: &mut Ctx) {
        if self.to_file || self.out.is_empty() {
            return;
        }
        if !self.closed && ctx.out(&self.out).is_err() {
            self.closed = true;
        }
        self.out.clear();
    }

    pub(super) fn maybe_flush(&mut self, ctx: &mut Ctx) {
        if self.out.len() >= 64 * 1024 {
            self.flush(ctx);
        }
    }

    pub(super) fn output_missing_newline(&mut self) {
        if self.missing_newline {
            self.out.push(self.sep);
            self.missing_newline = false;
        }
    }

    pub(super) fn emit_text(&mut self, text: &[u8]) {
        self.output_missing_newline();
        self.out.extend_from_slice(text);
    }

    pub(super) fn emit_ps(&mut self, upto_newline: bool) {
        self.output_missing_newline();
        let end = if upto_newline {
            self.ps.iter().position(|&b| b == b'\n').unwrap_or(self.ps.len())
        } else {
            self.ps.len()
        };
        self.out.extend_from_slice(&self.ps[..end]);
        if self.chomped || upto_newline && end < self.ps.len() {
            self.out.push(self.sep);
        } else {
            self.missing_newline = true;
        }
    }

    pub(super) fn dump_append(&mut self, ctx: &mut Ctx) {
        for item in std::mem::take(&mut self.append) {
            match item {
                Pending::Text(idx) => {
                    if let Some(Cmd { op: Op::Text(_, t), .. }) = self.prog.cmds.get(idx) {
                        self.emit_text(t);
                    }
                }
                Pending::File(name) => {
                    let data = if name == "/dev/stdin" { Ok(ctx.stdin_all()) } else { ctx.read_input(&name) };
                    if let Ok(data) = data {
                        self.emit_text(&data);
                    }
                }
                Pending::Line(name) => {
                    if !self.rfiles.contains_key(&name) {
                        let data = if name == "/dev/stdin" {
                            ctx.stdin_all()
                        } else {
                            ctx.read_input(&name).unwrap_or_default()
                        };
                        self.rfiles.insert(name.clone(), (data, 0));
                    }
                    let mut line = Vec::new();
                    if let Some((data, pos)) = self.rfiles.get_mut(&name) {
                        if *pos < data.len() {
                            let rest = &data[*pos..];
                            let k = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |k| k + 1);
                            line.extend_from_slice(&rest[..k]);
                            *pos += k;
                            if line.last() != Some(&b'\n') {
                                line.push(b'\n');
                            }
                        }
                    }
                    if !line.is_empty() {
                        self.emit_text(&line);
                    }
                }
            }
        }
    }

    pub(super) fn regex(&mut self, rx: Rx) -> Option<usize> {
        match rx {
            Rx::Idx(k) => {
                self.last_re = Some(k);
                Some(k)
            }
            Rx::Last => self.last_re,
        }
    }

    pub(super) fn re_matches(&mut self, rx: Rx) -> Result<bool, String> {
        let Some(k) = self.regex(rx) else { return Err("no previous regular expression".to_string()) };
        match self.prog.regexes.get(k) {
            Some(SedRe { slow: Some(slow), .. }) => {
                slow.is_match(self.ps.as_slice()).map_err(|_| too_complex())
            }
            Some(r) => Ok(r.re.is_match(&self.ps)),
            None => Ok(false),
        }
    }

    pub(super) fn match_one(&mut self, a: &Addr, input: &mut Input, ctx: &mut Ctx) -> Result<bool, StopErr> {
        Ok(match a {
            Addr::Line(n) => self.lineno == *n,
            Addr::Zero => false,
            Addr::Last => input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)?,
            Addr::Re(rx) => self.re_matches(*rx).map_err(StopErr::Msg)?,
            Addr::Step(first, step) => {
                if *step == 0 {
                    self.lineno == *first
                } else {
                    self.lineno >= *first && (self.lineno - first).is_multiple_of(*step)
                }
            }
        })
    }

    /// Whether command `k` applies to the current line (updating its range).
    pub(super) fn selected(&mut self, k: usize, input: &mut Input, ctx: &mut Ctx) -> Result<bool, StopErr> {
        let prog = self.prog;
        let Some(cmd) = prog.cmds.get(k) else { return Ok(false) };
        let hit = match (&cmd.a1, &cmd.a2) {
            (None, _) => true,
            (Some(a1), None) => self.match_one(a1, input, ctx)?,
            (Some(a1), Some(a2)) => {
                let st = self.ranges[k];
                if st.active {
                    match a2 {
                        Addr2::Re(rx) => {
                            if self.re_matches(*rx).map_err(StopErr::Msg)? {
                                self.ranges[k].active = false;
                            }
                            true
                        }
                        Addr2::Last => {
                            if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                                self.ranges[k].active = false;
                            }
                            true
                        }
                        _ => {
                            if self.lineno >= st.end {
                                self.ranges[k].active = false;
                            }
                            self.lineno <= st.end
                        }
                    }
                } else if self.match_one(a1, input, ctx)? {
                    let l = self.lineno;
                    let end = match a2 {
                        Addr2::Line(n) => Some(*n),
                        Addr2::Plus(n) => Some(l + n),
                        Addr2::Tilde(n) => Some(if *n == 0 { l } else { (l / n + 1) * n }),
                        Addr2::Re(_) => None,
                        Addr2::Last => {
                            if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                                Some(l)
                            } else {
                                None
                            }
                        }
                    };
                    match end {
                        Some(e) if e <= l => {}
                        Some(e) => self.ranges[k] = Range { active: true, end: e },
                        None => self.ranges[k] = Range { active: true, end: 0 },
                    }
                    true
                } else {
                    false
                }
            }
        };
        Ok(hit != cmd.negate)
    }

    /// Reads the next line into the pattern space (appending with `N`).
    pub(super) fn next_line(
        &mut self,
        ctx: &mut Ctx,
        input: &mut Input,
        append: bool,
    ) -> Result<bool, StopErr> {
        let mut line = std::mem::take(&mut self.scratch);
        let got = input.read(ctx, &mut self.status, &mut line).map_err(StopErr::Fatal)?;
        let result = match got {
            None => false,
            Some(chomped) => {
                if append {
                    self.ps.push(b'\n');
                    self.ps.extend_from_slice(&line);
                } else {
                    std::mem::swap(&mut self.ps, &mut line);
                }
                self.chomped = chomped;
                self.lineno += 1;
                self.tflag = false;
                true
            }
        };
        self.scratch = line;
        Ok(result)
    }

    pub(super) fn execute(&mut self, ctx: &mut Ctx, input: &mut Input) -> Result<Flow, StopErr> {
        let prog = self.prog;
        let mut pc = 0;
        let mut jumps = 0u32;
        while let Some(cmd) = prog.cmds.get(pc) {
            if self.ps.len() > SPACE_LIMIT || self.hs.len() > SPACE_LIMIT {
                return Err(StopErr::Memory);
            }
            if !self.selected(pc, input, ctx)? {
                pc = match cmd.op {
                    Op::Block(end) => end + 1,
                    _ => pc + 1,
                };
                continue;
            }
            pc += 1;
            match &cmd.op {
                Op::Block(_) | Op::EndBlock | Op::Label => {}
                Op::Subst(s) => {
                    if self.substitute(s)? {
                        self.tflag = true;
                        if s.print {
                            self.emit_ps(false);
                        }
                        if let Some(w) = s.write {
                            self.write_file(ctx, w, false);
                        }
                    }
                }
                Op::Translit(map) => {
                    for b in self.ps.iter_mut() {
                        *b = map[*b as usize];
                    }
                }
                Op::Text(kind, text) => match kind {
                    TextKind::Append => self.append.push(Pending::Text(pc - 1)),
                    TextKind::Insert => self.emit_text(text),
                    TextKind::Change => {
                        let k = pc - 1;
                        let in_range = cmd.a2.is_some() && self.ranges[k].active;
                        if !in_range {
                            self.emit_text(text);
                        }
                        return Ok(Flow::Delete);
                    }
                },
                Op::Branch(kind, target) => {
                    let jump = match kind {
                        b't' => std::mem::replace(&mut self.tflag, false),
                        b'T' => !std::mem::replace(&mut self.tflag, false),
                        _ => true,
                    };
                    if jump {
                        pc = *target;
                        jumps = jumps.wrapping_add(1);
                        if jumps.is_multiple_of(4096) && ctx.interrupted() {
                            return Ok(Flow::Quit { code: self.status, autoprint: false });
                        }
                    }
                }
                Op::Quit { silent, code } => return Ok(Flow::Quit { code: *code, autoprint: !silent }),
                Op::List(n) => self.list(n.unwrap_or(self.line_len)),
                Op::ReadFile(name) => self.append.push(Pending::File(name.clone())),
                Op::ReadLine(name) => self.append.push(Pending::Line(name.clone())),
                Op::Write { file, first_line } => self.write_file(ctx, *file, *first_line),
                Op::Simple(c) => match c {
                    b'=' => {
                        self.output_missing_newline();
                        self.out.extend_from_slice(format!("{}\n", self.lineno).as_bytes());
                    }
                    b'd' => return Ok(Flow::Delete),
                    b'D' => match self.ps.iter().position(|&b| b == b'\n') {
                        None => return Ok(Flow::Delete),
                        Some(k) => {
                            self.ps.drain(..=k);
                            return Ok(Flow::Restart);
                        }
                    },
                    b'g' => self.ps.clone_from(&self.hs),
                    b'G' => {
                        self.ps.push(b'\n');
                        self.ps.extend_from_slice(&self.hs);
                    }
                    b'h' => self.hs.clone_from(&self.ps),
                    b'H' => {
                        self.hs.push(b'\n');
                        self.hs.extend_from_slice(&self.ps);
                    }
                    b'x' => std::mem::swap(&mut self.ps, &mut self.hs),
                    b'z' => self.ps.clear(),
                    b'F' => {
                        self.output_missing_newline();
                        let name = input.name().to_string();
                        self.out.extend_from_slice(name.as_bytes());
                        self.out.push(b'\n');
                    }
                    b'p' => self.emit_ps(false),
                    b'P' => self.emit_ps(true),
                    b'n' => {
                        if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                            return Ok(Flow::End);
                        }
                        if !self.quiet {
                            self.emit_ps(false);
                        }
                        self.dump_append(ctx);
                        self.next_line(ctx, input, false)?;
                    }
                    b'N' => {
                        if input.is_last(ctx, &mut self.status).map_err(StopErr::Fatal)? {
                            return Ok(Flow::End);
                        }
                        self.dump_append(ctx);
                        self.next_line(ctx, input, true)?;
                    }
                    _ => {}
                },
            }
        }
        Ok(Flow::End)
    }

    pub(super) fn write_file(&mut self, ctx: &mut Ctx, file: usize, first_line: bool) {
        let end = if first_line {
            self.ps.iter().position(|&b| b == b'\n').unwrap_or(self.ps.len())
        } else {
            self.ps.len()
        };
        let name = self.prog.wfiles.get(file).map(String::as_str).unwrap_or_default();
        match name {
            "/dev/stdout" if self.to_file => {
                // `-i`: the real standard output, not the file.
                let mut line = self.ps[..end].to_vec();
                line.push(self.sep);
                if ctx.out(line).is_err() {
                    self.closed = true;
                }
            }
            "/dev/stdout" => {
                self.output_missing_newline();
                self.out.extend_from_slice(&self.ps[..end]);
                self.out.push(self.sep);
            }
            "/dev/stderr" => {
                let mut line = self.ps[..end].to_vec();
                line.push(self.sep);
                ctx.err(line);
            }
            _ => {
                if let Some(buf) = self.wbufs.get_mut(file) {
                    buf.extend_from_slice(&self.ps[..end]);
                    buf.push(self.sep);
                }
            }
        }
    }

    pub(super) fn list(&mut self, width: usize) {
        self.output_missing_newline();
        let mut line_width = 0usize;
        let mut obuf = [0u8; 4];
        for k in 0..self.ps.len() {
            let b = self.ps[k];
            let n = match b {
                b'\\' => {
                    obuf[..2].copy_from_slice(b"\\\\");
                    2
                }
                0x07 | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b => {
                    let e = match b {
                        0x07 => b'a',
                        0x08 => b'b',
                        0x0c => b'f',
                        b'\n' => b'n',
                        b'\r' => b'r',
                        b'\t' => b't',
                        _ => b'v',
                    };
                    obuf[0] = b'\\';
                    obuf[1] = e;
                    2
                }
                0x20..=0x7e => {
                    obuf[0] = b;
                    1
                }
                _ => {
                    obuf[0] = b'\\';
                    obuf[1] = b'0' + (b >> 6);
                    obuf[2] = b'0' + ((b >> 3) & 7);
                    obuf[3] = b'0' + (b & 7);
                    4
                }
            };
            if width > 0 && line_width + n > width - 1 {
                self.out.extend_from_slice(b"\\\n");
                line_width = 0;
            }
            self.out.extend_from_slice(&obuf[..n]);
            line_width += n;
        }
        self.out.extend_from_slice(b"$\n");
    }

    pub(super) fn substitute(&mut self, s: &Subst) -> Result<bool, StopErr> {
        let Some(k) = self.regex(s.re) else {
            return Err(StopErr::Msg("no previous regular expression".to_string()));
        };
        let Some(entry) = self.prog.regexes.get(k) else { return Ok(false) };
        let re = &entry.re;
        let mut locs = match self.locs.get_mut(k).and_then(Option::take) {
            Some(l) => l,
            None => re.capture_locations(),
        };
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        spans.resize(entry.groups + 1, None);
        let ps = std::mem::take(&mut self.ps);
        let mut result = std::mem::take(&mut self.scratch);
        result.clear();
        let mut count = 0usize;
        let mut at = 0usize;
        let mut copied = 0usize;
        let mut last_end: Option<usize> = None;
        let mut did = false;
        while at <= ps.len() {
            let (ms, mut me) = if let Some(slow) = &entry.slow {
                match slow.captures_from_pos(ps.as_slice(), at) {
                    Ok(Some(caps)) => {
                        let Some(m) = caps.get(0) else { break };
                        for (n, slot) in spans.iter_mut().enumerate() {
                            *slot = caps.get(n).map(|m| (m.start(), m.end()));
                        }
                        (m.start(), m.end())
                    }
                    Ok(None) => break,
                    Err(_) => {
                        self.ps = ps;
                        self.spans = spans;
                        return Err(StopErr::Msg(too_complex()));
                    }
                }
            } else if s.needs_caps {
                match re.captures_read_at(&mut locs, &ps, at) {
                    Some(m) => (m.start(), m.end()),
                    None => break,
                }
            } else {
                match re.find_at(&ps, at) {
                    Some(m) => (m.start(), m.end()),
                    None => break,
                }
            };
            let mut variant = None;
            if let Some(long) = &entry.longest {
                let (e, v) = long.extend(&ps, ms, me, ps.len());
                if v.is_some() {
                    me = e;
                    variant = v;
                }
            }
            if ms == me && last_end == Some(ms) {
                at = ms + 1;
                continue;
            }
            count += 1;
            if count >= s.nth {
                result.extend_from_slice(&ps[copied..ms]);
                if s.needs_caps && entry.slow.is_none() {
                    match (variant, &entry.longest) {
                        (Some(v), Some(long)) => long.groups(v, &ps, ms, ps.len(), &mut spans),
                        _ => {
                            for (n, slot) in spans.iter_mut().enumerate() {
                                *slot = locs.get(n);
                            }
                        }
                    }
                }
                append_replacement(&mut result, &s.repl, &ps, ms, me, &spans);
                copied = me;
                did = true;
                if !s.global {
                    break;
                }
            }
            last_end = Some(me);
            at = if me > ms { me } else { me + 1 };
        }
        if let Some(slot) = self.locs.get_mut(k) {
            *slot = Some(locs);
        }
        self.spans = spans;
        if did {
            result.extend_from_slice(&ps[copied..]);
            self.ps = result;
            self.scratch = ps;
        } else {
            self.ps = ps;
            self.scratch = result;
        }
        Ok(did)
    }
}

/// The error of a back-reference pattern that exceeded its step limit.
fn too_complex() -> String {
    format!(
        "exceeded the backtracking limit ({} steps): the regular expression is too complex",
        posix::BACKTRACK_LIMIT
    )
}

pub(super) enum StopErr {
    Fatal(Fatal),
    Msg(String),
    /// The pattern or hold space outgrew [`SPACE_LIMIT`].
    Memory,
}

/// The most the pattern or hold space may hold (GNU grows until memory runs
/// out; the sandbox stops earlier).
pub(super) const SPACE_LIMIT: usize = 64 * 1024 * 1024;

pub(super) fn append_replacement(
    out: &mut Vec<u8>,
    repl: &[Repl],
    ps: &[u8],
    ms: usize,
    me: usize,
    spans: &[Option<(usize, usize)>],
) {
    let mut mode: Option<CaseOp> = None;
    let mut one: Option<CaseOp> = None;
    let put = |out: &mut Vec<u8>, bytes: &[u8], mode: Option<CaseOp>, one: &mut Option<CaseOp>| {
        for &b in bytes {
            let b = match one.take() {
                Some(CaseOp::UpperOne) => b.to_ascii_uppercase(),
                Some(CaseOp::LowerOne) => b.to_ascii_lowercase(),
                _ => match mode {
                    Some(CaseOp::Upper) => b.to_ascii_uppercase(),
                    Some(CaseOp::Lower) => b.to_ascii_lowercase(),
                    _ => b,
                },
            };
            out.push(b);
        }
    };
    for part in repl {
        match part {
            Repl::Lit(bytes) => {
                if mode.is_none() && one.is_none() {
                    out.extend_from_slice(bytes);
                } else {
                    put(out, bytes, mode, &mut one);
                }
            }
            Repl::Group(n) => {
                let span = if *n == 0 { Some((ms, me)) } else { spans.get(*n).copied().flatten() };
                if let Some((a, b)) = span {
                    let bytes = &ps[a..b];
                    if mode.is_none() && one.is_none() {
                        out.extend_from_slice(bytes);
                    } else {
                        put(out, bytes, mode, &mut one);
                    }
                }
            }
            Repl::Case(op) => match op {
                CaseOp::Upper | CaseOp::Lower => {
                    // A pending `\u`/`\l` is dropped, as GNU does.
                    mode = Some(*op);
                    one = None;
                }
                CaseOp::UpperOne | CaseOp::LowerOne => one = Some(*op),
                CaseOp::End => {
                    mode = None;
                    one = None;
                }
            },
        }
    }
}

impl Sed<'_> {
    /// Runs the script over one input stream. `Some(status)` when the run
    /// must stop (`q`, a fatal error or closed output).
    pub(super) fn process(&mut self, ctx: &mut Ctx, input: &mut Input) -> Option<i32> {
        let mut restart = false;
        loop {
            if !restart {
                match self.next_line(ctx, input, false) {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => return Some(self.fatal(ctx, e)),
                }
            }
            restart = false;
            let flow = match self.execute(ctx, input) {
                Ok(f) => f,
                Err(e) => return Some(self.fatal(ctx, e)),
            };
            match flow {
                Flow::End => {
                    if !self.quiet {
                        self.emit_ps(false);
                    }
                }
                Flow::Delete => {}
                Flow::Restart => restart = true,
                Flow::Quit { code, autoprint } => {
                    if autoprint {
                        if !self.quiet {
                            self.emit_ps(false);
                        }
                        self.dump_append(ctx);
                    }
                    self.quit = Some(code);
                    return Some(code);
                }
            }
            self.dump_append(ctx);
            self.maybe_flush(ctx);
            if self.closed || ctx.interrupted() {
                return Some(self.status);
            }
        }
    }

    pub(super) fn fatal(&mut self, ctx: &mut Ctx, e: StopErr) -> i32 {
        self.flush(ctx);
        match e {
            StopErr::Fatal(Fatal::Dir(name)) => {
                ctx.error("sed", format!("read error on {name}: Is a directory"));
                4
            }
            StopErr::Msg(m) => {
                ctx.error("sed", format!("-e expression #1, char 0: {m}"));
                1
            }
            StopErr::Memory => {
                ctx.error("sed", "couldn't re-allocate memory");
                4
            }
        }
    }
}
