//! `mapfile` / `readarray`: reads lines of standard input (or `-u FD`)
//! into an indexed array (default `MAPFILE`).

use super::args::{self, Spec};
use super::Builtin;
use crate::ctx::Ctx;

const HELP: &str = "Usage: mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]\nReads lines of standard input into an indexed array (default MAPFILE).\n  -d  end lines with DELIM (the first character; '' means NUL)\n  -n  read at most COUNT lines (0: all)\n  -O  store from index ORIGIN (the array is not cleared)\n  -s  skip the first COUNT lines\n  -t  remove the delimiter from each line\n  -u  read from file descriptor FD\n  -C  evaluate CALLBACK with the index and line every QUANTUM lines\n  -c  QUANTUM (default 5000)\n";

pub const MAPFILE: Builtin = Builtin { name: "mapfile", run: run_mapfile, help: HELP, help_flag: true };
pub const READARRAY: Builtin = Builtin { name: "readarray", run: run_readarray, help: HELP, help_flag: true };

fn run_mapfile(ctx: &mut Ctx, argv: &[String]) -> i32 {
    run(ctx, "mapfile", argv)
}

fn run_readarray(ctx: &mut Ctx, argv: &[String]) -> i32 {
    run(ctx, "readarray", argv)
}

fn usage(ctx: &mut Ctx, name: &str) -> i32 {
    ctx.err(format!(
        "{name}: usage: {name} [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]\n"
    ));
    2
}

/// A non-negative count, or `None` when the text is not one.
fn count(text: &str) -> Option<usize> {
    let t = text.trim();
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<usize>().ok()
}

fn run(ctx: &mut Ctx, name: &str, argv: &[String]) -> i32 {
    let spec = Spec { stop_at_operand: true, ..Spec::new("d:n:O:s:tu:C:c:") };
    let parsed = match args::parse(name, argv, &spec) {
        Ok(p) => p,
        Err(_) => {
            let bad = argv
                .iter()
                .find(|a| a.starts_with('-') && a.len() > 1)
                .map(|a| a.chars().take(2).collect::<String>())
                .unwrap_or_default();
            if spec.short.contains(bad.chars().nth(1).unwrap_or('?')) {
                ctx.shell_error(&format!("{name}: {bad}: option requires an argument"));
            } else {
                ctx.shell_error(&format!("{name}: {bad}: invalid option"));
            }
            return usage(ctx, name);
        }
    };
    let delim = parsed.value('d').map_or(b'\n', |d| d.as_bytes().first().copied().unwrap_or(0));
    let mut limits = [0usize; 3];
    for (i, (opt, what)) in
        [('n', "invalid line count"), ('O', "invalid array origin"), ('s', "invalid line count")]
            .into_iter()
            .enumerate()
    {
        if let Some(v) = parsed.value(opt) {
            match count(v) {
                Some(n) => limits[i] = n,
                None => {
                    ctx.shell_error(&format!("{name}: {v}: {what}"));
                    return 1;
                }
            }
        }
    }
    let [max, origin, skip] = limits;
    let quantum = match parsed.value('c') {
        Some(v) => match count(v) {
            Some(n) if n > 0 => n,
            _ => {
                ctx.shell_error(&format!("{name}: {v}: invalid callback quantum"));
                return 1;
            }
        },
        None => 5000,
    };
    let callback = parsed.value('C').map(str::to_string);
    let input = match parsed.value('u') {
        Some(fd) => match fd.trim().parse::<i32>().ok().and_then(|n| ctx.input_fd(n)) {
            Some(data) => data,
            None => {
                ctx.shell_error(&format!("{name}: {fd}: invalid file descriptor: Bad file descriptor"));
                return 1;
            }
        },
        None => ctx.io.stdin.clone(),
    };
    if parsed.operands.len() > 1 {
        return usage(ctx, name);
    }
    let array = parsed.operands.first().cloned().unwrap_or_else(|| "MAPFILE".to_string());
    if !super::export::valid_name(&array) {
        ctx.shell_error(&format!("{name}: `{array}': not a valid identifier"));
        return 1;
    }
    if ctx.state().readonly.contains(&array) {
        ctx.shell_error(&format!("{array}: readonly variable"));
        return 1;
    }
    if ctx.state().assoc.contains_key(&array) {
        ctx.shell_error(&format!("{name}: {array}: not an indexed array"));
        return 1;
    }
    {
        let state = ctx.state();
        let scalar = state.vars.remove(&array).map(|v| v.value);
        let entry = state.arrays.entry(array.clone()).or_insert_with(|| scalar.into_iter().collect());
        if parsed.value('O').is_none() {
            *entry = crate::state::Indexed::default();
        }
    }
    let trim = parsed.has('t');
    let mut skipped = 0usize;
    let mut stored = 0usize;
    while max == 0 || stored < max {
        if ctx.interrupted() {
            break;
        }
        let Some(mut line) = input.borrow_mut().read_until(delim) else { break };
        if skipped < skip {
            skipped += 1;
            continue;
        }
        if trim && line.last() == Some(&delim) {
            line.pop();
        }
        // Bash keeps each line as a C string: it ends at the first NUL.
        if let Some(nul) = line.iter().position(|&b| b == 0) {
            line.truncate(nul);
        }
        let text = String::from_utf8_lossy(&line).into_owned();
        let index = origin + stored;
        if let Some(cb) = &callback {
            if (stored + 1).is_multiple_of(quantum) {
                let quoted = format!("'{}'", text.replace('\'', "'\\''"));
                ctx.exec(&["eval".to_string(), format!("{cb} {index} {quoted}")], None);
            }
        }
        if let Some(arr) = ctx.state().arrays.get_mut(&array) {
            arr.set(index, text);
        }
        stored += 1;
    }
    0
}
