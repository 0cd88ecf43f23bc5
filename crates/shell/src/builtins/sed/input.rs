//! The input stream: files opened one after the other, lazily.

use super::*;

/// The input stream: files opened one after the other, lazily.
pub(super) struct Input {
    pub(super) files: Vec<String>,
    pub(super) next_file: usize,
    /// Current file's name, data and read position.
    pub(super) cur: Option<(String, Vec<u8>)>,
    pub(super) pos: usize,
    pub(super) sep: u8,
}

pub(super) enum Fatal {
    /// `read error on X: Is a directory` (status 4).
    Dir(String),
}

impl Input {
    pub(super) fn new(files: Vec<String>, sep: u8) -> Self {
        Input { files, next_file: 0, cur: None, pos: 0, sep }
    }

    /// Makes sure the current file has data left, opening the next files as
    /// needed. False at the end of the input.
    pub(super) fn fill(&mut self, ctx: &mut Ctx, status: &mut i32) -> Result<bool, Fatal> {
        loop {
            if let Some((_, data)) = &self.cur {
                if self.pos < data.len() {
                    return Ok(true);
                }
            }
            let Some(name) = self.files.get(self.next_file).cloned() else { return Ok(false) };
            self.next_file += 1;
            match ctx.read_input(&name) {
                Ok(data) => {
                    self.cur = Some((name, data));
                    self.pos = 0;
                }
                Err(e) if e.errno == "EISDIR" => return Err(Fatal::Dir(name)),
                Err(e) => {
                    ctx.error("sed", format!("can't read {name}: {}", e.describe()));
                    *status = 2;
                }
            }
        }
    }

    /// The next line into `into`; whether it ended with the separator.
    pub(super) fn read(
        &mut self,
        ctx: &mut Ctx,
        status: &mut i32,
        into: &mut Vec<u8>,
    ) -> Result<Option<bool>, Fatal> {
        if !self.fill(ctx, status)? {
            return Ok(None);
        }
        let Some((_, data)) = &self.cur else { return Ok(None) };
        let rest = &data[self.pos..];
        let end =
            if self.sep == b'\n' { memchr(b'\n', rest) } else { rest.iter().position(|&b| b == self.sep) };
        let (line, chomped, used) = match end {
            Some(k) => (&rest[..k], true, k + 1),
            None => (rest, false, rest.len()),
        };
        into.clear();
        into.extend_from_slice(line);
        self.pos += used;
        Ok(Some(chomped))
    }

    pub(super) fn is_last(&mut self, ctx: &mut Ctx, status: &mut i32) -> Result<bool, Fatal> {
        Ok(!self.fill(ctx, status)?)
    }

    pub(super) fn name(&self) -> &str {
        match &self.cur {
            Some((n, _)) => n,
            None => "-",
        }
    }
}
