//! `touch`: create empty files or update their modification time.
//!
//! The file system sets a file's modification time when it is written, so
//! touching an existing file appends nothing to it. Explicit times
//! (`-d`, `-t`, `-r`) cannot be set and are not supported.

use super::args::{self, HasArg, Spec};
use super::common::fs::stat_path;
use super::common::quote::quote;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::{Kind, WriteMode};

pub const BUILTIN: Builtin = Builtin {
    name: "touch",
    run,
    help: "Usage: touch [OPTION]... FILE...\n\
Update the modification time of each FILE to the current time.\n\
A FILE argument that does not exist is created empty, unless -c is supplied.\n\
\n\
  -a                  accepted (there is no separate access time)\n\
  -c, --no-create     do not create any files\n\
  -m                  change only the modification time (the default)\n\
\n\
Not supported: -d/--date, -t, -r/--reference (times cannot be set explicitly),\n\
-h/--no-dereference.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec { short: "acm", long: &[("no-create", 'c', HasArg::No)], stop_at_operand: false };
    let parsed = match args::parse("touch", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err("touch: missing file operand\nTry 'touch --help' for more information.\n");
        return 1;
    }
    let no_create = parsed.has('c');
    let mut status = 0;
    for op in &parsed.operands {
        if op == "-" {
            continue;
        }
        let result = match stat_path(ctx.sys(), op) {
            // A directory's time cannot be set; it is left as it is.
            Ok(m) if m.kind == Kind::Dir => Ok(()),
            Ok(_) => ctx.sys().write(op, b"", WriteMode::Append),
            Err(e) if e.errno == "ENOENT" && no_create => continue,
            Err(e) if e.errno == "ENOENT" => ctx.sys().write(op, b"", WriteMode::Append),
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            ctx.err(format!("touch: cannot touch {}: {}\n", quote(op), e.describe()));
            status = 1;
        }
    }
    status
}
