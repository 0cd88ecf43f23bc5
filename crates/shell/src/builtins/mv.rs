//! `mv`: rename or move files and directories (within the one sandbox file
//! system, so a move is always a rename).

use super::args::{self, HasArg, Spec};
use super::common::fs::{absolute, is_within, stat_path};
use super::common::quote::quote;
use super::cp::plan_targets;
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::Kind;

pub const BUILTIN: Builtin = Builtin {
    name: "mv",
    run,
    help: "Usage: mv [OPTION]... SOURCE DEST\n\
  or:  mv [OPTION]... SOURCE... DIRECTORY\n\
  or:  mv [OPTION]... -t DIRECTORY SOURCE...\n\
Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.\n\
\n\
  -f, --force                  do not prompt before overwriting (the default)\n\
  -n, --no-clobber             do not overwrite an existing file\n\
  -t, --target-directory=DIR   move all SOURCE arguments into DIR\n\
  -T, --no-target-directory    treat DEST as a normal file\n\
  -u, --update                 move only when SOURCE is newer than DEST or DEST is missing\n\
  -v, --verbose                explain what is being done\n\
\n\
Not supported: -i/--interactive, -b/--backup, --strip-trailing-slashes.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "fnt:Tuv",
        long: &[
            ("force", 'f', HasArg::No),
            ("no-clobber", 'n', HasArg::No),
            ("target-directory", 't', HasArg::Yes),
            ("no-target-directory", 'T', HasArg::No),
            ("update", 'u', HasArg::No),
            ("verbose", 'v', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("mv", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU coreutils exit 1 on a bad option (ls is the exception).
            usage_error(ctx, &msg);
            return 1;
        }
    };
    // -f and -n: the last one given wins.
    let no_clobber =
        parsed.opts.iter().rev().find(|(c, _)| *c == 'f' || *c == 'n').is_some_and(|(c, _)| *c == 'n');
    let update = parsed.has('u');
    let verbose = parsed.has('v');
    let plan = match plan_targets(ctx, "mv", &parsed.operands, parsed.value('t'), parsed.has('T')) {
        Ok(p) => p,
        Err(status) => return status,
    };
    let cwd = ctx.sys().cwd();
    let mut status = 0;
    for (src, dst) in plan {
        let meta = match stat_path(ctx.sys(), &src) {
            Ok(m) => m,
            Err(e) => {
                ctx.err(format!("mv: cannot stat {}: {}\n", quote(&src), e.describe()));
                status = 1;
                continue;
            }
        };
        let abs_src = absolute(&cwd, &src);
        let abs_dst = absolute(&cwd, &dst);
        if abs_src == abs_dst {
            ctx.err(format!("mv: {} and {} are the same file\n", quote(&src), quote(&dst)));
            status = 1;
            continue;
        }
        if meta.kind == Kind::Dir && is_within(&abs_dst, &abs_src) {
            ctx.err(format!(
                "mv: cannot move {} to a subdirectory of itself, {}\n",
                quote(&src),
                quote(&dst)
            ));
            status = 1;
            continue;
        }
        if let Ok(d) = ctx.sys().stat(&dst) {
            if no_clobber || (update && d.mtime_ms >= meta.mtime_ms) {
                continue;
            }
            match (meta.kind, d.kind) {
                (Kind::Dir, Kind::File) => {
                    ctx.err(format!(
                        "mv: cannot overwrite non-directory {} with directory {}\n",
                        quote(&dst),
                        quote(&src)
                    ));
                    status = 1;
                    continue;
                }
                (Kind::File, Kind::Dir) => {
                    ctx.err(format!("mv: cannot overwrite directory {} with non-directory\n", quote(&dst)));
                    status = 1;
                    continue;
                }
                _ => {}
            }
        }
        if let Err(e) = ctx.sys().rename(&src, &dst) {
            ctx.err(format!("mv: cannot move {} to {}: {}\n", quote(&src), quote(&dst), e.describe()));
            status = 1;
            continue;
        }
        if verbose && ctx.out(format!("renamed {} -> {}\n", quote(&src), quote(&dst))).is_err() {
            return status;
        }
    }
    status
}
