//! Replays the scripts under `tests/fixtures/cases` against cordon's shell
//! and compares stdout, stderr and exit status exactly with what real bash,
//! GNU coreutils, mawk and jq produced on the recording machine
//! (`tests/fixtures/expected`, re-recorded by `RECORD=1 npm run
//! record:shell`). Known differences are listed, with their reason, in
//! `tests/fixtures/known-differences.txt`; a listed case that starts passing
//! fails the test too, so the list stays true.

use std::collections::BTreeMap;
use std::path::Path;

#[derive(serde::Deserialize)]
struct Expected {
    name: String,
    script: String,
    stdout: String,
    stderr: String,
    status: i32,
}

/// `#### name` headers split a case file into scripts.
fn cases(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("#### ") {
            out.push((name.trim().to_string(), String::new()));
        } else if let Some((_, script)) = out.last_mut() {
            script.push_str(line);
        }
    }
    out
}

#[test]
fn shell_matches_recorded_bash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let known: BTreeMap<String, String> = std::fs::read_to_string(root.join("known-differences.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(": ").map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
        .collect();
    let only = std::env::var("CASES").ok();
    let mut files: Vec<_> = std::fs::read_dir(root.join("cases"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut failures = Vec::new();
    let mut report = String::new();
    let (mut total, mut passed_total) = (0, 0);
    for file in files {
        let group = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        if only.as_deref().is_some_and(|o| !o.split(',').any(|g| g == group)) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let expected_path = root.join("expected").join(format!("{group}.json"));
        let expected: Vec<Expected> = std::fs::read_to_string(&expected_path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let expected: BTreeMap<&str, &Expected> = expected.iter().map(|e| (e.name.as_str(), e)).collect();
        let (mut n, mut ok) = (0, 0);
        for (name, script) in cases(&text) {
            n += 1;
            let id = format!("{group}/{name}");
            let Some(want) = expected.get(name.as_str()) else {
                failures.push(format!("{id}: not recorded (run RECORD=1 npm run record:shell)"));
                continue;
            };
            if want.script != script {
                failures.push(format!("{id}: script changed since it was recorded"));
                continue;
            }
            let (stdout, stderr, status) = cordon_shell::testing::run(&script);
            let same = stdout == want.stdout && stderr == want.stderr && status == want.status;
            match (same, known.contains_key(&id)) {
                (true, false) => ok += 1,
                (true, true) => failures.push(format!("{id}: listed as a known difference but now matches")),
                (false, true) => {}
                (false, false) => failures.push(format!(
                    "{id}:\n--- script\n{script}--- want status {}\n{}--- want stderr\n{}--- got status {status}\n{stdout}--- got stderr\n{stderr}",
                    want.status, want.stdout, want.stderr
                )),
            }
        }
        total += n;
        passed_total += ok;
        report.push_str(&format!("{group:<12} {ok:>4}/{n:<4}\n"));
    }
    println!("{report}{:<12} {passed_total:>4}/{total:<4}", "total");
    assert!(failures.is_empty(), "{} fixture failures:\n\n{}", failures.len(), failures.join("\n\n"));
}
