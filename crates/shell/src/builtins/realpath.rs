//! `realpath`: print the resolved absolute file name. The file system has
//! no symbolic links, so resolution is lexical; what must exist is checked
//! like GNU realpath (`-E`, the default: all but the last component).

use super::args::{self, HasArg, Spec};
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "realpath",
    run,
    help: "Usage: realpath [OPTION]... FILE...\n\
Print the resolved absolute file name;\n\
all but the last component must exist\n\
\n\
  -e, --canonicalize-existing  all components of the path must exist\n\
  -m, --canonicalize-missing   no path components need exist or be a directory\n\
  -L, --logical                accepted (there are no links)\n\
  -P, --physical               accepted (there are no links)\n\
  -q, --quiet                  suppress most error messages\n\
      --relative-to=DIR        print the resolved path relative to DIR\n\
      --relative-base=DIR      print absolute paths unless paths below DIR\n\
  -s, --strip, --no-symlinks   accepted (there are no links)\n\
  -z, --zero                   end each output line with NUL, not newline\n",
    help_flag: true,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    All,
    AllButLast,
    Nothing,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "eEmLPqsz",
        long: &[
            ("canonicalize-existing", 'e', HasArg::No),
            ("canonicalize", 'E', HasArg::No),
            ("canonicalize-missing", 'm', HasArg::No),
            ("logical", 'L', HasArg::No),
            ("physical", 'P', HasArg::No),
            ("quiet", 'q', HasArg::No),
            ("relative-to", 'R', HasArg::Yes),
            ("relative-base", 'B', HasArg::Yes),
            ("strip", 's', HasArg::No),
            ("no-symlinks", 's', HasArg::No),
            ("zero", 'z', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("realpath", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err("realpath: missing operand\nTry 'realpath --help' for more information.\n");
        return 1;
    }
    let mut need = Need::AllButLast;
    for (c, _) in &parsed.opts {
        match c {
            'e' => need = Need::All,
            'E' => need = Need::AllButLast,
            'm' => need = Need::Nothing,
            _ => {}
        }
    }
    let quiet = parsed.has('q');
    let end = if parsed.has('z') { '\0' } else { '\n' };
    let cwd = ctx.sys().cwd();
    let mut relative_to = None;
    let mut relative_base = None;
    for (opt, slot) in [('R', &mut relative_to), ('B', &mut relative_base)] {
        if let Some(dir) = parsed.value(opt) {
            match resolve(ctx, &cwd, dir, need) {
                Ok(p) => *slot = Some(p),
                Err(why) => {
                    ctx.err(format!("realpath: {}: {why}\n", maybe_quote(dir)));
                    return 1;
                }
            }
        }
    }
    // --relative-base alone: relative to it, for paths below it.
    if relative_to.is_none() {
        relative_to = relative_base.clone();
    }
    let mut status = 0;
    let mut out = String::new();
    for op in &parsed.operands {
        match resolve(ctx, &cwd, op, need) {
            Ok(p) => {
                let shown = match (&relative_to, &relative_base) {
                    (Some(to), Some(base)) if !(below(&p, base) && below(to, base)) => p,
                    (Some(to), _) => relative(&p, to),
                    (None, _) => p,
                };
                out.push_str(&shown);
                out.push(end);
            }
            Err(why) => {
                if !quiet {
                    ctx.err(format!("realpath: {}: {why}\n", maybe_quote(op)));
                }
                status = 1;
            }
        }
    }
    let _ = ctx.out(out);
    status
}

/// Names are shown bare unless they need quoting (empty, blanks, quotes…).
fn maybe_quote(name: &str) -> String {
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+,:=@%^".contains(&b)) {
        name.to_string()
    } else {
        quote(name)
    }
}

fn below(path: &str, base: &str) -> bool {
    base == "/" || path == base || (path.starts_with(base) && path.as_bytes().get(base.len()) == Some(&b'/'))
}

/// `path` relative to `from` (both absolute and normalised).
fn relative(path: &str, from: &str) -> String {
    let a: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let b: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<&str> = vec![".."; b.len() - common];
    parts.extend(&a[common..]);
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// The absolute, normalised form of `path`, checking existence as `need`
/// says. The error is the strerror text.
fn resolve(ctx: &mut Ctx, cwd: &str, path: &str, need: Need) -> Result<String, &'static str> {
    if path.is_empty() {
        return Err("No such file or directory");
    }
    let mut parts: Vec<String> = Vec::new();
    if !path.starts_with('/') {
        parts.extend(cwd.split('/').filter(|s| !s.is_empty()).map(String::from));
    }
    let comps: Vec<&str> = path.split('/').filter(|c| !c.is_empty() && *c != ".").collect();
    let join = |parts: &[String]| -> String {
        if parts.is_empty() {
            "/".to_string()
        } else {
            parts.iter().fold(String::new(), |acc, p| acc + "/" + p)
        }
    };
    for (i, c) in comps.iter().enumerate() {
        let last = i + 1 == comps.len();
        if *c == ".." {
            parts.pop();
            continue;
        }
        parts.push((*c).to_string());
        if need == Need::Nothing {
            continue;
        }
        match ctx.sys().stat(&join(&parts)) {
            Ok(m) if m.kind == Kind::File && (!last || path.ends_with('/')) => return Err("Not a directory"),
            Ok(_) => {}
            Err(e) if last && need == Need::AllButLast && e.errno == "ENOENT" => {}
            Err(e) => return Err(e.describe()),
        }
    }
    Ok(join(&parts))
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn relative_paths() {
        assert_eq!(relative("/usr/bin", "/usr"), "bin");
        assert_eq!(relative("/etc", "/usr"), "../etc");
        assert_eq!(relative("/usr", "/usr"), ".");
        assert_eq!(relative("/", "/a/b"), "../..");
    }
}
