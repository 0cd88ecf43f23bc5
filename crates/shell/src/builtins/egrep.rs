//! `egrep` and `fgrep`: `grep -E` and `grep -F`, as the GNU scripts are.

use super::Builtin;
use crate::ctx::Ctx;

pub const EGREP: Builtin = Builtin {
    name: "egrep",
    run: egrep,
    help: "Usage: egrep [OPTION]... PATTERNS [FILE]...\nThe same as grep -E.\n",
    help_flag: true,
};
pub const FGREP: Builtin = Builtin {
    name: "fgrep",
    run: fgrep,
    help: "Usage: fgrep [OPTION]... PATTERNS [FILE]...\nThe same as grep -F.\n",
    help_flag: true,
};

fn with_flag(ctx: &mut Ctx, flag: &str, argv: &[String]) -> i32 {
    let mut args = vec![flag.to_string()];
    args.extend(argv.iter().cloned());
    (super::grep::BUILTIN.run)(ctx, &args)
}

fn egrep(ctx: &mut Ctx, argv: &[String]) -> i32 {
    with_flag(ctx, "-E", argv)
}

fn fgrep(ctx: &mut Ctx, argv: &[String]) -> i32 {
    with_flag(ctx, "-F", argv)
}
