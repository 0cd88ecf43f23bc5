//! Alias expansion. bash expands aliases as it reads each line; cordon
//! parses a script before running it, so a simple command whose name is an
//! alias is re-read with the alias's text in its place when it runs (the
//! same result for aliases defined on an earlier line). An alias is not
//! expanded inside its own expansion (`alias ls='ls -l'`), and one ending
//! in a blank makes the next word a candidate too, as in bash.

use brush_parser::ast;

use crate::ctx::Io;
use crate::interp::Interp;

/// Runs `command` through its alias, or `None` when it names none (or
/// aliases are off).
pub(crate) fn run(interp: &mut Interp, command: &ast::SimpleCommand, io: &Io) -> Option<i32> {
    if !interp.state.options.shopt("expand_aliases") {
        return None;
    }
    let name = command.word_or_name.as_ref()?.value.clone();
    let value = interp.state.aliases.get(&name)?.clone();
    let mut words: Vec<String> = command
        .suffix
        .iter()
        .flat_map(|s| s.0.iter())
        .map(|item| match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => w.value.clone(),
            other => other.to_string(),
        })
        .collect();
    // Each alias ending in a blank makes the next word a candidate.
    let mut blank = value.ends_with([' ', '\t']);
    for next in &mut words {
        let Some(v) = interp.state.aliases.get(next.as_str()).filter(|_| blank) else { break };
        blank = v.ends_with([' ', '\t']);
        *next = v.clone();
    }
    // Assignments and redirections before the name stay in front.
    let prefix: Vec<String> =
        command.prefix.iter().flat_map(|p| p.0.iter()).map(ToString::to_string).collect();
    let text = format!("{} {value} {}", prefix.join(" "), words.join(" "));
    // Not expanded again inside itself.
    interp.state.aliases.remove(&name);
    let status = interp.run_source(&text, io);
    interp.state.aliases.entry(name).or_insert(value);
    Some(status)
}

#[cfg(all(test, feature = "testing"))]
mod tests {
    fn run_with_aliases(script: &str) -> (String, String, i32) {
        let mut sys = crate::testing::TestSystem::new();
        let mut shell = crate::Shell::new();
        shell.state.options.shopt.insert("expand_aliases");
        let status = shell.run(&mut sys, script);
        (
            String::from_utf8_lossy(&sys.stdout).into_owned(),
            String::from_utf8_lossy(&sys.stderr).into_owned(),
            status,
        )
    }

    #[test]
    fn aliases_expand_when_on() {
        // The same output as bash 5.2 with `shopt -s expand_aliases`.
        let (out, err, status) = run_with_aliases(
            "alias hi='echo hello'\nhi world\nalias say='echo ' word=expanded\nsay word\n\
             alias echo='echo x'\necho y\nunalias echo\nhi >/dev/null; echo $?\n",
        );
        assert_eq!((out.as_str(), err.as_str(), status), ("hello world\nexpanded\nx y\n0\n", "", 0));
    }

    #[test]
    fn aliases_are_not_expanded_by_default() {
        let (out, err, status) = crate::testing::run("alias hi='echo hello'\nhi\n");
        assert_eq!(
            (out.as_str(), err.as_str(), status),
            ("", "cordon: line 2: hi: command not found\n", 127)
        );
    }
}
