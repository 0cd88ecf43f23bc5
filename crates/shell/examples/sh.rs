//! Runs one script through the shell over the in-memory test system, for
//! measurement tools (`scripts/spec-suite.mjs --native`): the script is the
//! file named by the first argument, or standard input; the shell's stdout
//! and stderr go to this process's, and its status is the exit code.

use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let script = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path),
        None => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).map(|_| buf)
        }
    };
    let Ok(script) = script else {
        eprintln!("sh: cannot read the script");
        return ExitCode::from(2);
    };
    let mut sys = cordon_shell::testing::TestSystem::new();
    let mut shell = cordon_shell::Shell::new();
    let status = shell.run_with_stdin(&mut sys, &String::from_utf8_lossy(&script), Vec::new());
    let wrote = std::io::stdout().write_all(&sys.stdout).and(std::io::stderr().write_all(&sys.stderr));
    if wrote.is_err() {
        return ExitCode::from(2);
    }
    ExitCode::from((status & 0xff) as u8)
}
