//! Parsing the expression: tests, actions and operators.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    Less,
    Equal,
    Greater,
}

impl Cmp {
    pub(super) fn test(self, value: u64, n: u64) -> bool {
        match self {
            Cmp::Less => value < n,
            Cmp::Equal => value == n,
            Cmp::Greater => value > n,
        }
    }
}

#[derive(Debug)]
pub(super) enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    True,
    False,
    Name(String, bool),
    Path(String, bool),
    Regex(Regex),
    Type(Vec<char>),
    Size(Cmp, u64, u64),
    Empty,
    Newer(usize),
    Age(Cmp, u64, u64),
    Perm(char, u32),
    Owner(String),
    Print,
    Print0,
    Printf(Vec<char>),
    Exec(Vec<String>, Option<usize>),
    Delete,
    Prune,
    Quit,
}

/// A parse failure: the message (without the `find: ` prefix).
pub(super) type ParseResult<T> = Result<T, String>;

pub(super) struct Parser<'a> {
    pub(super) tokens: &'a [String],
    pub(super) pos: usize,
    pub(super) maxdepth: Option<usize>,
    pub(super) mindepth: usize,
    pub(super) depth_first: bool,
    pub(super) regex_type: String,
    pub(super) has_action: bool,
    pub(super) batches: usize,
    pub(super) newer: Vec<String>,
    /// (predicate, word) for the "possible unquoted pattern" hint.
    pub(super) hint: Option<(String, String)>,
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(|s| s.as_str())
    }

    pub(super) fn arg(&mut self, pred: &str) -> ParseResult<String> {
        match self.tokens.get(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(v.clone())
            }
            None => Err(format!("missing argument to `{pred}'")),
        }
    }

    pub(super) fn parse_comma(&mut self) -> ParseResult<Expr> {
        let mut left = self.parse_or()?;
        while self.peek() == Some(",") {
            self.pos += 1;
            if self.peek().is_none() {
                return Err("invalid expression; expected expression after ','".into());
            }
            let right = self.parse_or()?;
            left = Expr::Comma(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    pub(super) fn parse_or(&mut self) -> ParseResult<Expr> {
        let mut left = self.parse_and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            let op = self.peek().unwrap_or_default().to_string();
            self.pos += 1;
            if matches!(self.peek(), None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")) {
                return Err(format!(
                    "invalid expression; you have used a binary operator '{op}' with nothing after it."
                ));
            }
            let right = self.parse_and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    pub(super) fn parse_and(&mut self) -> ParseResult<Expr> {
        let mut left = self.parse_unary()?;
        loop {
            match self.peek() {
                None | Some(")" | "-o" | "-or" | ",") => break,
                Some("-a" | "-and") => {
                    let op = self.peek().unwrap_or_default().to_string();
                    self.pos += 1;
                    if matches!(self.peek(), None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")) {
                        return Err(format!(
                            "invalid expression; you have used a binary operator '{op}' with nothing after it."
                        ));
                    }
                }
                Some(_) => {}
            }
            let right = self.parse_unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    pub(super) fn parse_unary(&mut self) -> ParseResult<Expr> {
        match self.peek() {
            None => Err("invalid expression".into()),
            Some(op @ ("!" | "-not")) => {
                let op = op.to_string();
                self.pos += 1;
                if matches!(self.peek(), None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")) {
                    return Err(format!("expected an expression after '{op}'"));
                }
                Ok(Expr::Not(Box::new(self.parse_unary()?)))
            }
            Some("(") => {
                self.pos += 1;
                if self.peek() == Some(")") {
                    return Err("invalid expression; empty parentheses are not allowed.".into());
                }
                let inner = self.parse_comma()?;
                if self.peek() != Some(")") {
                    return Err(
                        "invalid expression; I was expecting to find a ')' somewhere but did not see one."
                            .into(),
                    );
                }
                self.pos += 1;
                Ok(inner)
            }
            Some(")") => Err("you have too many ')'".into()),
            Some(op @ ("-o" | "-or" | "-a" | "-and" | ",")) => Err(format!(
                "invalid expression; you have used a binary operator '{op}' with nothing before it."
            )),
            Some(_) => self.parse_primary(),
        }
    }

    pub(super) fn parse_primary(&mut self) -> ParseResult<Expr> {
        let tok = self.tokens.get(self.pos).cloned().unwrap_or_default();
        self.pos += 1;
        if !tok.starts_with('-') || tok == "-" {
            // `-name *.txt` expanded by the shell: the predicate is two back
            // (the hint is given when the stray word is an existing file).
            if let Some(prev) = self.pos.checked_sub(3).and_then(|i| self.tokens.get(i)) {
                if matches!(
                    prev.as_str(),
                    "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename"
                ) {
                    self.hint = Some((prev.clone(), tok.clone()));
                }
            }
            return Err(format!("paths must precede expression: `{tok}'"));
        }
        let e = match tok.as_str() {
            "-name" => Expr::Name(self.arg(&tok)?, false),
            "-iname" => Expr::Name(self.arg(&tok)?.to_ascii_lowercase(), true),
            "-path" | "-wholename" => Expr::Path(self.arg(&tok)?, false),
            "-ipath" | "-iwholename" => Expr::Path(self.arg(&tok)?.to_ascii_lowercase(), true),
            "-regex" | "-iregex" => {
                let pat = self.arg(&tok)?;
                let translated = translate_regex(&pat, &self.regex_type);
                let full = format!("{}^(?:{translated})$", if tok == "-iregex" { "(?i)" } else { "" });
                match Regex::new(&full) {
                    Ok(re) => Expr::Regex(re),
                    Err(_) => return Err(format!("Invalid regular expression: {pat}")),
                }
            }
            "-regextype" => {
                let t = self.arg(&tok)?;
                if !matches!(
                    t.as_str(),
                    "findutils-default"
                        | "emacs"
                        | "posix-basic"
                        | "posix-extended"
                        | "posix-egrep"
                        | "egrep"
                        | "grep"
                        | "sed"
                        | "awk"
                        | "gnu-awk"
                        | "posix-awk"
                        | "posix-minimal-basic"
                ) {
                    return Err(format!("Unknown regular expression type {}; valid types are findutils-default, awk, egrep, ed, emacs, gnu-awk, grep, posix-awk, awk, posix-basic, posix-egrep, posix-extended, posix-minimal-basic, sed.", find_quote(&t)));
                }
                self.regex_type = t;
                Expr::True
            }
            "-type" | "-xtype" => {
                let v = self.arg(&tok)?;
                let mut kinds = Vec::new();
                for part in v.split(',') {
                    let mut chars = part.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c @ ('f' | 'd' | 'l' | 'b' | 'c' | 'p' | 's' | 'D')), None) => kinds.push(c),
                        _ if part.is_empty() => {
                            return Err(format!("Last file type in list argument to {tok} is empty"))
                        }
                        _ if part.chars().count() > 1 => {
                            return Err(format!("Must separate multiple arguments to {tok} using: ','"))
                        }
                        _ => return Err(format!("Unknown argument to {tok}: {part}")),
                    }
                }
                Expr::Type(kinds)
            }
            "-size" => {
                let v = self.arg(&tok)?;
                let (cmp, rest) = split_cmp(&v);
                let (digits, unit) = match rest.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
                    Some((i, _)) => (&rest[..i], &rest[i..]),
                    None => (rest, ""),
                };
                let unit_bytes = match unit {
                    "" | "b" => 512,
                    "c" => 1,
                    "w" => 2,
                    "k" => 1024,
                    "M" => 1024 * 1024,
                    "G" => 1024 * 1024 * 1024,
                    u => return Err(format!("invalid -size type `{}'", u.chars().next().unwrap_or(' '))),
                };
                let n = digits.parse::<u64>().map_err(|_| format!("invalid argument `{v}' to `-size'"))?;
                Expr::Size(cmp, n, unit_bytes)
            }
            "-empty" => Expr::Empty,
            "-executable" => Expr::Perm('x', 0o111),
            "-newer" => {
                let f = self.arg(&tok)?;
                self.newer.push(f);
                Expr::Newer(self.newer.len() - 1)
            }
            "-mtime" | "-mmin" => {
                let v = self.arg(&tok)?;
                let (cmp, rest) = split_cmp(&v);
                let n = rest.parse::<u64>().map_err(|_| format!("invalid argument `{v}' to `{tok}'"))?;
                Expr::Age(cmp, n, if tok == "-mtime" { 86_400_000 } else { 60_000 })
            }
            "-perm" => {
                let v = self.arg(&tok)?;
                let (kind, digits) = match v.chars().next() {
                    Some(c @ ('-' | '/')) => (c, &v[1..]),
                    _ => ('=', v.as_str()),
                };
                match u32::from_str_radix(digits, 8) {
                    Ok(m) if !digits.is_empty() => Expr::Perm(kind, m),
                    _ => match crate::builtins::chmod::apply_mode(digits, 0, false) {
                        Some(m) if !digits.is_empty() => Expr::Perm(kind, m),
                        _ => return Err(format!("invalid mode {}", find_quote(&v))),
                    },
                }
            }
            "-user" | "-group" | "-uid" | "-gid" => Expr::Owner(self.arg(&tok)?),
            "-true" => Expr::True,
            "-false" => Expr::False,
            "-print" => {
                self.has_action = true;
                Expr::Print
            }
            "-print0" => {
                self.has_action = true;
                Expr::Print0
            }
            "-printf" => {
                self.has_action = true;
                Expr::Printf(self.arg(&tok)?.chars().collect())
            }
            "-exec" => {
                self.has_action = true;
                let mut argv = Vec::new();
                loop {
                    let Some(t) = self.tokens.get(self.pos) else {
                        return Err(format!("missing argument to `{tok}'"));
                    };
                    self.pos += 1;
                    if t == ";" {
                        break;
                    }
                    if t == "+" && argv.last().is_some_and(|a: &String| a == "{}") {
                        argv.pop();
                        if argv.iter().any(|a: &String| a.contains("{}")) {
                            return Err("Only one instance of {} is supported with -exec ... +".into());
                        }
                        if argv.is_empty() {
                            return Err(format!("missing argument to `{tok}'"));
                        }
                        let id = self.batches;
                        self.batches += 1;
                        return Ok(Expr::Exec(argv, Some(id)));
                    }
                    argv.push(t.clone());
                }
                if argv.is_empty() {
                    return Err(format!("missing argument to `{tok}'"));
                }
                Expr::Exec(argv, None)
            }
            "-delete" => {
                self.has_action = true;
                self.depth_first = true;
                Expr::Delete
            }
            "-prune" => Expr::Prune,
            "-quit" => Expr::Quit,
            "-maxdepth" | "-mindepth" => {
                let v = self.arg(&tok)?;
                let n = v.parse::<usize>().map_err(|_| {
                    format!(
                        "Expected a positive decimal integer argument to {tok}, but got {}",
                        find_quote(&v)
                    )
                })?;
                if tok == "-maxdepth" {
                    self.maxdepth = Some(n);
                } else {
                    self.mindepth = n;
                }
                Expr::True
            }
            "-depth" | "-d" => {
                self.depth_first = true;
                Expr::True
            }
            "-xdev"
            | "-mount"
            | "-noleaf"
            | "-nowarn"
            | "-warn"
            | "-follow"
            | "-ignore_readdir_race"
            | "-noignore_readdir_race"
            | "-daystart" => Expr::True,
            _ => return Err(format!("unknown predicate `{tok}'")),
        };
        Ok(e)
    }
}

pub(super) fn split_cmp(v: &str) -> (Cmp, &str) {
    if let Some(r) = v.strip_prefix('+') {
        (Cmp::Greater, r)
    } else if let Some(r) = v.strip_prefix('-') {
        (Cmp::Less, r)
    } else {
        (Cmp::Equal, v)
    }
}

/// Quotes a name as find's messages do: `'it\'s'`.
pub(super) fn find_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "\\'"))
}

/// Turns an emacs-style (find's default) or basic regular expression into
/// the `regex` crate's syntax; extended ones pass through.
pub(super) fn translate_regex(pat: &str, kind: &str) -> String {
    let extended =
        matches!(kind, "posix-extended" | "posix-egrep" | "egrep" | "awk" | "gnu-awk" | "posix-awk");
    if extended {
        return pat.to_string();
    }
    let basic = matches!(kind, "posix-basic" | "grep" | "sed" | "posix-minimal-basic");
    let mut out = String::new();
    let mut chars = pat.chars().peekable();
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        if in_bracket {
            if c == ']' {
                in_bracket = false;
            }
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
            continue;
        }
        match c {
            '[' => {
                in_bracket = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '|' | '{' | '}')) => out.push(n),
                Some(n @ ('+' | '?')) if basic => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '+' | '?' if basic => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}
