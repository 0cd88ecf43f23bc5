//! What `set` and `shopt` options change in the interpreter:
//! `PIPESTATUS`, `set -C` (noclobber), `set -a` (allexport).

use crate::ctx::Io;
use crate::expand::quote_if_needed;
use crate::interp::Interp;
use crate::system::Kind;

impl Interp<'_> {
    /// `PIPESTATUS`: the statuses of the last pipeline's commands.
    pub(crate) fn set_pipestatus(&mut self, statuses: &[i32]) {
        self.state.vars.remove("PIPESTATUS");
        let array = statuses.iter().map(i32::to_string).collect();
        self.state.arrays.insert("PIPESTATUS".to_string(), array);
    }

    /// `set -C`: `>` onto an existing regular file fails (`>|` does not).
    pub(crate) fn noclobber_check(&mut self, path: &str) -> Result<(), i32> {
        if self.state.options.noclobber && self.sys.stat(path).is_ok_and(|m| m.kind == Kind::File) {
            self.report(&format!("{path}: cannot overwrite existing file"));
            return Err(1);
        }
        Ok(())
    }

    /// `set -x`: `PS4` (default `+ `) and the words, quoted where needed.
    pub(crate) fn trace_command(&mut self, argv: &[String], io: &Io) {
        if self.state.options.xtrace {
            let words: Vec<String> = argv.iter().map(|w| quote_if_needed(w)).collect();
            self.trace(&words.join(" "), io);
        }
    }

    /// `set -x` for an assignment without a command: `+ NAME=value`.
    pub(crate) fn trace_assignment(&mut self, name: &str, io: &Io) {
        if self.state.options.xtrace && !self.state.is_array(name) {
            let value = self.state.get(name).unwrap_or_default();
            let value = if value.is_empty() { String::new() } else { quote_if_needed(value) };
            self.trace(&format!("{name}={value}"), io);
        }
    }

    fn trace(&mut self, text: &str, io: &Io) {
        let ps4 = self.state.get("PS4").unwrap_or("+ ").to_string();
        let line = format!("{ps4}{text}\n");
        let _ = io.stderr.borrow_mut().write(&mut *self.sys, line.as_bytes());
    }

    /// `shopt -s globstar`: what `**` matches under each of `bases`: the
    /// bases and every directory below them, or (as the last component)
    /// every file and directory below them. Hidden names need `dotglob`.
    pub(crate) fn globstar(&mut self, bases: &[String], last: bool) -> Vec<String> {
        let dotglob = self.state.options.shopt("dotglob");
        let mut out = Vec::new();
        for base in bases {
            if !last {
                out.push(base.clone());
            }
            let mut stack = vec![base.clone()];
            while let Some(dir) = stack.pop() {
                let Ok(entries) = self.sys.readdir(if dir.is_empty() { "." } else { &dir }) else { continue };
                for entry in entries {
                    if entry.name.starts_with('.') && !dotglob {
                        continue;
                    }
                    let path = match dir.as_str() {
                        "" => entry.name.clone(),
                        d if d.ends_with('/') => format!("{d}{}", entry.name),
                        d => format!("{d}/{}", entry.name),
                    };
                    let is_dir = entry.kind == Kind::Dir;
                    if is_dir {
                        stack.push(path.clone());
                    }
                    if last || is_dir {
                        out.push(path);
                    }
                    if out.len() > crate::expand::MAX_GLOB_MATCHES {
                        return out;
                    }
                }
            }
        }
        out
    }

    /// `[[ == ]]` and `case` matching: `shopt -s nocasematch` ignores case.
    pub(crate) fn match_pattern(&self, pattern: &str, text: &str) -> bool {
        if self.state.options.shopt("nocasematch") {
            crate::pattern::fnmatch(&pattern.to_lowercase(), &text.to_lowercase())
        } else {
            crate::pattern::fnmatch(pattern, text)
        }
    }
}
