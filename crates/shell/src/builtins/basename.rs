//! `basename`: strip directory and suffix from file names.

use super::args::{self, HasArg, Spec};
use super::common::fs::base_name;
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "basename",
    run,
    help: "Usage: basename NAME [SUFFIX]\n\
  or:  basename OPTION... NAME...\n\
Print NAME with any leading directory components removed.\n\
If specified, also remove a trailing SUFFIX.\n\
\n\
  -a, --multiple       support multiple arguments and treat each as a NAME\n\
  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a\n\
  -z, --zero           end each output line with NUL, not newline\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "as:z",
        long: &[("multiple", 'a', HasArg::No), ("suffix", 's', HasArg::Yes), ("zero", 'z', HasArg::No)],
        stop_at_operand: false,
    };
    let parsed = match args::parse("basename", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    let ops = &parsed.operands;
    if ops.is_empty() {
        ctx.err("basename: missing operand\nTry 'basename --help' for more information.\n");
        return 1;
    }
    let end = if parsed.has('z') { '\0' } else { '\n' };
    let multiple = parsed.has('a') || parsed.has('s');
    let (names, suffix): (&[String], Option<&str>) = if multiple {
        (ops, parsed.value('s'))
    } else {
        match ops.as_slice() {
            [name] => (std::slice::from_ref(name), None),
            [name, suffix] => (std::slice::from_ref(name), Some(suffix.as_str())),
            [_, _, extra, ..] => {
                ctx.err(format!(
                    "basename: extra operand {}\nTry 'basename --help' for more information.\n",
                    quote(extra)
                ));
                return 1;
            }
            [] => return 1,
        }
    };
    let mut out = String::new();
    for name in names {
        out.push_str(&strip(name, suffix));
        out.push(end);
    }
    let _ = ctx.out(out);
    0
}

/// The last component of `name`, without `suffix` unless that is all of it.
pub(crate) fn strip(name: &str, suffix: Option<&str>) -> String {
    let base = base_name(name);
    match suffix {
        Some(s) if !s.is_empty() && base != s && base != "/" => {
            base.strip_suffix(s).unwrap_or(base).to_string()
        }
        _ => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn names() {
        assert_eq!(strip("/a/b/c.txt", Some(".txt")), "c");
        assert_eq!(strip(".txt", Some(".txt")), ".txt");
        assert_eq!(strip("a/b/", None), "b");
        assert_eq!(strip("/", None), "/");
        assert_eq!(strip("", None), "");
    }
}
