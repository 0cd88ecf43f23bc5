//! Programmable completion shared by `compgen`, `complete` and `compopt`:
//! the specification their options describe, bash's listing of it, and
//! the candidates it generates.

use crate::ctx::Ctx;
use crate::io::Sink;

/// The actions (`-A NAME`), in the order bash generates them.
const ACTIONS: &[&str] = &[
    "alias",
    "arrayvar",
    "binding",
    "builtin",
    "disabled",
    "enabled",
    "export",
    "function",
    "helptopic",
    "hostname",
    "job",
    "keyword",
    "running",
    "setopt",
    "shopt",
    "signal",
    "stopped",
    "variable",
    "command",
    "file",
    "user",
    "group",
    "service",
    "directory",
];

/// Single-letter actions and the names they stand for.
const FLAGS: &[(char, &str)] = &[
    ('a', "alias"),
    ('b', "builtin"),
    ('c', "command"),
    ('d', "directory"),
    ('e', "export"),
    ('f', "file"),
    ('g', "group"),
    ('j', "job"),
    ('k', "keyword"),
    ('s', "service"),
    ('u', "user"),
    ('v', "variable"),
];

/// `-o` option names, in bash's listing order.
pub(crate) const OPTIONS: &[&str] =
    &["bashdefault", "default", "dirnames", "filenames", "noquote", "nosort", "nospace", "plusdirs"];

/// Bash's builtin commands (`compgen -b`).
const BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// Bash's reserved words (`compgen -k`).
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
    "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

const SIGNALS: &[&str] = &[
    "SIGHUP",
    "SIGINT",
    "SIGQUIT",
    "SIGILL",
    "SIGTRAP",
    "SIGABRT",
    "SIGBUS",
    "SIGFPE",
    "SIGKILL",
    "SIGUSR1",
    "SIGSEGV",
    "SIGUSR2",
    "SIGPIPE",
    "SIGALRM",
    "SIGTERM",
    "SIGCHLD",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGURG",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGVTALRM",
    "SIGPROF",
    "SIGWINCH",
    "SIGIO",
    "SIGSYS",
];

/// Shell variables that exist without being assigned.
const DYNAMIC: &[&str] = &[
    "BASH",
    "BASHOPTS",
    "BASH_VERSION",
    "LINENO",
    "OLDPWD",
    "PPID",
    "PWD",
    "RANDOM",
    "SECONDS",
    "SHELLOPTS",
    "UID",
    "EUID",
];

/// A completion specification.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompSpec {
    /// Action names, as in [`ACTIONS`].
    pub actions: Vec<&'static str>,
    /// `-o` names, as in [`OPTIONS`].
    pub options: Vec<&'static str>,
    pub glob: Option<String>,
    pub words: Option<String>,
    pub prefix: Option<String>,
    pub suffix: Option<String>,
    pub filter: Option<String>,
    pub command: Option<String>,
    pub function: Option<String>,
}

/// What the option words of `compgen`/`complete`/`compopt` say.
#[derive(Debug, Default)]
pub struct Parsed {
    pub spec: CompSpec,
    /// `+o` names (compopt).
    pub off: Vec<&'static str>,
    /// Other flags given (`p`, `r`, `D`, `E`, `I`).
    pub flags: Vec<char>,
    pub operands: Vec<String>,
}

/// Why the options were refused.
pub enum ParseError {
    /// An unknown option letter or a missing value (the message): print
    /// the usage.
    Usage(String),
    /// A bad `-A` or `-o` name: the message.
    Name(String),
}

/// Parses the options; `extra` lists the letters this builtin takes beyond
/// the common ones (`pr` and `DEI` for `complete`).
pub fn parse(argv: &[String], extra: &str, plus_o: bool) -> Result<Parsed, ParseError> {
    let mut out = Parsed::default();
    let mut i = 0;
    while let Some(arg) = argv.get(i) {
        i += 1;
        if arg == "--" {
            break;
        }
        let plus = arg.starts_with('+') && plus_o;
        if !(arg.starts_with('-') || plus) || arg.len() < 2 {
            i -= 1;
            break;
        }
        let letters: Vec<char> = arg.chars().skip(1).collect();
        let mut j = 0;
        while let Some(&c) = letters.get(j) {
            j += 1;
            if plus && c != 'o' {
                return Err(ParseError::Usage(format!("+{c}: invalid option")));
            }
            if let Some((_, name)) = FLAGS.iter().find(|(f, _)| *f == c) {
                push(&mut out.spec.actions, name);
                continue;
            }
            if extra.contains(c) {
                out.flags.push(c);
                continue;
            }
            if !"AGWPSXCFo".contains(c) {
                return Err(ParseError::Usage(format!("-{c}: invalid option")));
            }
            let value: String = if j < letters.len() {
                let v = letters[j..].iter().collect();
                j = letters.len();
                v
            } else if let Some(v) = argv.get(i) {
                i += 1;
                v.clone()
            } else {
                return Err(ParseError::Usage(format!("-{c}: option requires an argument")));
            };
            match c {
                'A' => match ACTIONS.iter().find(|a| **a == value) {
                    Some(name) => push(&mut out.spec.actions, name),
                    None => return Err(ParseError::Name(format!("{value}: invalid action name"))),
                },
                'o' => match OPTIONS.iter().find(|a| **a == value) {
                    Some(name) if plus => push(&mut out.off, name),
                    Some(name) => push(&mut out.spec.options, name),
                    None => return Err(ParseError::Name(format!("{value}: invalid option name"))),
                },
                'G' => out.spec.glob = Some(value),
                'W' => out.spec.words = Some(value),
                'P' => out.spec.prefix = Some(value),
                'S' => out.spec.suffix = Some(value),
                'X' => out.spec.filter = Some(value),
                'C' => out.spec.command = Some(value),
                _ => out.spec.function = Some(value),
            }
        }
    }
    out.operands = argv.get(i..).unwrap_or_default().to_vec();
    Ok(out)
}

fn push(list: &mut Vec<&'static str>, name: &'static str) {
    if !list.contains(&name) {
        list.push(name);
    }
}

fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `complete -p`'s line for `name` (`-D`, `-E`, `-I` for the special ones).
pub fn listing(spec: &CompSpec, name: &str) -> String {
    let mut line = String::from("complete ");
    for o in OPTIONS {
        if spec.options.contains(o) {
            line.push_str(&format!("-o {o} "));
        }
    }
    for (c, action) in FLAGS {
        if spec.actions.contains(action) {
            line.push_str(&format!("-{c} "));
        }
    }
    let mut rest: Vec<&&str> = ACTIONS.iter().filter(|a| !FLAGS.iter().any(|(_, f)| f == *a)).collect();
    rest.sort_unstable();
    for action in rest {
        if spec.actions.contains(action) {
            line.push_str(&format!("-A {action} "));
        }
    }
    for (flag, value) in [
        ("-G", &spec.glob),
        ("-W", &spec.words),
        ("-P", &spec.prefix),
        ("-S", &spec.suffix),
        ("-X", &spec.filter),
        ("-C", &spec.command),
    ] {
        if let Some(v) = value {
            line.push_str(&format!("{flag} {} ", single_quote(v)));
        }
    }
    if let Some(f) = &spec.function {
        line.push_str(&format!("-F {f} "));
    }
    line.push_str(name);
    line.push('\n');
    line
}

/// The candidates of `spec` for `word`, or `None` when evaluating `-W`,
/// `-F` or `-C` failed.
pub fn generate(ctx: &mut Ctx, spec: &CompSpec, word: &str) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for action in ACTIONS {
        if spec.actions.contains(action) {
            out.extend(action_words(ctx, action, word));
        }
    }
    if let Some(glob) = &spec.glob {
        let names = files(ctx, "", false);
        out.extend(names.into_iter().filter(|n| crate::pattern::fnmatch(glob, n)));
    }
    if let Some(words) = &spec.words {
        let list = expand_words(ctx, words)?;
        out.extend(list.into_iter().filter(|w| w.starts_with(word)));
    }
    if let Some(function) = &spec.function {
        out.extend(call_function(ctx, function, word)?);
    }
    if let Some(command) = &spec.command {
        let text = capture(ctx, &[command.clone(), "compgen".into(), word.into(), String::new()]);
        out.extend(text.lines().map(str::to_string));
    }
    if let Some(filter) = &spec.filter {
        let (negate, pattern) = match filter.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, filter.as_str()),
        };
        out.retain(|w| crate::pattern::fnmatch(pattern, w) == negate);
    }
    if spec.prefix.is_some() || spec.suffix.is_some() {
        let (p, s) = (spec.prefix.clone().unwrap_or_default(), spec.suffix.clone().unwrap_or_default());
        out = out.into_iter().map(|w| format!("{p}{w}{s}")).collect();
    }
    if out.is_empty() && spec.options.contains(&"dirnames") {
        out.extend(files(ctx, word, true));
    }
    if spec.options.contains(&"plusdirs") {
        out.extend(files(ctx, word, true));
    }
    if out.is_empty() && (spec.options.contains(&"default") || spec.options.contains(&"bashdefault")) {
        out.extend(files(ctx, word, false));
    }
    Some(out)
}

fn matching<'s>(names: impl IntoIterator<Item = &'s str>, word: &str) -> Vec<String> {
    names.into_iter().filter(|n| n.starts_with(word)).map(str::to_string).collect()
}

fn variables(ctx: &mut Ctx, exported_only: bool) -> Vec<String> {
    let state = ctx.state();
    let mut names: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for (name, var) in &state.vars {
        if !exported_only || var.exported {
            names.insert(name.clone());
        }
    }
    for frame in &state.locals {
        for (name, var) in frame {
            if var.as_ref().is_some_and(|v| !exported_only || v.exported) {
                names.insert(name.clone());
            }
        }
    }
    // The working directory comes from the environment, exported.
    if exported_only && state.is_set("PWD") {
        names.insert("PWD".to_string());
    }
    if !exported_only {
        names.extend(state.arrays.keys().cloned());
        names.extend(state.assoc.keys().cloned());
        for name in DYNAMIC {
            if state.is_set(name) {
                names.insert((*name).to_string());
            }
        }
    }
    names.into_iter().collect()
}

fn action_words(ctx: &mut Ctx, action: &str, word: &str) -> Vec<String> {
    match action {
        "alias" => matching(ctx.state().aliases.keys().map(String::as_str).collect::<Vec<_>>(), word),
        "arrayvar" => {
            let state = ctx.state();
            let names: Vec<String> = state.arrays.keys().chain(state.assoc.keys()).cloned().collect();
            matching(names.iter().map(String::as_str), word)
        }
        "builtin" | "enabled" => matching(BUILTINS.iter().copied(), word),
        "helptopic" => {
            let mut topics: Vec<&str> = BUILTINS.to_vec();
            topics.extend([
                "case",
                "coproc",
                "for",
                "function",
                "if",
                "select",
                "time",
                "until",
                "variables",
                "while",
            ]);
            topics.sort_unstable();
            matching(topics, word)
        }
        "export" => matching(variables(ctx, true).iter().map(String::as_str), word),
        "variable" => matching(variables(ctx, false).iter().map(String::as_str), word),
        "function" => matching(ctx.state().functions.keys().map(String::as_str).collect::<Vec<_>>(), word),
        "keyword" => matching(KEYWORDS.iter().copied(), word),
        "setopt" => matching(super::set::LISTED.iter().map(|(n, _)| *n), word),
        "shopt" => matching(super::shopt::OPTIONS.iter().map(|(n, _)| *n), word),
        "signal" => matching(SIGNALS.iter().copied(), word),
        "user" | "group" => {
            let user = ctx.state().get("USER").map(str::to_string).unwrap_or_default();
            matching([user.as_str()].into_iter().filter(|u| !u.is_empty()), word)
        }
        "command" => {
            let mut names: Vec<String> = ctx.state().aliases.keys().cloned().collect();
            names.extend(KEYWORDS.iter().map(|k| (*k).to_string()));
            names.extend(ctx.state().functions.keys().cloned());
            names.extend(BUILTINS.iter().map(|b| (*b).to_string()));
            for program in super::PROGRAMS {
                if !BUILTINS.contains(&program) {
                    names.push(program.to_string());
                }
            }
            matching(names.iter().map(String::as_str), word)
        }
        "file" => files(ctx, word, false),
        "directory" => files(ctx, word, true),
        _ => Vec::new(),
    }
}

/// The paths starting with `word` (only directories when `dirs`), the way
/// readline completes file names: the directory part of `word` is kept and
/// hidden files are included.
fn files(ctx: &mut Ctx, word: &str, dirs: bool) -> Vec<String> {
    let (dir, base) = match word.rfind('/') {
        Some(i) => (&word[..=i], &word[i + 1..]),
        None => ("", word),
    };
    let listing = match ctx.sys().readdir(if dir.is_empty() { "." } else { dir }) {
        Ok(entries) => entries,
        Err(_) => return Vec::new(),
    };
    listing
        .into_iter()
        .filter(|e| e.name.starts_with(base))
        .filter(|e| !dirs || e.kind == crate::system::Kind::Dir)
        .map(|e| format!("{dir}{}", e.name))
        .collect()
}

/// Runs `argv` with its standard output collected.
fn capture(ctx: &mut Ctx, argv: &[String]) -> String {
    let buffer = crate::io::output(Sink::Buffer(Vec::new()));
    let saved = std::mem::replace(&mut ctx.io.stdout, buffer.clone());
    ctx.exec(argv, None);
    ctx.io.stdout = saved;
    let text = match &*buffer.borrow() {
        Sink::Buffer(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        _ => String::new(),
    };
    text
}

const SCRATCH: &str = "__cordon_compgen_words";

/// `-W`'s list: split at `IFS` (quotes and backslashes protect), then each
/// word expanded as the shell would (`$x`, `$(...)`, with word splitting).
fn expand_words(ctx: &mut Ctx, words: &str) -> Option<Vec<String>> {
    let ifs = ctx.state().get("IFS").map_or_else(|| " \t\n".to_string(), str::to_string);
    let mut script = format!("{SCRATCH}=(");
    for piece in split_raw(words, &ifs) {
        script.push(' ');
        script.push_str(&protect(&piece));
    }
    script.push_str(" )");
    let status = ctx.exec(&["eval".to_string(), script], None);
    let state = ctx.state();
    let list = state.arrays.get(SCRATCH).map(crate::state::Indexed::values).unwrap_or_default();
    state.arrays.remove(SCRATCH);
    state.vars.remove(SCRATCH);
    (status == 0).then_some(list)
}

/// Tracks quoting and `$(...)`/`${...}` nesting across a word.
struct Scan {
    depth: usize,
    single: bool,
    double: bool,
    backtick: bool,
}

impl Scan {
    fn top(&self) -> bool {
        self.depth == 0 && !self.single && !self.double && !self.backtick
    }

    /// Feeds `c` (with the next character); returns whether `c` escapes
    /// the next one.
    fn feed(&mut self, c: char, next: Option<char>) -> bool {
        if self.single {
            self.single = c != '\'';
            return false;
        }
        match c {
            '\\' => return true,
            '\'' if !self.double && self.depth == 0 => self.single = true,
            '"' if self.depth == 0 => self.double = !self.double,
            '`' => self.backtick = !self.backtick,
            '$' if matches!(next, Some('(' | '{')) => {}
            '(' | '{' if self.depth > 0 => self.depth += 1,
            ')' | '}' if self.depth > 0 => self.depth -= 1,
            _ => {}
        }
        false
    }
}

fn split_raw(text: &str, ifs: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut scan = Scan { depth: 0, single: false, double: false, backtick: false };
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if scan.top() && ifs.contains(c) {
            if !current.is_empty() {
                pieces.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c == '$' && matches!(chars.get(i), Some('(' | '{')) {
            current.push(c);
            if let Some(&open) = chars.get(i) {
                current.push(open);
            }
            i += 1;
            scan.depth += 1;
            continue;
        }
        current.push(c);
        if scan.feed(c, chars.get(i).copied()) {
            if let Some(&n) = chars.get(i) {
                current.push(n);
                i += 1;
            }
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Escapes the characters of `piece` the shell would treat as syntax
/// outside quotes and substitutions, so it stays one word.
fn protect(piece: &str) -> String {
    let chars: Vec<char> = piece.chars().collect();
    let mut scan = Scan { depth: 0, single: false, double: false, backtick: false };
    let mut out = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c == '$' && matches!(chars.get(i), Some('(' | '{')) {
            out.push(c);
            if let Some(&open) = chars.get(i) {
                out.push(open);
            }
            i += 1;
            scan.depth += 1;
            continue;
        }
        if scan.top() && " \t\n;|&<>()".contains(c) {
            out.push('\\');
        }
        out.push(c);
        if scan.feed(c, chars.get(i).copied()) {
            if let Some(&n) = chars.get(i) {
                out.push(n);
                i += 1;
            }
        }
    }
    out
}

/// Runs a completion function the way `compgen -F` does and returns its
/// `COMPREPLY`.
fn call_function(ctx: &mut Ctx, function: &str, word: &str) -> Option<Vec<String>> {
    if !ctx.state().functions.contains_key(function) {
        ctx.shell_error(&format!("completion: function `{function}' not found"));
        return Some(Vec::new());
    }
    {
        let state = ctx.state();
        state.arrays.insert("COMP_WORDS".into(), crate::state::Indexed::default());
        state.set("COMP_CWORD", "-1");
        state.set("COMP_LINE", "");
        state.set("COMP_POINT", "0");
    }
    let status = ctx.exec(&[function.to_string(), "compgen".into(), word.to_string(), String::new()], None);
    let state = ctx.state();
    for name in ["COMP_WORDS", "COMP_CWORD", "COMP_LINE", "COMP_POINT"] {
        state.unset(name);
    }
    let reply = match state.arrays.get("COMPREPLY") {
        Some(array) => array.values(),
        None => state.get("COMPREPLY").map(|v| vec![v.to_string()]).unwrap_or_default(),
    };
    let _ = status;
    Some(reply)
}

/// Prints a parse error the way bash does and returns status 2.
pub fn refuse(ctx: &mut Ctx, name: &str, usage: &str, err: ParseError) -> i32 {
    match err {
        ParseError::Usage(message) => {
            ctx.shell_error(&format!("{name}: {message}"));
            ctx.err(format!("{name}: usage: {name} {usage}\n"));
        }
        ParseError::Name(message) => ctx.shell_error(&format!("{name}: {message}")),
    }
    2
}
