//! Arbitrary scripts through the shell's parser, expansion and control flow
//! over the in-memory file system: no panic, a bounded amount of work, the
//! working directory always an absolute path of the tree, and the file
//! system within its quotas.
#![no_main]
use cordon_shell::testing::TestSystem;
use cordon_shell::Shell;
use cordon_vfs::FileSystem;
use libfuzzer_sys::fuzz_target;

/// Builtins with languages of their own have their own loops; this target is
/// about the shell language, so scripts naming them are skipped.
const OWN_LANGUAGES: [&str; 4] = ["awk", "sed", "jq", "sleep"];

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let script = String::from_utf8_lossy(data);
    if OWN_LANGUAGES.iter().any(|name| script.contains(name)) {
        return;
    }
    let mut sys = TestSystem::new();
    sys.steps_left = Some(5_000);
    sys.output_limit = 64 * 1024;
    let mut shell = Shell::new();
    let _ = shell.run(&mut sys, &script);
    // A second run in the same session must work too.
    sys.steps_left = Some(1_000);
    let _ = shell.run(&mut sys, "echo $? ${#PWD} $(pwd)");
    assert!(sys.fs.cwd().starts_with('/'));
    let usage = sys.fs.usage();
    let quotas = sys.fs.quotas();
    assert!(usage.bytes <= quotas.total_bytes && usage.files <= quotas.files);
});
