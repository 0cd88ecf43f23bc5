//! `declare`/`typeset`: variables with attributes (`-a` indexed and `-A`
//! associative arrays, `-i` integer, `-l`/`-u` case, `-r` readonly, `-x`
//! exported, `-g` global; `-p` prints them as bash does).

use super::Builtin;
use crate::ctx::Ctx;
use crate::state::State;

pub const BUILTIN: Builtin = Builtin {
    name: "declare",
    run,
    help: "Usage: declare [-aAgilprux] [NAME[=VALUE]]...\nDeclares variables: -a array, -A associative array, -i integer, -l lowercase, -u uppercase, -r readonly, -x export, -g global, -p print.\n",
    help_flag: true,
};

/// `typeset`: the same as `declare`.
pub const TYPESET: Builtin = Builtin {
    name: "typeset",
    run: |ctx, args| declare(ctx, args, "typeset"),
    help: "Usage: typeset [-aAgilprux] [NAME[=VALUE]]...\nThe same as declare.\n",
    help_flag: true,
};

#[derive(Default)]
struct Flags {
    export: bool,
    readonly: bool,
    array: bool,
    assoc: bool,
    integer: bool,
    lower: bool,
    upper: bool,
    global: bool,
    print: bool,
    nameref: bool,
    /// `-f` / `-F`: functions instead of variables.
    functions: Option<char>,
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    declare(ctx, args, "declare")
}

/// `declare`, or `local` (`builtin`, for messages) inside a function.
pub(crate) fn declare(ctx: &mut Ctx, args: &[String], builtin: &str) -> i32 {
    let mut f = Flags::default();
    // `+x`, `+n`, …: attributes to take away.
    let mut off = String::new();
    let mut names = Vec::new();
    let mut flag_args = Vec::new();
    for a in args {
        if let Some(flags) = a.strip_prefix('+').filter(|f| !f.is_empty() && !a.contains('=')) {
            if names.is_empty() && flags.chars().all(|c| "xnilutaA".contains(c)) {
                flag_args.push(a.as_str());
                off.push_str(flags);
                continue;
            }
        }
        if a == "--" && names.is_empty() {
            continue;
        }
        match a.strip_prefix('-') {
            Some(flags) if !flags.is_empty() && !a.contains('=') && names.is_empty() => {
                flag_args.push(a.as_str());
                for c in flags.chars() {
                    match c {
                        'x' => f.export = true,
                        'r' => f.readonly = true,
                        'a' => f.array = true,
                        'A' => f.assoc = true,
                        'i' => f.integer = true,
                        'l' => (f.lower, f.upper) = (true, false),
                        'u' => (f.upper, f.lower) = (true, false),
                        'g' => f.global = true,
                        'p' => f.print = true,
                        'f' | 'F' => f.functions = Some(c),
                        'n' => f.nameref = true,
                        't' => {}
                        other => {
                            ctx.shell_error(&format!("{builtin}: -{other}: invalid option"));
                            ctx.err(format!("{builtin}: usage: {builtin} [-aAfFgiIlnrtux] [name[=value] ...] or {builtin} -p [-aAfFilnrtux] [name ...]\n"));
                            return 2;
                        }
                    }
                }
            }
            _ => names.push(a.clone()),
        }
    }
    if let Some(kind) = f.functions {
        return functions(ctx, &names, kind == 'F');
    }
    if (f.print || names.is_empty()) && off.is_empty() {
        return print(ctx, &names, &f);
    }
    let in_function = !ctx.state().locals.is_empty() && !f.global;
    let mut status = 0;
    for arg in names {
        let (name, value, append) = match arg.split_once('=') {
            Some((n, v)) => match n.strip_suffix('+') {
                Some(n) => (n.to_string(), Some(v.to_string()), true),
                None => (n.to_string(), Some(v.to_string()), false),
            },
            None => (arg.clone(), None, false),
        };
        if (f.array || f.assoc)
            && !append
            && value.as_deref().is_some_and(|v| v.starts_with('(') && v.ends_with(')'))
        {
            // `declare -a 'a=(1 2)'`: bash reads a quoted `(…)` as a list.
            let code = format!("{builtin} {} {name}={}", flag_args.join(" "), value.unwrap_or_default());
            let s = crate::builtins::eval::run_nested(ctx, &code);
            if s != 0 {
                status = s;
            }
            continue;
        }
        if !super::export::valid_name(&name) {
            ctx.shell_error(&format!("{builtin}: `{arg}': not a valid identifier"));
            status = 1;
            continue;
        }
        if ctx.state().readonly.contains(&name) && (value.is_some() || f.array || f.assoc || f.integer) {
            ctx.shell_error(&format!("{builtin}: {name}: readonly variable"));
            status = 1;
            continue;
        }
        if f.assoc && ctx.state().arrays.contains_key(&name) {
            ctx.shell_error(&format!("{builtin}: {name}: cannot convert indexed to associative array"));
            status = 1;
            continue;
        }
        if f.array && ctx.state().assoc.contains_key(&name) {
            ctx.shell_error(&format!("{builtin}: {name}: cannot convert associative to indexed array"));
            status = 1;
            continue;
        }
        if f.nameref {
            // The reference itself is declared or changed, not its target.
            let state = ctx.state();
            if let Some(attrs) = state.attrs.get_mut(&name) {
                attrs.nameref = false;
            }
            let target = value.clone().or_else(|| state.get(&name).map(str::to_string));
            if let Some(target) = target.filter(|t| !valid_reference(t)) {
                ctx.shell_error(&format!("{builtin}: `{target}': invalid variable name for name reference"));
                status = 1;
                continue;
            }
        }
        let state = ctx.state();
        let attributed = f.array || f.assoc || f.integer || f.lower || f.upper || f.nameref;
        if in_function && attributed {
            state.local_array(&name);
        }
        if f.integer || f.lower || f.upper {
            let attrs = state.attrs.entry(name.clone()).or_default();
            attrs.integer |= f.integer;
            if f.lower || f.upper {
                (attrs.lower, attrs.upper) = (f.lower, f.upper);
            }
        }
        let fresh = !state.is_set(&name) && !state.is_array(&name);
        if fresh && value.is_none() {
            state.declared.insert(name.clone());
        }
        if f.assoc && !state.assoc.contains_key(&name) {
            let scalar = state.vars.remove(&name).map(|v| v.value);
            let mut assoc = crate::state::Assoc::default();
            if let Some(v) = scalar {
                assoc.set("0", v);
            }
            state.assoc.insert(name.clone(), assoc);
        }
        if f.array && !state.arrays.contains_key(&name) {
            let scalar = state.vars.remove(&name).map(|v| v.value);
            state.arrays.insert(name.clone(), scalar.into_iter().collect());
        }
        let value = match value {
            Some(v) => {
                let old = ctx.state().get(&name).unwrap_or_default().to_string();
                match ctx.interp.attributed(&name, &old, v, append) {
                    Ok(v) => Some(v),
                    Err(s) => {
                        status = s;
                        continue;
                    }
                }
            }
            None => None,
        };
        // `local x` again keeps the value `local x=v` gave.
        let keep = value.is_none() && ctx.state().is_local_here(&name);
        if in_function && !attributed && !ctx.state().is_array(&name) && !keep {
            ctx.state().local(&name, value);
        } else if let Some(v) = value {
            let state = ctx.state();
            let plain = state.ref_target(&name).is_none() && !state.readonly.contains(&name);
            match state.arrays.get_mut(&name) {
                // `typeset a+=s` on an indexed array: its element 0.
                Some(array) if plain => array.set(0, v),
                _ => {
                    state.set(&name, v);
                }
            }
        }
        if f.nameref {
            ctx.state().attrs.entry(name.clone()).or_default().nameref = true;
        }
        if f.export || (ctx.state().options.allexport && ctx.state().is_set(&name)) {
            ctx.state().export(&name, None);
        }
        if !off.is_empty() {
            remove_attributes(ctx.state(), &name, &off);
        }
        if f.readonly {
            ctx.state().readonly.insert(name);
        }
    }
    status
}

/// What a name reference may stand for: a variable's name, or one element
/// (`a[2]`); empty for a reference not yet pointed anywhere.
fn valid_reference(target: &str) -> bool {
    match target.split_once('[') {
        Some((name, rest)) => super::export::valid_name(name) && rest.ends_with(']'),
        None => target.is_empty() || super::export::valid_name(target),
    }
}

/// `declare +x NAME`, `+n`, `+i`, `+l`, `+u`: takes those attributes away.
fn remove_attributes(state: &mut State, name: &str, off: &str) {
    if off.contains('x') {
        for frame in state.locals.iter_mut().rev() {
            if let Some(Some(var)) = frame.get_mut(name) {
                var.exported = false;
            }
        }
        if let Some(var) = state.vars.get_mut(name) {
            var.exported = false;
        }
        state.pending_export.remove(name);
    }
    if let Some(attrs) = state.attrs.get_mut(name) {
        attrs.nameref &= !off.contains('n');
        attrs.integer &= !off.contains('i');
        attrs.lower &= !off.contains('l');
        attrs.upper &= !off.contains('u');
    }
}

/// `declare -p [NAME...]`: every variable (or those named) as a `declare`
/// command that recreates it.
/// Without names, `-a`, `-A`, `-i`, `-n`, `-r`, `-x`, `-l`, `-u` keep the
/// variables that have all of those attributes.
fn print(ctx: &mut Ctx, names: &[String], only: &Flags) -> i32 {
    let mut status = 0;
    let mut text = String::new();
    let state = ctx.state();
    let wanted: Vec<String> = if names.is_empty() {
        let mut all: Vec<String> =
            state.vars.keys().chain(state.arrays.keys()).chain(state.assoc.keys()).cloned().collect();
        all.sort();
        all.dedup();
        all.retain(|name| {
            let attrs = state.attrs.get(name.as_str()).copied().unwrap_or_default();
            (!only.array || state.arrays.contains_key(name))
                && (!only.assoc || state.assoc.contains_key(name))
                && (!only.integer || attrs.integer)
                && (!only.nameref || attrs.nameref)
                && (!only.lower || attrs.lower)
                && (!only.upper || attrs.upper)
                && (!only.readonly || state.readonly.contains(name))
                && (!only.export || state.vars.get(name).is_some_and(|v| v.exported))
        });
        all
    } else {
        names.to_vec()
    };
    let mut missing = Vec::new();
    for name in &wanted {
        match declaration(state, name) {
            Some(line) => text.push_str(&line),
            None => missing.push(name.clone()),
        }
    }
    for name in missing {
        ctx.shell_error(&format!("declare: {name}: not found"));
        status = 1;
    }
    let _ = ctx.out(text);
    status
}

/// `declare -F [NAME...]`: the functions' names (`declare -f NAME` lines
/// without names); `declare -f NAME` only checks that they exist, as cordon
/// does not print function bodies. Status 1 when one is missing.
fn functions(ctx: &mut Ctx, names: &[String], names_only: bool) -> i32 {
    let known: Vec<String> = ctx.state().functions.keys().cloned().collect();
    if names.is_empty() {
        if names_only {
            let text: String = known.iter().map(|n| format!("declare -f {n}\n")).collect();
            let _ = ctx.out(text);
        }
        return 0;
    }
    let mut status = 0;
    for name in names {
        if !known.contains(name) {
            status = 1;
        } else if names_only {
            let _ = ctx.out(format!("{name}\n"));
        } else if let Some(text) = super::type_::function_text(ctx, name) {
            let _ = ctx.out(text);
        }
    }
    status
}

/// One variable as `declare -p` prints it, or `None` when it does not exist.
pub(crate) fn declaration(state: &State, name: &str) -> Option<String> {
    let attrs = state.attrs.get(name).copied().unwrap_or_default();
    let exported = state.environment().iter().any(|(n, _)| n == name)
        || state.vars.get(name).is_some_and(|v| v.exported);
    let flags = |kind: &str| {
        let mut f = String::from(kind);
        for (on, c) in [
            (attrs.integer, 'i'),
            (attrs.nameref, 'n'),
            (state.readonly.contains(name), 'r'),
            (exported, 'x'),
            (attrs.lower, 'l'),
            (attrs.upper, 'u'),
        ] {
            if on {
                f.push(c);
            }
        }
        if f.is_empty() {
            "--".to_string()
        } else {
            format!("-{f}")
        }
    };
    if let Some(items) = declaration_items(state, name) {
        let kind = if state.assoc.contains_key(name) { "A" } else { "a" };
        let value = if items.is_empty() && state.declared.contains(name) {
            String::new()
        } else {
            format!("=({items})")
        };
        return Some(format!("declare {} {name}{value}\n", flags(kind)));
    }
    // A name reference shows what it refers to, not that variable's value.
    let value = if attrs.nameref { state.get_own(name) } else { state.get(name) };
    match value {
        Some(value) if !state.pending_export.contains(name) => {
            Some(format!("declare {} {name}={}\n", flags(""), value_text(value)))
        }
        _ if state.attrs.contains_key(name)
            || state.pending_export.contains(name)
            || state.readonly.contains(name)
            || state.declared.contains(name)
            || state.locals.iter().any(|frame| frame.contains_key(name)) =>
        {
            Some(format!("declare {} {name}\n", flags("")))
        }
        _ => None,
    }
}

/// An array's elements as `declare -p` and `set` show them between
/// parentheses; `None` for a name that is not an array.
pub(crate) fn declaration_items(state: &State, name: &str) -> Option<String> {
    if let Some(assoc) = state.assoc.get(name) {
        return Some(
            assoc
                .ordered()
                .into_iter()
                .map(|(k, v)| format!("[{}]={} ", key_text(k), value_text(v)))
                .collect(),
        );
    }
    let array = state.arrays.get(name)?;
    let items: Vec<String> = array.iter().map(|(i, v)| format!("[{i}]={}", value_text(v))).collect();
    Some(items.join(" "))
}

/// A key of `declare -p`'s associative arrays: bare unless it needs quoting.
fn key_text(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-./:@%+,".contains(c)) {
        key.to_string()
    } else {
        value_text(key)
    }
}

/// A value as `declare -p` quotes it: `"…"` with `"`, `\`, `$` and `` ` ``
/// escaped, or `$'…'` when it holds control characters.
pub(crate) fn value_text(value: &str) -> String {
    if value.chars().any(|c| c.is_ascii_control()) {
        let mut out = String::from("$'");
        for c in value.chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\x07' => out.push_str("\\a"),
                '\x08' => out.push_str("\\b"),
                '\x1b' => out.push_str("\\E"),
                '\x0c' => out.push_str("\\f"),
                '\x0b' => out.push_str("\\v"),
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                c if c.is_ascii_control() => out.push_str(&format!("\\{:03o}", u32::from(c))),
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    let mut out = String::from("\"");
    for c in value.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}
