//! GNU-style option parsing shared by the builtins: clustered short flags
//! (`-rn`), values attached or separate (`-k2`, `-k 2`), long options
//! (`--key=2`, `--key 2`), `--` ending options, and options after operands.

/// Whether a long option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    Yes,
}

/// What a builtin accepts. `short` lists letters; a letter followed by `:`
/// takes a value. `long` maps long names to the short letter they mean (use
/// any unused character for long-only options).
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub short: &'static str,
    pub long: &'static [(&'static str, char, HasArg)],
    /// Stop at the first operand (like `xargs`, `env`, `find`'s commands).
    pub stop_at_operand: bool,
}

impl Spec {
    pub const fn new(short: &'static str) -> Self {
        Self { short, long: &[], stop_at_operand: false }
    }

    fn short_takes_value(&self, c: char) -> Option<bool> {
        let mut chars = self.short.chars().peekable();
        while let Some(x) = chars.next() {
            let takes = chars.peek() == Some(&':');
            if takes {
                chars.next();
            }
            if x == c {
                return Some(takes);
            }
        }
        None
    }
}

/// Parsed options (in order, repeated ones kept) and operands.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub opts: Vec<(char, Option<String>)>,
    pub operands: Vec<String>,
}

impl Parsed {
    pub fn has(&self, c: char) -> bool {
        self.opts.iter().any(|(o, _)| *o == c)
    }

    /// The last value given for `c`.
    pub fn value(&self, c: char) -> Option<&str> {
        self.opts.iter().rev().find(|(o, _)| *o == c).and_then(|(_, v)| v.as_deref())
    }

    /// Every value given for `c`, in order.
    pub fn values(&self, c: char) -> Vec<&str> {
        self.opts.iter().filter(|(o, _)| *o == c).filter_map(|(_, v)| v.as_deref()).collect()
    }
}

/// A long option as typed after its `--`: the name, and the value given
/// with `=` (`--key=2`), if any.
pub fn split_long(long: &str) -> (&str, Option<String>) {
    match long.split_once('=') {
        Some((key, value)) => (key, Some(value.to_string())),
        None => (long, None),
    }
}

/// The entries of `table` that the long option `key` may name: the entry
/// named exactly `key` alone when there is one, else every entry whose name
/// `key` abbreviates. None means an unrecognized option; several, an
/// ambiguous one unless the caller knows they mean the same.
pub fn match_long<'t, T>(table: &'t [T], key: &str, name: impl Fn(&T) -> &str) -> Vec<&'t T> {
    match table.iter().find(|entry| name(entry) == key) {
        Some(exact) => vec![exact],
        None => table.iter().filter(|entry| name(entry).starts_with(key)).collect(),
    }
}

/// The value of an option that requires one: `given` with the option
/// (`--key=2`, `-k2`), else the next argument, `args[*next]`, which
/// `*next` then moves past. `None` when there is neither.
pub fn required_value(given: Option<String>, args: &[String], next: &mut usize) -> Option<String> {
    if given.is_some() {
        return given;
    }
    let value = args.get(*next).cloned();
    if value.is_some() {
        *next += 1;
    }
    value
}

/// Parses `args` (without the command name). The error is the full message
/// to print (GNU wording, with the `Try 'NAME --help'` line); the caller
/// exits with status 2.
pub fn parse(name: &str, args: &[String], spec: &Spec) -> Result<Parsed, String> {
    let try_help = format!("Try '{name} --help' for more information.\n");
    let mut out = Parsed::default();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            out.operands.extend(args.iter().skip(i).cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (key, inline) = split_long(long);
            let &(lname, c, has) = match match_long(spec.long, key, |(n, _, _)| *n).as_slice() {
                [only] => *only,
                [] => return Err(format!("{name}: unrecognized option '{arg}'\n{try_help}")),
                _ => return Err(format!("{name}: option '{arg}' is ambiguous\n{try_help}")),
            };
            match has {
                HasArg::No if inline.is_some() => {
                    return Err(format!("{name}: option '--{lname}' doesn't allow an argument\n{try_help}"))
                }
                HasArg::No => out.opts.push((c, None)),
                HasArg::Yes => match required_value(inline, args, &mut i) {
                    Some(v) => out.opts.push((c, Some(v))),
                    None => {
                        return Err(format!("{name}: option '--{lname}' requires an argument\n{try_help}"))
                    }
                },
            }
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            for (at, c) in arg.char_indices().skip(1) {
                match spec.short_takes_value(c) {
                    None => return Err(format!("{name}: invalid option -- '{c}'\n{try_help}")),
                    Some(false) => out.opts.push((c, None)),
                    Some(true) => {
                        let attached = arg.get(at + c.len_utf8()..).filter(|r| !r.is_empty());
                        let Some(v) = required_value(attached.map(str::to_string), args, &mut i) else {
                            return Err(format!("{name}: option requires an argument -- '{c}'\n{try_help}"));
                        };
                        out.opts.push((c, Some(v)));
                        break;
                    }
                }
            }
            continue;
        }
        out.operands.push(arg.clone());
        if spec.stop_at_operand {
            out.operands.extend(args.iter().skip(i).cloned());
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn clusters_values_and_permutation() {
        let spec = Spec {
            short: "nrk:t:",
            long: &[("key", 'k', HasArg::Yes), ("reverse", 'r', HasArg::No)],
            stop_at_operand: false,
        };
        let p = parse(
            "sort",
            &strings(&["-rn", "file", "-k2", "--key=3", "-t", ",", "--rev", "--", "-x"]),
            &spec,
        );
        assert_eq!(
            p,
            Ok(Parsed {
                opts: vec![
                    ('r', None),
                    ('n', None),
                    ('k', Some("2".into())),
                    ('k', Some("3".into())),
                    ('t', Some(",".into())),
                    ('r', None)
                ],
                operands: strings(&["file", "-x"]),
            })
        );
    }

    #[test]
    fn long_names_and_values() {
        let table = ["format", "form", "separator"];
        let names =
            |key: &str| -> Vec<&str> { match_long(&table, key, |n| *n).into_iter().copied().collect() };
        assert_eq!(names("form"), ["form"]);
        assert_eq!(names("for"), ["format", "form"]);
        assert_eq!(names("s"), ["separator"]);
        assert!(names("x").is_empty());
        assert_eq!(split_long("key=a=b"), ("key", Some("a=b".to_string())));
        assert_eq!(split_long("key"), ("key", None));
        let args = strings(&["-k", "2"]);
        let mut next = 1;
        assert_eq!(required_value(Some("1".into()), &args, &mut next), Some("1".into()));
        assert_eq!(next, 1);
        assert_eq!(required_value(None, &args, &mut next), Some("2".into()));
        assert_eq!(next, 2);
        assert_eq!(required_value(None, &args, &mut next), None);
        assert_eq!(next, 2);
    }

    #[test]
    fn errors_use_gnu_wording() {
        let spec = Spec::new("n:");
        assert_eq!(
            parse("head", &strings(&["-z"]), &spec),
            Err("head: invalid option -- 'z'\nTry 'head --help' for more information.\n".into())
        );
        assert_eq!(
            parse("head", &strings(&["-n"]), &spec),
            Err("head: option requires an argument -- 'n'\nTry 'head --help' for more information.\n".into())
        );
        assert_eq!(
            parse("head", &strings(&["--bogus"]), &spec),
            Err("head: unrecognized option '--bogus'\nTry 'head --help' for more information.\n".into())
        );
    }
}
