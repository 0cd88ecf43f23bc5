//! `shopt`: bash's optional behaviours. The ones that change what the
//! shell does here: `nullglob`, `dotglob`, `failglob`, `nocaseglob`,
//! `globstar`, `extglob`, `nocasematch`; the others are kept and listed.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "shopt",
    run,
    help: "Usage: shopt [-pqsu] [-o] [OPTNAME]...\nSets (-s), unsets (-u), queries (-q) or prints (-p) shell options.\n",
    help_flag: true,
};

/// Every option bash 5.2 has, with its default in `bash -c`.
pub(crate) const OPTIONS: &[(&str, bool)] = &[
    ("autocd", false),
    ("assoc_expand_once", false),
    ("cdable_vars", false),
    ("cdspell", false),
    ("checkhash", false),
    ("checkjobs", false),
    ("checkwinsize", true),
    ("cmdhist", true),
    ("compat31", false),
    ("compat32", false),
    ("compat40", false),
    ("compat41", false),
    ("compat42", false),
    ("compat43", false),
    ("compat44", false),
    ("complete_fullquote", true),
    ("direxpand", false),
    ("dirspell", false),
    ("dotglob", false),
    ("execfail", false),
    ("expand_aliases", false),
    ("extdebug", false),
    ("extglob", false),
    ("extquote", true),
    ("failglob", false),
    ("force_fignore", true),
    ("globasciiranges", true),
    ("globskipdots", true),
    ("globstar", false),
    ("gnu_errfmt", false),
    ("histappend", false),
    ("histreedit", false),
    ("histverify", false),
    ("hostcomplete", true),
    ("huponexit", false),
    ("inherit_errexit", false),
    ("interactive_comments", true),
    ("lastpipe", false),
    ("lithist", false),
    ("localvar_inherit", false),
    ("localvar_unset", false),
    ("login_shell", false),
    ("mailwarn", false),
    ("no_empty_cmd_completion", false),
    ("nocaseglob", false),
    ("nocasematch", false),
    ("noexpand_translation", false),
    ("nullglob", false),
    ("patsub_replacement", true),
    ("progcomp", true),
    ("progcomp_alias", false),
    ("promptvars", true),
    ("restricted_shell", false),
    ("shift_verbose", false),
    ("sourcepath", true),
    ("varredir_close", false),
    ("xpg_echo", false),
];

/// Whether option `name` is on by default.
pub(crate) fn default(name: &str) -> bool {
    OPTIONS.iter().any(|(n, on)| *n == name && *on)
}

fn is_on(ctx: &mut Ctx, name: &str) -> bool {
    ctx.state().options.shopt(name)
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut set, mut unset, mut quiet, mut print, mut o) = (false, false, false, false, false);
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let Some(flags) = arg.strip_prefix('-').filter(|f| !f.is_empty()) else { break };
        i += 1;
        if flags == "-" {
            break;
        }
        for c in flags.chars() {
            match c {
                's' => set = true,
                'u' => unset = true,
                'q' => quiet = true,
                'p' => print = true,
                'o' => o = true,
                other => {
                    ctx.shell_error(&format!("shopt: -{other}: invalid option"));
                    ctx.err("shopt: usage: shopt [-pqsu] [-o] [optname ...]\n");
                    return 2;
                }
            }
        }
    }
    let names = &args[i..];
    if set && unset {
        ctx.shell_error("shopt: cannot set and unset shell options simultaneously");
        return 1;
    }
    if o {
        return set_options(ctx, names, (set, unset, quiet, print));
    }
    let status = shopt_options(ctx, names, (set, unset, quiet, print));
    super::set::refresh_vars(ctx.state());
    status
}

/// `shopt -o`: the `set -o` options, listed, queried or changed.
fn set_options(ctx: &mut Ctx, names: &[String], (set, unset, quiet, print): (bool, bool, bool, bool)) -> i32 {
    if set || unset {
        let flag = if set { "-o" } else { "+o" };
        let mut argv: Vec<String> = Vec::new();
        for n in names {
            argv.push(flag.to_string());
            argv.push(n.clone());
        }
        if names.is_empty() {
            argv = vec!["-o".to_string()];
        }
        return super::run(&super::set::BUILTIN, ctx, &argv);
    }
    let listed: Vec<&str> = if names.is_empty() {
        super::set::LISTED.iter().map(|(n, _)| *n).collect()
    } else {
        names.iter().map(String::as_str).collect()
    };
    let (mut status, mut text) = (0, String::new());
    for name in listed {
        let Some(on) = super::set::is_on(&ctx.state().options, name) else {
            ctx.shell_error(&format!("shopt: {name}: invalid option name"));
            status = 1;
            continue;
        };
        if !on && !names.is_empty() {
            status = 1;
        }
        if quiet {
            continue;
        }
        if print {
            text.push_str(&format!("set {}o {name}\n", if on { '-' } else { '+' }));
        } else {
            text.push_str(&format!("{name:<15}\t{}\n", if on { "on" } else { "off" }));
        }
    }
    let _ = ctx.out(text);
    status
}

/// `shopt` without `-o`: bash's own options.
fn shopt_options(
    ctx: &mut Ctx,
    names: &[String],
    (set, unset, quiet, print): (bool, bool, bool, bool),
) -> i32 {
    let mut status = 0;
    let mut text = String::new();
    let selected: Vec<&str> = if names.is_empty() {
        OPTIONS
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !(set || unset) || ctx.state().options.shopt(n) == set)
            .collect()
    } else {
        names.iter().map(String::as_str).collect()
    };
    for name in selected {
        let Some((known, _)) = OPTIONS.iter().find(|(n, _)| *n == name) else {
            ctx.shell_error(&format!("shopt: {name}: invalid shell option name"));
            status = 1;
            continue;
        };
        if (set || unset) && !names.is_empty() {
            let shopt = &mut ctx.state().options.shopt;
            if set != default(known) {
                shopt.insert(known);
            } else {
                shopt.remove(known);
            }
            continue;
        }
        let on = is_on(ctx, known);
        if !on && !names.is_empty() {
            status = 1;
        }
        if quiet {
            continue;
        }
        if print {
            text.push_str(&format!("shopt {} {known}\n", if on { "-s" } else { "-u" }));
        } else {
            text.push_str(&format!("{known:<15}\t{}\n", if on { "on" } else { "off" }));
        }
    }
    let _ = ctx.out(text);
    status
}
