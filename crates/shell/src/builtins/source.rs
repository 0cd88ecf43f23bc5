//! `source` / `.`: runs a script file from the sandbox in the current shell.

use super::Builtin;
use crate::ctx::Ctx;
use crate::interp::Flow;

pub const BUILTIN: Builtin = Builtin {
    name: "source",
    run,
    help: "Usage: source FILE [ARG]...\nRuns FILE's commands in the current shell.\n",
    help_flag: true,
};

pub const DOT: Builtin = Builtin {
    name: ".",
    run,
    help: "Usage: . FILE [ARG]...\nRuns FILE's commands in the current shell.\n",
    help_flag: true,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let args = args.strip_prefix(&["--".to_string()][..]).unwrap_or(args);
    let Some((path, rest)) = args.split_first() else {
        ctx.shell_error("source: filename argument required");
        ctx.err("source: usage: source filename [arguments]\n");
        return 2;
    };
    // A name without a slash is looked for along PATH first (files only).
    let found;
    let path = if path.contains('/') {
        path
    } else {
        let dirs: Vec<String> =
            ctx.state().get("PATH").unwrap_or_default().split(':').map(str::to_string).collect();
        found = dirs
            .iter()
            .filter(|d| !d.is_empty())
            .map(|d| format!("{}/{path}", d.trim_end_matches('/')))
            .find(|p| ctx.interp.sys.stat(p).is_ok_and(|m| m.kind == crate::system::Kind::File));
        found.as_ref().unwrap_or(path)
    };
    let script = match ctx.read_input(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            ctx.shell_error(&format!("{path}: {}", e.describe()));
            return 1;
        }
    };
    if ctx.interp.depth >= crate::interp::MAX_DEPTH {
        ctx.shell_error(&format!("source: maximum nesting depth ({}) exceeded", crate::interp::MAX_DEPTH));
        return 1;
    }
    let saved = (!rest.is_empty()).then(|| std::mem::replace(&mut ctx.state().positional, rest.to_vec()));
    let io = ctx.io.clone();
    let line = std::mem::replace(&mut ctx.interp.line, 1);
    ctx.interp.depth += 1;
    let mut status = ctx.interp.run_source(&script, &io);
    ctx.interp.depth -= 1;
    ctx.interp.line = line;
    if let Some(Flow::Return(code)) = ctx.interp.flow {
        ctx.interp.flow = None;
        status = code;
    }
    if let Some(saved) = saved {
        ctx.state().positional = saved;
    }
    ctx.state().last_status = status;
    ctx.interp.return_trap(&io);
    status
}
