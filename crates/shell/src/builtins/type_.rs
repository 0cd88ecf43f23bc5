//! `type`: says how each name would run (alias, keyword, function, builtin
//! or a file on `PATH`), with bash's `-t -p -P -a -f`.

use super::Builtin;
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "type",
    run,
    help: "Usage: type [-afptP] NAME...\nDescribes how each NAME would be run.\n",
    help_flag: true,
};

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done", "in",
    "function", "select", "{", "}", "!", "[[", "]]", "time", "coproc",
];

/// One way a name can run.
pub(crate) enum Found {
    Alias(String),
    Keyword,
    Function(String),
    Builtin,
    File(String),
}

impl Found {
    /// `type -t`'s word.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Found::Alias(_) => "alias",
            Found::Keyword => "keyword",
            Found::Function(_) => "function",
            Found::Builtin => "builtin",
            Found::File(_) => "file",
        }
    }

    /// `type`'s sentence (with the function's text, as bash prints it).
    pub(crate) fn describe(&self, name: &str) -> String {
        match self {
            Found::Alias(v) => format!("{name} is aliased to `{v}'\n"),
            Found::Keyword => format!("{name} is a shell keyword\n"),
            Found::Function(text) => format!("{name} is a function\n{text}"),
            Found::Builtin => format!("{name} is a shell builtin\n"),
            Found::File(path) => format!("{name} is {path}\n"),
        }
    }
}

/// A function's definition as bash's `type` and `declare -f` print it.
pub(crate) fn function_text(ctx: &mut Ctx, name: &str) -> Option<String> {
    let body = ctx.state().functions.get(name)?.clone();
    Some(format!("{name} () \n{body}\n"))
}

/// A file called `name` on `PATH` that is not executable: running `name`
/// then fails with "Permission denied", as in bash.
pub(crate) fn path_non_executable(ctx: &mut Ctx, name: &str) -> Option<String> {
    let path = ctx.state().get("PATH").unwrap_or_default().to_string();
    path.split(':')
        .map(
            |dir| {
                if dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{}/{name}", dir.trim_end_matches('/'))
                }
            },
        )
        .find(|candidate| ctx.sys().stat(candidate).is_ok_and(|m| m.kind == Kind::File))
}

/// The executable files `name` stands for: itself when it has a `/`, else
/// each `PATH` directory's (all of them, or the first).
pub(crate) fn path_files(ctx: &mut Ctx, name: &str, all: bool) -> Vec<String> {
    let executable = |ctx: &mut Ctx, path: &str| {
        ctx.sys().stat(path).is_ok_and(|m| m.kind != Kind::Dir && m.mode & 0o111 != 0)
    };
    if name.contains('/') {
        return if executable(ctx, name) { vec![name.to_string()] } else { Vec::new() };
    }
    if name.is_empty() {
        return Vec::new();
    }
    let path = ctx.state().get("PATH").unwrap_or_default().to_string();
    let mut found = Vec::new();
    for dir in path.split(':') {
        let candidate =
            if dir.is_empty() { name.to_string() } else { format!("{}/{name}", dir.trim_end_matches('/')) };
        if executable(ctx, &candidate) {
            found.push(candidate);
            if !all {
                break;
            }
        }
    }
    found
}

/// Every way `name` can run, in bash's order (the first one runs).
pub(crate) fn lookup(ctx: &mut Ctx, name: &str, all: bool, functions: bool) -> Vec<Found> {
    let mut found = Vec::new();
    // Aliases count only where they expand (`shopt -s expand_aliases`).
    if ctx.state().options.shopt("expand_aliases") {
        if let Some(value) = ctx.state().aliases.get(name) {
            found.push(Found::Alias(value.clone()));
        }
    }
    if KEYWORDS.contains(&name) {
        found.push(Found::Keyword);
    }
    if functions {
        if let Some(text) = function_text(ctx, name) {
            found.push(Found::Function(text));
        }
    }
    // A builtin that stands for a program comes after files on `PATH`.
    let program = super::find(name).is_some() && !super::is_shell_builtin(name);
    let files = if all || found.is_empty() || program { path_files(ctx, name, all) } else { Vec::new() };
    let (before, after) =
        if program && !files.is_empty() { (files, Vec::new()) } else { (Vec::new(), files) };
    found.extend(before.into_iter().map(Found::File));
    if super::find(name).is_some() {
        found.push(Found::Builtin);
    }
    found.extend(after.into_iter().map(Found::File));
    if !all {
        found.truncate(1);
    }
    found
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut short, mut path_only, mut force_path, mut all, mut functions) =
        (false, false, false, false, true);
    let mut names = Vec::new();
    let mut options = true;
    for a in args {
        match a.strip_prefix('-') {
            Some("-") if options => options = false,
            Some(flags) if options && !flags.is_empty() && flags.chars().all(|c| "atpPf".contains(c)) => {
                short |= flags.contains('t');
                path_only |= flags.contains('p');
                force_path |= flags.contains('P');
                all |= flags.contains('a');
                functions &= !flags.contains('f');
            }
            Some(flags) if options && !flags.is_empty() => {
                let c = flags.chars().next().unwrap_or('-');
                ctx.shell_error(&format!(
                    "type: -{c}: invalid option\ntype: usage: type [-afptP] name [name ...]"
                ));
                return 2;
            }
            _ => {
                options = false;
                names.push(a);
            }
        }
    }
    let mut status = 0;
    for name in names {
        if force_path {
            let files = path_files(ctx, name, all);
            if files.is_empty() {
                status = 1;
            }
            let text: String = files.iter().map(|f| format!("{f}\n")).collect();
            let _ = ctx.out(text);
            continue;
        }
        let found = lookup(ctx, name, all, functions);
        if found.is_empty() {
            if !short && !path_only {
                ctx.shell_error(&format!("type: {name}: not found"));
            }
            status = 1;
            continue;
        }
        let mut text = String::new();
        for f in &found {
            match f {
                Found::File(path) if path_only => text.push_str(&format!("{path}\n")),
                _ if path_only => {}
                _ if short => text.push_str(&format!("{}\n", f.kind())),
                _ => text.push_str(&f.describe(name)),
            }
        }
        let _ = ctx.out(text);
    }
    status
}
