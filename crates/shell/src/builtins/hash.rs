//! `hash`: bash's table of remembered command paths. The sandbox looks
//! files up on `PATH` each time, so the table stays empty; `hash NAME`
//! checks that NAME can be found.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "hash",
    run,
    help: "Usage: hash [-r] [NAME ...]\nChecks that each NAME can be run (no paths are remembered).\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut names = Vec::new();
    let mut reset = false;
    for a in args {
        match a.as_str() {
            "-r" => reset = true,
            "-l" | "-t" | "-d" | "-p" | "--" => {}
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        if !reset {
            let _ = ctx.out("hash: hash table empty\n");
        }
        return 0;
    }
    let mut status = 0;
    for name in names {
        if super::find(name).is_none() && super::path_files(ctx, name, false).is_empty() {
            ctx.shell_error(&format!("hash: {name}: not found"));
            status = 1;
        }
    }
    status
}
