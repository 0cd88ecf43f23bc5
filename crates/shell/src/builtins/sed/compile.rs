//! Compiling scripts into a [`Program`].

use super::*;

pub(super) struct Compiler {
    pub(super) prog: Program,
    pub(super) extended: bool,
    pub(super) blocks: Vec<usize>,
    pub(super) labels: HashMap<Vec<u8>, usize>,
    pub(super) jumps: Vec<(usize, Vec<u8>)>,
    /// A text command whose text continues in the next piece.
    pub(super) pending: Option<usize>,
}

/// A cursor over one piece of script.
pub(super) struct Cur<'a> {
    pub(super) text: &'a [u8],
    pub(super) pos: usize,
    pub(super) src: &'a Source,
}

impl Cur<'_> {
    pub(super) fn inchar(&mut self) -> Option<u8> {
        let c = self.text.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }
    pub(super) fn savchar(&mut self, c: Option<u8>) {
        if c.is_some() && self.pos > 0 {
            self.pos -= 1;
        }
    }
    pub(super) fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }
    pub(super) fn in_nonblank(&mut self) -> Option<u8> {
        loop {
            let c = self.inchar();
            if !matches!(c, Some(b' ' | b'\t')) {
                return c;
            }
        }
    }
    pub(super) fn in_integer(&mut self, first: u8) -> usize {
        let mut n = usize::from(first - b'0');
        while let Some(c) = self.peek() {
            if !c.is_ascii_digit() {
                break;
            }
            self.pos += 1;
            n = n.saturating_mul(10).saturating_add(usize::from(c - b'0'));
        }
        n
    }
    pub(super) fn error(&self, msg: &str) -> String {
        match self.src {
            Source::Expr(n) => format!("-e expression #{n}, char {}: {msg}", self.pos),
            Source::File(f) => {
                let upto = &self.text[..self.pos.min(self.text.len())];
                let upto = upto.strip_suffix(b"\n").unwrap_or(upto);
                let line = 1 + upto.iter().filter(|&&b| b == b'\n').count();
                format!("file {f} line {line}: {msg}")
            }
        }
    }
}

pub(super) const UNTERMINATED_S: &str = "unterminated `s' command";
pub(super) const UNTERMINATED_Y: &str = "unterminated `y' command";

impl Compiler {
    pub(super) fn new(extended: bool) -> Self {
        Compiler {
            prog: Program {
                cmds: Vec::new(),
                regexes: Vec::new(),
                wfiles: Vec::new(),
                raw_text: HashMap::new(),
            },
            extended,
            blocks: Vec::new(),
            labels: HashMap::new(),
            jumps: Vec::new(),
            pending: None,
        }
    }

    pub(super) fn compile_piece(&mut self, piece: &Piece) -> Result<(), String> {
        let mut c = Cur { text: &piece.text, pos: 0, src: &piece.src };
        if let Some(idx) = self.pending.take() {
            self.read_text(&mut c, idx, Some(b'\n'));
        }
        loop {
            let mut ch = c.inchar();
            while matches!(ch, Some(b';' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) {
                ch = c.inchar();
            }
            let Some(first) = ch else { break };
            let mut cmd = Cmd { a1: None, a2: None, negate: false, op: Op::Label };
            let mut ch = Some(first);
            if let Some(a1) = self.address(&mut c, first, true)? {
                cmd.a1 = Some(a1);
                ch = c.in_nonblank();
                if ch == Some(b',') {
                    let next = c.in_nonblank();
                    let a2 = match next {
                        Some(n) => self.address2(&mut c, n)?,
                        None => None,
                    };
                    match a2 {
                        Some(a2) => cmd.a2 = Some(a2),
                        None => return Err(c.error("unexpected `,'")),
                    }
                    ch = c.in_nonblank();
                }
                if cmd.a1 == Some(Addr::Zero) && !matches!(cmd.a2, Some(Addr2::Re(_))) {
                    return Err(c.error("invalid usage of line address 0"));
                }
            }
            if ch == Some(b'!') {
                cmd.negate = true;
                ch = c.in_nonblank();
                if ch == Some(b'!') {
                    return Err(c.error("multiple `!'s"));
                }
            }
            let Some(op) = ch else { return Err(c.error("missing command")) };
            let has_addr = cmd.a1.is_some();
            let idx = self.prog.cmds.len();
            cmd.op = match op {
                b'#' => {
                    if has_addr {
                        return Err(c.error("comments don't accept any addresses"));
                    }
                    while let Some(x) = c.inchar() {
                        if x == b'\n' {
                            break;
                        }
                    }
                    continue;
                }
                b':' => {
                    if has_addr {
                        return Err(c.error(": doesn't want any addresses"));
                    }
                    let label = read_label(&mut c, false);
                    if label.is_empty() {
                        return Err(c.error("\":\" lacks a label"));
                    }
                    self.labels.insert(label, idx);
                    Op::Label
                }
                b'{' => {
                    self.blocks.push(idx);
                    Op::Block(0)
                }
                b'}' => {
                    let Some(open) = self.blocks.pop() else { return Err(c.error("unexpected `}'")) };
                    if has_addr {
                        return Err(c.error("} doesn't want any addresses"));
                    }
                    if let Some(Cmd { op: Op::Block(end), .. }) = self.prog.cmds.get_mut(open) {
                        *end = idx;
                    }
                    end_of_cmd(&mut c)?;
                    Op::EndBlock
                }
                b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P' | b'x' | b'z'
                | b'F' => {
                    end_of_cmd(&mut c)?;
                    Op::Simple(op)
                }
                b'q' | b'Q' | b'l' | b'L' => {
                    if op == b'L' {
                        return Err(c.error("unknown command: `L'"));
                    }
                    if matches!(op, b'q' | b'Q') && cmd.a2.is_some() {
                        return Err(c.error("command only uses one address"));
                    }
                    let x = c.in_nonblank();
                    let n = match x {
                        Some(d) if d.is_ascii_digit() => Some(c.in_integer(d)),
                        other => {
                            c.savchar(other);
                            None
                        }
                    };
                    end_of_cmd(&mut c)?;
                    if op == b'l' {
                        Op::List(n)
                    } else {
                        Op::Quit {
                            silent: op == b'Q',
                            code: n.map_or(0, |n| n.min(i32::MAX as usize) as i32),
                        }
                    }
                }
                b'a' | b'i' | b'c' => {
                    let kind = match op {
                        b'a' => TextKind::Append,
                        b'i' => TextKind::Insert,
                        _ => TextKind::Change,
                    };
                    let x = c.in_nonblank();
                    let Some(x) = x else { return Err(c.error("expected \\ after `a', `c' or `i'")) };
                    self.prog.cmds.push(Cmd { op: Op::Text(kind, Vec::new()), ..cmd });
                    if x == b'\\' {
                        let lead = c.inchar();
                        match lead {
                            None => self.pending = Some(idx),
                            Some(l) => {
                                self.read_text(&mut c, idx, Some(l));
                            }
                        }
                    } else {
                        c.savchar(Some(x));
                        self.read_text(&mut c, idx, Some(b'\n'));
                    }
                    continue;
                }
                b'b' | b't' | b'T' => {
                    let label = read_label(&mut c, true);
                    if !label.is_empty() {
                        self.jumps.push((idx, label));
                    }
                    Op::Branch(op, usize::MAX)
                }
                b'r' | b'R' | b'w' | b'W' => {
                    let name = read_filename(&mut c);
                    if name.is_empty() {
                        return Err(c.error("missing filename in r/R/w/W commands"));
                    }
                    match op {
                        b'r' => Op::ReadFile(name),
                        b'R' => Op::ReadLine(name),
                        _ => Op::Write { file: self.wfile(name), first_line: op == b'W' },
                    }
                }
                b's' => self.subst(&mut c)?,
                b'y' => self.translit(&mut c)?,
                b'v' => {
                    let version = read_label(&mut c, false);
                    if newer_than_us(&version) {
                        return Err(c.error("expected newer version of sed"));
                    }
                    Op::Label
                }
                b'e' => return Err(c.error("the `e' command is not supported (no processes in the sandbox)")),
                other => {
                    let shown = String::from_utf8_lossy(&[other]).into_owned();
                    return Err(c.error(&format!("unknown command: `{shown}'")));
                }
            };
            self.prog.cmds.push(cmd);
        }
        Ok(())
    }

    pub(super) fn wfile(&mut self, name: String) -> usize {
        if let Some(k) = self.prog.wfiles.iter().position(|f| *f == name) {
            return k;
        }
        self.prog.wfiles.push(name);
        self.prog.wfiles.len() - 1
    }

    /// Reads the text of `a`, `i`, `c` into the command's raw text. `lead`
    /// is the first character (a newline: none).
    pub(super) fn read_text(&mut self, c: &mut Cur, idx: usize, lead: Option<u8>) {
        let raw = self.prog.raw_text.entry(idx).or_default();
        if let Some(l) = lead {
            if l != b'\n' {
                raw.push(l);
            }
        }
        loop {
            match c.inchar() {
                None => {
                    raw.push(b'\n');
                    return;
                }
                Some(b'\n') => {
                    raw.push(b'\n');
                    return;
                }
                Some(b'\\') => match c.inchar() {
                    None => {
                        raw.push(b'\n');
                        self.pending = Some(idx);
                        return;
                    }
                    Some(d) => {
                        raw.push(b'\\');
                        raw.push(d);
                    }
                },
                Some(x) => raw.push(x),
            }
        }
    }

    /// A first address starting with `ch`; `None` if `ch` starts none.
    pub(super) fn address(&mut self, c: &mut Cur, ch: u8, _first: bool) -> Result<Option<Addr>, String> {
        match ch {
            b'/' | b'\\' => {
                let delim = if ch == b'\\' {
                    match c.inchar() {
                        Some(d) => d,
                        None => return Err(c.error("unterminated address regex")),
                    }
                } else {
                    b'/'
                };
                let Some(text) = match_slash(c, delim, true) else {
                    return Err(c.error("unterminated address regex"));
                };
                let (mut icase, mut multi) = (false, false);
                loop {
                    let f = c.in_nonblank();
                    match f {
                        Some(b'I') => icase = true,
                        Some(b'M') => multi = true,
                        other => {
                            c.savchar(other);
                            break;
                        }
                    }
                }
                Ok(Some(Addr::Re(self.regex(c, &text, icase, multi)?)))
            }
            b'0'..=b'9' => {
                let n = c.in_integer(ch);
                if c.peek() == Some(b'~') {
                    c.pos += 1;
                    let step = match c.peek() {
                        Some(d) if d.is_ascii_digit() => {
                            c.pos += 1;
                            c.in_integer(d)
                        }
                        _ => 0,
                    };
                    return Ok(Some(Addr::Step(n, step)));
                }
                Ok(Some(if n == 0 { Addr::Zero } else { Addr::Line(n) }))
            }
            b'$' => Ok(Some(Addr::Last)),
            _ => Ok(None),
        }
    }

    pub(super) fn address2(&mut self, c: &mut Cur, ch: u8) -> Result<Option<Addr2>, String> {
        match ch {
            b'+' | b'~' => {
                let n = match c.peek() {
                    Some(d) if d.is_ascii_digit() => {
                        c.pos += 1;
                        c.in_integer(d)
                    }
                    _ => 0,
                };
                Ok(Some(if ch == b'+' { Addr2::Plus(n) } else { Addr2::Tilde(n) }))
            }
            _ => Ok(match self.address(c, ch, false)? {
                None => None,
                Some(Addr::Line(n)) => Some(Addr2::Line(n)),
                Some(Addr::Zero) => Some(Addr2::Line(0)),
                Some(Addr::Step(n, _)) => Some(Addr2::Line(n)),
                Some(Addr::Last) => Some(Addr2::Last),
                Some(Addr::Re(r)) => Some(Addr2::Re(r)),
            }),
        }
    }

    pub(super) fn regex(&mut self, c: &Cur, text: &[u8], icase: bool, multiline: bool) -> Result<Rx, String> {
        if text.is_empty() {
            // GNU only complains when it runs (`char 0`).
            return Ok(Rx::Last);
        }
        let opts = RxOptions {
            syntax: if self.extended { Syntax::Extended } else { Syntax::Basic },
            dialect: Dialect::Sed { multiline },
            icase,
        };
        if let Err(posix::RxError::Backref) = posix::translate(text, &opts) {
            let t = posix::translate_backrefs(text, &opts).map_err(|e| c.error(&e.message()))?;
            let full = format!("{}{}", posix::flags(&opts), t.pattern);
            let slow = posix::build_backtracking(&full).map_err(|e| c.error(&e.message()))?;
            let re = posix::build("[a&&b]").map_err(|e| c.error(&e.message()))?;
            self.prog.regexes.push(SedRe { re, groups: t.groups, longest: None, slow: Some(slow) });
            return Ok(Rx::Idx(self.prog.regexes.len() - 1));
        }
        let (re, t) = posix::compile(text, &opts).map_err(|e| {
            let msg = e.message();
            if msg.starts_with("character class syntax is") {
                // GNU reports this one from its matcher: no location, status 4.
                format!("\u{0}{msg}")
            } else {
                c.error(&msg)
            }
        })?;
        let longest = posix::Longest::new(&t.pattern, &t.alts, &posix::flags(&opts), t.groups);
        self.prog.regexes.push(SedRe { re, groups: t.groups, longest, slow: None });
        Ok(Rx::Idx(self.prog.regexes.len() - 1))
    }

    pub(super) fn subst(&mut self, c: &mut Cur) -> Result<Op, String> {
        let Some(delim) = c.inchar() else { return Err(c.error(UNTERMINATED_S)) };
        if delim == b'\n' || delim == b'\\' {
            return Err(c.error(UNTERMINATED_S));
        }
        let Some(pattern) = match_slash(c, delim, true) else { return Err(c.error(UNTERMINATED_S)) };
        let Some(replacement) = match_slash(c, delim, false) else { return Err(c.error(UNTERMINATED_S)) };
        let (mut global, mut print, mut icase, mut multi) = (false, false, false, false);
        let mut nth: Option<usize> = None;
        let mut write = None;
        loop {
            let f = c.inchar();
            match f {
                Some(b'i' | b'I') => icase = true,
                Some(b'm' | b'M') => multi = true,
                Some(b'g') => {
                    if global {
                        return Err(c.error("multiple `g' options to `s' command"));
                    }
                    global = true;
                }
                Some(b'p') => {
                    if print {
                        return Err(c.error("multiple `p' options to `s' command"));
                    }
                    print = true;
                }
                Some(d @ b'0'..=b'9') => {
                    if nth.is_some() {
                        return Err(c.error("multiple number options to `s' command"));
                    }
                    let n = c.in_integer(d);
                    if n == 0 {
                        return Err(c.error("number option to `s' command may not be zero"));
                    }
                    nth = Some(n);
                }
                Some(b'w') => {
                    let name = read_filename(c);
                    if name.is_empty() {
                        return Err(c.error("missing filename in r/R/w/W commands"));
                    }
                    write = Some(self.wfile(name));
                    break;
                }
                Some(b'e') => {
                    return Err(c.error("the `e' flag of `s' is not supported (no processes in the sandbox)"))
                }
                Some(b'}' | b'#') => {
                    c.savchar(f);
                    break;
                }
                None | Some(b'\n' | b';') => break,
                Some(b' ' | b'\t' | b'\r') => {}
                Some(_) => return Err(c.error("unknown option to `s'")),
            }
        }
        let re = self.regex(c, &pattern, icase, multi)?;
        let (repl, max_ref) = parse_replacement(&replacement);
        if let Rx::Idx(k) = re {
            let groups = self.prog.regexes.get(k).map_or(0, |r| r.groups);
            if max_ref > groups {
                return Err(c.error(&format!("invalid reference \\{max_ref} on `s' command's RHS")));
            }
        }
        let needs_caps = repl.iter().any(|r| matches!(r, Repl::Group(n) if *n > 0));
        Ok(Op::Subst(Box::new(Subst { re, repl, global, nth: nth.unwrap_or(1), print, write, needs_caps })))
    }

    pub(super) fn translit(&mut self, c: &mut Cur) -> Result<Op, String> {
        let Some(delim) = c.inchar() else { return Err(c.error(UNTERMINATED_Y)) };
        let Some(from) = match_slash(c, delim, false) else { return Err(c.error(UNTERMINATED_Y)) };
        let Some(to) = match_slash(c, delim, false) else { return Err(c.error(UNTERMINATED_Y)) };
        let from = y_unescape(&from);
        let to = y_unescape(&to);
        if from.len() != to.len() {
            return Err(c.error("strings for `y' command are different lengths"));
        }
        let mut map = [0u8; 256];
        for (k, m) in map.iter_mut().enumerate() {
            *m = k as u8;
        }
        for (&f, &t) in from.iter().zip(to.iter()) {
            map[f as usize] = t;
        }
        end_of_cmd(c)?;
        Ok(Op::Translit(Box::new(map)))
    }

    pub(super) fn finish(mut self) -> Result<Program, String> {
        if !self.blocks.is_empty() {
            return Err("-e expression #1, char 0: unmatched `{'".to_string());
        }
        for (idx, label) in std::mem::take(&mut self.jumps) {
            let Some(&target) = self.labels.get(&label) else {
                return Err(format!(
                    "\u{0}can't find label for jump to `{}'",
                    String::from_utf8_lossy(&label)
                ));
            };
            if let Some(Cmd { op: Op::Branch(_, t), .. }) = self.prog.cmds.get_mut(idx) {
                *t = target;
            }
        }
        let end = self.prog.cmds.len();
        for cmd in &mut self.prog.cmds {
            if let Op::Branch(_, t) = &mut cmd.op {
                if *t == usize::MAX {
                    *t = end;
                }
            }
        }
        let raw = std::mem::take(&mut self.prog.raw_text);
        for (idx, text) in raw {
            if let Some(Cmd { op: Op::Text(_, t), .. }) = self.prog.cmds.get_mut(idx) {
                *t = normalize_text(&text);
            }
        }
        Ok(self.prog)
    }
}

pub(super) fn compile(pieces: &[Piece], extended: bool) -> Result<Program, String> {
    let mut comp = Compiler::new(extended);
    for piece in pieces {
        comp.compile_piece(piece)?;
    }
    comp.finish()
}
