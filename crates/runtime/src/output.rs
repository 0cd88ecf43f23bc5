//! Capped output buffers: text past the limit is dropped, never buffered,
//! and the run's result carries a visible marker.

/// One output stream of a run.
#[derive(Debug, Default)]
pub(crate) struct Captured {
    text: String,
    limit: usize,
    truncated: bool,
}

impl Captured {
    pub(crate) fn new(limit: usize) -> Self {
        Self { text: String::new(), limit, truncated: false }
    }

    /// Appends as much of `chunk` as fits (cut at a character boundary) and
    /// returns the bytes still free.
    pub(crate) fn push(&mut self, chunk: &str) -> usize {
        if self.truncated {
            return 0;
        }
        let room = self.limit.saturating_sub(self.text.len());
        if chunk.len() <= room {
            self.text.push_str(chunk);
        } else {
            let mut cut = room;
            while !chunk.is_char_boundary(cut) {
                cut -= 1;
            }
            self.text.push_str(chunk.get(..cut).unwrap_or_default());
            self.truncated = true;
        }
        if self.truncated {
            0
        } else {
            self.limit.saturating_sub(self.text.len())
        }
    }

    pub(crate) fn truncated(&self) -> bool {
        self.truncated
    }

    /// The captured text, with the truncation marker when text was dropped.
    pub(crate) fn finish(self) -> String {
        let mut text = self.text;
        if self.truncated {
            if !text.ends_with('\n') && !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("[cordon: output truncated at {} bytes]\n", self.limit));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_text_under_the_limit() {
        let mut out = Captured::new(10);
        assert_eq!(out.push("abc"), 7);
        assert!(!out.truncated());
        assert_eq!(out.finish(), "abc");
    }

    #[test]
    fn truncates_at_a_char_boundary_and_marks_it() {
        let mut out = Captured::new(4);
        assert_eq!(out.push("ab"), 2);
        assert_eq!(out.push("cé!"), 0);
        assert!(out.truncated());
        assert_eq!(out.finish(), "abc\n[cordon: output truncated at 4 bytes]\n");
    }

    #[test]
    fn drops_everything_after_truncation() {
        let mut out = Captured::new(3);
        out.push("abcd");
        assert_eq!(out.push("x"), 0);
        assert_eq!(out.finish(), "abc\n[cordon: output truncated at 3 bytes]\n");
    }
}
