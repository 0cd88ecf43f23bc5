//! `compgen`: prints the completions of a word that its options describe.

use super::compspec;
use super::Builtin;
use crate::ctx::Ctx;

const USAGE: &str = "[-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]";

pub const BUILTIN: Builtin = Builtin {
    name: "compgen",
    run,
    help: "Usage: compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]\nPrints the possible completions of WORD, one a line; status 1 when there are none.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, argv: &[String]) -> i32 {
    let parsed = match compspec::parse(argv, "", false) {
        Ok(p) => p,
        Err(err) => return compspec::refuse(ctx, "compgen", USAGE, err),
    };
    for (given, flag) in [(parsed.spec.function.is_some(), 'F'), (parsed.spec.command.is_some(), 'C')] {
        if given {
            ctx.shell_error(&format!("compgen: warning: -{flag} option may not work as you expect"));
        }
    }
    let word = parsed.operands.first().cloned().unwrap_or_default();
    let Some(list) = compspec::generate(ctx, &parsed.spec, &word) else { return 1 };
    if list.is_empty() {
        return 1;
    }
    for item in list {
        if ctx.out(format!("{item}\n")).is_err() {
            ctx.write_failed("compgen");
            return 1;
        }
    }
    0
}
