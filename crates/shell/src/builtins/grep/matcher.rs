//! Compiling the patterns into one matcher and finding matches in lines.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Anchor {
    None,
    Word,
    Line,
}

/// The compiled patterns.
pub(super) struct Matcher {
    pub(super) re: Regex,
    pub(super) anchor: Anchor,
    /// Search line by line (`-P`, whose classes may match a newline).
    pub(super) per_line: bool,
    /// No pattern at all: nothing matches.
    pub(super) empty: bool,
    /// For `-o` and colors: POSIX leftmost-longest matches.
    pub(super) longest: Option<posix::Longest>,
    /// `-i` with literal patterns only: the patterns are lower-cased and
    /// the text is lower-cased before searching (much faster than a
    /// case-insensitive regex where there is no SIMD).
    pub(super) fold: bool,
    /// A pattern with back-references or look-around: the backtracking
    /// engine, line by line (`re` then matches nothing).
    pub(super) slow: Option<fancy_regex::Regex>,
    /// The backtracking engine hit its step limit on some line.
    pub(super) gave_up: std::cell::Cell<bool>,
}

impl Matcher {
    /// The first line at or after `pos` (a line start) that matches:
    /// `(start, end)` with `end` at its newline or the buffer's end.
    pub(super) fn find_line(&self, buf: &[u8], pos: usize) -> Option<(usize, usize)> {
        if pos >= buf.len() || self.empty {
            return None;
        }
        if self.per_line {
            let mut ls = pos;
            while ls < buf.len() {
                let le = line_end(buf, ls);
                if self.line_matches(&buf[ls..le]) {
                    return Some((ls, le));
                }
                ls = le + 1;
            }
            return None;
        }
        // Any position inside the first match is enough to find its line,
        // and the end of the shortest match is the cheapest to get. A match
        // never contains a newline, so its end lies in its line (an empty
        // match at a line start is at that start).
        let e = self.re.shortest_match_at(buf, pos)?;
        if e >= buf.len() && buf[buf.len() - 1] == b'\n' {
            return None;
        }
        let ls = match memrchr(b'\n', &buf[pos..e]) {
            Some(k) => pos + k + 1,
            None => pos,
        };
        Some((ls, line_end(buf, e)))
    }

    fn line_matches(&self, line: &[u8]) -> bool {
        match &self.slow {
            None => self.re.is_match(line),
            Some(slow) => slow.is_match(line).unwrap_or_else(|_| {
                self.gave_up.set(true);
                false
            }),
        }
    }

    /// The next match of the backtracking engine in `hay` at or after `at`.
    fn slow_find(&self, slow: &fancy_regex::Regex, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        match slow.find_from_pos(hay, at) {
            Ok(m) => m.map(|m| (m.start(), m.end())),
            Err(_) => {
                self.gave_up.set(true);
                None
            }
        }
    }

    /// The matches (non-empty ones are printed by `-o`) inside the line
    /// `buf[ls..le]`, in order.
    pub(super) fn matches_in_line(
        &self,
        buf: &[u8],
        ls: usize,
        le: usize,
        locs: &mut CaptureLocations,
        out: &mut Vec<(usize, usize)>,
    ) {
        out.clear();
        // `-P` searches the line alone (its classes may match a newline).
        let (hay, base) = if self.per_line { (&buf[ls..le], ls) } else { (buf, 0) };
        let (first, last) = (ls - base, le - base);
        let mut at = first;
        while at <= last {
            let (s, e) = if let Some(slow) = &self.slow {
                match self.slow_find(slow, hay, at) {
                    Some(se) => se,
                    None => break,
                }
            } else if self.anchor == Anchor::Word {
                if self.re.captures_read_at(locs, hay, at).is_none() {
                    break;
                }
                match locs.get(1) {
                    Some(se) => se,
                    None => break,
                }
            } else {
                match self.re.find_at(hay, at) {
                    Some(m) => match &self.longest {
                        Some(l) if m.start() <= last => {
                            (m.start(), l.extend(hay, m.start(), m.end(), last).0)
                        }
                        _ => (m.start(), m.end()),
                    },
                    None => break,
                }
            };
            if s > last {
                break;
            }
            out.push((base + s, base + e));
            at = if e > s { e } else { e + 1 };
            if self.anchor == Anchor::Line {
                break;
            }
        }
    }
}

pub(super) fn line_end(buf: &[u8], from: usize) -> usize {
    match memchr(b'\n', &buf[from..]) {
        Some(k) => from + k,
        None => buf.len(),
    }
}

/// Compiles the patterns into one matcher; prints errors and returns `None`
/// on a bad pattern.
/// The branch spans of each alternation of a translated pattern.
pub(super) type Alts = Vec<Vec<(usize, usize)>>;

pub(super) fn compile(
    ctx: &mut Ctx,
    patterns: &[Vec<u8>],
    syntax: char,
    icase: bool,
    anchor: Anchor,
    longest: bool,
) -> Option<Matcher> {
    let specials: &[u8] = match syntax {
        'F' => b"",
        'G' => b"\\.[]*^$",
        'E' => b"\\.[]*^$+?(){}|",
        _ => b"\\.[]*^$+?(){}|",
    };
    let fold = icase && syntax != 'P' && patterns.iter().all(|p| !p.iter().any(|b| specials.contains(b)));
    let lowered: Vec<Vec<u8>>;
    let (patterns, icase) = if fold {
        lowered = patterns.iter().map(|p| p.to_ascii_lowercase()).collect();
        (&lowered[..], false)
    } else {
        (patterns, icase)
    };
    let opts = RxOptions {
        syntax: if syntax == 'E' { Syntax::Extended } else { Syntax::Basic },
        dialect: Dialect::Grep,
        icase,
    };
    // Each pattern's translation and its alternations.
    let mut parts: Vec<(String, Alts)> = Vec::with_capacity(patterns.len());
    let mut failed = false;
    let mut slow = false;
    if syntax == 'F' {
        // Longest strings first: then the leftmost-first match is the
        // leftmost-longest one POSIX wants.
        let mut sorted: Vec<&Vec<u8>> = patterns.iter().collect();
        sorted.sort_by_key(|p| std::cmp::Reverse(p.len()));
        parts.extend(sorted.into_iter().map(|p| (posix::literal(p), Vec::new())));
    }
    for pat in patterns {
        match syntax {
            'F' => {}
            'P' => parts.push((String::from_utf8_lossy(pat).into_owned(), Vec::new())),
            _ => match posix::translate(pat, &opts) {
                Ok(t) => {
                    for w in &t.warnings {
                        ctx.error("grep", w);
                    }
                    parts.push((t.pattern, t.alts));
                }
                Err(posix::RxError::Backref) => match posix::translate_backrefs(pat, &opts) {
                    Ok(t) => {
                        slow = true;
                        parts.push((t.pattern, t.alts));
                    }
                    Err(e) => {
                        ctx.error("grep", e.message());
                        failed = true;
                    }
                },
                Err(e) => {
                    ctx.error("grep", e.message());
                    failed = true;
                }
            },
        }
    }
    if failed {
        return None;
    }
    let empty = parts.is_empty();
    let (alt, alts) = if parts.len() == 1 {
        parts.pop().unwrap_or_default()
    } else if empty {
        ("[a&&b]".to_string(), Vec::new())
    } else {
        // `(?:p1)|(?:p2)|...`: a top-level alternation of its own.
        let mut joined = String::new();
        let mut alts = Vec::new();
        let mut top = Vec::new();
        for (k, (p, inner)) in parts.iter().enumerate() {
            if k > 0 {
                joined.push('|');
            }
            let at = joined.len();
            joined.push_str("(?:");
            let base = joined.len();
            joined.push_str(p);
            joined.push(')');
            top.push((at, joined.len()));
            alts.extend(
                inner.iter().map(|a| a.iter().map(|&(x, y)| (x + base, y + base)).collect::<Vec<_>>()),
            );
        }
        alts.push(top);
        (joined, alts)
    };
    let flags = posix::flags(&opts);
    let body = match anchor {
        Anchor::None => alt.clone(),
        Anchor::Line => format!("^(?:{alt})$"),
        Anchor::Word => format!("(?:^|[^\\w\\n])({alt})(?:[^\\w\\n]|$)"),
    };
    let full = format!("{flags}{body}");
    let fast = if slow { Err(posix::RxError::Backref) } else { posix::build(&full) };
    if fast.is_err() && (slow || syntax == 'P') {
        // Back-references or look-around: the backtracking engine.
        let body = match anchor {
            Anchor::None => alt.clone(),
            Anchor::Line => format!("^(?:{alt})$"),
            Anchor::Word => format!("(?<!\\w)(?:{alt})(?!\\w)"),
        };
        if let Ok(re) = posix::build_backtracking(&format!("{flags}{body}")) {
            return Some(Matcher {
                re: posix::build("[a&&b]").ok()?,
                anchor,
                per_line: true,
                empty,
                longest: None,
                fold,
                slow: Some(re),
                gave_up: Default::default(),
            });
        }
    }
    match fast {
        Ok(re) => {
            let longest = if longest && anchor == Anchor::None && !matches!(syntax, 'F' | 'P') {
                posix::Longest::new(&alt, &alts, &flags, 0)
            } else {
                None
            };
            Some(Matcher {
                re,
                anchor,
                per_line: syntax == 'P',
                empty,
                longest,
                fold,
                slow: None,
                gave_up: Default::default(),
            })
        }
        Err(e) => {
            if syntax == 'P' {
                let detail = match &e {
                    posix::RxError::Invalid(m) => {
                        let last = m.lines().last().unwrap_or_default().trim();
                        let last = last.strip_suffix(')').unwrap_or(last);
                        last.strip_prefix("error: ").unwrap_or(last).to_string()
                    }
                    posix::RxError::Backref => String::new(),
                };
                ctx.error(
                    "grep",
                    format!("-P supports the Rust regex syntax only (no look-around, \\K or back-references): {detail}"),
                );
            } else {
                ctx.error("grep", e.message());
            }
            None
        }
    }
}
