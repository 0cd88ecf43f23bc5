//! `tee`: copy standard input to standard output and files (GNU coreutils
//! semantics): `-a` appends, `-i` and `-p` are accepted.

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "tee",
    run,
    help: "Usage: tee [OPTION]... [FILE]...\n\
Copy standard input to each FILE, and also to standard output.\n\
\n\
  -a, --append              append to the given FILEs, do not overwrite\n\
  -i, --ignore-interrupts   ignore interrupt signals (no effect here)\n\
  -p                        diagnose errors writing to non pipes (no effect here)\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "aip",
    long: &[("append", 'a', HasArg::No), ("ignore-interrupts", 'i', HasArg::No)],
    stop_at_operand: false,
};

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("tee", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let append = parsed.has('a');
    let mut status = 0;
    // Files are created (or truncated) before anything is read, like GNU.
    let mut ok: Vec<bool> = Vec::with_capacity(parsed.operands.len());
    let mut special = Vec::with_capacity(parsed.operands.len());
    for path in &parsed.operands {
        match ctx.special_output(path) {
            Some(Ok(sink)) => {
                special.push(Some(sink));
                ok.push(true);
                continue;
            }
            Some(Err(e)) => {
                ctx.file_error("tee", path, &e);
                status = 1;
                special.push(None);
                ok.push(false);
                continue;
            }
            None => special.push(None),
        }
        let mode = if append { WriteMode::Append } else { WriteMode::Truncate };
        match ctx.sys().write(path, b"", mode) {
            Ok(()) => ok.push(true),
            Err(e) => {
                ctx.file_error("tee", path, &e);
                status = 1;
                ok.push(false);
            }
        }
    }
    let data = ctx.stdin_all();
    // A closed standard output does not stop the copies to files.
    let _ = ctx.out(&data);
    for ((path, good), sink) in parsed.operands.iter().zip(&ok).zip(special) {
        if !good || data.is_empty() {
            continue;
        }
        if let Some(sink) = sink {
            let _ = sink.borrow_mut().write(ctx.sys(), &data);
            continue;
        }
        if let Err(e) = ctx.sys().write(path, &data, WriteMode::Append) {
            ctx.file_error("tee", path, &e);
            status = 1;
        }
    }
    status
}
