//! Searching files and directories and printing what matched.

use super::*;

pub(super) fn join_path(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// GNU's `--include`/`--exclude` test: the glob matches the whole name or a
/// suffix that starts right after a `/`.
pub(super) fn glob_matches(glob: &str, path: &str) -> bool {
    if fnmatch(glob, path) {
        return true;
    }
    path.char_indices().filter(|&(_, c)| c == '/').any(|(k, _)| fnmatch(glob, &path[k + 1..]))
}

impl Grep<'_> {
    pub(super) fn flush(&mut self, ctx: &mut Ctx) {
        if !self.out.is_empty() && !self.closed && ctx.out(&self.out).is_err() {
            self.closed = true;
        }
        self.out.clear();
    }

    pub(super) fn maybe_flush(&mut self, ctx: &mut Ctx) {
        if self.out.len() >= 64 * 1024 {
            self.flush(ctx);
        }
    }

    pub(super) fn file_skipped(&self, path: &str) -> bool {
        let c = self.cfg;
        if c.excludes.iter().any(|g| glob_matches(g, path)) {
            return true;
        }
        !c.includes.is_empty() && !c.includes.iter().any(|g| glob_matches(g, path))
    }

    pub(super) fn complain(&mut self, ctx: &mut Ctx, path: &str, err: &crate::system::FsError) {
        self.error = true;
        if !self.cfg.no_messages {
            self.flush(ctx);
            ctx.file_error("grep", path, err);
        }
    }

    pub(super) fn operand(&mut self, ctx: &mut Ctx, op: &str) {
        if op == "-" {
            let data = ctx.stdin_all();
            let name = self.cfg.label.clone();
            self.name_on = self.cfg.with_name.unwrap_or(self.cfg.multi);
            self.search(ctx, &name, &data);
            return;
        }
        if let Some(result) = ctx.special_input(op) {
            self.name_on = self.cfg.with_name.unwrap_or(self.cfg.multi);
            match result {
                Ok(data) => self.search(ctx, op, &data),
                Err(e) => self.complain(ctx, op, &e),
            }
            return;
        }
        match ctx.sys().stat(op) {
            Err(e) => self.complain(ctx, op, &e),
            Ok(meta) if meta.kind == Kind::Dir => {
                if self.cfg.skip_dirs {
                    return;
                }
                if self.cfg.recursive {
                    if self.cfg.exclude_dirs.iter().any(|g| glob_matches(g, op)) {
                        return;
                    }
                    self.walk(ctx, op, op);
                } else {
                    self.error = true;
                    if !self.cfg.no_messages {
                        self.flush(ctx);
                        ctx.error("grep", format!("{op}: Is a directory"));
                    }
                }
            }
            Ok(_) => {
                if self.file_skipped(op) {
                    return;
                }
                self.name_on = self.cfg.with_name.unwrap_or(self.cfg.multi);
                self.file(ctx, op, op);
            }
        }
    }

    pub(super) fn file(&mut self, ctx: &mut Ctx, path: &str, shown: &str) {
        match ctx.sys().read(path) {
            Ok(data) => self.search(ctx, shown, &data),
            Err(e) => self.complain(ctx, shown, &e),
        }
    }

    /// Searches the directory `path`, naming its files under `shown`.
    pub(super) fn walk(&mut self, ctx: &mut Ctx, path: &str, shown: &str) {
        let entries = match ctx.sys().readdir(path) {
            Ok(e) => e,
            Err(e) => {
                self.complain(ctx, if shown.is_empty() { "." } else { shown }, &e);
                return;
            }
        };
        for entry in entries {
            if self.done || self.closed || ctx.interrupted() {
                return;
            }
            let child = join_path(path, &entry.name);
            let child_shown = join_path(shown, &entry.name);
            match entry.kind {
                Kind::Dir => {
                    if self.cfg.exclude_dirs.iter().any(|g| glob_matches(g, &entry.name)) {
                        continue;
                    }
                    self.walk(ctx, &child, &child_shown);
                }
                Kind::File => {
                    if self.file_skipped(&child_shown) {
                        continue;
                    }
                    self.name_on = self.cfg.with_name.unwrap_or(true);
                    self.file(ctx, &child, &child_shown);
                }
            }
        }
    }

    pub(super) fn name_prefix(&mut self, name: &str, sep: u8) {
        if !self.name_on {
            return;
        }
        if self.cfg.color {
            self.out.extend_from_slice(C_FILE);
            self.out.extend_from_slice(name.as_bytes());
            self.out.extend_from_slice(C_END);
        } else {
            self.out.extend_from_slice(name.as_bytes());
        }
        if self.cfg.null {
            self.out.push(0);
        } else {
            self.sep(sep);
        }
    }

    pub(super) fn sep(&mut self, sep: u8) {
        if self.cfg.color {
            self.out.extend_from_slice(C_SEP);
            self.out.push(sep);
            self.out.extend_from_slice(C_END);
        } else {
            self.out.push(sep);
        }
    }

    pub(super) fn number(&mut self, n: usize, sep: u8, color: &[u8]) {
        if self.cfg.color {
            self.out.extend_from_slice(color);
            self.out.extend_from_slice(n.to_string().as_bytes());
            self.out.extend_from_slice(C_END);
        } else {
            self.out.extend_from_slice(n.to_string().as_bytes());
        }
        self.sep(sep);
    }

    /// Prints one line (selected: `sep` is `:`, context: `-`).
    /// `buf` is what was searched, `text` what is printed (they differ
    /// only by case folding and NUL bytes, never by position).
    pub(super) fn print_line(
        &mut self,
        name: &str,
        (buf, text): (&[u8], &[u8]),
        ls: usize,
        le: usize,
        lineno: usize,
        sep: u8,
    ) {
        self.name_prefix(name, sep);
        if self.cfg.line_numbers {
            self.number(lineno, sep, C_LINENO);
        }
        if self.cfg.byte_offset {
            self.number(ls, sep, C_LINENO);
        }
        if self.cfg.color && sep == b':' && !self.cfg.invert {
            self.m.matches_in_line(buf, ls, le, &mut self.locs, &mut self.spans);
            let mut at = ls;
            let spans = std::mem::take(&mut self.spans);
            for &(s, e) in &spans {
                if e <= s || s < at {
                    continue;
                }
                self.out.extend_from_slice(&text[at..s]);
                self.out.extend_from_slice(C_MATCH);
                self.out.extend_from_slice(&text[s..e.min(le)]);
                self.out.extend_from_slice(C_END);
                at = e.min(le);
            }
            self.spans = spans;
            self.out.extend_from_slice(&text[at..le]);
        } else {
            self.out.extend_from_slice(&text[ls..le]);
        }
        self.out.push(b'\n');
    }

    pub(super) fn group_separator(&mut self) {
        if let Some(sep) = &self.cfg.group_sep {
            if self.cfg.color {
                self.out.extend_from_slice(C_SEP);
                self.out.extend_from_slice(sep);
                self.out.extend_from_slice(C_END);
            } else {
                self.out.extend_from_slice(sep);
            }
            self.out.push(b'\n');
        }
    }

    /// Searches one file's contents.
    pub(super) fn search(&mut self, ctx: &mut Ctx, name: &str, data: &[u8]) {
        let binary = !self.cfg.text && data.contains(&0);
        let fold = self.m.fold;
        let converted;
        let buf: &[u8] = if binary || fold {
            // GNU treats NUL bytes of a binary file as line ends; `fold`
            // matches literal patterns against lower-cased text.
            converted = data
                .iter()
                .map(|&b| {
                    if b == 0 && binary {
                        b'\n'
                    } else if fold {
                        b.to_ascii_lowercase()
                    } else {
                        b
                    }
                })
                .collect::<Vec<u8>>();
            &converted
        } else {
            data
        };
        let cfg = self.cfg;
        if binary && cfg.skip_binary {
            match cfg.mode {
                Mode::Count => {
                    self.name_prefix(name, b':');
                    self.out.extend_from_slice(b"0\n");
                }
                Mode::FilesWithout => self.name_only(name),
                _ => {}
            }
            return;
        }
        let mut scan = Scan { m: self.m, buf, pos: 0, next: None, invert: cfg.invert, fetched: false };
        let mut count: u64 = 0;
        // Line-number cursor.
        let (mut cpos, mut cline) = (0usize, 1usize);
        let mut lineno_at = |pos: usize| -> usize {
            if pos >= cpos {
                cline += count_byte(b'\n', &buf[cpos..pos]);
            } else {
                cline -= count_byte(b'\n', &buf[pos..cpos]);
            }
            cpos = pos;
            cline
        };
        // Context state.
        let context = cfg.mode == Mode::Lines && !cfg.only && cfg.context;
        let mut last_end = 0usize;
        let mut first_group = true;
        let mut after_left = 0usize;

        while let Some((ls, le)) = scan.next() {
            count += 1;
            self.matched = true;
            match cfg.mode {
                Mode::Quiet => {
                    self.done = true;
                    return;
                }
                Mode::FilesWith => {
                    self.name_only(name);
                    self.maybe_flush(ctx);
                    return;
                }
                Mode::FilesWithout => return,
                Mode::Count => {}
                Mode::Lines => {
                    if binary {
                        self.flush(ctx);
                        ctx.error("grep", format!("{name}: binary file matches"));
                        return;
                    }
                    if cfg.only {
                        if !cfg.invert {
                            let lineno = if cfg.line_numbers { lineno_at(ls) } else { 0 };
                            self.print_only(name, buf, data, ls, le, lineno);
                        }
                    } else if context {
                        // Trailing context of the previous line.
                        while after_left > 0 && last_end < ls {
                            let e = line_end(buf, last_end);
                            let n = if cfg.line_numbers { lineno_at(last_end) } else { 0 };
                            self.print_line(name, (buf, data), last_end, e, n, b'-');
                            last_end = e + 1;
                            after_left -= 1;
                        }
                        // Leading context.
                        let mut b = ls;
                        for _ in 0..cfg.before {
                            if b <= last_end {
                                break;
                            }
                            b = match buf[last_end..b - 1].iter().rposition(|&x| x == b'\n') {
                                Some(k) => last_end + k + 1,
                                None => last_end,
                            };
                        }
                        if self.printed_any && (first_group || b > last_end) {
                            self.group_separator();
                        }
                        first_group = false;
                        while b < ls {
                            let e = line_end(buf, b);
                            let n = if cfg.line_numbers { lineno_at(b) } else { 0 };
                            self.print_line(name, (buf, data), b, e, n, b'-');
                            b = e + 1;
                        }
                        let n = if cfg.line_numbers { lineno_at(ls) } else { 0 };
                        self.print_line(name, (buf, data), ls, le, n, b':');
                        self.printed_any = true;
                        last_end = le + 1;
                        after_left = cfg.after;
                    } else {
                        let n = if cfg.line_numbers { lineno_at(ls) } else { 0 };
                        self.print_line(name, (buf, data), ls, le, n, b':');
                    }
                    self.maybe_flush(ctx);
                    if self.closed {
                        return;
                    }
                }
            }
            if cfg.max.is_some_and(|m| count >= m) {
                break;
            }
        }
        if context {
            while after_left > 0 && last_end < buf.len() {
                let e = line_end(buf, last_end);
                let n = if cfg.line_numbers { lineno_at(last_end) } else { 0 };
                self.print_line(name, (buf, data), last_end, e, n, b'-');
                last_end = e + 1;
                after_left -= 1;
            }
        }
        match cfg.mode {
            Mode::Count => {
                self.name_prefix(name, b':');
                self.out.extend_from_slice(count.to_string().as_bytes());
                self.out.push(b'\n');
            }
            Mode::FilesWithout if count == 0 => self.name_only(name),
            _ => {}
        }
        self.maybe_flush(ctx);
    }

    pub(super) fn name_only(&mut self, name: &str) {
        if self.cfg.color {
            self.out.extend_from_slice(C_FILE);
            self.out.extend_from_slice(name.as_bytes());
            self.out.extend_from_slice(C_END);
        } else {
            self.out.extend_from_slice(name.as_bytes());
        }
        self.out.push(if self.cfg.null { 0 } else { b'\n' });
    }

    pub(super) fn print_only(
        &mut self,
        name: &str,
        buf: &[u8],
        text: &[u8],
        ls: usize,
        le: usize,
        lineno: usize,
    ) {
        self.m.matches_in_line(buf, ls, le, &mut self.locs, &mut self.spans);
        let spans = std::mem::take(&mut self.spans);
        for &(s, e) in &spans {
            let e = e.min(le);
            if e <= s {
                continue;
            }
            self.name_prefix(name, b':');
            if self.cfg.line_numbers {
                self.number(lineno, b':', C_LINENO);
            }
            if self.cfg.byte_offset {
                self.number(s, b':', C_LINENO);
            }
            if self.cfg.color {
                self.out.extend_from_slice(C_MATCH);
                self.out.extend_from_slice(&text[s..e]);
                self.out.extend_from_slice(C_END);
            } else {
                self.out.extend_from_slice(&text[s..e]);
            }
            self.out.push(b'\n');
        }
        self.spans = spans;
    }
}

/// The selected lines of a buffer, in order.
pub(super) struct Scan<'a> {
    pub(super) m: &'a Matcher,
    pub(super) buf: &'a [u8],
    /// Start of the next line to consider.
    pub(super) pos: usize,
    /// The next matching line at or after `pos` (for `-v`).
    pub(super) next: Option<(usize, usize)>,
    pub(super) fetched: bool,
    pub(super) invert: bool,
}

impl Scan<'_> {
    pub(super) fn next(&mut self) -> Option<(usize, usize)> {
        let buf = self.buf;
        if !self.invert {
            let (ls, le) = self.m.find_line(buf, self.pos)?;
            self.pos = le + 1;
            return Some((ls, le));
        }
        loop {
            if self.pos >= buf.len() {
                return None;
            }
            if !self.fetched || self.next.is_some_and(|(ls, _)| ls < self.pos) {
                self.next = self.m.find_line(buf, self.pos);
                self.fetched = true;
            }
            match self.next {
                Some((ls, le)) if ls == self.pos => {
                    self.pos = le + 1;
                    self.fetched = false;
                }
                _ => {
                    let ls = self.pos;
                    let le = line_end(buf, ls);
                    self.pos = le + 1;
                    return Some((ls, le));
                }
            }
        }
    }
}
