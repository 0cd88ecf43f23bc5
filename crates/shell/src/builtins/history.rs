//! `history`: lists and edits the in-memory history (see
//! [`crate::history`]); `-r`, `-n`, `-w` and `-a` read and write
//! `$HISTFILE`. Commands are not recorded in a non-interactive shell.

use super::Builtin;
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "history",
    run,
    help: "Usage: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]\n",
    help_flag: false,
};

const USAGE: &str =
    "history: usage: history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]\n";

fn limit(ctx: &mut Ctx) -> usize {
    match ctx.state().get("HISTSIZE").map(str::parse::<i64>) {
        Some(Ok(n)) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
        Some(Ok(_)) => usize::MAX,
        _ => 500,
    }
}

fn file(ctx: &mut Ctx, arg: Option<&String>) -> Option<String> {
    arg.cloned().or_else(|| ctx.state().get("HISTFILE").map(str::to_string)).filter(|f| !f.is_empty())
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let limit = limit(ctx);
    ctx.state().history.trim(limit);
    let Some(first) = args.first() else { return list(ctx, None) };
    if !first.starts_with('-') || first == "-" {
        if args.len() > 1 && first.parse::<usize>().is_ok() {
            // bash's script stops here, as for `shift 1 2`.
            ctx.shell_error("history: too many arguments");
            ctx.interp.flow = Some(crate::interp::Flow::Exit(1));
            return 1;
        }
        return match first.parse::<usize>() {
            Ok(n) => list(ctx, Some(n)),
            Err(_) => {
                ctx.shell_error(&format!("history: {first}: numeric argument required"));
                1
            }
        };
    }
    match first.as_str() {
        "-c" => {
            ctx.state().history = crate::history::History::default();
            0
        }
        "-d" => {
            let Some(offset) = args.get(1) else {
                ctx.shell_error("history: -d: option requires an argument");
                ctx.err(USAGE);
                return 2;
            };
            let len = ctx.state().history.entries.len() as i64;
            let index = match offset.parse::<i64>() {
                Ok(n) if n > 0 && n <= len => n - 1,
                Ok(n) if n < 0 && -n <= len => len + n,
                _ => {
                    ctx.shell_error(&format!("history: {offset}: history position out of range"));
                    return 1;
                }
            };
            ctx.state().history.entries.remove(index as usize);
            0
        }
        "-s" => {
            let line = args[1..].join(" ");
            ctx.state().history.push(line, limit);
            0
        }
        "-p" => {
            let text: String = args[1..].iter().map(|a| format!("{a}\n")).collect();
            let _ = ctx.out(text);
            0
        }
        "-r" | "-n" => {
            let Some(path) = file(ctx, args.get(1)) else { return 1 };
            let Ok(bytes) = ctx.read_input(&path) else { return 1 };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let skip = if first == "-n" { ctx.state().history.file_lines } else { 0 };
            let lines: Vec<&str> = text.lines().collect();
            let history = &mut ctx.state().history;
            for line in lines.iter().skip(skip) {
                history.push((*line).to_string(), limit);
            }
            history.file_lines = lines.len();
            history.appended = history.entries.len();
            0
        }
        "-w" | "-a" => {
            // Without `$HISTFILE` there is nowhere to write: nothing to do.
            let Some(path) = file(ctx, args.get(1)) else { return 0 };
            let history = &ctx.state().history;
            let from = if first == "-a" { history.appended.min(history.entries.len()) } else { 0 };
            let text: String = history.entries[from..].iter().map(|e| format!("{e}\n")).collect();
            let mode = if first == "-a" { WriteMode::Append } else { WriteMode::Truncate };
            if let Err(e) = ctx.sys().write(&path, text.as_bytes(), mode) {
                ctx.shell_error(&format!("history: {path}: {}", e.describe()));
                return 1;
            }
            let history = &mut ctx.state().history;
            history.appended = history.entries.len();
            0
        }
        flag => {
            ctx.shell_error(&format!("history: {flag}: invalid option"));
            ctx.err(USAGE);
            2
        }
    }
}

/// `history [N]`: the last N entries (all by default), numbered.
fn list(ctx: &mut Ctx, last: Option<usize>) -> i32 {
    let entries = &ctx.state().history.entries;
    let from = last.map_or(0, |n| entries.len().saturating_sub(n));
    let text: String =
        entries.iter().enumerate().skip(from).map(|(i, e)| format!("{:5}  {e}\n", i + 1)).collect();
    let _ = ctx.out(text);
    0
}
