//! `js` / `node`: runs JavaScript in this sandbox's QuickJS (the same
//! session as `language: "javascript"` runs), with its output as this
//! command's output.

use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin { name: "js", run, help: HELP, help_flag: true };
pub const NODE: Builtin = Builtin { name: "node", run, help: HELP, help_flag: true };

const HELP: &str = "Usage: js -e CODE\n       js FILE\n\
Runs JavaScript in this sandbox's QuickJS session (the same globals, files, tools and capabilities as\n\
JavaScript runs). The code is the body of an async function: `await` works and a returned value is\n\
printed. Status 1 if it throws. `node` is the same command. The command's standard input is the\n\
script's (`fs.readFileSync(0)`, `process.stdin`).\n\
  -e, --eval CODE   run CODE\n  -p, --print CODE  run CODE and print its value (the same as -e)\n";

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (code, rest) = match args.split_first() {
        Some((flag, rest)) if matches!(flag.as_str(), "-e" | "--eval" | "-p" | "--print") => {
            match rest.split_first() {
                Some((code, rest)) => (code.clone(), rest),
                None => {
                    ctx.err(format!("js: {flag} requires an argument\n"));
                    return 2;
                }
            }
        }
        Some((flag, _)) if flag.starts_with('-') => {
            ctx.err(format!("js: unrecognized option '{flag}'\nTry 'js --help' for more information.\n"));
            return 2;
        }
        Some((file, rest)) => match ctx.read_input(file) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                // A shebang line is not JavaScript.
                let text = if text.starts_with("#!") {
                    text.split_once('\n').map_or_else(String::new, |(_, rest)| format!("\n{rest}"))
                } else {
                    text
                };
                (text, rest)
            }
            Err(e) => {
                ctx.err(format!("js: {file}: {}\n", e.describe()));
                return 1;
            }
        },
        None => {
            let bytes = ctx.stdin_all();
            (String::from_utf8_lossy(&bytes).into_owned(), &args[..0])
        }
    };
    let read_code_from_stdin = args.is_empty();
    // The code's standard input is the command's, unless the code came from it.
    let stdin = if read_code_from_stdin { Vec::new() } else { ctx.stdin_all() };
    let outcome = ctx.sys().javascript(&code, rest, &stdin);
    let _ = ctx.out(&outcome.stdout);
    ctx.err(&outcome.stderr);
    outcome.status
}
