//! `set`: shell options (`-e`, `-u`, `-x`, `-f`, `-o pipefail`) and
//! positional parameters (`set -- a b c`).

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "set",
    run,
    help: "Usage: set [-eufx] [-o OPTION] [--] [ARG]...\n  -e  exit when a command fails\n  -u  unset variables are an error\n  -x  print commands before running them\n  -f  disable pathname expansion\n  -o pipefail  a pipeline fails if any stage fails\n  -o errexit|nounset|xtrace|noglob  as the letters\n  --  the remaining arguments become $1, $2, ...\n",
    help_flag: true,
};

fn option(ctx: &mut Ctx, name: &str, on: bool) -> bool {
    let o = &mut ctx.state().options;
    match name {
        "errexit" => o.errexit = on,
        "nounset" => o.nounset = on,
        "pipefail" => o.pipefail = on,
        "xtrace" => o.xtrace = on,
        "noglob" => o.noglob = on,
        "noclobber" => o.noclobber = on,
        "allexport" => o.allexport = on,
        "errtrace" => o.errtrace = on,
        _ => return LISTED.iter().any(|(n, _)| *n == name),
    }
    true
}

/// `set -o`'s options: the ones above, and the rest fixed at bash's value.
pub(crate) const LISTED: &[(&str, bool)] = &[
    ("allexport", false),
    ("braceexpand", true),
    ("emacs", false),
    ("errexit", false),
    ("errtrace", false),
    ("functrace", false),
    ("hashall", true),
    ("histexpand", false),
    ("history", false),
    ("ignoreeof", false),
    ("interactive-comments", true),
    ("keyword", false),
    ("monitor", false),
    ("noclobber", false),
    ("noexec", false),
    ("noglob", false),
    ("nolog", false),
    ("notify", false),
    ("nounset", false),
    ("onecmd", false),
    ("physical", false),
    ("pipefail", false),
    ("posix", false),
    ("privileged", false),
    ("verbose", false),
    ("vi", false),
    ("xtrace", false),
];

/// Whether the `set -o` option `name` is on (`None`: not an option).
pub(crate) fn option_on(o: &crate::state::Options, name: &str) -> Option<bool> {
    Some(match name {
        "allexport" => o.allexport,
        "errexit" => o.errexit,
        "errtrace" => o.errtrace,
        "noclobber" => o.noclobber,
        "noglob" => o.noglob,
        "nounset" => o.nounset,
        "pipefail" => o.pipefail,
        "xtrace" => o.xtrace,
        _ => LISTED.iter().find(|(n, _)| *n == name)?.1,
    })
}

/// `set -o` (`plus`: `set +o`, as commands) listing.
fn listing(ctx: &mut Ctx, plus: bool) -> String {
    let o = ctx.state().options.clone();
    let mut text = String::new();
    for (name, fixed) in LISTED {
        let on = option_on(&o, name).unwrap_or(*fixed);
        if plus {
            text.push_str(&format!("set {}o {name}\n", if on { '-' } else { '+' }));
        } else {
            text.push_str(&format!("{name:<15}\t{}\n", if on { "on" } else { "off" }));
        }
    }
    text
}

/// `set`'s listing: every variable the current function sees (locals,
/// globals and arrays), sorted, as assignments that recreate them.
fn variables(state: &crate::state::State) -> String {
    let mut names: std::collections::BTreeSet<&String> =
        state.vars.keys().chain(state.arrays.keys()).chain(state.assoc.keys()).collect();
    names.extend(state.locals.iter().flat_map(|frame| frame.keys()));
    let mut text = String::new();
    for name in names {
        if let Some(items) = super::declaration_items(state, name) {
            text.push_str(&format!("{name}=({items})\n"));
        } else if let Some(value) = state.get(name) {
            if !state.pending_export.contains(name.as_str()) {
                let shown = if value.is_empty() {
                    String::new()
                } else if value.chars().any(|c| c.is_ascii_control()) {
                    super::declare_value_text(value)
                } else {
                    crate::expand::quote_if_needed(value)
                };
                text.push_str(&format!("{name}={shown}\n"));
            }
        }
    }
    text
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    if args.is_empty() {
        let text = variables(ctx.state());
        let _ = ctx.out(text);
        return 0;
    }
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            ctx.state().positional = args[i..].to_vec();
            return 0;
        }
        if arg == "-" {
            // Ends the options and turns tracing off; the parameters change
            // only when words follow.
            ctx.state().options.xtrace = false;
            if i < args.len() {
                ctx.state().positional = args[i..].to_vec();
            }
            return 0;
        }
        if arg == "+" {
            continue;
        }
        let (on, flags) = match (arg.strip_prefix('-'), arg.strip_prefix('+')) {
            (Some(f), _) if !f.is_empty() => (true, f),
            (_, Some(f)) if !f.is_empty() => (false, f),
            _ => {
                ctx.state().positional = args[i - 1..].to_vec();
                return 0;
            }
        };
        for c in flags.chars() {
            let name = match c {
                'e' => "errexit",
                'u' => "nounset",
                'x' => "xtrace",
                'f' => "noglob",
                'C' => "noclobber",
                'a' => "allexport",
                'o' => {
                    let Some(name) = args.get(i) else {
                        let text = listing(ctx, !on);
                        let _ = ctx.out(text);
                        return 0;
                    };
                    i += 1;
                    if !option(ctx, name, on) {
                        ctx.shell_error(&format!("set: {name}: invalid option name"));
                        return 2;
                    }
                    continue;
                }
                'E' => "errtrace",
                'h' | 'B' | 'H' | 'm' | 'b' | 'v' | 'n' | 'P' | 'T' | 'k' | 't' => continue,
                other => {
                    ctx.shell_error(&format!("set: -{other}: invalid option"));
                    ctx.err("set: usage: set [-eufx] [-o option-name] [--] [arg ...]\n");
                    return 2;
                }
            };
            option(ctx, name, on);
        }
    }
    0
}
