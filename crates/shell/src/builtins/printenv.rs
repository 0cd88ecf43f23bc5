//! `printenv [-0] [NAME]...`: the values of exported variables, or every
//! `NAME=value` pair without operands. Status 1 when a name is not in the
//! environment.

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "printenv",
    run,
    help: "Usage: printenv [OPTION]... [VARIABLE]...\n\
Print the values of the specified environment VARIABLE(s).\n\
If no VARIABLE is specified, print name and value pairs for them all.\n\n\
  -0, --null     end each output line with NUL, not newline\n\
      --help     display this help and exit\n",
    help_flag: true,
};

const SPEC: Spec = Spec { short: "0", long: &[("null", '0', HasArg::No)], stop_at_operand: false };

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("printenv", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 2;
        }
    };
    let end = if parsed.has('0') { '\0' } else { '\n' };
    let env = ctx.state().environment();
    let mut out = String::new();
    let mut status = 0;
    if parsed.operands.is_empty() {
        for (name, value) in &env {
            out.push_str(name);
            out.push('=');
            out.push_str(value);
            out.push(end);
        }
    } else {
        for name in &parsed.operands {
            match env.iter().find(|(n, _)| n == name) {
                Some((_, value)) if !name.contains('=') => {
                    out.push_str(value);
                    out.push(end);
                }
                _ => status = 1,
            }
        }
    }
    let _ = ctx.out(out);
    status
}
