//! `umask`: prints or sets the file-creation mask (bash's forms). The mask
//! is kept in the shell's state; new files keep the sandbox's default bits.

use super::chmod::{apply_mode, UMASK};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "umask",
    run,
    help: "Usage: umask [-p] [-S] [mode]\nDisplays or sets the file mode creation mask.\n",
    help_flag: true,
};

fn symbolic(mask: u32) -> String {
    let allowed = !mask & 0o777;
    let class = |shift: u32| {
        let b = (allowed >> shift) & 7;
        let mut s = String::new();
        for (bit, c) in [(4, 'r'), (2, 'w'), (1, 'x')] {
            if b & bit != 0 {
                s.push(c);
            }
        }
        s
    };
    format!("u={},g={},o={}", class(6), class(3), class(0))
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut sym = false;
    let mut print = false;
    let mut rest = args;
    while let Some(a) = rest.first() {
        match a.as_str() {
            "-S" => sym = true,
            "-p" => print = true,
            "--" => {
                rest = &rest[1..];
                break;
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    let mask = ctx.state().umask.unwrap_or(UMASK);
    let Some(spec) = rest.first() else {
        let text = if sym { symbolic(mask) } else { format!("{mask:04o}") };
        let prefix = if print {
            if sym {
                "umask -S "
            } else {
                "umask "
            }
        } else {
            ""
        };
        let _ = ctx.out(format!("{prefix}{text}\n"));
        return 0;
    };
    let new = if spec.bytes().all(|b| b.is_ascii_digit()) {
        match u32::from_str_radix(spec, 8) {
            Ok(m) if m <= 0o777 => Some(m),
            _ => {
                ctx.shell_error(&format!("umask: {spec}: octal number out of range"));
                return 1;
            }
        }
    } else {
        // A symbolic mask says which bits new files may have.
        apply_mode(spec, !mask & 0o777, false).map(|allowed| !allowed & 0o777)
    };
    match new {
        Some(m) => {
            ctx.state().umask = Some(m);
            0
        }
        None => {
            let c = spec.chars().find(|c| !"ugoa+-=rwxXst,".contains(*c)).unwrap_or('?');
            ctx.shell_error(&format!("umask: `{c}': invalid symbolic mode operator"));
            1
        }
    }
}
