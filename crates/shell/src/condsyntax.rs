//! bash's own grammar of `[[ … ]]`, used only to word a parse error the way
//! bash does: when a script does not parse, the first `[[` command of the
//! failing part is re-read with bash's rules (parse.y's `cond_term`), and
//! bash's message replaces the generic one. bash then stops the script
//! without changing `$?`.

/// A token inside `[[ … ]]`.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Op(&'static str),
    Newline,
    End,
    Eof,
}

/// The message bash prints for the first malformed `[[` command in `text`
/// (`None`: no such command; `Some((line, None))`: bash prints nothing),
/// with its 0-based line in `text`.
pub(crate) fn check(text: &str) -> Option<(usize, Option<String>)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(off) = text[i..].find("[[") {
        let at = i + off;
        i = at + 2;
        let before_ok =
            at == 0 || matches!(bytes[at - 1], b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b'!');
        let after_ok = matches!(bytes.get(at + 2), Some(b' ' | b'\t' | b'\n'));
        if !before_ok || !after_ok || in_comment_or_quote(text, at) {
            continue;
        }
        let mut p = Parser { text, pos: at + 2, tok: Tok::Eof, tok_line: 0, regex: false, msg: None };
        let start_line = text[..at].matches('\n').count();
        match p.expr() {
            Err(true) => return Some(p.msg.map_or((start_line, None), |(l, m)| (l, Some(m)))),
            Err(false) => return None,
            Ok(()) => {}
        }
        match &p.tok {
            Tok::End => continue,
            Tok::Eof => return None,
            Tok::Word(_) => return Some((start_line, Some("syntax error in conditional expression".into()))),
            t => {
                let msg = format!("syntax error in conditional expression: unexpected token `{}'", show(t));
                return Some((start_line, Some(msg)));
            }
        }
    }
    None
}

/// Whether `at` is inside a comment or quotes on its line (a rough guess:
/// quotes are counted from the start of the line).
fn in_comment_or_quote(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    let (mut sq, mut dq, mut prev) = (false, false, b' ');
    for &b in &text.as_bytes()[line_start..at] {
        match b {
            b'\'' if !dq => sq = !sq,
            b'"' if !sq && prev != b'\\' => dq = !dq,
            b'#' if !sq && !dq && matches!(prev, b' ' | b'\t') => return true,
            _ => {}
        }
        prev = b;
    }
    sq || dq || text[line_start..at].trim_start().starts_with('#')
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Op(s) => (*s).to_string(),
        Tok::Newline => "newline".into(),
        Tok::End => "]]".into(),
        Tok::Word(w) => w.clone(),
        Tok::Eof => String::new(),
    }
}

/// An error of the `[[` grammar (`true`; its message is in
/// [`Parser::msg`]), or `false` when the text ended first (the generic
/// message stands).
type Fail = bool;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    tok: Tok,
    tok_line: usize,
    regex: bool,
    /// The first message (bash prints only that one).
    msg: Option<(usize, String)>,
}

const UNARY: &[&str] = &[
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-n", "-o", "-p", "-r", "-s", "-t", "-u", "-v",
    "-w", "-x", "-z", "-G", "-L", "-N", "-O", "-R", "-S",
];
const BINARY: &[&str] =
    &["=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "=~"];

impl Parser<'_> {
    fn line(&self) -> usize {
        self.text[..self.pos.min(self.text.len())].matches('\n').count()
    }

    fn fail(&mut self, msg: Option<String>) -> Result<(), Fail> {
        if let (None, Some(m)) = (&self.msg, msg) {
            self.msg = Some((self.tok_line, m));
        }
        Err(true)
    }

    /// Reads the next token.
    fn read(&mut self) -> Tok {
        let b = self.text.as_bytes();
        while matches!(b.get(self.pos), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        // A `\` newline joins lines.
        if b.get(self.pos) == Some(&b'\\') && b.get(self.pos + 1) == Some(&b'\n') {
            self.pos += 2;
            return self.read();
        }
        self.tok_line = self.line();
        let regex = std::mem::take(&mut self.regex);
        let Some(&c) = b.get(self.pos) else { return Tok::Eof };
        if c == b'\n' {
            self.pos += 1;
            return Tok::Newline;
        }
        for op in ["&&", "||", "<>", ";;", ">>", "<<", "<&", ">&", ";", "&", "|", "(", ")", "<", ">"] {
            if self.text[self.pos..].starts_with(op) {
                if regex && matches!(op, "(" | "|" | "||") {
                    break;
                }
                if regex {
                    // bash's regex word ends before these: an empty word.
                    return Tok::Word(String::new());
                }
                self.pos += op.len();
                return Tok::Op(op);
            }
        }
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(&c) = b.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' if depth == 0 || !regex => break,
                b';' | b'&' | b'<' | b'>' if depth == 0 => break,
                b'|' if depth == 0 && !regex => break,
                b'(' if regex => depth += 1,
                b')' if regex && depth == 0 => break,
                b')' if regex => depth -= 1,
                b'(' | b')' if depth == 0 && !regex => {
                    let ext = c == b'(' && self.pos > start && b"@!+*?$".contains(&b[self.pos - 1]);
                    if !ext {
                        break;
                    }
                    self.skip_parens();
                    continue;
                }
                b'\\' => self.pos += 1,
                b'\'' => {
                    let q = if self.pos > start && b[self.pos - 1] == b'$' { b'\'' } else { 0 };
                    self.skip_quote(b'\'', q == b'\'');
                    continue;
                }
                b'"' => {
                    self.skip_quote(b'"', true);
                    continue;
                }
                b'`' => {
                    self.skip_quote(b'`', true);
                    continue;
                }
                b'{' if self.pos > start && b[self.pos - 1] == b'$' => {
                    while let Some(&c) = b.get(self.pos) {
                        self.pos += 1;
                        if c == b'}' {
                            break;
                        }
                    }
                    continue;
                }
                _ => {}
            }
            self.pos += 1;
        }
        let word = &self.text[start..self.pos.min(self.text.len())];
        if word == "]]" {
            return Tok::End;
        }
        Tok::Word(word.to_string())
    }

    fn skip_quote(&mut self, q: u8, escapes: bool) {
        let b = self.text.as_bytes();
        self.pos += 1;
        while let Some(&c) = b.get(self.pos) {
            self.pos += 1;
            if c == b'\\' && escapes {
                self.pos += 1;
            } else if c == q {
                return;
            }
        }
    }

    fn skip_parens(&mut self) {
        let b = self.text.as_bytes();
        let mut depth = 0usize;
        while let Some(&c) = b.get(self.pos) {
            self.pos += 1;
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                b'\\' => self.pos += 1,
                _ => {}
            }
        }
    }

    fn skip_newlines(&mut self) {
        loop {
            self.tok = self.read();
            if self.tok != Tok::Newline {
                return;
            }
        }
    }

    fn expr(&mut self) -> Result<(), Fail> {
        self.term()?;
        match self.tok {
            Tok::Op("&&") | Tok::Op("||") => self.expr(),
            _ => Ok(()),
        }
    }

    fn term(&mut self) -> Result<(), Fail> {
        self.skip_newlines();
        match self.tok.clone() {
            Tok::Eof => Err(false),
            Tok::End => self.fail(None),
            Tok::Op("(") => {
                match self.expr() {
                    Err(true) => return self.fail(Some("expected `)'".into())),
                    r => r?,
                }
                if self.tok != Tok::Op(")") {
                    return match &self.tok {
                        Tok::Eof => Err(false),
                        Tok::Word(_) => self.fail(Some("expected `)'".into())),
                        t => {
                            let m = format!("unexpected token `{}', expected `)'", show(t));
                            self.fail(Some(m))
                        }
                    };
                }
                self.skip_newlines();
                Ok(())
            }
            Tok::Word(w) if w == "!" => self.term(),
            Tok::Word(w) if UNARY.contains(&w.as_str()) => {
                match self.read() {
                    Tok::Word(_) => {}
                    Tok::Eof => return Err(false),
                    t => {
                        let m = format!("unexpected argument `{}' to conditional unary operator", show(&t));
                        return self.fail(Some(m));
                    }
                }
                self.skip_newlines();
                Ok(())
            }
            Tok::Word(_) => {
                let op = self.read();
                match &op {
                    Tok::Word(w) if BINARY.contains(&w.as_str()) => self.regex = w == "=~",
                    Tok::Op("<" | ">") => {}
                    Tok::End | Tok::Op("&&" | "||" | ")") => {
                        self.tok = op;
                        return Ok(());
                    }
                    Tok::Eof => return Err(false),
                    Tok::Word(_) => return self.fail(Some("conditional binary operator expected".into())),
                    t => {
                        let m =
                            format!("unexpected token `{}', conditional binary operator expected", show(t));
                        return self.fail(Some(m));
                    }
                }
                match self.read() {
                    Tok::Word(_) => {}
                    Tok::Eof => return Err(false),
                    t => {
                        let m = format!("unexpected argument `{}' to conditional binary operator", show(&t));
                        return self.fail(Some(m));
                    }
                }
                self.skip_newlines();
                Ok(())
            }
            t => {
                let m = format!("unexpected token `{}' in conditional command", show(&t));
                self.fail(Some(m))
            }
        }
    }
}
