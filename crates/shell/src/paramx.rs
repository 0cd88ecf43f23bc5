//! `${…}` forms the word parser leaves as text: bash's bad substitutions
//! (`${a&}`, `${#x-d}`, `${ cmd;}`) and an indirection through all of an
//! array's elements followed by an operator (`${!ref[@]:2}`, `${!ref[@]@Q}`).

use brush_parser::word;

use crate::expand::{ExpandError, Value};
use crate::interp::{word_options, Flow, Interp};

/// Where the `}` closing a `${` whose text (after `$`) is `text` is: nested
/// braces and quotes are skipped.
fn closing_brace(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') if quote != Some('\'') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A double-quoted `${x-word}`'s word with `\}` turned into `}` (other
/// escapes are kept for the word's own reading).
pub(crate) fn unescape_brace(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('}') => out.push('}'),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// `!name[@]` or `!name[*]` at the start of `body`: the name, `*`, and the
/// operator text after it.
fn all_elements_indirection(body: &str) -> Option<(&str, bool, &str)> {
    let rest = body.strip_prefix('!')?;
    let open = rest.find('[')?;
    let name = &rest[..open];
    let valid = name.chars().next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
    if !valid {
        return None;
    }
    let after = &rest[open..];
    let (star, op) = if let Some(op) = after.strip_prefix("[@]") {
        (false, op)
    } else {
        (true, after.strip_prefix("[*]")?)
    };
    op.starts_with([':', '#', '%', '/', '@', '^', ',', '-', '+', '=', '?']).then_some((name, star, op))
}

impl Interp<'_> {
    /// Expands the text after a `$` the word parser could not read as a
    /// parameter expansion (`text` starts with `{`) into `out`; returns the
    /// text after the closing brace, which is ordinary text.
    pub(crate) fn unparsed_braces<'t>(
        &mut self,
        text: &'t str,
        quoted: bool,
        out: &mut Vec<crate::expand::Piece>,
    ) -> Result<&'t str, ExpandError> {
        let Some(close) = closing_brace(text) else {
            return Err(self.bad_substitution(text));
        };
        let body = &text[1..close];
        if let Some(done) = self.count_pattern(body, quoted, out) {
            return done.map(|()| &text[close + 1..]);
        }
        if let Some((name, star, op)) = all_elements_indirection(body) {
            let target = self.all_elements_text(name, star)?;
            let source = format!("${{{target}{op}}}");
            if let Ok(parsed) = word::parse(&source, &word_options()) {
                if !matches!(parsed.as_slice(), [one] if matches!(one.piece, word::WordPiece::ParameterExpansion(_)))
                {
                    return Err(self.bad_substitution(&text[..=close]));
                }
                self.expand_pieces(&parsed, quoted, out)?;
                return Ok(&text[close + 1..]);
            }
        }
        Err(self.bad_substitution(&text[..=close]))
    }

    /// The words of `${name[@]}` (`${name[*]}`) joined with spaces: the
    /// name an indirection through all elements stands for.
    fn all_elements_text(&mut self, name: &str, star: bool) -> Result<String, ExpandError> {
        let parameter = word::Parameter::NamedWithAllIndices { name: name.to_string(), concatenate: star };
        Ok(match self.parameter_value(&parameter, false)? {
            Value::Str(s) => s,
            Value::Fields(v, _) => v.join(" "),
            Value::Unset => String::new(),
        })
    }

    /// The parameter `${!parameter}` stands for (`${!r:=v}` assigns to it).
    pub(crate) fn indirect_parameter(
        &mut self,
        parameter: &word::Parameter,
    ) -> Result<word::Parameter, ExpandError> {
        let target = match self.parameter_value(parameter, false)? {
            Value::Str(s) => s,
            Value::Fields(v, _) => v.join(" "),
            Value::Unset => String::new(),
        };
        word::parse_parameter(&target, &word_options()).map_err(|_| {
            self.report(&format!("{target}: invalid indirect expansion"));
            ExpandError::Reported { fatal: false, status: 1 }
        })
    }

    /// `${a[@]:i:-n}`: a negative count of elements is an error.
    pub(crate) fn substring_negative(&mut self, length: &str) -> ExpandError {
        self.report(&format!("{length}: substring expression < 0"));
        if self.flow.is_none() {
            self.flow = Some(Flow::Abort(1));
        }
        ExpandError::Reported { fatal: false, status: 1 }
    }

    /// `${p@a}` where the element-of-array rule in `expand` does not
    /// apply: special parameters have no attributes, and `${!r@a}` shows
    /// those of the variable `r` names.
    pub(crate) fn attribute_flags(
        &mut self,
        parameter: &word::Parameter,
        indirect: bool,
    ) -> Result<Option<String>, ExpandError> {
        if indirect {
            if let word::Parameter::Named(name) = parameter {
                if self.state.is_array(name)
                    && matches!(self.parameter_value(parameter, false)?, Value::Unset)
                {
                    // `${!A@a}` with `${A}` unset: nothing, as bash.
                    return Ok(Some(String::new()));
                }
            }
        }
        let target = if indirect { self.indirect_parameter(parameter)? } else { parameter.clone() };
        Ok(match &target {
            word::Parameter::Special(_) | word::Parameter::Positional(_) => Some(String::new()),
            word::Parameter::Named(name)
            | word::Parameter::NamedWithIndex { name, .. }
            | word::Parameter::NamedWithAllIndices { name, .. }
                if indirect =>
            {
                Some(crate::transform::attributes(self.state, &self.state.resolve_name(name)))
            }
            _ => None,
        })
    }

    /// bash's `bad substitution`: the message, then the rest of the
    /// top-level command is dropped.
    pub(crate) fn bad_substitution(&mut self, text: &str) -> ExpandError {
        self.report(&format!("${text}: bad substitution"));
        if self.flow.is_none() {
            self.flow = Some(Flow::Abort(1));
        }
        ExpandError::Reported { fatal: false, status: 1 }
    }
}
