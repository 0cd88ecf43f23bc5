//! Patterns that need the backtracking engine (back-references,
//! look-around) are bounded: an exponential one ends with an error instead
//! of hanging the run.

use cordon_shell::testing::run;

#[test]
fn catastrophic_backreference_pattern_hits_the_step_limit() {
    let started = std::time::Instant::now();
    let script = "printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac\\n' | grep -E '^(a|aa|a*)*\\1b'; echo \"status $?\"";
    let (stdout, stderr, status) = run(script);
    assert_eq!(stdout, "status 2\n");
    assert_eq!(
        stderr,
        "grep: exceeded the backtracking limit (1000000 steps) on some line: the pattern is too complex\n"
    );
    assert_eq!(status, 0);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn backreferences_and_lookaround_match() {
    let (stdout, stderr, status) =
        run("printf 'aa\\nab\\n' | grep -x '\\(.\\)\\1'; printf 'foo1\\nfoox\\n' | grep -oP 'foo(?=\\d)'; printf 'x y x\\n' | grep -wE '(x) y \\1'");
    assert_eq!((stdout.as_str(), stderr.as_str(), status), ("aa\nfoo\nx y x\n", "", 0));
}
