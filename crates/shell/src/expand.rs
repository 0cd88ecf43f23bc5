//! Word expansion: braces, tilde, parameters, command substitution,
//! arithmetic, field splitting, pathname expansion and quote removal, in
//! bash's order.

use brush_parser::word::{self, Parameter, ParameterExpr, ParameterTestType, SpecialParameter, WordPiece};

use crate::ctx::Io;
use crate::interp::{word_options, Interp};
use crate::io::{input, output, Sink};
use crate::pattern;

/// Brace expansion produces at most this many words per word.
const MAX_BRACE_WORDS: usize = 100_000;
/// A glob produces at most this many paths.
pub(crate) const MAX_GLOB_MATCHES: usize = 100_000;

/// An expansion that failed; its message is already printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExpandError {
    /// `fatal`: the shell exits (`${x:?}`, `set -u`), as bash does.
    Reported { fatal: bool, status: i32 },
}

/// One character of an expanded word and how it got there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ch {
    c: char,
    /// Quoted: not subject to splitting or globbing.
    quoted: bool,
    /// Produced by an unquoted expansion: subject to field splitting.
    split: bool,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Piece {
    Ch(Ch),
    /// A field boundary that `"$@"` imposes.
    Break,
    /// A quote was here: the field exists even if empty (`""`).
    Quote,
    /// Between two words of an unquoted `$@`/`$*`/`${a[@]}`: in a split
    /// context the first character of IFS (bash joins with it, then splits;
    /// with IFS empty the words stay apart), else a space (`$@`) or the
    /// first character of IFS (`$*`).
    Sep {
        star: bool,
    },
}

/// The value of a parameter.
pub(crate) enum Value {
    Unset,
    Str(String),
    /// `$@`, `$*`, `${a[@]}`: several words; `join` for the `*` forms.
    Fields(Vec<String>, bool),
}

impl Value {
    /// Whether `${x-…}` (or, with `UnsetOrNull`, `${x:-…}`) takes the word.
    /// Several words are unset when there are none and null when they
    /// join to nothing: with a space for `@`, IFS's first character for
    /// `*` (`sep`).
    fn is_unset_or_null(&self, test: &ParameterTestType, sep: &str) -> bool {
        let colon = matches!(test, ParameterTestType::UnsetOrNull);
        match self {
            Value::Unset => true,
            Value::Str(s) => colon && s.is_empty(),
            Value::Fields(v, star) => {
                v.is_empty()
                    || (colon
                        && v.iter().all(String::is_empty)
                        && (v.len() == 1 || (*star && sep.is_empty())))
            }
        }
    }
}

impl Interp<'_> {
    /// Expands a word into fields (arguments of a command, `for` values).
    pub(crate) fn expand_fields(&mut self, raw: &str) -> Result<Vec<String>, ExpandError> {
        // `x=~/a:~/b` as an argument: bash expands its tildes as in an
        // assignment.
        if let Some((name, value)) = raw.split_once('=') {
            if value.starts_with('~')
                && crate::builtins::valid_name(name)
                && !value.contains(['\'', '"', '\\', '$', '`', '*', '?', '[', '{'])
            {
                return Ok(vec![format!("{name}={}", self.expand_assignment(value)?)]);
            }
        }
        let mut fields = Vec::new();
        for word in self.brace_expand(raw)? {
            let pieces = self.word_pieces(&word, false)?;
            for field in split_fields(&pieces, &self.ifs_or_default()) {
                self.glob_field(&field, &mut fields)?;
            }
        }
        Ok(fields)
    }

    /// Expands a word into one string: no splitting or globbing
    /// (assignments, redirection targets, `case` subjects).
    /// Expands an assignment's value: as a word, with a tilde after each
    /// `:` expanded too (`PATH=~/bin:~/lib`) when the value is plain text.
    pub(crate) fn expand_assignment(&mut self, raw: &str) -> Result<String, ExpandError> {
        if !raw.contains(":~") || raw.contains(['\'', '"', '\\', '$', '`']) {
            return self.expand_string(raw);
        }
        let mut parts = Vec::new();
        for part in raw.split(':') {
            parts.push(self.expand_string(part)?);
        }
        Ok(parts.join(":"))
    }

    pub(crate) fn expand_string(&mut self, raw: &str) -> Result<String, ExpandError> {
        let pieces = self.word_pieces(raw, false)?;
        Ok(text(&pieces, &self.ifs()))
    }

    /// Expands a word into a pattern: quoted characters are escaped so they
    /// match themselves.
    pub(crate) fn expand_pattern(&mut self, raw: &str) -> Result<String, ExpandError> {
        let pieces = self.word_pieces(raw, false)?;
        let mut out = String::new();
        for p in pieces {
            match p {
                Piece::Ch(ch) if ch.quoted => out.push_str(&pattern::escape(&ch.c.to_string())),
                Piece::Ch(ch) => out.push(ch.c),
                Piece::Break | Piece::Sep { .. } => out.push(' '),
                Piece::Quote => {}
            }
        }
        Ok(out)
    }

    /// Expands the right side of `=~`: quoted characters match literally.
    pub(crate) fn expand_regex_text(&mut self, raw: &str) -> Result<String, ExpandError> {
        let mut out = String::new();
        for p in self.word_pieces(raw, false)? {
            match p {
                Piece::Ch(ch) if ch.quoted && "\\.+*?()|[]{}^$".contains(ch.c) => {
                    out.push('\\');
                    out.push(ch.c);
                }
                Piece::Ch(ch) => out.push(ch.c),
                Piece::Break | Piece::Sep { .. } => out.push(' '),
                Piece::Quote => {}
            }
        }
        Ok(out)
    }

    /// Expands the body of a here-document (parameters, substitutions and
    /// arithmetic; quotes are ordinary characters).
    pub(crate) fn expand_heredoc(&mut self, body: &str) -> Result<String, ExpandError> {
        let pieces = match word::parse_heredoc(body, &word_options()) {
            Ok(pieces) => pieces,
            Err(e) => return Err(self.fail(&format!("bad substitution: {e}"))),
        };
        let mut out = Vec::new();
        self.expand_pieces(&pieces, true, &mut out)?;
        Ok(text(&out, &self.ifs()))
    }

    fn fail(&mut self, message: &str) -> ExpandError {
        self.report(message);
        ExpandError::Reported { fatal: false, status: 1 }
    }

    fn fatal(&mut self, message: &str) -> ExpandError {
        self.report(message);
        // bash's non-interactive shell exits with 127 here; a subshell, or
        // under `set -e`, with 1.
        let status = if self.state.subshell || self.state.options.errexit { 1 } else { 127 };
        ExpandError::Reported { fatal: true, status }
    }

    fn ifs_or_default(&self) -> String {
        self.state.get("IFS").map_or_else(|| " \t\n".to_string(), str::to_string)
    }

    /// What `"$*"` joins with: IFS's first character (a space when unset).
    fn star_sep(&self) -> String {
        self.ifs_or_default().chars().next().map(String::from).unwrap_or_default()
    }

    /// What several words join with when `${*:-…}` tests them for null:
    /// unquoted, words that are all empty are never joined away.
    fn null_sep(&self, quoted: bool) -> String {
        if quoted {
            self.star_sep()
        } else {
            " ".to_string()
        }
    }

    /// IFS as set: `None` when unset (joins then use a space).
    fn ifs(&self) -> Option<String> {
        self.state.get("IFS").map(str::to_string)
    }

    fn word_pieces(&mut self, raw: &str, quoted: bool) -> Result<Vec<Piece>, ExpandError> {
        let parsed = match word::parse(raw, &word_options()) {
            Ok(pieces) => pieces,
            Err(_) => return Err(self.fail(&format!("{raw}: bad substitution"))),
        };
        let mut out = Vec::new();
        self.expand_pieces(&parsed, quoted, &mut out)?;
        Ok(out)
    }

    fn brace_expand(&mut self, raw: &str) -> Result<Vec<String>, ExpandError> {
        if !raw.contains('{') {
            return Ok(vec![raw.to_string()]);
        }
        let parsed = match word::parse_brace_expansions(raw, &word_options()) {
            Ok(Some(parsed)) => parsed,
            _ => return Ok(vec![raw.to_string()]),
        };
        let mut words = vec![String::new()];
        let mut widths = zero_padded_widths(raw).into_iter();
        if !append_braces(&parsed, &mut words, &mut widths) {
            return Err(
                self.fail(&format!("{raw}: brace expansion produces more than {MAX_BRACE_WORDS} words"))
            );
        }
        Ok(words)
    }

    fn push_text(out: &mut Vec<Piece>, text: &str, quoted: bool, split: bool) {
        out.extend(text.chars().map(|c| Piece::Ch(Ch { c, quoted, split })));
    }

    pub(crate) fn expand_pieces(
        &mut self,
        pieces: &[word::WordPieceWithSource],
        quoted: bool,
        out: &mut Vec<Piece>,
    ) -> Result<(), ExpandError> {
        let mut next = 0;
        while let Some(piece) = pieces.get(next) {
            next += 1;
            match &piece.piece {
                // `${` the parser could not read: a bad substitution or a form it lacks.
                WordPiece::Text(dollar)
                    if dollar == "$"
                        && matches!(pieces.get(next).map(|p| &p.piece), Some(WordPiece::Text(t)) if t.starts_with('{')) =>
                {
                    if let Some(WordPiece::Text(braced)) = pieces.get(next).map(|p| &p.piece) {
                        next += 1;
                        if !braced.contains('}') {
                            // Quotes inside split it: bash names it whole.
                            let mut shown = braced.clone();
                            while let Some(piece) = pieces.get(next) {
                                next += 1;
                                match &piece.piece {
                                    WordPiece::Text(t) | WordPiece::EscapeSequence(t) => shown.push_str(t),
                                    WordPiece::SingleQuotedText(t) => shown.push_str(&format!("'{t}'")),
                                    _ => {}
                                }
                                if shown.contains('}') {
                                    break;
                                }
                            }
                            let end = shown.find('}').unwrap_or(shown.len());
                            return Err(self.bad_substitution(&format!("{}}}", &shown[..end])));
                        }
                        let rest = self.unparsed_braces(braced, quoted, out)?;
                        Self::push_text(out, rest, quoted, false);
                    }
                }
                WordPiece::Text(text) => Self::push_text(out, text, quoted, false),
                WordPiece::SingleQuotedText(text) => {
                    out.push(Piece::Quote);
                    Self::push_text(out, text, true, false);
                }
                WordPiece::AnsiCQuotedText(text) => {
                    out.push(Piece::Quote);
                    Self::push_text(out, &ansi_c(text), true, false);
                }
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    let only_at = matches!(
                        inner.as_slice(),
                        [one] if matches!(&one.piece, WordPiece::ParameterExpansion(
                            ParameterExpr::Parameter { parameter, .. } | ParameterExpr::Transform { parameter, .. }
                        ) if matches!(parameter,
                            Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: false })
                            | Parameter::NamedWithAllIndices { concatenate: false, .. }))
                            || matches!(&one.piece, WordPiece::ParameterExpansion(
                                ParameterExpr::UseAlternativeValue { parameter, .. }) if all_words(parameter))
                            || matches!(&one.piece, WordPiece::ParameterExpansion(
                                ParameterExpr::MemberKeys { concatenate: false, .. }
                                | ParameterExpr::VariableNames { concatenate: false, .. }))
                    );
                    if !only_at {
                        out.push(Piece::Quote);
                    }
                    self.expand_pieces(inner, true, out)?;
                }
                WordPiece::EscapeSequence(seq) => {
                    let escaped = seq.strip_prefix('\\').unwrap_or(seq);
                    if quoted {
                        // Inside double quotes a backslash only escapes $ ` " \ and newline.
                        match escaped.chars().next() {
                            Some('\n') => {}
                            Some('$' | '`' | '"' | '\\') => Self::push_text(out, escaped, true, false),
                            _ => Self::push_text(out, seq, true, false),
                        }
                    } else if escaped != "\n" {
                        Self::push_text(out, escaped, true, false);
                    }
                }
                WordPiece::TildeExpansion(tilde) => {
                    let text = match tilde {
                        word::TildeExpr::Home => self.state.get("HOME").unwrap_or("/workspace").to_string(),
                        word::TildeExpr::WorkingDir => self.sys.cwd(),
                        word::TildeExpr::OldWorkingDir => {
                            self.state.get("OLDPWD").unwrap_or_default().to_string()
                        }
                        word::TildeExpr::UserHome(user) if user == "root" => "/root".to_string(),
                        word::TildeExpr::UserHome(user) => format!("~{user}"),
                        word::TildeExpr::NthDirFromTopOfDirStack { n, plus_used } => {
                            format!("~{}{n}", if *plus_used { "+" } else { "" })
                        }
                        word::TildeExpr::NthDirFromBottomOfDirStack { n } => format!("~-{n}"),
                    };
                    Self::push_text(out, &text, true, false);
                }
                WordPiece::ParameterExpansion(expr) => self.expand_parameter(expr, quoted, out)?,
                WordPiece::BackquotedCommandSubstitution(script) => {
                    let text = self.command_substitution(&unescape_backquoted(script, quoted));
                    Self::push_text(out, &text, quoted, !quoted);
                }
                WordPiece::CommandSubstitution(script) => {
                    let text = self.command_substitution(script);
                    Self::push_text(out, &text, quoted, !quoted);
                }
                WordPiece::ArithmeticExpression(expr) => {
                    // An error in `$(( ))` drops the rest of the top-level command.
                    let value = self.arith_text(&expr.value).inspect_err(|e| {
                        let ExpandError::Reported { status, fatal } = e;
                        if self.flow.is_none() {
                            let status = *status;
                            let fatal = *fatal;
                            self.flow = Some(if fatal {
                                crate::interp::Flow::Exit(status)
                            } else {
                                crate::interp::Flow::Abort(status)
                            });
                        }
                    })?;
                    Self::push_text(out, &value.to_string(), quoted, !quoted);
                }
            }
        }
        Ok(())
    }

    /// `${##2}`, `${###}`: `$#` with a prefix pattern, which brush's parser
    /// does not read (`body` is the text between the braces). `None` when
    /// `body` is not that form.
    pub(crate) fn count_pattern(
        &mut self,
        body: &str,
        quoted: bool,
        out: &mut Vec<Piece>,
    ) -> Option<Result<(), ExpandError>> {
        let op = body.strip_prefix('#').filter(|op| op.starts_with('#'))?;
        // Read as a named parameter's, then pointed at `$#`.
        let parsed = word::parse(&format!("${{_{op}}}"), &word_options()).ok()?;
        let [one] = parsed.as_slice() else { return None };
        let WordPiece::ParameterExpansion(
            ParameterExpr::RemoveSmallestPrefixPattern { pattern, .. }
            | ParameterExpr::RemoveLargestPrefixPattern { pattern, .. },
        ) = &one.piece
        else {
            return None;
        };
        let parameter = Parameter::Special(SpecialParameter::PositionalParameterCount);
        let pattern = pattern.clone();
        let expr = if op.starts_with("##") {
            ParameterExpr::RemoveLargestPrefixPattern { parameter, indirect: false, pattern }
        } else {
            ParameterExpr::RemoveSmallestPrefixPattern { parameter, indirect: false, pattern }
        };
        Some(self.expand_parameter(&expr, quoted, out))
    }

    /// Runs `$( … )` and returns its output without trailing newlines.
    pub(crate) fn command_substitution(&mut self, script: &str) -> String {
        if let Some(text) = crate::transform::read_file_substitution(self, script) {
            return text;
        }
        let stdout = output(Sink::Buffer(Vec::new()));
        // It shares the command's standard input and descriptors.
        let (stdin, fds) = self.subst_io.clone().unwrap_or_else(|| (input(Vec::new()), crate::fds::no_fds()));
        let io = Io { stdin, stdout: stdout.clone(), stderr: self.err.clone(), fds };
        if self.depth >= crate::interp::MAX_DEPTH {
            self.report(&format!("maximum nesting depth ({}) exceeded", crate::interp::MAX_DEPTH));
            self.aborted = true;
            self.flow = Some(crate::interp::Flow::Exit(1));
            self.subst_status = Some(1);
            return String::new();
        }
        let line = self.line;
        let status = self.subshell(|me| {
            me.depth += 1;
            let status = me.run_source(script, &io);
            let status = me.end_subshell(status, &io);
            me.depth -= 1;
            status
        });
        self.line = line;
        self.subst_status = Some(status);
        self.state.last_status = status;
        let mut bytes = match &mut *stdout.borrow_mut() {
            Sink::Buffer(buf) => std::mem::take(buf),
            _ => Vec::new(),
        };
        if bytes.contains(&0) {
            // A shell string cannot hold NUL: bash drops them, and says so.
            bytes.retain(|&b| b != 0);
            self.report("warning: command substitution: ignored null byte in input");
        }
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        while text.ends_with('\n') {
            text.pop();
        }
        text
    }

    fn special(&mut self, p: &SpecialParameter) -> Value {
        match p {
            SpecialParameter::AllPositionalParameters { concatenate } => {
                Value::Fields(self.state.positional.clone(), *concatenate)
            }
            SpecialParameter::PositionalParameterCount => Value::Str(self.state.positional.len().to_string()),
            SpecialParameter::LastExitStatus => Value::Str(self.state.last_status.to_string()),
            SpecialParameter::CurrentOptionFlags => {
                Value::Str(crate::builtins::set::flags(&self.state.options))
            }
            SpecialParameter::ProcessId => Value::Str("1".into()),
            SpecialParameter::LastBackgroundProcessId => {
                self.state.jobs.last_pid.map_or(Value::Unset, |p| Value::Str(p.to_string()))
            }
            SpecialParameter::ShellName => Value::Str(self.name.clone()),
        }
    }

    fn named(&mut self, name: &str) -> Value {
        if let Some(v) = self.state.get(name) {
            return Value::Str(v.to_string());
        }
        if self.state.ref_target(name).is_some_and(|t| t.is_empty()) {
            self.report(&format!("warning: {name}: circular name reference"));
            return Value::Unset;
        }
        self.dynamic_var(name).map_or(Value::Unset, Value::Str)
    }

    /// The variables computed when read (`$RANDOM`, `$LINENO`, `$_`, …).
    pub(crate) fn dynamic_var(&mut self, name: &str) -> Option<String> {
        let value = match name {
            "RANDOM" => {
                // xorshift: bash's $RANDOM is not cryptographic either.
                self.random ^= self.random << 13;
                self.random ^= self.random >> 7;
                self.random ^= self.random << 17;
                Value::Str((self.random % 32768).to_string())
            }
            "LINENO" => Value::Str(self.line.to_string()),
            "EPOCHSECONDS" => Value::Str((self.sys.now_ms() / 1000).to_string()),
            "EPOCHREALTIME" => {
                let ms = self.sys.now_ms();
                Value::Str(format!("{}.{:03}000", ms / 1000, ms % 1000))
            }
            "BASH_VERSION" => Value::Str("5.2.15(1)-release".into()),
            "_" => Value::Str(self.state.last_arg.clone().unwrap_or_else(|| self.name.clone())),
            "BASHPID" => Value::Str(self.state.bashpid.max(1).to_string()),
            "SECONDS" => {
                Value::Str((self.sys.now_ms().saturating_sub(self.state.started_ms) / 1000).to_string())
            }
            _ => Value::Unset,
        };
        match value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn parameter_value(
        &mut self,
        parameter: &Parameter,
        indirect: bool,
    ) -> Result<Value, ExpandError> {
        // Through a name reference: `${!ref}` is the name it stands for.
        let resolved;
        let parameter = match parameter {
            Parameter::Named(name) if indirect && self.state.ref_target(name).is_some() => {
                return Ok(self.state.ref_target(name).map_or(Value::Unset, Value::Str));
            }
            Parameter::NamedWithIndex { name, index } if self.state.ref_target(name).is_some() => {
                resolved =
                    Parameter::NamedWithIndex { name: self.state.resolve_name(name), index: index.clone() };
                &resolved
            }
            Parameter::NamedWithAllIndices { name, concatenate } if self.state.ref_target(name).is_some() => {
                resolved = Parameter::NamedWithAllIndices {
                    name: self.state.resolve_name(name),
                    concatenate: *concatenate,
                };
                &resolved
            }
            other => other,
        };
        let value = match parameter {
            Parameter::Positional(0) => Value::Str(self.name.clone()),
            Parameter::Positional(n) => {
                let index = usize::try_from(*n).unwrap_or(usize::MAX).saturating_sub(1);
                self.state.positional.get(index).map_or(Value::Unset, |v| Value::Str(v.clone()))
            }
            Parameter::Special(p) => self.special(p),
            Parameter::Named(name) => self.named(name),
            Parameter::NamedWithIndex { name, index } if self.state.assoc.contains_key(name) => {
                let key = self.expand_string(index)?;
                self.state
                    .assoc
                    .get(name)
                    .and_then(|a| a.get(&key))
                    .map_or(Value::Unset, |v| Value::Str(v.to_string()))
            }
            Parameter::NamedWithAllIndices { name, concatenate } if self.state.assoc.contains_key(name) => {
                let values = self
                    .state
                    .assoc
                    .get(name)
                    .map(|a| a.ordered().into_iter().map(|(_, v)| v.to_string()).collect())
                    .unwrap_or_default();
                Value::Fields(values, *concatenate)
            }
            Parameter::NamedWithIndex { name, index } => {
                if index.trim().is_empty() {
                    return Err(self.fail(&format!("${{{name}[{index}]}}: bad substitution")));
                }
                let i = self.subscript(index)?;
                match self.state.arrays.get(name) {
                    Some(array) => array
                        .resolve(i)
                        .and_then(|i| array.get(i))
                        .map_or(Value::Unset, |v| Value::Str(v.clone())),
                    None if i == 0 => self.named(name),
                    None => Value::Unset,
                }
            }
            Parameter::NamedWithAllIndices { name, concatenate } => match self.state.arrays.get(name) {
                Some(array) => Value::Fields(array.values(), *concatenate),
                None => match self.state.get(name) {
                    Some(v) => Value::Fields(vec![v.to_string()], *concatenate),
                    None => Value::Fields(Vec::new(), *concatenate),
                },
            },
        };
        if !indirect {
            return Ok(value);
        }
        let target = match value {
            Value::Str(s) => s,
            // `${!A}` with A an array whose element 0 is unset: nothing.
            Value::Unset if matches!(parameter, Parameter::Named(n) if self.state.is_array(n)) => {
                return Ok(Value::Unset);
            }
            Value::Unset => {
                let name = Self::parameter_name(parameter);
                return Err(self.fail(&format!("{name}: invalid indirect expansion")));
            }
            Value::Fields(v, _) => v.join(" "),
        };
        match word::parse_parameter(&target, &word_options()) {
            Ok(p) => self.parameter_value(&p, false),
            Err(_) => Err(self.fail(&format!("{target}: invalid indirect expansion"))),
        }
    }

    fn parameter_name(parameter: &Parameter) -> String {
        match parameter {
            Parameter::Positional(n) => n.to_string(),
            Parameter::Special(s) => s.to_string(),
            Parameter::Named(name) => name.clone(),
            Parameter::NamedWithIndex { name, index } => format!("{name}[{index}]"),
            Parameter::NamedWithAllIndices { name, concatenate } => {
                format!("{name}[{}]", if *concatenate { "*" } else { "@" })
            }
        }
    }

    /// Pushes a parameter's value as expansion output.
    fn push_value(&mut self, value: Value, quoted: bool, out: &mut Vec<Piece>) {
        match value {
            Value::Unset => {}
            Value::Str(s) => Self::push_text(out, &s, quoted, !quoted),
            Value::Fields(fields, join) => {
                if join && quoted {
                    Self::push_text(out, &fields.join(&self.star_sep()), true, false);
                } else {
                    for (i, f) in fields.iter().enumerate() {
                        if i > 0 {
                            out.push(if quoted { Piece::Break } else { Piece::Sep { star: join } });
                        }
                        if quoted {
                            out.push(Piece::Quote);
                        }
                        Self::push_text(out, f, quoted, !quoted);
                    }
                }
            }
        }
    }

    /// Expands `raw` (a default/alternative word) into `out` in the current
    /// quoting context.
    fn expand_inner(&mut self, raw: &str, quoted: bool, out: &mut Vec<Piece>) -> Result<(), ExpandError> {
        // Inside double quotes the word is read as double-quoted text:
        // single quotes there are literal (`"${x:-'a'}"` is `'a'`).
        // Inside double quotes `\}` there is a `}`.
        let unescaped;
        let raw = if quoted && raw.contains("\\}") {
            unescaped = crate::paramx::unescape_brace(raw);
            unescaped.as_str()
        } else {
            raw
        };
        let wrapped;
        let source = if quoted && raw.contains(['\'', '~']) {
            wrapped = format!("\"{raw}\"");
            wrapped.as_str()
        } else {
            raw
        };
        let parsed = match word::parse(source, &word_options()) {
            Ok(p) => p,
            Err(_) => return Err(self.fail(&format!("{raw}: bad substitution"))),
        };
        let mut inner = Vec::new();
        self.expand_pieces(&parsed, quoted, &mut inner)?;
        for p in inner.iter_mut() {
            if let Piece::Ch(ch) = p {
                if quoted {
                    ch.quoted = true;
                    ch.split = false;
                } else if !ch.quoted {
                    // The word's unquoted text is split like an expansion's.
                    ch.split = true;
                }
            }
        }
        out.extend(inner);
        Ok(())
    }

    fn check_unset(&mut self, parameter: &Parameter, value: &Value) -> Result<(), ExpandError> {
        if matches!(value, Value::Unset)
            && self.state.options.nounset
            && !matches!(parameter, Parameter::Special(SpecialParameter::AllPositionalParameters { .. }))
        {
            let name = Self::parameter_name(parameter);
            return Err(self.fatal(&format!("{name}: unbound variable")));
        }
        Ok(())
    }

    /// Applies `f` to a string value, or to each of several fields.
    fn map_value(value: Value, mut f: impl FnMut(&str) -> String) -> Value {
        match value {
            Value::Unset => Value::Unset,
            Value::Str(s) => Value::Str(f(&s)),
            Value::Fields(v, join) => Value::Fields(v.iter().map(|s| f(s)).collect(), join),
        }
    }

    fn expand_parameter(
        &mut self,
        expr: &ParameterExpr,
        quoted: bool,
        out: &mut Vec<Piece>,
    ) -> Result<(), ExpandError> {
        match expr {
            ParameterExpr::Parameter { parameter, indirect } => {
                let value = self.parameter_value(parameter, *indirect)?;
                self.check_unset(parameter, &value)?;
                self.push_value(value, quoted, out);
            }
            ParameterExpr::UseDefaultValues { parameter, indirect, test_type, default_value } => {
                let value = self.parameter_value(parameter, *indirect)?;
                if value.is_unset_or_null(test_type, &self.null_sep(quoted)) {
                    self.expand_inner(default_value.as_deref().unwrap_or_default(), quoted, out)?;
                } else {
                    self.push_value(value, quoted, out);
                }
            }
            ParameterExpr::AssignDefaultValues { parameter, indirect, test_type, default_value } => {
                let value = self.parameter_value(parameter, *indirect)?;
                if value.is_unset_or_null(test_type, &self.null_sep(quoted)) {
                    let text = self.expand_string(default_value.as_deref().unwrap_or_default())?;
                    let target;
                    let parameter = if *indirect {
                        target = self.indirect_parameter(parameter)?;
                        &target
                    } else {
                        parameter
                    };
                    match parameter {
                        Parameter::Named(name) => {
                            if !self.state.set(name, text.clone()) {
                                return Err(self.fail(&format!("{name}: readonly variable")));
                            }
                        }
                        Parameter::NamedWithIndex { name, index } => {
                            let name = self.state.resolve_name(name);
                            if self.state.readonly.contains(&name) {
                                return Err(self.fail(&format!("{name}: readonly variable")));
                            }
                            if self.state.assoc.contains_key(&name) {
                                let key = self.expand_string(index)?;
                                if let Some(assoc) = self.state.assoc.get_mut(&name) {
                                    assoc.set(&key, text.clone());
                                }
                            } else {
                                let i = self.subscript(index)?;
                                let scalar = self.state.vars.remove(&name).map(|v| v.value);
                                let array = self
                                    .state
                                    .arrays
                                    .entry(name.clone())
                                    .or_insert_with(|| scalar.into_iter().collect());
                                match array.resolve(i) {
                                    Some(i) => array.set(i, text.clone()),
                                    None => {
                                        return Err(
                                            self.fail(&format!("{name}[{index}]: bad array subscript"))
                                        )
                                    }
                                }
                            }
                        }
                        other => {
                            let name = Self::parameter_name(other);
                            return Err(self.fatal(&format!("${name}: cannot assign in this way")));
                        }
                    }
                    self.push_value(Value::Str(text), quoted, out);
                } else {
                    self.push_value(value, quoted, out);
                }
            }
            ParameterExpr::IndicateErrorIfNullOrUnset { parameter, indirect, test_type, error_message } => {
                let value = self.parameter_value(parameter, *indirect)?;
                if value.is_unset_or_null(test_type, &self.null_sep(quoted)) {
                    let name = Self::parameter_name(parameter);
                    let message = match error_message.as_deref() {
                        Some(m) if !m.is_empty() => self.expand_string(m)?,
                        _ => match test_type {
                            ParameterTestType::UnsetOrNull => "parameter null or not set".to_string(),
                            ParameterTestType::Unset => "parameter not set".to_string(),
                        },
                    };
                    return Err(self.fatal(&format!("{name}: {message}")));
                }
                self.push_value(value, quoted, out);
            }
            ParameterExpr::UseAlternativeValue { parameter, indirect, test_type, alternative_value } => {
                let value = self.parameter_value(parameter, *indirect)?;
                if !value.is_unset_or_null(test_type, &self.null_sep(quoted)) {
                    if quoted {
                        out.push(Piece::Quote);
                    }
                    self.expand_inner(alternative_value.as_deref().unwrap_or_default(), quoted, out)?;
                } else if quoted
                    && !(all_words(parameter) && matches!(&value, Value::Fields(v, _) if v.is_empty()))
                {
                    out.push(Piece::Quote);
                }
            }
            ParameterExpr::ParameterLength { parameter, indirect } => {
                let value = self.parameter_value(parameter, *indirect)?;
                self.check_unset(parameter, &value)?;
                let n = match value {
                    Value::Unset => 0,
                    Value::Str(s) => s.chars().count(),
                    Value::Fields(v, _) => v.len(),
                };
                Self::push_text(out, &n.to_string(), quoted, !quoted);
            }
            ParameterExpr::RemoveSmallestSuffixPattern { parameter, indirect, pattern }
            | ParameterExpr::RemoveLargestSuffixPattern { parameter, indirect, pattern }
            | ParameterExpr::RemoveSmallestPrefixPattern { parameter, indirect, pattern }
            | ParameterExpr::RemoveLargestPrefixPattern { parameter, indirect, pattern } => {
                let value = self.parameter_value(parameter, *indirect)?;
                self.check_unset(parameter, &value)?;
                let pat = self.expand_pattern(pattern.as_deref().unwrap_or_default())?;
                let (suffix, largest) = match expr {
                    ParameterExpr::RemoveSmallestSuffixPattern { .. } => (true, false),
                    ParameterExpr::RemoveLargestSuffixPattern { .. } => (true, true),
                    ParameterExpr::RemoveSmallestPrefixPattern { .. } => (false, false),
                    _ => (false, true),
                };
                let value = Self::map_value(value, |s| remove_affix(s, &pat, suffix, largest));
                self.push_value(value, quoted, out);
            }
            ParameterExpr::Substring { parameter, indirect, offset, length } => {
                let value = self.parameter_value(parameter, *indirect)?;
                self.check_unset(parameter, &value)?;
                let offset = self.arith_text(&offset.value)?;
                let length = match length {
                    Some(l) => Some(self.arith_text(&l.value)?),
                    None => None,
                };
                if let (Value::Fields(..), Some(l)) = (&value, length) {
                    if l < 0 {
                        let raw = match expr {
                            ParameterExpr::Substring { length: Some(raw), .. } => raw.value.clone(),
                            _ => l.to_string(),
                        };
                        return Err(self.substring_negative(&raw));
                    }
                }
                let sparse = match parameter {
                    Parameter::NamedWithAllIndices { name, .. } => self.state.arrays.get(name),
                    _ => None,
                };
                let value = match value {
                    // ${a[@]:i:n}: the elements from index i on (arrays are sparse).
                    Value::Fields(_, join) if sparse.is_some() => {
                        let array = sparse.cloned().unwrap_or_default();
                        let items: Vec<String> = match array.resolve(offset) {
                            Some(start) => {
                                array.iter().filter(|(i, _)| *i >= start).map(|(_, v)| v.clone()).collect()
                            }
                            None => Vec::new(),
                        };
                        Value::Fields(slice(&items, 0, length), join)
                    }
                    Value::Fields(v, join) => {
                        // ${@:2}: positional parameters from $2.
                        let from_positional = matches!(parameter, Parameter::Special(_));
                        let mut items = v;
                        if from_positional {
                            items.insert(0, self.name.clone());
                        }
                        // bash counts an associative array's elements from 1.
                        let assoc = matches!(parameter, Parameter::NamedWithAllIndices { name, .. }
                            if self.state.assoc.contains_key(name));
                        let offset = if assoc && offset > 0 { offset - 1 } else { offset };
                        Value::Fields(slice(&items, offset, length), join)
                    }
                    Value::Str(s) => {
                        let chars: Vec<char> = s.chars().collect();
                        let picked: Vec<String> = chars.iter().map(|c| c.to_string()).collect();
                        Value::Str(slice(&picked, offset, length).concat())
                    }
                    Value::Unset => Value::Unset,
                };
                self.push_value(value, quoted, out);
            }
            ParameterExpr::ReplaceSubstring { parameter, indirect, pattern, replacement, match_kind } => {
                let value = self.parameter_value(parameter, *indirect)?;
                self.check_unset(parameter, &value)?;
                // `${x////c}`: the parser reads an empty pattern and `/c`;
                // bash reads the pattern `/`.
                let (pattern, replacement) = match replacement.as_deref() {
                    Some(r) if pattern.is_empty() && r.starts_with('/') => ("/", Some(&r[1..])),
                    // `${x///}`: the pattern `/`, replaced by nothing.
                    Some("")
                        if pattern.is_empty() && matches!(match_kind, word::SubstringMatchKind::Anywhere) =>
                    {
                        ("/", None)
                    }
                    r => (pattern.as_str(), r),
                };
                let pat = self.expand_pattern(pattern)?;
                let replacement = self.expand_string(replacement.unwrap_or_default())?;
                let value = Self::map_value(value, |s| replace(s, &pat, &replacement, match_kind));
                self.push_value(value, quoted, out);
            }
            ParameterExpr::UppercaseFirstChar { parameter, indirect, pattern }
            | ParameterExpr::UppercasePattern { parameter, indirect, pattern }
            | ParameterExpr::LowercaseFirstChar { parameter, indirect, pattern }
            | ParameterExpr::LowercasePattern { parameter, indirect, pattern } => {
                let value = self.parameter_value(parameter, *indirect)?;
                self.check_unset(parameter, &value)?;
                let pat = match pattern.as_deref().filter(|p| !p.is_empty()) {
                    Some(p) => Some(self.expand_pattern(p)?),
                    None => None,
                };
                let (upper, all) = match expr {
                    ParameterExpr::UppercaseFirstChar { .. } => (true, false),
                    ParameterExpr::LowercaseFirstChar { .. } => (false, false),
                    ParameterExpr::UppercasePattern { .. } => (true, true),
                    _ => (false, true),
                };
                let value =
                    Self::map_value(value, |s| crate::transform::case_mod(s, pat.as_deref(), upper, all));
                self.push_value(value, quoted, out);
            }
            ParameterExpr::Transform { parameter, indirect, op } => {
                let value = self.parameter_value(parameter, *indirect)?;
                self.check_unset(parameter, &value)?;
                if matches!(op, word::ParameterTransformOp::ToAttributeFlags) {
                    if let Some(flags) = self.attribute_flags(parameter, *indirect)? {
                        self.push_value(Self::map_value(value, |_| flags.clone()), quoted, out);
                        return Ok(());
                    }
                }
                if let (
                    Parameter::NamedWithIndex { name, .. } | Parameter::NamedWithAllIndices { name, .. },
                    false,
                    word::ParameterTransformOp::ToAttributeFlags,
                ) = (parameter, *indirect, op)
                {
                    // An element's attributes are its array's.
                    let flags = crate::transform::attributes(self.state, &self.state.resolve_name(name));
                    self.push_value(Self::map_value(value, |_| flags.clone()), quoted, out);
                    return Ok(());
                }
                if let (Parameter::Named(name), false) = (parameter, *indirect) {
                    let state = &*self.state;
                    let text = match op {
                        word::ParameterTransformOp::ToAttributeFlags => {
                            Some(crate::transform::attributes(state, name))
                        }
                        word::ParameterTransformOp::ToAssignmentLogic => {
                            crate::transform::assignment(state, name)
                        }
                        _ => None,
                    };
                    if let Some(text) = text {
                        self.push_value(Value::Str(text), quoted, out);
                        return Ok(());
                    }
                }
                if matches!(op, word::ParameterTransformOp::PromptExpand) {
                    let value = match value {
                        Value::Str(s) => Value::Str(crate::prompt::expand(self, &s)?),
                        Value::Fields(items, join) => {
                            let mut expanded = Vec::with_capacity(items.len());
                            for s in items {
                                expanded.push(crate::prompt::expand(self, &s)?);
                            }
                            Value::Fields(expanded, join)
                        }
                        Value::Unset => Value::Unset,
                    };
                    self.push_value(value, quoted, out);
                    return Ok(());
                }
                let value = Self::map_value(value, |s| match op {
                    word::ParameterTransformOp::ToUpperCase => s.to_uppercase(),
                    word::ParameterTransformOp::ToLowerCase => s.to_lowercase(),
                    word::ParameterTransformOp::CapitalizeInitial => first_char(s, true),
                    word::ParameterTransformOp::Quoted
                    | word::ParameterTransformOp::ToAssignmentLogic
                    | word::ParameterTransformOp::PossiblyQuoteWithArraysExpanded { .. } => quote(s),
                    word::ParameterTransformOp::ExpandEscapeSequences => ansi_c(s),
                    _ => s.to_string(),
                });
                self.push_value(value, quoted, out);
            }
            ParameterExpr::VariableNames { prefix, concatenate } => {
                let mut names: Vec<String> = self
                    .state
                    .vars
                    .keys()
                    .chain(self.state.arrays.keys())
                    .chain(self.state.assoc.keys())
                    .filter(|n| n.starts_with(prefix.as_str()))
                    .cloned()
                    .collect();
                names.sort();
                // Unquoted with IFS empty, bash joins `${!p*}` into one word.
                let value = if *concatenate && !quoted && self.ifs().is_some_and(|s| s.is_empty()) {
                    Value::Str(names.concat())
                } else {
                    Value::Fields(names, *concatenate)
                };
                self.push_value(value, quoted, out);
            }
            ParameterExpr::MemberKeys { variable_name, concatenate }
                if self.state.assoc.contains_key(variable_name) =>
            {
                let keys = self
                    .state
                    .assoc
                    .get(variable_name)
                    .map(|a| a.ordered().into_iter().map(|(k, _)| k.to_string()).collect())
                    .unwrap_or_default();
                self.push_value(Value::Fields(keys, *concatenate), quoted, out);
            }
            ParameterExpr::MemberKeys { variable_name, concatenate } => {
                let keys = match self.state.arrays.get(variable_name) {
                    Some(a) => a.keys().into_iter().map(|i| i.to_string()).collect(),
                    None if self.state.is_set(variable_name) => vec!["0".to_string()],
                    None => Vec::new(),
                };
                // Unquoted with IFS empty, bash joins `${!a[*]}` with spaces.
                let value = if *concatenate && !quoted && self.ifs().is_some_and(|s| s.is_empty()) {
                    Value::Str(keys.join(" "))
                } else {
                    Value::Fields(keys, *concatenate)
                };
                self.push_value(value, quoted, out);
            }
        }
        Ok(())
    }

    /// Pathname expansion of one field, appending the resulting words.
    fn glob_field(&mut self, field: &[Ch], out: &mut Vec<String>) -> Result<(), ExpandError> {
        let literal: String = field.iter().map(|c| c.c).collect();
        let magic = !self.state.options.noglob
            && field.iter().enumerate().any(|(i, c)| {
                !c.quoted
                    && (matches!(c.c, '*' | '?' | '[')
                        || (c.c == '(' && i > 0 && matches!(field[i - 1].c, '@' | '!' | '+')))
            });
        if !magic {
            out.push(literal);
            return Ok(());
        }
        let mut pattern_text = String::new();
        for ch in field {
            if ch.quoted || ch.c == '\\' {
                pattern_text.push_str(&pattern::escape(&ch.c.to_string()));
            } else {
                pattern_text.push(ch.c);
            }
        }
        let mut matches = self.glob(&pattern_text);
        self.glob_ignore(&mut matches);
        if matches.is_empty() {
            if self.state.options.shopt("failglob") {
                self.report(&format!("no match: {literal}"));
                // As in bash, the rest of the top-level command is dropped.
                if self.flow.is_none() {
                    self.flow = Some(crate::interp::Flow::Abort(1));
                }
                return Err(ExpandError::Reported { fatal: false, status: 1 });
            }
            if !self.state.options.shopt("nullglob") {
                out.push(literal);
            }
        } else {
            out.extend(matches);
        }
        Ok(())
    }

    /// `GLOBIGNORE`: drops the matches that one of its `:`-separated
    /// patterns matches (`*` does not cross `/`).
    fn glob_ignore(&self, matches: &mut Vec<String>) {
        let Some(ignore) = self.state.get("GLOBIGNORE").filter(|g| !g.is_empty()) else {
            return;
        };
        // `:` separates patterns, except inside brackets (`[[:alnum:]]`).
        let mut patterns: Vec<&str> = Vec::new();
        let (mut start, mut depth) = (0, 0usize);
        for (i, c) in ignore.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => depth = depth.saturating_sub(1),
                ':' if depth == 0 => {
                    patterns.push(&ignore[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        patterns.push(&ignore[start..]);
        patterns.retain(|p| !p.is_empty());
        matches.retain(|m| {
            let path = m.trim_end_matches('/');
            !patterns.iter().any(|p| {
                let (ps, ms): (Vec<&str>, Vec<&str>) = (p.split('/').collect(), path.split('/').collect());
                ps.len() == ms.len() && ps.iter().zip(&ms).all(|(p, m)| pattern::fnmatch(p, m))
            })
        });
    }

    /// Paths of the sandbox's file system matching `pattern`, sorted.
    pub(crate) fn glob(&mut self, pattern: &str) -> Vec<String> {
        let absolute = pattern.starts_with('/');
        let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
        let mut current: Vec<String> = vec![if absolute { "/".to_string() } else { String::new() }];
        // With GLOBIGNORE set, names starting with a dot match too.
        let dotglob = self.state.options.shopt("dotglob")
            || self.state.get("GLOBIGNORE").is_some_and(|g| !g.is_empty());
        let nocase = self.state.options.shopt("nocaseglob");
        let globstar = self.state.options.shopt("globstar");
        let skip_dots_off = !self.state.options.shopt("globskipdots")
            && self.state.get("GLOBIGNORE").is_none_or(str::is_empty);
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let mut next = Vec::new();
            if globstar && *part == "**" {
                current = self.globstar(&current, last);
                // `**/**` finds each directory once.
                current.sort();
                current.dedup();
                continue;
            }
            for base in &current {
                if !pattern::has_magic(part) {
                    let path = join(base, &pattern::unescape(part));
                    if last {
                        if self.sys.stat(&path).is_ok() {
                            next.push(path);
                        }
                    } else {
                        next.push(path);
                    }
                    continue;
                }
                let dir = if base.is_empty() { "." } else { base.as_str() };
                let Ok(entries) = self.sys.readdir(dir) else { continue };
                // `shopt -u globskipdots`: `.*` matches `.` and `..` too.
                if skip_dots_off && part.starts_with('.') {
                    next.extend(
                        [".", ".."].iter().filter(|d| pattern::fnmatch(part, d)).map(|d| join(base, d)),
                    );
                }
                for entry in entries {
                    if entry.name.starts_with('.')
                        && !dotglob
                        && !part.starts_with('.')
                        && !part.starts_with("\\.")
                    {
                        continue;
                    }
                    if !last && entry.kind != crate::system::Kind::Dir {
                        continue;
                    }
                    let matched = if nocase {
                        pattern::fnmatch(&part.to_lowercase(), &entry.name.to_lowercase())
                    } else {
                        pattern::fnmatch(part, &entry.name)
                    };
                    if matched {
                        next.push(join(base, &entry.name));
                        if next.len() > MAX_GLOB_MATCHES {
                            break;
                        }
                    }
                }
            }
            current = next;
            if current.is_empty() {
                break;
            }
        }
        if pattern.ends_with('/') {
            current = current
                .into_iter()
                .filter(|p| self.sys.stat(p).is_ok_and(|m| m.kind == crate::system::Kind::Dir))
                .map(|p| format!("{p}/"))
                .collect();
        }
        current.sort();
        current
    }
}

/// Expanded pieces as one string (a `"$@"` boundary becomes a space; see
/// [`Piece::Sep`] for the unquoted ones).
fn text(pieces: &[Piece], ifs: &Option<String>) -> String {
    let star = match ifs {
        Some(ifs) => ifs.chars().next(),
        None => Some(' '),
    };
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Ch(ch) => Some(ch.c),
            Piece::Break | Piece::Sep { star: false } => Some(' '),
            Piece::Sep { star: true } => star,
            Piece::Quote => None,
        })
        .collect()
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else if base.ends_with('/') {
        format!("{base}{name}")
    } else {
        format!("{base}/{name}")
    }
}

/// Splits expanded pieces into fields at unquoted IFS characters that came
/// from expansions.
fn split_fields(pieces: &[Piece], ifs: &str) -> Vec<Vec<Ch>> {
    let mut fields = Vec::new();
    let mut current: Vec<Ch> = Vec::new();
    let mut started = false;
    // A field just ended at IFS whitespace: a non-whitespace IFS character
    // next belongs to the same delimiter (`a : b` is two fields).
    let mut after_space = false;
    let sep = ifs.chars().next();
    for piece in pieces {
        let piece = match (piece, sep) {
            (Piece::Sep { .. }, Some(c)) => &Piece::Ch(Ch { c, quoted: false, split: true }),
            (Piece::Sep { .. }, None) => {
                // IFS is empty: the words stay apart, and empty ones go.
                if started || !current.is_empty() {
                    fields.push(std::mem::take(&mut current));
                }
                started = false;
                after_space = false;
                continue;
            }
            _ => piece,
        };
        match piece {
            Piece::Break | Piece::Sep { .. } => {
                fields.push(std::mem::take(&mut current));
                started = false;
                after_space = false;
            }
            Piece::Quote => {
                started = true;
                after_space = false;
            }
            Piece::Ch(ch) if ch.split && ifs.contains(ch.c) => {
                if ch.c.is_whitespace() {
                    if started || !current.is_empty() {
                        fields.push(std::mem::take(&mut current));
                        started = false;
                        after_space = true;
                    }
                } else if after_space {
                    after_space = false;
                } else {
                    fields.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            Piece::Ch(ch) => {
                current.push(*ch);
                started = true;
                after_space = false;
            }
        }
    }
    if started || !current.is_empty() {
        fields.push(current);
    }
    fields
}

/// For each `{A..B}` sequence of `raw`, in order, the width to zero-pad
/// to when A or B is written with a leading zero (the parser keeps only
/// the numbers).
fn zero_padded_widths(raw: &str) -> Vec<Option<usize>> {
    let mut out = Vec::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'{' {
            i += 1;
            continue;
        }
        let rest = &raw[i + 1..];
        let Some(end) = rest.find('}') else { break };
        let inner = &rest[..end];
        let parts: Vec<&str> = inner.split("..").collect();
        let numeric = |s: &str| {
            let d = s.strip_prefix('-').unwrap_or(s);
            !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())
        };
        if (parts.len() == 2 || parts.len() == 3) && parts.iter().all(|p| numeric(p)) {
            let padded = parts[..2]
                .iter()
                .filter(|p| {
                    let d = p.strip_prefix('-').unwrap_or(p);
                    d.len() > 1 && d.starts_with('0')
                })
                .map(|p| p.len())
                .max();
            let width = padded.map(|_| parts[..2].iter().map(|p| p.len()).max().unwrap_or(0));
            out.push(width);
        }
        i += 1;
    }
    out
}

fn append_braces(
    items: &[word::BraceExpressionOrText],
    words: &mut Vec<String>,
    widths: &mut std::vec::IntoIter<Option<usize>>,
) -> bool {
    for item in items {
        match item {
            word::BraceExpressionOrText::Text(text) => {
                for w in words.iter_mut() {
                    w.push_str(text);
                }
            }
            word::BraceExpressionOrText::Expr(members) => {
                let mut alternatives: Vec<String> = Vec::new();
                for member in members {
                    match member {
                        word::BraceExpressionMember::NumberSequence { start, end, increment } => {
                            let step = increment.unsigned_abs().max(1);
                            let count = start.abs_diff(*end) / step + 1;
                            if count > MAX_BRACE_WORDS as u64 {
                                return false;
                            }
                            let width = widths.next().flatten();
                            let mut n = *start;
                            for _ in 0..count {
                                alternatives.push(match width {
                                    Some(w) => format!("{n:0w$}"),
                                    None => n.to_string(),
                                });
                                let delta = i64::try_from(step).unwrap_or(1);
                                n = if start <= end {
                                    n.saturating_add(delta)
                                } else {
                                    n.saturating_sub(delta)
                                };
                            }
                        }
                        word::BraceExpressionMember::CharSequence { start, end, increment } => {
                            let step = usize::try_from(increment.unsigned_abs().max(1)).unwrap_or(1);
                            let (a, b) = (u32::from(*start), u32::from(*end));
                            let range: Vec<u32> = if a <= b {
                                (a..=b).step_by(step).collect()
                            } else {
                                (b..=a).rev().step_by(step).collect()
                            };
                            alternatives
                                .extend(range.into_iter().filter_map(char::from_u32).map(String::from));
                        }
                        word::BraceExpressionMember::Child(children) => {
                            let mut sub = vec![String::new()];
                            if !append_braces(children, &mut sub, widths) {
                                return false;
                            }
                            alternatives.extend(sub);
                        }
                    }
                }
                if words.len().saturating_mul(alternatives.len()) > MAX_BRACE_WORDS {
                    return false;
                }
                let mut next = Vec::with_capacity(words.len() * alternatives.len());
                for w in words.iter() {
                    for alt in &alternatives {
                        next.push(format!("{w}{alt}"));
                    }
                }
                *words = next;
            }
        }
    }
    true
}

/// `${x#p}` and friends.
fn remove_affix(s: &str, pat: &str, suffix: bool, largest: bool) -> String {
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain(std::iter::once(s.len())).collect();
    if suffix {
        let order: Vec<&usize> =
            if largest { bounds.iter().collect() } else { bounds.iter().rev().collect() };
        for &i in order {
            if pattern::fnmatch(pat, &s[i..]) {
                return s[..i].to_string();
            }
        }
    } else {
        let order: Vec<&usize> =
            if largest { bounds.iter().rev().collect() } else { bounds.iter().collect() };
        for &i in order {
            if pattern::fnmatch(pat, &s[..i]) {
                return s[i..].to_string();
            }
        }
    }
    s.to_string()
}

/// `${x/p/r}`, `${x//p/r}`, `${x/#p/r}`, `${x/%p/r}`.
fn replace(s: &str, pat: &str, with: &str, kind: &word::SubstringMatchKind) -> String {
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain(std::iter::once(s.len())).collect();
    match kind {
        word::SubstringMatchKind::Prefix => {
            for &j in bounds.iter().rev() {
                if pattern::fnmatch(pat, &s[..j]) {
                    return format!("{with}{}", &s[j..]);
                }
            }
            s.to_string()
        }
        word::SubstringMatchKind::Suffix => {
            for &i in &bounds {
                if pattern::fnmatch(pat, &s[i..]) {
                    return format!("{}{with}", &s[..i]);
                }
            }
            s.to_string()
        }
        word::SubstringMatchKind::FirstOccurrence | word::SubstringMatchKind::Anywhere => {
            if pat.is_empty() {
                return s.to_string();
            }
            let all = matches!(kind, word::SubstringMatchKind::Anywhere);
            let mut out = String::new();
            let mut k = 0;
            let mut replaced = false;
            while k < bounds.len() {
                let i = bounds[k];
                if i == s.len() {
                    break;
                }
                if !replaced || all {
                    // The longest match starting at i.
                    if let Some(&j) = bounds[k + 1..].iter().rev().find(|&&j| pattern::fnmatch(pat, &s[i..j]))
                    {
                        out.push_str(with);
                        replaced = true;
                        k = bounds.iter().position(|&b| b == j).unwrap_or(bounds.len());
                        continue;
                    }
                }
                let next = bounds.get(k + 1).copied().unwrap_or(s.len());
                out.push_str(&s[i..next]);
                k += 1;
            }
            out
        }
    }
}

/// `$@`, `${a[@]}`: quoted, they make no word when there are none.
fn all_words(parameter: &Parameter) -> bool {
    matches!(
        parameter,
        Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: false })
            | Parameter::NamedWithAllIndices { concatenate: false, .. }
    )
}

fn slice(items: &[String], offset: i64, length: Option<i64>) -> Vec<String> {
    let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
    if offset < 0 && len + offset < 0 {
        // An offset before the start selects nothing.
        return Vec::new();
    }
    let start = if offset < 0 { len + offset } else { offset.min(len) };
    let end = match length {
        None => len,
        Some(l) if l < 0 => (len + l).max(start),
        Some(l) => start.saturating_add(l).min(len),
    };
    let (start, end) = (usize::try_from(start).unwrap_or(0), usize::try_from(end).unwrap_or(0));
    items.get(start..end.max(start)).unwrap_or_default().to_vec()
}

fn first_char(s: &str, upper: bool) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if upper => c.to_uppercase().chain(chars).collect(),
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `${x@Q}`: quoted for reuse as input.
pub(crate) fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Decodes `$'…'` escapes.
pub(crate) fn ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('e') | Some('E') => out.push('\x1b'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('?') => out.push('?'),
            Some('x') => {
                let mut n = 0u32;
                let mut digits = 0;
                while digits < 2 {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            n = n * 16 + d;
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push_str("\\x");
                } else if let Some(c) = char::from_u32(n) {
                    out.push(c);
                }
            }
            Some(u @ ('u' | 'U')) => {
                let max = if u == 'u' { 4 } else { 8 };
                let mut n = 0u32;
                let mut digits = 0;
                while digits < max {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            n = n.saturating_mul(16).saturating_add(d);
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push('\\');
                    out.push(u);
                } else {
                    out.push(char::from_u32(n).unwrap_or('\u{FFFD}'));
                }
            }
            // `\cX`: the control character X & 0x1f.
            Some('c') => match chars.next() {
                Some(x) if x.is_ascii() => out.push(char::from(x as u8 & 0x1f)),
                Some(x) => {
                    out.push_str("\\c");
                    out.push(x);
                }
                None => out.push_str("\\c"),
            },
            Some(d @ '0'..='7') => {
                let mut n = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(x) => {
                            n = n * 8 + x;
                            chars.next();
                        }
                        None => break,
                    }
                }
                if let Some(c) = char::from_u32(n) {
                    out.push(c);
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    // A shell string ends at NUL (`$'a\0b'` is `a`).
    if let Some(end) = out.find('\0') {
        out.truncate(end);
    }
    out
}

/// Quotes `s` for `set`'s listing only when it has special characters.
/// Control characters other than tab and newline make it a `$'…'` string
/// with octal escapes, as bash's trace prints it.
pub(crate) fn quote_if_needed(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c)) {
        s.to_string()
    } else if s.chars().any(|c| c.is_ascii_control() && c != '\t' && c != '\n') {
        let mut out = String::from("$'");
        for c in s.chars() {
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                c if c.is_ascii_control() => out.push_str(&format!("\\{:03o}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('\'');
        out
    } else {
        quote(s)
    }
}

/// The command inside backquotes: a backslash there escapes only `$`, a
/// backquote, a backslash and (inside double quotes) `"`; other backslashes
/// stay for the command's own parse.
fn unescape_backquoted(script: &str, quoted: bool) -> String {
    if !script.contains('\\') {
        return script.to_string();
    }
    let mut out = String::with_capacity(script.len());
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(&next) if matches!(next, '$' | '`' | '\\') || (quoted && next == '"') => {
                    out.push(next);
                    chars.next();
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    out
}
