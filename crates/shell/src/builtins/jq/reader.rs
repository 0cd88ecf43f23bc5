//! jq's inputs: the concatenation of its files (a text may span two files,
//! as in jq) read as JSON texts or, with `-R`, as lines. Keeps track of
//! where the last value ended, for `jq: error (at FILE:LINE)`.

use jaq_json::Val;

use super::json::{self, Parser};

enum Mode<'a> {
    Json(Parser<'a>),
    Raw(usize),
    Done,
}

pub struct Reader<'a> {
    data: &'a [u8],
    /// Where each input starts in `data`, and its name (`None`: stdin).
    files: Vec<(usize, Option<String>)>,
    mode: Mode<'a>,
    /// The index at which the last value read was completed.
    last: Option<usize>,
    /// Set once the input turned out not to be JSON.
    pub parse_error: Option<String>,
    cache: Option<(usize, usize, usize)>,
    next_nl: Option<(usize, usize)>,
}

impl<'a> Reader<'a> {
    /// `whole` is a string value holding `data`, shared by parsed strings.
    pub fn new(data: &'a [u8], whole: Val, files: Vec<(usize, Option<String>)>, raw: bool) -> Self {
        let mode = if raw { Mode::Raw(0) } else { Mode::Json(Parser::shared(data, whole)) };
        Self { data, files, mode, last: None, parse_error: None, cache: None, next_nl: None }
    }

    /// The whole input as one string (`-R -s`).
    pub fn all_text(&mut self) -> Val {
        self.mode = Mode::Done;
        self.last = Some(self.data.len());
        Val::from(String::from_utf8_lossy(self.data).into_owned())
    }

    pub fn next_value(&mut self) -> Option<Result<Val, String>> {
        match &mut self.mode {
            Mode::Done => None,
            Mode::Raw(pos) => {
                let start = *pos;
                let rest = self.data.get(start..).unwrap_or_default();
                if rest.is_empty() {
                    self.mode = Mode::Done;
                    return None;
                }
                let (line, end, next) = match rest.iter().position(|&b| b == b'\n') {
                    Some(n) => (&rest[..n], start + n, start + n + 1),
                    None => (rest, self.data.len(), self.data.len()),
                };
                *pos = next;
                self.last = Some(end);
                Some(Ok(Val::from(String::from_utf8_lossy(line).into_owned())))
            }
            Mode::Json(p) => match p.next_value()? {
                Ok((v, end)) => {
                    self.last = Some(end);
                    Some(Ok(v))
                }
                Err(e) => {
                    let msg = json::describe(self.data, &e);
                    self.parse_error = Some(msg.clone());
                    self.mode = Mode::Done;
                    Some(Err(msg))
                }
            },
        }
    }

    fn file_of(&self, at: usize) -> usize {
        self.files.iter().rposition(|(start, _)| *start <= at).unwrap_or(0)
    }

    /// The name of the input the last value came from (`<stdin>` for
    /// standard input), `None` before any input.
    pub fn filename(&self) -> Option<String> {
        let at = self.last?;
        let name = self.files.get(self.file_of(at)).and_then(|(_, name)| name.clone());
        Some(name.unwrap_or_else(|| "<stdin>".into()))
    }

    /// How many lines of the current input jq would have read by now.
    pub fn line_number(&mut self) -> usize {
        let Some(at) = self.last else { return 0 };
        let f = self.file_of(at);
        let start = self.files.get(f).map_or(0, |(s, _)| *s);
        let end = self.files.get(f + 1).map_or(self.data.len(), |(s, _)| *s);
        let at = at.clamp(start, end);
        let count = match self.cache {
            Some((cf, pos, count)) if cf == f && pos <= at => {
                count + json::count_newlines(&self.data[pos..at])
            }
            _ => json::count_newlines(&self.data[start..at]),
        };
        self.cache = Some((f, at, count));
        let next_nl = match self.next_nl {
            Some((from, found)) if from <= at && at <= found && found <= end => found,
            _ => self.data[at..end].iter().position(|&b| b == b'\n').map_or(end, |p| at + p),
        };
        self.next_nl = Some((at, next_nl));
        count + usize::from(next_nl < end)
    }

    /// `FILE:LINE` for error messages, or `<unknown>` before any input.
    pub fn location(&mut self) -> String {
        let Some(at) = self.last else { return "<unknown>".into() };
        let name =
            self.files.get(self.file_of(at)).and_then(|(_, n)| n.clone()).unwrap_or_else(|| "<stdin>".into());
        format!("{name}:{}", self.line_number())
    }
}
