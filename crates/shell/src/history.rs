//! The shell's command history, kept in memory for `history`: bounded by
//! `$HISTSIZE` (500 when unset) and never above [`MAX_ENTRIES`].

/// The most entries kept, whatever `$HISTSIZE` says.
pub const MAX_ENTRIES: usize = 10_000;

#[derive(Debug, Clone, Default)]
pub struct History {
    pub entries: Vec<String>,
    /// Entries already appended to the history file (`history -a`).
    pub appended: usize,
    /// Lines of the history file already read (`history -r`, `-n`).
    pub file_lines: usize,
}

impl History {
    /// Adds an entry, dropping the oldest beyond `limit`.
    pub fn push(&mut self, line: String, limit: usize) {
        self.entries.push(line);
        self.trim(limit);
    }

    /// Drops the oldest entries beyond `limit`.
    pub fn trim(&mut self, limit: usize) {
        let limit = limit.min(MAX_ENTRIES);
        if self.entries.len() > limit {
            let extra = self.entries.len() - limit;
            self.entries.drain(..extra);
            self.appended = self.appended.saturating_sub(extra);
        }
    }
}
