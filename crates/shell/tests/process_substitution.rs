//! Process substitutions and descriptors stay inside the run's budgets: the
//! inner list of `<(…)` and `>(…)` counts steps like any command, and its
//! nesting is capped.

use cordon_shell::testing::TestSystem;
use cordon_shell::Shell;

fn run_with_steps(script: &str, steps: u64) -> (String, String, i32) {
    let mut sys = TestSystem::new();
    sys.steps_left = Some(steps);
    let status = Shell::new().run(&mut sys, script);
    (
        String::from_utf8_lossy(&sys.stdout).into_owned(),
        String::from_utf8_lossy(&sys.stderr).into_owned(),
        status,
    )
}

#[test]
fn an_endless_inner_list_hits_the_step_budget() {
    let (stdout, _, status) = run_with_steps("cat <(while :; do :; done); echo after", 10_000);
    assert_eq!((stdout.as_str(), status), ("", 130));
}

#[test]
fn an_endless_output_substitution_hits_the_step_budget() {
    let (stdout, _, status) = run_with_steps("echo x > >(while :; do :; done); echo after", 10_000);
    assert_eq!((stdout.as_str(), status), ("", 130));
}

#[test]
fn nested_substitutions_hit_the_nesting_cap() {
    let (stdout, stderr, status) = run_with_steps("f() { cat <(f); }; f; echo after", 1_000_000);
    assert_eq!(stdout, "");
    assert!(stderr.contains("maximum function nesting level exceeded (200)"), "{stderr}");
    assert_eq!(status, 1);
}

#[test]
fn paths_are_released_after_the_command() {
    let (stdout, stderr, status) =
        run_with_steps("echo <(true) <(true); echo <(true); cat /dev/fd/63", 10_000);
    assert_eq!(stdout, "/dev/fd/63 /dev/fd/62\n/dev/fd/63\n");
    assert_eq!(stderr, "cat: /dev/fd/63: Bad file descriptor\n");
    assert_eq!(status, 1);
}
