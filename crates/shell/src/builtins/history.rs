//! `history`: a script's shell keeps no history (bash's non-interactive
//! shell neither), so listing prints nothing; the arguments are checked
//! as bash checks them.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "history",
    run,
    help: "Usage: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]\nLists the command history (empty in a script).\n",
    help_flag: true,
};

const USAGE: &str =
    "history: usage: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]\n";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut args = args;
    while let Some(flag) = args.first().filter(|a| a.starts_with('-') && a.len() > 1) {
        args = &args[1..];
        if flag == "--" {
            break;
        }
        for c in flag.chars().skip(1) {
            match c {
                'c' | 'a' | 'n' | 'r' | 'w' => {}
                'd' | 'p' | 's' => return 0,
                other => {
                    ctx.shell_error(&format!("history: -{other}: invalid option"));
                    ctx.err(USAGE);
                    return 2;
                }
            }
        }
    }
    if let Some(n) = args.first() {
        if n.trim_start_matches('+').parse::<u64>().is_err() {
            ctx.shell_error(&format!("history: {n}: numeric argument required"));
            return 1;
        }
        if args.len() > 1 {
            // bash's script stops here, as for `shift 1 2`.
            ctx.shell_error("history: too many arguments");
            ctx.interp.flow = Some(crate::interp::Flow::Exit(1));
            return 1;
        }
    }
    0
}
