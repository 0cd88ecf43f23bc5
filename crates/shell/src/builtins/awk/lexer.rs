//! Tokens of an awk program. Whether `/` starts a regular expression or is
//! a division depends on the token before it, as in every awk.

/// The built-in functions, recognised by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bi {
    Length,
    Substr,
    Index,
    Split,
    Sub,
    Gsub,
    Match,
    Sprintf,
    Sin,
    Cos,
    Atan2,
    Exp,
    Log,
    Sqrt,
    Int,
    Rand,
    Srand,
    Tolower,
    Toupper,
    System,
    Close,
    Fflush,
}

impl Bi {
    fn from_name(name: &str) -> Option<Bi> {
        Some(match name {
            "length" => Bi::Length,
            "substr" => Bi::Substr,
            "index" => Bi::Index,
            "split" => Bi::Split,
            "sub" => Bi::Sub,
            "gsub" => Bi::Gsub,
            "match" => Bi::Match,
            "sprintf" => Bi::Sprintf,
            "sin" => Bi::Sin,
            "cos" => Bi::Cos,
            "atan2" => Bi::Atan2,
            "exp" => Bi::Exp,
            "log" => Bi::Log,
            "sqrt" => Bi::Sqrt,
            "int" => Bi::Int,
            "rand" => Bi::Rand,
            "srand" => Bi::Srand,
            "tolower" => Bi::Tolower,
            "toupper" => Bi::Toupper,
            "system" => Bi::System,
            "close" => Bi::Close,
            "fflush" => Bi::Fflush,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Bi::Length => "length",
            Bi::Substr => "substr",
            Bi::Index => "index",
            Bi::Split => "split",
            Bi::Sub => "sub",
            Bi::Gsub => "gsub",
            Bi::Match => "match",
            Bi::Sprintf => "sprintf",
            Bi::Sin => "sin",
            Bi::Cos => "cos",
            Bi::Atan2 => "atan2",
            Bi::Exp => "exp",
            Bi::Log => "log",
            Bi::Sqrt => "sqrt",
            Bi::Int => "int",
            Bi::Rand => "rand",
            Bi::Srand => "srand",
            Bi::Tolower => "tolower",
            Bi::Toupper => "toupper",
            Bi::System => "system",
            Bi::Close => "close",
            Bi::Fflush => "fflush",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Newline,
    Eof,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Not,
    Gt,
    Lt,
    Pipe,
    Question,
    Colon,
    Tilde,
    NoMatch,
    Dollar,
    Assign,
    AddAssign,
    SubAssign,
    MulAssign,
    DivAssign,
    ModAssign,
    PowAssign,
    Eq,
    Le,
    Ge,
    Ne,
    Incr,
    Decr,
    And,
    Or,
    Append,
    Number(f64),
    Str(Vec<u8>),
    Ere(Vec<u8>),
    Name(String),
    /// A name followed immediately by `(`: a function call.
    FuncName(String),
    Builtin(Bi),
    Begin,
    End,
    Function,
    Getline,
    Print,
    Printf,
    If,
    Else,
    While,
    For,
    Do,
    Break,
    Continue,
    Next,
    Nextfile,
    Exit,
    Return,
    Delete,
    In,
}

impl Tok {
    /// How `syntax error at or near X` names the token.
    pub fn describe(&self) -> String {
        let s = match self {
            Tok::Newline => "end of line",
            Tok::Eof => "end of file",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Semi => ";",
            Tok::Comma => ",",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Caret => "^",
            Tok::Not => "!",
            Tok::Gt => ">",
            Tok::Lt => "<",
            Tok::Pipe => "|",
            Tok::Question => "?",
            Tok::Colon => ":",
            Tok::Tilde => "~",
            Tok::NoMatch => "!~",
            Tok::Dollar => "$",
            Tok::Assign => "=",
            Tok::AddAssign => "+=",
            Tok::SubAssign => "-=",
            Tok::MulAssign => "*=",
            Tok::DivAssign => "/=",
            Tok::ModAssign => "%=",
            Tok::PowAssign => "^=",
            Tok::Eq => "==",
            Tok::Le => "<=",
            Tok::Ge => ">=",
            Tok::Ne => "!=",
            Tok::Incr => "++",
            Tok::Decr => "--",
            Tok::And => "&&",
            Tok::Or => "||",
            Tok::Append => ">>",
            Tok::Number(n) => return super::value::num_to_string_plain(*n),
            Tok::Str(s) => return format!("\"{}\"", String::from_utf8_lossy(s)),
            Tok::Ere(s) => return format!("/{}/", String::from_utf8_lossy(s)),
            Tok::Name(n) | Tok::FuncName(n) => return n.clone(),
            Tok::Builtin(b) => b.name(),
            Tok::Begin => "BEGIN",
            Tok::End => "END",
            Tok::Function => "function",
            Tok::Getline => "getline",
            Tok::Print => "print",
            Tok::Printf => "printf",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::While => "while",
            Tok::For => "for",
            Tok::Do => "do",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Next => "next",
            Tok::Nextfile => "nextfile",
            Tok::Exit => "exit",
            Tok::Return => "return",
            Tok::Delete => "delete",
            Tok::In => "in",
        };
        s.to_string()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

/// A lexical error: its line and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub line: usize,
    pub message: String,
    /// mawk prints `unexpected character` errors as `awk: 1: ...`.
    pub bare_line: bool,
}

/// Whether a `/` after this token is a division.
fn ends_operand(tok: Option<&Tok>) -> bool {
    matches!(
        tok,
        Some(
            Tok::Number(_)
                | Tok::Str(_)
                | Tok::Ere(_)
                | Tok::Name(_)
                | Tok::Builtin(Bi::Length)
                | Tok::RParen
                | Tok::RBracket
                | Tok::Dollar
                | Tok::Incr
                | Tok::Decr
        )
    )
}

/// Processes the escapes of a string literal (also used for `-v` values):
/// `\n \t \r \\ \" \/ \a \b \f \v`, octal `\ddd` and hex `\xhh`. Unknown
/// escapes keep their backslash, as mawk does.
pub fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c != b'\\' || i + 1 >= s.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let (bytes, used) = escape_at(s, i + 1);
        out.extend_from_slice(&bytes);
        i += 1 + used;
    }
    out
}

/// The escape starting at `s[i]` (after the backslash): the bytes it
/// stands for and how many bytes it used.
fn escape_at(s: &[u8], i: usize) -> (Vec<u8>, usize) {
    let Some(&c) = s.get(i) else { return (vec![b'\\'], 0) };
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'\\' => Some(b'\\'),
        b'"' => Some(b'"'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        _ => None,
    };
    if let Some(b) = simple {
        return (vec![b], 1);
    }
    if (b'0'..=b'7').contains(&c) {
        let mut v: u32 = 0;
        let mut n = 0;
        while n < 3 {
            match s.get(i + n) {
                Some(&d) if (b'0'..=b'7').contains(&d) => {
                    v = v * 8 + u32::from(d - b'0');
                    n += 1;
                }
                _ => break,
            }
        }
        return (vec![(v & 0xff) as u8], n);
    }
    if c == b'x' {
        let mut v: u32 = 0;
        let mut n = 0;
        while n < 2 {
            match s.get(i + 1 + n).and_then(|d| (*d as char).to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    n += 1;
                }
                None => break,
            }
        }
        if n == 0 {
            return (vec![b'\\', b'x'], 1);
        }
        return (vec![v as u8], 1 + n);
    }
    (vec![b'\\', c], 1)
}

pub fn lex(src: &[u8]) -> Result<Vec<Token>, LexError> {
    let mut toks: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let err = |line: usize, message: String| LexError { line, message, bare_line: false };
    while i < src.len() {
        let c = src[i];
        match c {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'\\' if src.get(i + 1) == Some(&b'\n') => {
                i += 2;
                line += 1;
                continue;
            }
            b'\\' if src.get(i + 1) == Some(&b'\r') && src.get(i + 2) == Some(&b'\n') => {
                i += 3;
                line += 1;
                continue;
            }
            b'#' => {
                while i < src.len() && src[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        let start_line = line;
        let next = src.get(i + 1).copied();
        let (tok, len) = match c {
            b'\n' => {
                line += 1;
                (Tok::Newline, 1)
            }
            b'{' => (Tok::LBrace, 1),
            b'}' => (Tok::RBrace, 1),
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b'[' => (Tok::LBracket, 1),
            b']' => (Tok::RBracket, 1),
            b';' => (Tok::Semi, 1),
            b',' => (Tok::Comma, 1),
            b'?' => (Tok::Question, 1),
            b':' => (Tok::Colon, 1),
            b'~' => (Tok::Tilde, 1),
            b'$' => (Tok::Dollar, 1),
            b'+' => match next {
                Some(b'+') => (Tok::Incr, 2),
                Some(b'=') => (Tok::AddAssign, 2),
                _ => (Tok::Plus, 1),
            },
            b'-' => match next {
                Some(b'-') => (Tok::Decr, 2),
                Some(b'=') => (Tok::SubAssign, 2),
                _ => (Tok::Minus, 1),
            },
            b'*' => match next {
                Some(b'=') => (Tok::MulAssign, 2),
                _ => (Tok::Star, 1),
            },
            b'%' => match next {
                Some(b'=') => (Tok::ModAssign, 2),
                _ => (Tok::Percent, 1),
            },
            b'^' => match next {
                Some(b'=') => (Tok::PowAssign, 2),
                _ => (Tok::Caret, 1),
            },
            b'!' => match next {
                Some(b'=') => (Tok::Ne, 2),
                Some(b'~') => (Tok::NoMatch, 2),
                _ => (Tok::Not, 1),
            },
            b'>' => match next {
                Some(b'=') => (Tok::Ge, 2),
                Some(b'>') => (Tok::Append, 2),
                _ => (Tok::Gt, 1),
            },
            b'<' => match next {
                Some(b'=') => (Tok::Le, 2),
                _ => (Tok::Lt, 1),
            },
            b'=' => match next {
                Some(b'=') => (Tok::Eq, 2),
                _ => (Tok::Assign, 1),
            },
            b'&' => match next {
                Some(b'&') => (Tok::And, 2),
                _ => {
                    return Err(LexError {
                        line,
                        message: "unexpected character '&'".into(),
                        bare_line: true,
                    })
                }
            },
            b'|' => match next {
                Some(b'|') => (Tok::Or, 2),
                _ => (Tok::Pipe, 1),
            },
            b'/' => {
                if ends_operand(toks.last().map(|t| &t.tok)) {
                    match next {
                        Some(b'=') => (Tok::DivAssign, 2),
                        _ => (Tok::Slash, 1),
                    }
                } else {
                    // A regular expression: up to an unescaped `/` outside
                    // a bracket expression.
                    let mut j = i + 1;
                    let mut body = Vec::new();
                    let mut in_bracket = false;
                    loop {
                        let Some(&b) = src.get(j) else {
                            return Err(err(line, runaway("regular expression /", &src[i + 1..])));
                        };
                        if b == b'\n' {
                            return Err(err(line, runaway("regular expression /", &src[i + 1..j])));
                        }
                        if b == b'\\' {
                            match src.get(j + 1) {
                                Some(b'/') => {
                                    body.push(b'/');
                                    j += 2;
                                    continue;
                                }
                                Some(b'\n') => {
                                    j += 2;
                                    line += 1;
                                    continue;
                                }
                                Some(&n) => {
                                    body.push(b'\\');
                                    body.push(n);
                                    j += 2;
                                    continue;
                                }
                                None => {
                                    body.push(b'\\');
                                    j += 1;
                                    continue;
                                }
                            }
                        }
                        if in_bracket {
                            if b == b']' {
                                in_bracket = false;
                            } else if b == b'[' && src.get(j + 1) == Some(&b':') {
                                // A class name like [:alpha:] inside brackets.
                                if let Some(end) = find_class_end(src, j + 2) {
                                    body.extend_from_slice(&src[j..end]);
                                    j = end;
                                    continue;
                                }
                            }
                            body.push(b);
                            j += 1;
                            continue;
                        }
                        if b == b'[' {
                            in_bracket = true;
                            body.push(b);
                            j += 1;
                            // `]` right after `[` or `[^` is literal.
                            if src.get(j) == Some(&b'^') {
                                body.push(b'^');
                                j += 1;
                            }
                            if src.get(j) == Some(&b']') {
                                body.push(b']');
                                j += 1;
                            }
                            continue;
                        }
                        if b == b'/' {
                            break;
                        }
                        body.push(b);
                        j += 1;
                    }
                    (Tok::Ere(body), j + 1 - i)
                }
            }
            b'"' => {
                let mut j = i + 1;
                let mut raw = Vec::new();
                loop {
                    let Some(&b) = src.get(j) else {
                        return Err(err(line, runaway("string constant \"", &src[i + 1..])));
                    };
                    if b == b'\n' {
                        return Err(err(line, runaway("string constant \"", &src[i + 1..j])));
                    }
                    if b == b'"' {
                        break;
                    }
                    if b == b'\\' {
                        if src.get(j + 1) == Some(&b'\n') {
                            j += 2;
                            line += 1;
                            continue;
                        }
                        raw.push(b);
                        if let Some(&n) = src.get(j + 1) {
                            raw.push(n);
                        }
                        j += 2;
                        continue;
                    }
                    raw.push(b);
                    j += 1;
                }
                (Tok::Str(unescape(&raw)), j + 1 - i)
            }
            b'0'..=b'9' | b'.' => {
                let mut j = i;
                while j < src.len() && src[j].is_ascii_digit() {
                    j += 1;
                }
                if src.get(j) == Some(&b'.') {
                    j += 1;
                    while j < src.len() && src[j].is_ascii_digit() {
                        j += 1;
                    }
                }
                if j == i + 1 && c == b'.' {
                    return Err(LexError {
                        line,
                        message: "unexpected character '.'".into(),
                        bare_line: true,
                    });
                }
                if matches!(src.get(j), Some(b'e' | b'E')) {
                    let mut k = j + 1;
                    if matches!(src.get(k), Some(b'+' | b'-')) {
                        k += 1;
                    }
                    if src.get(k).is_some_and(|d| d.is_ascii_digit()) {
                        while k < src.len() && src[k].is_ascii_digit() {
                            k += 1;
                        }
                        j = k;
                    }
                }
                let text = std::str::from_utf8(&src[i..j]).unwrap_or("0");
                let v = text.parse::<f64>().unwrap_or(0.0);
                (Tok::Number(v), j - i)
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let mut j = i;
                while j < src.len() && (src[j].is_ascii_alphanumeric() || src[j] == b'_') {
                    j += 1;
                }
                let word = String::from_utf8_lossy(&src[i..j]).into_owned();
                let tok = match word.as_str() {
                    "BEGIN" => Tok::Begin,
                    "END" => Tok::End,
                    "function" => Tok::Function,
                    "getline" => Tok::Getline,
                    "print" => Tok::Print,
                    "printf" => Tok::Printf,
                    "if" => Tok::If,
                    "else" => Tok::Else,
                    "while" => Tok::While,
                    "for" => Tok::For,
                    "do" => Tok::Do,
                    "break" => Tok::Break,
                    "continue" => Tok::Continue,
                    "next" => Tok::Next,
                    "nextfile" => Tok::Nextfile,
                    "exit" => Tok::Exit,
                    "return" => Tok::Return,
                    "delete" => Tok::Delete,
                    "in" => Tok::In,
                    _ => match Bi::from_name(&word) {
                        Some(b) => Tok::Builtin(b),
                        None if src.get(j) == Some(&b'(') => Tok::FuncName(word),
                        None => Tok::Name(word),
                    },
                };
                (tok, j - i)
            }
            _ => {
                let shown = if c.is_ascii_graphic() { (c as char).to_string() } else { format!("\\{c:03o}") };
                return Err(LexError {
                    line,
                    message: format!("unexpected character '{shown}'"),
                    bare_line: true,
                });
            }
        };
        toks.push(Token { tok, line: start_line });
        i += len;
    }
    toks.push(Token { tok: Tok::Eof, line });
    Ok(toks)
}

/// The end of a `[:name:]` class starting at `from` (after `[:`).
fn find_class_end(src: &[u8], from: usize) -> Option<usize> {
    let mut j = from;
    while j < src.len() && src[j].is_ascii_alphabetic() {
        j += 1;
    }
    if src.get(j) == Some(&b':') && src.get(j + 1) == Some(&b']') {
        Some(j + 2)
    } else {
        None
    }
}

fn runaway(what: &str, rest: &[u8]) -> String {
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let shown = &rest[..end.min(10)];
    format!("runaway {what}{} ...", String::from_utf8_lossy(shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src.as_bytes()).map(|t| t.into_iter().map(|t| t.tok).collect()).unwrap_or_default()
    }

    #[test]
    fn regex_or_division() {
        assert_eq!(kinds("a / b"), vec![Tok::Name("a".into()), Tok::Slash, Tok::Name("b".into()), Tok::Eof]);
        assert_eq!(kinds("/a[/]b/"), vec![Tok::Ere(b"a[/]b".to_vec()), Tok::Eof]);
        assert_eq!(
            kinds("x ~ /\\//"),
            vec![Tok::Name("x".into()), Tok::Tilde, Tok::Ere(b"/".to_vec()), Tok::Eof]
        );
    }

    #[test]
    fn strings_and_numbers() {
        assert_eq!(kinds("\"a\\tb\\q\""), vec![Tok::Str(b"a\tb\\q".to_vec()), Tok::Eof]);
        assert_eq!(kinds("1.5e3 .5"), vec![Tok::Number(1500.0), Tok::Number(0.5), Tok::Eof]);
        assert_eq!(kinds("f(x)")[0], Tok::FuncName("f".into()));
        assert_eq!(unescape(b"\\101\\x41\\/"), b"AA\\/".to_vec());
    }

    #[test]
    fn runaway_string() {
        let e = lex(b"x = \"abc }").err().map(|e| e.message);
        assert_eq!(e.as_deref(), Some("runaway string constant \"abc } ..."));
    }
}
