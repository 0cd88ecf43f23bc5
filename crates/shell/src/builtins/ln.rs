//! `ln`: the sandbox file system has regular files and directories only,
//! so neither hard nor symbolic links can be made. `ln` checks its
//! arguments like GNU ln, then fails with a clear message and status 1.

use super::args::{self, HasArg, Spec};
use super::{usage_error, Builtin};
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "ln",
    run,
    help: "Usage: ln [OPTION]... TARGET LINK_NAME\n\
Make links between files.\n\
\n\
The sandbox file system has no links (hard or symbolic): ln always fails with\n\
'ln: links are not supported in the sandbox file system'. Copy files with cp\n\
instead.\n\
\n\
  -f, -n, -r, -s, -T, -v, -t DIR   accepted, then the command fails\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "fnrsTvt:",
        long: &[
            ("force", 'f', HasArg::No),
            ("no-dereference", 'n', HasArg::No),
            ("relative", 'r', HasArg::No),
            ("symbolic", 's', HasArg::No),
            ("no-target-directory", 'T', HasArg::No),
            ("verbose", 'v', HasArg::No),
            ("target-directory", 't', HasArg::Yes),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("ln", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.is_empty() {
        ctx.err("ln: missing file operand\nTry 'ln --help' for more information.\n");
        return 1;
    }
    ctx.err("ln: links are not supported in the sandbox file system\n");
    1
}
