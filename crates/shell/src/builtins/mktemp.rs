//! `mktemp`: creates a new, uniquely named file or directory (GNU
//! coreutils' options and messages).

use super::args::{self, HasArg, Spec};
use super::{usage_error, Builtin};
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "mktemp",
    run,
    help: "Usage: mktemp [OPTION]... [TEMPLATE]\n\
Create a temporary file or directory, safely, and print its name.\n\
TEMPLATE must contain at least 3 consecutive 'X's in last component.\n\
If TEMPLATE is not specified, use tmp.XXXXXXXXXX, and --tmpdir is implied.\n\
\n\
  -d, --directory     create a directory, not a file\n\
  -u, --dry-run       do not create anything; merely print a name\n\
  -q, --quiet         suppress diagnostics about file/dir-creation failure\n\
  -p DIR, --tmpdir[=DIR]  interpret TEMPLATE relative to DIR (default $TMPDIR or /tmp)\n\
  -t                  interpret TEMPLATE as a single file name component under DIR\n",
    help_flag: true,
};

const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    const SPEC: Spec = Spec {
        short: "dup:qt",
        long: &[
            ("directory", 'd', HasArg::No),
            ("dry-run", 'u', HasArg::No),
            ("tmpdir", 'p', HasArg::Yes),
            ("quiet", 'q', HasArg::No),
        ],
        stop_at_operand: false,
    };
    let parsed = match args::parse("mktemp", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx, &msg);
            return 1;
        }
    };
    if parsed.operands.len() > 1 {
        ctx.err("mktemp: too many templates\nTry 'mktemp --help' for more information.\n");
        return 1;
    }
    let quiet = parsed.has('q');
    let template = parsed.operands.first().cloned();
    let tmpdir = ctx_tmpdir(ctx);
    let dir = match (parsed.value('p'), &template) {
        (Some(d), _) if !d.is_empty() => Some(d.to_string()),
        (Some(_), _) | (None, None) => Some(tmpdir),
        (None, Some(_)) if parsed.has('t') => Some(tmpdir),
        (None, Some(_)) => None,
    };
    let template = template.unwrap_or_else(|| "tmp.XXXXXXXXXX".to_string());
    if dir.is_some() && template.contains('/') && (parsed.has('t') || parsed.value('p').is_some()) {
        ctx.err(format!("mktemp: invalid template, '{template}', contains directory separator\n"));
        return 1;
    }
    let path = match &dir {
        Some(d) => format!("{}/{template}", d.trim_end_matches('/')),
        None => template.clone(),
    };
    let xs = path.len() - path.trim_end_matches('X').len();
    if xs < 3 {
        ctx.err(format!("mktemp: too few X's in template '{template}'\n"));
        return 1;
    }
    let stem = &path[..path.len() - xs];
    for _ in 0..100 {
        let mut name = stem.to_string();
        for _ in 0..xs {
            let r = &mut ctx.interp.random;
            *r ^= *r << 13;
            *r ^= *r >> 7;
            *r ^= *r << 17;
            name.push(char::from(LETTERS[(*r % LETTERS.len() as u64) as usize]));
        }
        if ctx.sys().stat(&name).is_ok() {
            continue;
        }
        if !parsed.has('u') {
            let made = if parsed.has('d') {
                ctx.sys().mkdir(&name, false)
            } else {
                ctx.sys().write(&name, b"", WriteMode::Truncate)
            };
            if let Err(e) = made {
                if !quiet {
                    let what = if parsed.has('d') { "directory" } else { "file" };
                    ctx.err(format!(
                        "mktemp: failed to create {what} via template '{path}': {}\n",
                        e.describe()
                    ));
                }
                return 1;
            }
        }
        let _ = ctx.out(format!("{name}\n"));
        return 0;
    }
    if !quiet {
        ctx.err(format!("mktemp: failed to create file via template '{path}': File exists\n"));
    }
    1
}

fn ctx_tmpdir(ctx: &mut Ctx) -> String {
    ctx.state().get("TMPDIR").filter(|d| !d.is_empty()).unwrap_or("/tmp").to_string()
}
