//! POSIX regular expressions (GNU flavour, C locale) translated to the
//! `regex` crate's syntax, shared by `grep` and `sed`.
//!
//! Basic (BRE) and extended (ERE) syntax with the GNU extensions (`\+`, `\?`,
//! `\|`, `\<`, `\>`, `\b`, `\B`, `\w`, `\W`, `\s`, `\S`, `` \` ``, `\'`),
//! bracket expressions with classes, equivalence classes and collating
//! symbols, intervals, and the GNU rules for where `*`, `^` and `$` are
//! literal. Everything works on bytes, as GNU tools do in the C locale.
//!
//! The GNU tools use two engines with slightly different rules (grep's DFA
//! matcher and glibc's regcomp for sed): `Dialect` picks grep's or sed's
//! (a leading `*` in an ERE, a lone `)`, `a{`, stacked BRE quantifiers).
//!
//! Limits (the `regex` crate is a linear-time engine): back-references in
//! patterns (`\(a\)\1`) are rejected with a clear error. The `regex` crate
//! finds leftmost-first matches; POSIX wants leftmost-longest, which differs
//! when an alternation's earlier branch matches a prefix of a later one
//! (`a\|ab`): [`Longest`] fixes the usual cases by trying reordered
//! variants.

use regex::bytes::{Regex, RegexBuilder};

/// Which POSIX syntax a pattern uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    Basic,
    Extended,
}

/// Who is asking: the escapes and anchors differ a little.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// `grep`: the haystack is a whole buffer of lines; no match may cross a
    /// newline, `^`/`$` match at line boundaries.
    Grep,
    /// `sed`: the haystack is the pattern space; `.` matches a newline,
    /// `\n`, `\t` are escapes, `^`/`$` match at its ends (or at newlines in
    /// multi-line mode).
    Sed { multiline: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    pub syntax: Syntax,
    pub dialect: Dialect,
    pub icase: bool,
}

impl Options {
    /// Groups are named `gN` (sed, to find them again in reordered
    /// variants).
    fn named_groups(&self) -> bool {
        matches!(self.dialect, Dialect::Sed { .. })
    }
}

/// Why a pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RxError {
    /// A syntax error, with GNU's message (`Unmatched ( or \(`).
    Invalid(String),
    /// A back-reference, which this engine cannot match.
    Backref,
}

impl RxError {
    pub(crate) fn message(&self) -> String {
        match self {
            RxError::Invalid(m) => m.clone(),
            RxError::Backref => "back-references (\\1 to \\9) in patterns are not supported".to_string(),
        }
    }
}

/// A translated pattern: its `regex` syntax (without the flag prefix), how
/// many groups it captures, and the warnings GNU grep prints for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Translation {
    pub pattern: String,
    pub groups: usize,
    pub warnings: Vec<String>,
    /// Every alternation (the top level or a group with two branches or
    /// more): the spans of its branches in `pattern`, for [`Longest`].
    pub alts: Vec<Vec<(usize, usize)>>,
}

/// The flag prefix for these options.
pub(crate) fn flags(opts: &Options) -> String {
    let mut f = String::from("(?-u");
    match opts.dialect {
        Dialect::Grep | Dialect::Sed { multiline: true } => f.push_str(")(?m"),
        Dialect::Sed { multiline: false } => f.push_str(")(?s"),
    }
    if opts.icase {
        f.push('i');
    }
    f.push(')');
    f
}

/// Builds a byte regex from already translated syntax (with its flags).
pub(crate) fn build(full: &str) -> Result<Regex, RxError> {
    RegexBuilder::new(full).unicode(false).size_limit(16 * 1024 * 1024).build().map_err(|e| match e {
        regex::Error::CompiledTooBig(_) => RxError::Invalid("Regular expression too big".to_string()),
        other => RxError::Invalid(format!("Invalid regular expression ({other})")),
    })
}

/// How many steps the backtracking engine may take for one search before
/// it gives up (a pattern like `(a*)*\1b` is exponential).
pub(crate) const BACKTRACK_LIMIT: usize = 1_000_000;

/// Builds a backtracking regex (back-references, look-around) from
/// already translated syntax with its flags; bytes are matched as bytes.
pub(crate) fn build_backtracking(full: &str) -> Result<fancy_regex::Regex, RxError> {
    let full = full.strip_prefix("(?-u)").unwrap_or(full);
    fancy_regex::RegexBuilder::new(full)
        .bytes_mode(fancy_regex::BytesMode::Ascii)
        .backtrack_limit(BACKTRACK_LIMIT)
        .delegate_size_limit(16 * 1024 * 1024)
        .build()
        .map_err(|e| RxError::Invalid(format!("Invalid regular expression ({e})")))
}

/// Translates and compiles one pattern.
pub(crate) fn compile(pattern: &[u8], opts: &Options) -> Result<(Regex, Translation), RxError> {
    let t = translate(pattern, opts)?;
    let re = build(&format!("{}{}", flags(opts), t.pattern))?;
    Ok((re, t))
}

/// POSIX wants the leftmost-longest match; the `regex` crate finds the
/// leftmost-first one, which can be shorter when an alternation's earlier
/// branch matches a prefix of what a later one matches (`a\|ab`). For each
/// branch that is not first in its alternation, a variant of the pattern
/// tries it first; the longest match any of them finds at the same start
/// wins. (An approximation of POSIX's rules, exact for the usual cases.)
pub(crate) struct Longest {
    /// Each variant and, for named groups, where group N is in it.
    variants: Vec<(Regex, Vec<Option<usize>>)>,
}

const MAX_VARIANTS: usize = 12;

/// `pattern` with branch `i` of the alternation `alt` moved first.
fn reorder(pattern: &str, alt: &[(usize, usize)], i: usize, first: usize, last: usize) -> Option<String> {
    let mut body = String::with_capacity(pattern.len() + 1);
    body.push_str(pattern.get(..first)?);
    let &(a, b) = alt.get(i)?;
    body.push_str(pattern.get(a..b)?);
    for (j, &(a, b)) in alt.iter().enumerate() {
        if j != i {
            body.push('|');
            body.push_str(pattern.get(a..b)?);
        }
    }
    body.push_str(pattern.get(last..)?);
    Some(body)
}

impl Longest {
    /// Variants of `pattern` (translated, without `flags`).
    pub(crate) fn new(
        pattern: &str,
        alts: &[Vec<(usize, usize)>],
        flags: &str,
        groups: usize,
    ) -> Option<Longest> {
        let mut variants = Vec::new();
        'all: for alt in alts {
            let (Some(&(first, _)), Some(&(_, last))) = (alt.first(), alt.last()) else { continue };
            for i in 1..alt.len() {
                if variants.len() >= MAX_VARIANTS {
                    break 'all;
                }
                // The spans come from the translator; never trust them
                // blindly with string slicing.
                let Some(body) = reorder(pattern, alt, i, first, last) else { continue };
                if let Ok(re) = build(&format!("{flags}{body}")) {
                    let mut map = vec![None; groups + 1];
                    for (idx, name) in re.capture_names().enumerate() {
                        if let Some(n) =
                            name.and_then(|n| n.strip_prefix('g')).and_then(|n| n.parse::<usize>().ok())
                        {
                            if let Some(slot) = map.get_mut(n) {
                                *slot = Some(idx);
                            }
                        }
                    }
                    variants.push((re, map));
                }
            }
        }
        (!variants.is_empty()).then_some(Longest { variants })
    }

    /// The longest end of a match at `s` (the leftmost-first one ends at
    /// `e`) within `hay[..lim]`, and the variant that found it (`None`: the
    /// original).
    pub(crate) fn extend(&self, hay: &[u8], s: usize, e: usize, lim: usize) -> (usize, Option<usize>) {
        let h = &hay[..lim.min(hay.len())];
        let mut best = (e, None);
        for (k, (re, _)) in self.variants.iter().enumerate() {
            if let Some(m) = re.find_at(h, s) {
                if m.start() == s && m.end() > best.0 {
                    best = (m.end(), Some(k));
                }
            }
        }
        best
    }

    /// The groups of variant `k`'s match at `s`, by original number, into
    /// `spans`.
    pub(crate) fn groups(
        &self,
        k: usize,
        hay: &[u8],
        s: usize,
        lim: usize,
        spans: &mut [Option<(usize, usize)>],
    ) {
        let Some((re, map)) = self.variants.get(k) else { return };
        let h = &hay[..lim.min(hay.len())];
        let mut locs = re.capture_locations();
        if re.captures_read_at(&mut locs, h, s).is_none() {
            return;
        }
        for (n, slot) in spans.iter_mut().enumerate() {
            *slot = if n == 0 {
                locs.get(0)
            } else {
                map.get(n).copied().flatten().and_then(|idx| locs.get(idx))
            };
        }
    }
}

/// Escapes `text` as a literal for the `regex` crate (bytes).
pub(crate) fn literal(text: &[u8]) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for &b in text {
        push_literal(&mut out, b);
    }
    out
}

fn push_literal(out: &mut String, b: u8) {
    if b.is_ascii_alphanumeric() || b == b'_' || b == b' ' {
        out.push(b as char);
    } else {
        push_hex(out, b);
    }
}

fn push_hex(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push_str("\\x");
    out.push(HEX[(b >> 4) as usize] as char);
    out.push(HEX[(b & 15) as usize] as char);
}

/// A set of bytes (a bracket expression).
#[derive(Clone, Copy, Default)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn add(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1u64 << (b & 63);
    }
    fn has(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1u64 << (b & 63)) != 0
    }
    fn add_range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.add(b);
        }
    }
    fn remove(&mut self, b: u8) {
        self.0[(b >> 6) as usize] &= !(1u64 << (b & 63));
    }
    fn negate(&mut self) {
        for w in self.0.iter_mut() {
            *w = !*w;
        }
    }
    fn fold_case(&mut self) {
        for b in b'a'..=b'z' {
            let u = b.to_ascii_uppercase();
            if self.has(b) || self.has(u) {
                self.add(b);
                self.add(u);
            }
        }
    }
    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// As a `regex` class.
    fn emit(&self, out: &mut String) {
        if self.is_empty() {
            // Matches nothing.
            out.push_str("[a&&b]");
            return;
        }
        out.push('[');
        let mut b: u16 = 0;
        while b < 256 {
            if self.has(b as u8) {
                let lo = b as u8;
                let mut hi = lo;
                while hi < 255 && self.has(hi + 1) {
                    hi += 1;
                }
                push_hex(out, lo);
                if hi > lo {
                    out.push('-');
                    push_hex(out, hi);
                }
                b = hi as u16 + 1;
            } else {
                b += 1;
            }
        }
        out.push(']');
    }
}

/// Adds the POSIX class `name` (C locale); false if there is no such class.
fn add_class(set: &mut ByteSet, name: &[u8]) -> bool {
    let test: fn(u8) -> bool = match name {
        b"alpha" => |c| c.is_ascii_alphabetic(),
        b"digit" => |c| c.is_ascii_digit(),
        b"alnum" => |c| c.is_ascii_alphanumeric(),
        b"upper" => |c| c.is_ascii_uppercase(),
        b"lower" => |c| c.is_ascii_lowercase(),
        b"space" => |c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b"blank" => |c| matches!(c, b' ' | b'\t'),
        b"punct" => |c| c.is_ascii_punctuation(),
        b"print" => |c| (0x20..0x7f).contains(&c),
        b"graph" => |c| (0x21..0x7f).contains(&c),
        b"cntrl" => |c| c < 0x20 || c == 0x7f,
        b"xdigit" => |c| c.is_ascii_hexdigit(),
        _ => return false,
    };
    for c in 0..=255u8 {
        if test(c) {
            set.add(c);
        }
    }
    true
}

fn invalid(msg: &str) -> RxError {
    RxError::Invalid(msg.to_string())
}

const UNMATCHED_BRACKET: &str = "Unmatched [, [^, [:, [., or [=";
const PRECEDING: &str = "Invalid preceding regular expression";

struct Tx<'a> {
    p: &'a [u8],
    i: usize,
    out: String,
    opts: Options,
    /// Groups opened so far (their numbers).
    groups: usize,
    /// Open groups: the output index of their `(` and their number.
    stack: Vec<(usize, usize)>,
    /// Start (in `out`) of the last atom a quantifier would apply to.
    atom: Option<usize>,
    /// The last atom already carries a quantifier.
    quantified: bool,
    /// At the start of the pattern, a group or an alternative (where `*` is
    /// literal in BREs).
    start: bool,
    warnings: Vec<String>,
    /// Open alternation contexts (top level first): where the current
    /// branch starts and the branches so far.
    frames: Vec<(usize, Vec<(usize, usize)>)>,
    /// Finished alternations.
    alts: Vec<Vec<(usize, usize)>>,
    /// Back-references are written as `\N` (for the backtracking engine)
    /// instead of refused.
    backrefs: bool,
}

/// Translates a POSIX pattern to `regex` syntax.
pub(crate) fn translate(pattern: &[u8], opts: &Options) -> Result<Translation, RxError> {
    translate_with(pattern, opts, false)
}

/// Like [`translate`], with back-references kept (as `\N`) for
/// [`build_backtracking`].
pub(crate) fn translate_backrefs(pattern: &[u8], opts: &Options) -> Result<Translation, RxError> {
    translate_with(pattern, opts, true)
}

fn translate_with(pattern: &[u8], opts: &Options, backrefs: bool) -> Result<Translation, RxError> {
    let mut tx = Tx {
        backrefs,
        p: pattern,
        i: 0,
        out: String::with_capacity(pattern.len() * 2 + 8),
        opts: *opts,
        groups: 0,
        stack: Vec::new(),
        atom: None,
        quantified: false,
        start: true,
        warnings: Vec::new(),
        frames: vec![(0, Vec::new())],
        alts: Vec::new(),
    };
    tx.run()?;
    tx.end_frame();
    Ok(Translation { pattern: tx.out, groups: tx.groups, warnings: tx.warnings, alts: tx.alts })
}

impl Tx<'_> {
    fn newline_sensitive(&self) -> bool {
        matches!(self.opts.dialect, Dialect::Grep | Dialect::Sed { multiline: true })
    }

    fn sed(&self) -> bool {
        matches!(self.opts.dialect, Dialect::Sed { .. })
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.p.get(self.i + k).copied()
    }

    /// Begins an atom at the current output position.
    fn begin_atom(&mut self) {
        self.atom = Some(self.out.len());
        self.quantified = false;
        self.start = false;
    }

    fn lit(&mut self, b: u8) {
        self.begin_atom();
        push_literal(&mut self.out, b);
    }

    fn raw_atom(&mut self, s: &str) {
        self.begin_atom();
        self.out.push_str(s);
    }

    /// A zero-width assertion: nothing can be repeated after it.
    fn assertion(&mut self, s: &str) {
        self.out.push_str(s);
        self.atom = None;
        self.quantified = false;
        self.start = false;
    }

    /// Applies a quantifier (`*`, `+`, `?`, `{m,n}`) to the last atom.
    /// Returns false when there is none.
    fn quantify(&mut self, q: &str) -> bool {
        let Some(at) = self.atom else { return false };
        if self.quantified {
            self.insert_at(at, "(?:");
            self.out.push(')');
        }
        self.out.push_str(q);
        self.quantified = true;
        true
    }

    fn warn_start(&mut self, what: &str) {
        if self.opts.dialect == Dialect::Grep {
            self.warnings.push(format!("warning: {what} at start of expression"));
        }
    }

    /// Inserts into the output, keeping recorded positions right.
    fn insert_at(&mut self, at: usize, text: &str) {
        self.out.insert_str(at, text);
        let n = text.len();
        // A start at `at` keeps the inserted text; an end at `at` moves.
        let start = |x: &mut usize| {
            if *x > at {
                *x += n;
            }
        };
        let end = |x: &mut usize| {
            if *x >= at {
                *x += n;
            }
        };
        for alt in &mut self.alts {
            for (a, b) in alt.iter_mut() {
                start(a);
                end(b);
            }
        }
        for (s, branches) in &mut self.frames {
            start(s);
            for (a, b) in branches.iter_mut() {
                start(a);
                end(b);
            }
        }
        for (pos, _) in &mut self.stack {
            start(pos);
        }
    }

    /// Closes the innermost alternation context at the current position.
    fn end_frame(&mut self) {
        if let Some((start, mut branches)) = self.frames.pop() {
            if !branches.is_empty() {
                branches.push((start, self.out.len()));
                self.alts.push(branches);
            }
        }
    }

    fn run(&mut self) -> Result<(), RxError> {
        while let Some(c) = self.peek(0) {
            match self.opts.syntax {
                Syntax::Basic => self.basic(c)?,
                Syntax::Extended => self.extended(c)?,
            }
        }
        if !self.stack.is_empty() {
            return Err(invalid("Unmatched ( or \\("));
        }
        Ok(())
    }

    fn open_group(&mut self) {
        self.groups += 1;
        self.stack.push((self.out.len(), self.groups));
        if self.opts.named_groups() {
            self.out.push_str(&format!("(?P<g{}>", self.groups));
        } else {
            self.out.push('(');
        }
        self.frames.push((self.out.len(), Vec::new()));
        self.atom = None;
        self.quantified = false;
        self.start = true;
    }

    fn close_group(&mut self) -> Result<(), RxError> {
        let Some((at, _)) = self.stack.pop() else { return Err(invalid("Unmatched ) or \\)")) };
        self.end_frame();
        self.out.push(')');
        self.atom = Some(at);
        self.quantified = false;
        self.start = false;
        Ok(())
    }

    fn alternation(&mut self) {
        let here = self.out.len();
        if let Some((start, branches)) = self.frames.last_mut() {
            branches.push((*start, here));
            *start = here + 1;
        }
        self.out.push('|');
        self.atom = None;
        self.quantified = false;
        self.start = true;
    }

    fn basic(&mut self, c: u8) -> Result<(), RxError> {
        match c {
            b'\\' => return self.escape_basic(),
            b'*' => {
                self.i += 1;
                if !self.start && self.sed() && self.quantified {
                    // glibc: `a**`, `a\+*` are errors in a BRE.
                    return Err(invalid(PRECEDING));
                }
                if self.start || !self.quantify("*") {
                    self.lit(b'*');
                }
                return Ok(());
            }
            b'^' => {
                self.i += 1;
                if self.start {
                    // Stays at the start: a following `*` is literal.
                    self.out.push('^');
                    self.atom = None;
                    self.quantified = false;
                } else {
                    self.lit(b'^');
                }
                return Ok(());
            }
            b'$' => {
                self.i += 1;
                let rest = &self.p[self.i..];
                if rest.is_empty() || rest.starts_with(b"\\)") || rest.starts_with(b"\\|") {
                    self.assertion("$");
                } else {
                    self.lit(b'$');
                }
                return Ok(());
            }
            b'[' => return self.bracket(),
            b'.' => {
                self.i += 1;
                self.dot();
            }
            _ => {
                self.i += 1;
                self.lit(c);
            }
        }
        Ok(())
    }

    fn dot(&mut self) {
        // The flags decide whether it matches a newline.
        self.raw_atom(".");
    }

    /// Parses `m}`/`m,n}`/`,n}`/`m,}` after the opening brace (BRE: the
    /// closing is `\}`). Returns the quantifier text and the index after it,
    /// or `None` if malformed.
    fn interval(&self, from: usize, basic: bool) -> Result<Option<(String, usize)>, RxError> {
        let p = self.p;
        let mut j = from;
        let num = |j: &mut usize| -> Option<u64> {
            let s = *j;
            let mut v: u64 = 0;
            while let Some(&d) = p.get(*j) {
                if !d.is_ascii_digit() {
                    break;
                }
                v = v.saturating_mul(10).saturating_add(u64::from(d - b'0'));
                *j += 1;
            }
            (*j > s).then_some(v)
        };
        let lo = num(&mut j);
        let mut hi = lo;
        let mut comma = false;
        if p.get(j) == Some(&b',') {
            comma = true;
            j += 1;
            hi = num(&mut j);
        }
        let close_ok = if basic {
            p.get(j) == Some(&b'\\') && p.get(j + 1) == Some(&b'}')
        } else {
            p.get(j) == Some(&b'}')
        };
        if !close_ok {
            return Ok(None);
        }
        let end = if basic { j + 2 } else { j + 1 };
        if lo.is_none() && !comma {
            return Ok(None);
        }
        let lo_v = lo.unwrap_or(0);
        if let Some(h) = hi {
            if h < lo_v {
                return Err(invalid("Invalid content of \\{\\}"));
            }
        }
        if lo_v > 32767 || hi.is_some_and(|h| h > 32767) {
            return Err(invalid("Regular expression too big"));
        }
        let q = match (comma, hi) {
            (false, _) => format!("{{{lo_v}}}"),
            (true, None) => format!("{{{lo_v},}}"),
            (true, Some(h)) => format!("{{{lo_v},{h}}}"),
        };
        Ok(Some((q, end)))
    }

    /// The error for a malformed interval starting at `from`: GNU tells a
    /// missing close from bad content.
    fn bad_interval(&self, from: usize, close: &[u8]) -> RxError {
        let rest = self.p.get(from..).unwrap_or_default();
        if rest.windows(close.len()).any(|w| w == close) {
            invalid("Invalid content of \\{\\}")
        } else {
            invalid("Unmatched \\{")
        }
    }

    fn escape_basic(&mut self) -> Result<(), RxError> {
        let Some(c) = self.peek(1) else { return Err(invalid("Trailing backslash")) };
        match c {
            b'(' => {
                self.i += 2;
                self.open_group();
            }
            b')' => {
                self.i += 2;
                self.close_group()?;
            }
            b'|' => {
                self.i += 2;
                self.alternation();
            }
            b'{' => {
                if self.start || self.atom.is_none() {
                    if self.sed() {
                        return Err(invalid(PRECEDING));
                    }
                    // GNU grep: a leading interval is literal text.
                    self.i += 2;
                    self.lit(b'{');
                    return Ok(());
                }
                if self.sed() && self.quantified {
                    return Err(invalid(PRECEDING));
                }
                match self.interval(self.i + 2, true)? {
                    Some((q, end)) => {
                        self.i = end;
                        self.quantify(&q);
                    }
                    None => return Err(self.bad_interval(self.i + 2, b"\\}")),
                }
            }
            b'+' | b'?' => {
                self.i += 2;
                let q = if c == b'+' { "+" } else { "?" };
                if self.start || !self.quantify(q) {
                    self.lit(c);
                }
            }
            _ => self.common_escape(c)?,
        }
        Ok(())
    }

    fn extended(&mut self, c: u8) -> Result<(), RxError> {
        match c {
            b'\\' => {
                let Some(n) = self.peek(1) else { return Err(invalid("Trailing backslash")) };
                return self.common_escape(n);
            }
            b'*' | b'+' | b'?' => {
                self.i += 1;
                let q = match c {
                    b'*' => "*",
                    b'+' => "+",
                    _ => "?",
                };
                if !self.quantify(q) {
                    if self.sed() {
                        return Err(invalid(PRECEDING));
                    }
                    self.warn_start(q);
                }
            }
            b'{' => match self.interval(self.i + 1, false)? {
                Some((q, end)) => {
                    self.i = end;
                    if !self.quantify(&q) {
                        if self.sed() {
                            return Err(invalid(PRECEDING));
                        }
                        self.warn_start("{...}");
                    }
                }
                None => {
                    if self.sed() {
                        // glibc has no literal `{` in an ERE.
                        if self.atom.is_none() {
                            return Err(invalid(PRECEDING));
                        }
                        return Err(self.bad_interval(self.i + 1, b"}"));
                    }
                    self.i += 1;
                    if self.atom.is_some() {
                        self.lit(b'{');
                    }
                }
            },
            b'(' => {
                self.i += 1;
                self.open_group();
            }
            b')' => {
                self.i += 1;
                if self.stack.is_empty() && !self.sed() {
                    // GNU grep takes a lone `)` literally; glibc (sed) does
                    // not.
                    self.lit(b')');
                } else {
                    self.close_group()?;
                }
            }
            b'|' => {
                self.i += 1;
                self.alternation();
            }
            b'^' => {
                self.i += 1;
                self.assertion("^");
            }
            b'$' => {
                self.i += 1;
                self.assertion("$");
            }
            b'[' => return self.bracket(),
            b'.' => {
                self.i += 1;
                self.dot();
            }
            _ => {
                self.i += 1;
                self.lit(c);
            }
        }
        Ok(())
    }

    /// Escapes shared by both syntaxes; `self.i` is at the backslash and `c`
    /// follows it.
    fn common_escape(&mut self, c: u8) -> Result<(), RxError> {
        self.i += 2;
        let ns = self.newline_sensitive();
        let grep = self.opts.dialect == Dialect::Grep;
        match c {
            b'1'..=b'9' => {
                let n = usize::from(c - b'0');
                if n <= self.groups && !self.stack.iter().any(|&(_, g)| g == n) {
                    if self.backrefs {
                        self.raw_atom(&format!("\\{n}"));
                        return Ok(());
                    }
                    return Err(RxError::Backref);
                }
                return Err(invalid("Invalid back reference"));
            }
            b'<' => self.assertion(r"\b{start}"),
            b'>' => self.assertion(r"\b{end}"),
            b'b' => self.assertion(r"\b"),
            b'B' => self.assertion(r"\B"),
            b'`' => self.assertion(if grep { "^" } else { r"\A" }),
            b'\'' => self.assertion(if grep { "$" } else { r"\z" }),
            b'w' => self.raw_atom(r"\w"),
            b'W' => self.raw_atom(if ns { r"[^\w\n]" } else { r"\W" }),
            b's' => self.raw_atom(if ns { r"[\t\x0B\x0C\r ]" } else { r"\s" }),
            b'S' => self.raw_atom(r"\S"),
            _ if self.sed() => match sed_escape(self.p, self.i - 2) {
                Some((b, next)) => {
                    self.i = next;
                    self.lit(b);
                }
                None => self.lit(c),
            },
            _ => self.lit(c),
        }
        Ok(())
    }

    fn bracket(&mut self) -> Result<(), RxError> {
        let p = self.p;
        let open = self.i;
        let mut i = open + 1;
        let negate = p.get(i) == Some(&b'^');
        if negate {
            i += 1;
        }
        if i >= p.len() {
            return Err(invalid(if self.sed() { UNMATCHED_BRACKET } else { "Invalid regular expression" }));
        }
        let content = i;
        let mut set = ByteSet::default();
        let mut first = true;
        let close;
        loop {
            let Some(&c) = p.get(i) else { return Err(invalid(UNMATCHED_BRACKET)) };
            if c == b']' && !first {
                close = i;
                i += 1;
                break;
            }
            first = false;
            let (lo, next, is_class) = self.bracket_element(i, &mut set)?;
            i = next;
            if is_class {
                if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&x| x != b']') {
                    return Err(invalid("Invalid range end"));
                }
                continue;
            }
            if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&x| x != b']') {
                let (hi, next, hi_class) = self.bracket_element(i + 1, &mut ByteSet::default())?;
                if hi_class || hi < lo {
                    return Err(invalid("Invalid range end"));
                }
                set.add_range(lo, hi);
                i = next;
                // `[a-z-9]`: a range cannot start where one ended.
                if p.get(i) == Some(&b'-') && p.get(i + 1).is_some_and(|&x| x != b']') {
                    return Err(invalid("Invalid range end"));
                }
            } else {
                set.add(lo);
            }
        }
        let body = &p[content..close];
        if body.len() >= 2 && body[0] == b':' && body[body.len() - 1] == b':' {
            let name = String::from_utf8_lossy(body);
            return Err(RxError::Invalid(format!("character class syntax is [[{name}]], not [{name}]")));
        }
        self.i = i;
        if self.opts.icase {
            set.fold_case();
        }
        if negate {
            set.negate();
        }
        // grep matches within lines: no bracket (`[[:space:]]`, `[^a]`)
        // matches the line terminator.
        if self.opts.dialect == Dialect::Grep || (negate && self.newline_sensitive()) {
            set.remove(b'\n');
        }
        self.begin_atom();
        set.emit(&mut self.out);
        Ok(())
    }

    /// One element of a bracket expression at `i`: a byte (or `[.c.]`,
    /// `[=c=]`), or a class added to `set`. Returns the byte, the index
    /// after the element, and whether it was a class.
    fn bracket_element(&self, i: usize, set: &mut ByteSet) -> Result<(u8, usize, bool), RxError> {
        let p = self.p;
        let Some(&c) = p.get(i) else { return Err(invalid(UNMATCHED_BRACKET)) };
        if c == b'[' {
            if let Some(&kind) = p.get(i + 1) {
                if matches!(kind, b':' | b'.' | b'=') {
                    let mut j = i + 2;
                    loop {
                        if j + 1 >= p.len() {
                            return Err(invalid(UNMATCHED_BRACKET));
                        }
                        if p[j] == kind && p[j + 1] == b']' {
                            break;
                        }
                        j += 1;
                    }
                    let name = &p[i + 2..j];
                    let next = j + 2;
                    if kind == b':' {
                        if !add_class(set, name) {
                            return Err(invalid("Invalid character class name"));
                        }
                        return Ok((0, next, true));
                    }
                    if name.len() != 1 {
                        return Err(invalid("Invalid collation character"));
                    }
                    return Ok((name[0], next, false));
                }
            }
        }
        if c == b'\\' && self.sed() {
            if let Some((b, next)) = sed_escape(p, i) {
                return Ok((b, next, false));
            }
        }
        Ok((c, i + 1, false))
    }
}

/// The GNU sed escapes that produce one byte (`\n`, `\t`, `\xHH`, ...) at
/// `p[at] == '\\'`: the byte and the index after the escape.
pub(crate) fn sed_escape(p: &[u8], at: usize) -> Option<(u8, usize)> {
    let c = *p.get(at + 1)?;
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'f' => Some(0x0c),
        b'v' => Some(0x0b),
        b'a' => Some(0x07),
        _ => None,
    };
    if let Some(b) = simple {
        return Some((b, at + 2));
    }
    match c {
        b'c' => {
            let x = *p.get(at + 2)?;
            Some((x.to_ascii_uppercase() ^ 0x40, at + 3))
        }
        b'd' => number(p, at + 2, 10, 3),
        b'o' => number(p, at + 2, 8, 3),
        b'x' => number(p, at + 2, 16, 2),
        _ => None,
    }
}

fn number(p: &[u8], from: usize, radix: u32, max: usize) -> Option<(u8, usize)> {
    let mut v: u32 = 0;
    let mut j = from;
    while j < p.len() && j - from < max {
        let Some(d) = (p[j] as char).to_digit(radix) else { break };
        v = v * radix + d;
        j += 1;
    }
    (j > from).then_some(((v & 0xff) as u8, j))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grep_opts(syntax: Syntax) -> Options {
        Options { syntax, dialect: Dialect::Grep, icase: false }
    }

    fn finds(pat: &str, syntax: Syntax, hay: &str) -> Option<String> {
        let (re, _) = compile(pat.as_bytes(), &grep_opts(syntax)).ok()?;
        re.find(hay.as_bytes()).map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned())
    }

    #[test]
    fn basic_syntax() {
        use Syntax::Basic as B;
        assert_eq!(finds("a\\{2\\}", B, "aaa"), Some("aa".into()));
        assert_eq!(finds("a{2}", B, "a{2}"), Some("a{2}".into()));
        assert_eq!(finds("*a", B, "x*a"), Some("*a".into()));
        assert_eq!(finds("\\(*a\\)", B, "x*a"), Some("*a".into()));
        assert_eq!(finds("^*a", B, "*a"), Some("*a".into()));
        assert_eq!(finds("a|b", B, "a|b"), Some("a|b".into()));
        assert_eq!(finds("a\\|b", B, "b"), Some("b".into()));
        assert_eq!(finds("a+?", B, "a+?"), Some("a+?".into()));
        assert_eq!(finds("a\\+", B, "aaa"), Some("aaa".into()));
        assert_eq!(finds("a^b$c", B, "a^b$c"), Some("a^b$c".into()));
        assert_eq!(finds("x$", B, "x\ny"), Some("x".into()));
        assert_eq!(finds("a**", B, "aaa"), Some("aaa".into()));
        assert_eq!(finds("\\{1\\}a", B, "{1}a"), Some("{1}a".into()));
        assert_eq!(finds("[]a]*", B, "]a]"), Some("]a]".into()));
        assert_eq!(finds("[\\]", B, "\\"), Some("\\".into()));
        assert_eq!(finds("[[:digit:]]\\+", B, "ab123"), Some("123".into()));
        assert_eq!(finds("[^a]", B, "a\nb"), Some("b".into()));
        assert_eq!(finds("a.b", B, "a\nb"), None);
        assert_eq!(finds("\\<ab\\>", B, "xab ab"), Some("ab".into()));
        assert_eq!(finds("a\\{,2\\}", B, "aaa"), Some("aa".into()));
    }

    #[test]
    fn extended_syntax() {
        use Syntax::Extended as E;
        assert_eq!(finds("a+?", E, "aaa"), Some("aaa".into()));
        assert_eq!(finds("a{1,2}{2}", E, "aaaaa"), Some("aaaa".into()));
        assert_eq!(finds("a{", E, "a{"), Some("a{".into()));
        assert_eq!(finds("a{1", E, "a{1"), Some("a{1".into()));
        assert_eq!(finds("(a|b)+", E, "xabba"), Some("abba".into()));
        assert_eq!(finds("a)", E, "a)"), Some("a)".into()));
        assert_eq!(finds("()", E, "x"), Some("".into()));
        assert_eq!(finds("a||b", E, "b"), Some("".into()));
        assert_eq!(finds("^*a", E, "a"), Some("a".into()));
        assert_eq!(finds("\\.", E, "a.b"), Some(".".into()));
    }

    #[test]
    fn errors() {
        let e = |p: &str, s| compile(p.as_bytes(), &grep_opts(s)).err().map(|e| e.message());
        assert_eq!(e("\\(a", Syntax::Basic), Some("Unmatched ( or \\(".into()));
        assert_eq!(e("a\\)", Syntax::Basic), Some("Unmatched ) or \\)".into()));
        assert_eq!(e("(a", Syntax::Extended), Some("Unmatched ( or \\(".into()));
        assert_eq!(e("a\\{1", Syntax::Basic), Some("Unmatched \\{".into()));
        assert_eq!(e("a\\{x\\}", Syntax::Basic), Some("Invalid content of \\{\\}".into()));
        assert_eq!(e("a{2,1}", Syntax::Extended), Some("Invalid content of \\{\\}".into()));
        assert_eq!(e("[a", Syntax::Basic), Some(UNMATCHED_BRACKET.into()));
        assert_eq!(e("[", Syntax::Basic), Some("Invalid regular expression".into()));
        assert_eq!(e("[z-a]", Syntax::Basic), Some("Invalid range end".into()));
        assert_eq!(e("[[:foo:]]", Syntax::Basic), Some("Invalid character class name".into()));
        assert_eq!(e("a\\", Syntax::Basic), Some("Trailing backslash".into()));
        assert_eq!(e("\\(a\\)\\1", Syntax::Basic), Some(RxError::Backref.message()));
        assert_eq!(e("(a)\\2", Syntax::Extended), Some("Invalid back reference".into()));
        assert_eq!(
            e("[:space:]", Syntax::Basic),
            Some("character class syntax is [[:space:]], not [:space:]".into())
        );
        assert_eq!(e("a\\{32768\\}", Syntax::Basic), Some("Regular expression too big".into()));
    }

    #[test]
    fn case_insensitive_negated_class() {
        let o = Options { syntax: Syntax::Basic, dialect: Dialect::Grep, icase: true };
        let (re, _) = compile(b"[^a]", &o).unwrap();
        assert!(!re.is_match(b"A"));
        assert!(re.is_match(b"b"));
    }

    #[test]
    fn sed_dialect() {
        let o = Options { syntax: Syntax::Basic, dialect: Dialect::Sed { multiline: false }, icase: false };
        let (re, _) = compile(b"a.b\\nc[\\t]", &o).unwrap();
        assert!(re.is_match(b"a\nb\nc\t"));
        let (re, _) = compile(b"^b", &o).unwrap();
        assert!(!re.is_match(b"a\nb"));
    }
}
