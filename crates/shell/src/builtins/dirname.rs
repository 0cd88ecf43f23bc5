//! `dirname`: strip the last component from file names.

use super::args::{self, HasArg, Spec};
use super::{usage_error, Builtin};
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "dirname",
    run,
    help: "Usage: dirname [OPTION] NAME...\n\
Output each NAME with its last non-slash component and trailing slashes\n\
removed; if NAME contains no /'s, output '.' (meaning the current directory).\n\
\n\
  -z, --zero     end each output line with NUL, not newline\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec { short: "z", long: &[("zero", 'z', HasArg::No)], stop_at_operand: false };
    let parsed = match args::parse("dirname", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err("dirname: missing operand\nTry 'dirname --help' for more information.\n");
        return 1;
    }
    let end = if parsed.has('z') { '\0' } else { '\n' };
    let mut out = String::new();
    for name in &parsed.operands {
        out.push_str(dir_of(name));
        out.push(end);
    }
    let _ = ctx.out(out);
    0
}

/// GNU dirname: `a/b` → `a`, `a` → `.`, `/a` → `/`, `///a/b` → `///a`.
pub(crate) fn dir_of(name: &str) -> &str {
    let trimmed = name.trim_end_matches('/');
    if trimmed.is_empty() {
        return if name.is_empty() { "." } else { "/" };
    }
    match trimmed.rfind('/') {
        None => ".",
        Some(i) => {
            let parent = trimmed[..i].trim_end_matches('/');
            if parent.is_empty() {
                "/"
            } else {
                parent
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::dir_of;

    #[test]
    fn gnu_cases() {
        for (i, o) in [
            ("/a/b", "/a"),
            ("c/d", "c"),
            ("e", "."),
            ("/", "/"),
            ("//", "/"),
            ("a/", "."),
            ("a//b", "a"),
            ("//a", "/"),
            ("///a/b", "///a"),
            ("", "."),
            ("..", "."),
            ("a/b/", "a"),
        ] {
            assert_eq!(dir_of(i), o, "{i}");
        }
    }
}
