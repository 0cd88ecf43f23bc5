//! Expansion helpers with no parser state of their own: case modification
//! with a pattern (`${x^^[ab]}`), the `@a` and `@A` transformations, and
//! `$(<file)`.

use crate::expand::quote;
use crate::interp::Interp;
use crate::pattern;
use crate::state::State;

/// `${s^pat}`, `${s^^pat}`, `${s,pat}`, `${s,,pat}`: changes the case of the
/// first character (or every one, `all`) that matches `pat` (any when
/// `None`).
pub(crate) fn case_mod(s: &str, pat: Option<&str>, upper: bool, all: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        let wanted = (all || i == 0) && pat.is_none_or(|p| pattern::fnmatch(p, c.encode_utf8(&mut [0; 4])));
        if wanted && upper {
            out.extend(c.to_uppercase());
        } else if wanted {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn exported(state: &State, name: &str) -> bool {
    state.environment().iter().any(|(n, _)| n == name)
}

/// `${x@a}`: the variable's attribute letters, in bash's order.
pub(crate) fn attributes(state: &State, name: &str) -> String {
    let attrs = state.attrs.get(name).copied().unwrap_or_default();
    [
        (state.arrays.contains_key(name), 'a'),
        (state.assoc.contains_key(name), 'A'),
        (attrs.integer, 'i'),
        (state.readonly.contains(name), 'r'),
        (exported(state, name), 'x'),
        (attrs.lower, 'l'),
        (attrs.upper, 'u'),
    ]
    .into_iter()
    .filter_map(|(on, c)| on.then_some(c))
    .collect()
}

/// `${x@A}` for a scalar: an assignment (a `declare` command when it has
/// attributes) that recreates it. `None` for arrays and unset names.
pub(crate) fn assignment(state: &State, name: &str) -> Option<String> {
    if state.is_array(name) {
        return None;
    }
    let value = state.get(name)?;
    let flags = attributes(state, name);
    Some(if flags.is_empty() {
        format!("{name}={}", quote(value))
    } else {
        format!("declare -{flags} {name}={}", quote(value))
    })
}

/// `$(<file)` (and `$(< file)`): the file's contents, read without running
/// anything. `None` when the script is something else.
pub(crate) fn read_file_substitution(interp: &mut Interp, script: &str) -> Option<String> {
    let word = script.trim().strip_prefix('<')?.trim_start();
    if word.is_empty() || word.starts_with(['<', '(', '>']) || word.contains(char::is_whitespace) {
        return None;
    }
    let path = interp.expand_string(word).ok()?;
    let (text, status) = match interp.sys.read(&path) {
        Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), 0),
        Err(e) => {
            interp.report(&format!("{path}: {}", e.describe()));
            (String::new(), 1)
        }
    };
    interp.subst_status = Some(status);
    interp.state.last_status = status;
    Some(text.trim_end_matches('\n').to_string())
}
