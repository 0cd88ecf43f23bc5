//! `complete` (registers and lists completion specifications per command)
//! and `compopt` (changes their `-o` options). Nothing is interactive, so
//! the specifications are only listed, never used to complete a line.

use super::compspec::{self, CompSpec};
use super::Builtin;
use crate::ctx::Ctx;

const USAGE: &str = "[-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [name ...]";
const COMPOPT_USAGE: &str = "[-o|+o option] [-DEI] [name ...]";

pub const COMPLETE: Builtin = Builtin {
    name: "complete",
    run: complete,
    help: "Usage: complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [name ...]\nRegisters how the arguments of each NAME complete; -p lists, -r removes.\n",
    help_flag: true,
};

pub const COMPOPT: Builtin = Builtin {
    name: "compopt",
    run: compopt,
    help: "Usage: compopt [-o|+o option] [-DEI] [name ...]\nChanges the completion options of each NAME.\n",
    help_flag: true,
};

/// The names a command line addresses: its operands, or `-D`/`-E`/`-I`.
fn targets(flags: &[char], operands: &[String]) -> Vec<String> {
    let mut names: Vec<String> =
        ['D', 'E', 'I'].iter().filter(|c| flags.contains(c)).map(|c| format!("-{c}")).collect();
    names.extend(operands.iter().cloned());
    names
}

fn find<'s>(list: &'s mut [(String, CompSpec)], name: &str) -> Option<&'s mut CompSpec> {
    list.iter_mut().find(|(n, _)| n == name).map(|(_, s)| s)
}

fn complete(ctx: &mut Ctx, argv: &[String]) -> i32 {
    let parsed = match compspec::parse(argv, "prDEI", false) {
        Ok(p) => p,
        Err(err) => return compspec::refuse(ctx, "complete", USAGE, err),
    };
    let names = targets(&parsed.flags, &parsed.operands);
    let mut status = 0;
    if parsed.flags.contains(&'r') {
        if names.is_empty() {
            ctx.state().completions.clear();
        }
        for name in names {
            let list = &mut ctx.state().completions;
            match list.iter().position(|(n, _)| *n == name) {
                Some(i) => {
                    list.remove(i);
                }
                None => {
                    ctx.shell_error(&format!("complete: {name}: no completion specification"));
                    status = 1;
                }
            }
        }
        return status;
    }
    if argv.is_empty() || parsed.flags.contains(&'p') {
        let specs = ctx.state().completions.clone();
        let lines: Vec<String> = if names.is_empty() {
            specs.iter().map(|(n, s)| compspec::listing(s, n)).collect()
        } else {
            let mut lines = Vec::new();
            for name in names {
                match specs.iter().find(|(n, _)| *n == name) {
                    Some((n, s)) => lines.push(compspec::listing(s, n)),
                    None => {
                        ctx.shell_error(&format!("complete: {name}: no completion specification"));
                        status = 1;
                    }
                }
            }
            lines
        };
        for line in lines {
            if ctx.out(line).is_err() {
                ctx.write_failed("complete");
                return 1;
            }
        }
        return status;
    }
    if names.is_empty() {
        ctx.err(format!("complete: usage: complete {USAGE}\n"));
        return 2;
    }
    for name in names {
        let list = &mut ctx.state().completions;
        match find(list, &name) {
            Some(spec) => *spec = parsed.spec.clone(),
            None => list.push((name, parsed.spec.clone())),
        }
    }
    0
}

fn compopt(ctx: &mut Ctx, argv: &[String]) -> i32 {
    let parsed = match compspec::parse(argv, "DEI", true) {
        Ok(p) => p,
        Err(err) => return compspec::refuse(ctx, "compopt", COMPOPT_USAGE, err),
    };
    let names = targets(&parsed.flags, &parsed.operands);
    if names.is_empty() {
        ctx.shell_error("compopt: not currently executing completion function");
        return 1;
    }
    let mut status = 0;
    for name in names {
        match find(&mut ctx.state().completions, &name) {
            Some(spec) => {
                for o in &parsed.spec.options {
                    if !spec.options.contains(o) {
                        spec.options.push(o);
                    }
                }
                spec.options.retain(|o| !parsed.off.contains(o));
            }
            None => {
                ctx.shell_error(&format!("compopt: {name}: no completion specification"));
                status = 1;
            }
        }
    }
    status
}
