//! `sort`: GNU coreutils sort in the C locale. Keys (`-k POS1[,POS2]` with
//! `F.C` positions and per-key flags), field separators (`-t`), numeric
//! (`-n`), general numeric (`-g`), human (`-h`), month (`-M`) and version
//! (`-V`) orders, folding/ignoring (`-f -d -i -b`), reverse, stable and
//! unique output, checking (`-c -C`) and `-o`. Like GNU, lines whose keys
//! compare equal are ordered by a last-resort byte comparison of the whole
//! line unless `-s` or `-u` is given.
//!
//! Lines are byte slices into the inputs; key spans are computed once per
//! line before sorting so comparisons never allocate.
//!
//! Options and the run here; keys in `keys`, orderings in `compare`,
//! sorting in `sorter`.

mod compare;
mod keys;
mod sorter;

use compare::*;
use keys::*;
use sorter::*;

use std::cmp::Ordering;

use super::args::{self, HasArg, Spec};
use super::common::lines::records;
use super::Builtin;
use crate::ctx::Ctx;
use crate::system::WriteMode;

pub const BUILTIN: Builtin = Builtin {
    name: "sort",
    run,
    help: "Usage: sort [OPTION]... [FILE]...\n\
Write sorted concatenation of all FILE(s) to standard output.\n\
With no FILE, or when FILE is -, read standard input.\n\
\n\
  -b, --ignore-leading-blanks  ignore leading blanks\n\
  -d, --dictionary-order      consider only blanks and alphanumeric characters\n\
  -f, --ignore-case           fold lower case to upper case characters\n\
  -g, --general-numeric-sort  compare according to general numerical value\n\
  -i, --ignore-nonprinting    consider only printable characters\n\
  -M, --month-sort            compare (unknown) < 'JAN' < ... < 'DEC'\n\
  -h, --human-numeric-sort    compare human readable numbers (e.g., 2K 1G)\n\
  -n, --numeric-sort          compare according to string numerical value\n\
  -r, --reverse               reverse the result of comparisons\n\
  -V, --version-sort          natural sort of (version) numbers within text\n\
  -c, --check                 check for sorted input; do not sort\n\
  -C                          like -c, but do not report first bad line\n\
  -k, --key=KEYDEF            sort via a key; KEYDEF gives location and type\n\
  -m, --merge                 merge already sorted files (sorts them here)\n\
  -o, --output=FILE           write result to FILE instead of standard output\n\
  -s, --stable                stabilize sort by disabling last-resort comparison\n\
  -S, --buffer-size=SIZE      accepted and ignored\n\
  -t, --field-separator=SEP   use SEP instead of non-blank to blank transition\n\
  -T, --temporary-directory=DIR  accepted and ignored\n\
      --parallel=N            accepted and ignored\n\
  -u, --unique                output only the first of an equal run\n\
  -z, --zero-terminated       line delimiter is NUL, not newline\n\
\n\
KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a\n\
field number and C a character position in the field; both are origin 1, and\n\
the stop position defaults to the line's end. OPTS is one or more of bdfgiMhnrV.\n\
Random sort (-R) is not supported.\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "bcCdfghik:mMno:rsS:t:T:uVz",
    long: &[
        ("ignore-leading-blanks", 'b', HasArg::No),
        ("check", 'c', HasArg::No),
        ("dictionary-order", 'd', HasArg::No),
        ("ignore-case", 'f', HasArg::No),
        ("general-numeric-sort", 'g', HasArg::No),
        ("human-numeric-sort", 'h', HasArg::No),
        ("ignore-nonprinting", 'i', HasArg::No),
        ("key", 'k', HasArg::Yes),
        ("merge", 'm', HasArg::No),
        ("month-sort", 'M', HasArg::No),
        ("numeric-sort", 'n', HasArg::No),
        ("output", 'o', HasArg::Yes),
        ("reverse", 'r', HasArg::No),
        ("stable", 's', HasArg::No),
        ("buffer-size", 'S', HasArg::Yes),
        ("field-separator", 't', HasArg::Yes),
        ("temporary-directory", 'T', HasArg::Yes),
        ("parallel", 'P', HasArg::Yes),
        ("unique", 'u', HasArg::No),
        ("version-sort", 'V', HasArg::No),
        ("zero-terminated", 'z', HasArg::No),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    #[default]
    Text,
    Numeric,
    General,
    Human,
    Month,
    Version,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Ignore {
    #[default]
    None,
    /// `-d`: keep only blanks and alphanumerics.
    Dictionary,
    /// `-i`: keep only printable characters.
    Nonprinting,
}

/// Ordering options, global or of one key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flags {
    skip_start_blanks: bool,
    skip_end_blanks: bool,
    numeric: bool,
    general: bool,
    human: bool,
    month: bool,
    version: bool,
    fold: bool,
    ignore: Ignore,
    reverse: bool,
}

impl Flags {
    /// GNU's `default_key_compare`: no ordering option at all.
    fn is_default(&self) -> bool {
        !(self.skip_start_blanks
            || self.skip_end_blanks
            || self.numeric
            || self.general
            || self.human
            || self.month
            || self.version
            || self.fold
            || self.ignore != Ignore::None)
    }

    fn mode(&self) -> Mode {
        if self.numeric {
            Mode::Numeric
        } else if self.general {
            Mode::General
        } else if self.human {
            Mode::Human
        } else if self.month {
            Mode::Month
        } else if self.version {
            Mode::Version
        } else {
            Mode::Text
        }
    }

    /// Applies one option letter; false if it is not an ordering option.
    fn set(&mut self, c: char, end: bool) -> bool {
        match c {
            'b' => {
                if end {
                    self.skip_end_blanks = true;
                } else {
                    self.skip_start_blanks = true;
                }
            }
            'd' => self.ignore = Ignore::Dictionary,
            'f' => self.fold = true,
            'g' => self.general = true,
            'h' => self.human = true,
            'i' => {
                if self.ignore == Ignore::None {
                    self.ignore = Ignore::Nonprinting;
                }
            }
            'M' => self.month = true,
            'n' => self.numeric = true,
            'r' => self.reverse = true,
            'V' => self.version = true,
            _ => return false,
        }
        true
    }

    /// GNU's `key_to_opts` letters, for the incompatibility message.
    fn letters(&self) -> String {
        let mut s = String::new();
        if self.ignore == Ignore::Dictionary {
            s.push('d');
        }
        if self.fold {
            s.push('f');
        }
        if self.general {
            s.push('g');
        }
        if self.human {
            s.push('h');
        }
        if self.ignore == Ignore::Nonprinting {
            s.push('i');
        }
        if self.month {
            s.push('M');
        }
        if self.numeric {
            s.push('n');
        }
        if self.version {
            s.push('V');
        }
        s
    }

    fn incompatible(&self) -> bool {
        let n = usize::from(self.numeric)
            + usize::from(self.general)
            + usize::from(self.human)
            + usize::from(self.month)
            + usize::from(self.version || self.ignore != Ignore::None);
        n > 1
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let random = args.iter().take_while(|a| *a != "--").find(|a| {
        a.starts_with("--random")
            || (a.len() > 1 && a.starts_with('-') && !a.starts_with("--") && {
                // -R in a cluster of flags, before any option taking a value.
                let flags: String = a.chars().skip(1).take_while(|c| !"kotST".contains(*c)).collect();
                flags.contains('R')
            })
    });
    if let Some(opt) = random {
        ctx.err(format!(
            "sort: {opt}: random sort is not supported\nTry 'sort --help' for more information.\n"
        ));
        return 2;
    }
    let parsed = match args::parse("sort", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 2;
        }
    };
    let mut global = Flags::default();
    let mut keys = Vec::new();
    let mut tab: Option<u8> = None;
    let (mut check, mut quiet_check, mut stable, mut unique) = (false, false, false, false);
    let mut delim = b'\n';
    let mut output: Option<String> = None;
    for (c, v) in &parsed.opts {
        match (c, v) {
            ('k', Some(spec)) => match parse_key(spec) {
                Ok(k) => keys.push(k),
                Err(msg) => {
                    ctx.err(msg);
                    return 2;
                }
            },
            ('t', Some(t)) => {
                let bytes = t.as_bytes();
                let new = match bytes {
                    [] => {
                        ctx.error("sort", "empty tab");
                        return 2;
                    }
                    [b] => *b,
                    [b'\\', b'0'] => 0,
                    _ => {
                        ctx.error("sort", format!("multi-character tab '{t}'"));
                        return 2;
                    }
                };
                if tab.is_some_and(|old| old != new) {
                    ctx.error("sort", "incompatible tabs");
                    return 2;
                }
                tab = Some(new);
            }
            ('o', Some(path)) => output = Some(path.clone()),
            ('c', _) => check = true,
            ('C', _) => {
                check = true;
                quiet_check = true;
            }
            ('s', _) => stable = true,
            ('u', _) => unique = true,
            ('z', _) => delim = 0,
            ('m' | 'S' | 'T' | 'P', _) => {}
            (c, _) => {
                global.set(*c, false);
                if *c == 'b' {
                    global.skip_end_blanks = true;
                }
            }
        }
    }
    // Keys without ordering options inherit the global ones.
    for key in &mut keys {
        if key.flags.is_default() && !key.flags.reverse {
            key.flags = global;
        }
    }
    if keys.is_empty() && !global.is_default() {
        keys.push(Key { sword: 0, schar: 0, eword: None, echar: 0, flags: global });
    }
    for key in &keys {
        if key.flags.incompatible() {
            ctx.error("sort", format!("options '-{}' are incompatible", key.flags.letters()));
            return 2;
        }
    }
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands };
    if check && operands.len() > 1 {
        let extra = &operands[1];
        ctx.error(
            "sort",
            format!("extra operand '{extra}' not allowed with -{}", if quiet_check { 'C' } else { 'c' }),
        );
        return 2;
    }
    let mut datas = Vec::with_capacity(operands.len());
    for path in &operands {
        match ctx.read_input(path) {
            Ok(d) => datas.push(d),
            Err(e) => {
                let what = if e.errno == "EISDIR" { "read failed" } else { "cannot read" };
                ctx.err(format!("sort: {what}: {path}: {}\n", e.describe()));
                return 2;
            }
        }
    }
    let mut lines = Vec::new();
    for d in &datas {
        split_records(d, delim, &mut lines);
    }
    let sorter = Sorter::new(lines, keys, tab, global.reverse, stable || unique);
    let n = sorter.lines.len();
    if check {
        for i in 1..n {
            let ord = sorter.compare(i - 1, i);
            if ord == Ordering::Greater || (unique && ord == Ordering::Equal) {
                if !quiet_check {
                    let line = String::from_utf8_lossy(sorter.lines[i]).into_owned();
                    ctx.error("sort", format!("{}:{}: disorder: {line}", operands[0], i + 1));
                }
                return 1;
            }
        }
        return 0;
    }
    let order = sort_order(&sorter);
    let total: usize = sorter.lines.iter().map(|l| l.len() + 1).sum();
    let mut out = Vec::with_capacity(total);
    let mut prev: Option<usize> = None;
    for &i in &order {
        let i = i as usize;
        if unique {
            if let Some(p) = prev {
                if sorter.compare(p, i) == Ordering::Equal {
                    continue;
                }
            }
            prev = Some(i);
        }
        out.extend_from_slice(sorter.lines[i]);
        out.push(delim);
    }
    match output {
        Some(path) => {
            if let Err(e) = ctx.sys().write(&path, &out, WriteMode::Truncate) {
                ctx.err(format!("sort: open failed: {path}: {}\n", e.describe()));
                return 2;
            }
        }
        None => {
            let _ = ctx.out(&out);
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(input: &[&str], keys: &[&str], tab: Option<u8>, global: &str) -> Vec<String> {
        let mut g = Flags::default();
        for c in global.chars() {
            g.set(c, false);
        }
        let mut ks: Vec<Key> = keys.iter().filter_map(|k| parse_key(k).ok()).collect();
        for k in &mut ks {
            if k.flags.is_default() && !k.flags.reverse {
                k.flags = g;
            }
        }
        if ks.is_empty() && !g.is_default() {
            ks.push(Key { sword: 0, schar: 0, eword: None, echar: 0, flags: g });
        }
        let lines: Vec<&[u8]> = input.iter().map(|s| s.as_bytes()).collect();
        let s = Sorter::new(lines, ks, tab, g.reverse, false);
        let mut order: Vec<usize> = (0..input.len()).collect();
        order.sort_by(|&a, &b| s.compare(a, b));
        order.iter().map(|&i| input[i].to_string()).collect()
    }

    #[test]
    fn numeric_with_last_resort() {
        let input = ["10", "9", "-1", "-0", "0", "+5", ".5", "1.5", "abc", "", " 3"];
        assert_eq!(
            sorted(&input, &[], None, "n"),
            ["-1", "", "+5", "-0", "0", "abc", ".5", "1.5", " 3", "9", "10"]
        );
    }

    #[test]
    fn keys_and_fields() {
        let input = ["b 2", "a 10", "c 1", "a 2"];
        assert_eq!(sorted(&input, &["2n"], None, ""), ["c 1", "a 2", "b 2", "a 10"]);
        assert_eq!(sorted(&input, &["2,2n", "1,1r"], None, ""), ["c 1", "b 2", "a 2", "a 10"]);
        assert_eq!(sorted(&["a,b", "a,a"], &["2"], Some(b','), ""), ["a,a", "a,b"]);
        assert_eq!(sorted(&input, &["1.2,1.3"], None, ""), ["a 10", "c 1", "a 2", "b 2"]);
    }

    #[test]
    fn key_errors() {
        assert_eq!(
            parse_key("a"),
            Err("sort: invalid number at field start: invalid count at start of 'a'\n".into())
        );
        assert_eq!(
            parse_key("0"),
            Err("sort: field number is zero: invalid field specification '0'\n".into())
        );
        assert_eq!(
            parse_key("2x"),
            Err("sort: stray character in field spec: invalid field specification '2x'\n".into())
        );
        assert_eq!(
            parse_key("1,x"),
            Err("sort: invalid number after ',': invalid count at start of 'x'\n".into())
        );
    }

    #[test]
    fn human_version_general() {
        let input = ["1K", "2M", "500", "1G", "-1K", "0"];
        assert_eq!(sorted(&input, &[], None, "h"), ["-1K", "0", "500", "1K", "2M", "1G"]);
        let input = ["a1.10", "a1.2", "a1.9", "b", "1.0~rc1", "1.0"];
        assert_eq!(sorted(&input, &[], None, "V"), ["1.0~rc1", "1.0", "a1.2", "a1.9", "a1.10", "b"]);
        let input = ["1e3", "-inf", "abc", "2", "nan", "0x10"];
        assert_eq!(sorted(&input, &[], None, "g"), ["abc", "nan", "-inf", "2", "0x10", "1e3"]);
    }
}

/// Timing of the benchmark pipeline over an in-memory file system:
/// `cargo test --release -p cordon-shell --lib bench_pipeline -- --ignored --nocapture`.
#[cfg(test)]
mod bench {
    use std::collections::HashMap;

    use crate::system::{
        DirEntry, FsError, JsOutcome, Kind, Meta, Stream, System, ToolError, ToolInfo, WriteMode,
    };

    #[derive(Default)]
    struct MemSystem {
        files: HashMap<String, Vec<u8>>,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    }

    fn key(path: &str) -> String {
        path.trim_start_matches("/workspace/").to_string()
    }

    impl System for MemSystem {
        fn read(&mut self, path: &str) -> Result<Vec<u8>, FsError> {
            self.files.get(&key(path)).cloned().ok_or_else(|| FsError::new("ENOENT", path))
        }
        fn write(&mut self, path: &str, data: &[u8], mode: WriteMode) -> Result<(), FsError> {
            let f = self.files.entry(key(path)).or_default();
            if mode != WriteMode::Append {
                f.clear();
            }
            f.extend_from_slice(data);
            Ok(())
        }
        fn mkdir(&mut self, _: &str, _: bool) -> Result<(), FsError> {
            Ok(())
        }
        fn readdir(&mut self, _: &str) -> Result<Vec<DirEntry>, FsError> {
            Ok(Vec::new())
        }
        fn stat(&mut self, path: &str) -> Result<Meta, FsError> {
            match self.files.get(&key(path)) {
                Some(f) => Ok(Meta { kind: Kind::File, size: f.len() as u64, mtime_ms: 0, mode: 0o644 }),
                None if path == "/workspace" || path == "." => {
                    Ok(Meta { kind: Kind::Dir, size: 0, mtime_ms: 0, mode: 0o755 })
                }
                None => Err(FsError::new("ENOENT", path)),
            }
        }
        fn remove(&mut self, path: &str, _: bool) -> Result<(), FsError> {
            self.files.remove(&key(path));
            Ok(())
        }
        fn rename(&mut self, _: &str, _: &str) -> Result<(), FsError> {
            Ok(())
        }
        fn chmod(&mut self, _: &str, _: u32) -> Result<(), FsError> {
            Ok(())
        }
        fn chdir(&mut self, _: &str) -> Result<String, FsError> {
            Ok("/workspace".into())
        }
        fn cwd(&mut self) -> String {
            "/workspace".into()
        }
        fn output(&mut self, stream: Stream, bytes: &[u8]) -> bool {
            match stream {
                Stream::Stdout => self.stdout.extend_from_slice(bytes),
                Stream::Stderr => self.stderr.extend_from_slice(bytes),
            }
            true
        }
        fn now_ms(&mut self) -> u64 {
            0
        }
        fn sleep(&mut self, _: u64) {}
        fn tool_call(&mut self, _: &str, _: &str) -> Result<String, ToolError> {
            Err(ToolError { code: "DENIED".into(), reason: None, message: String::new() })
        }
        fn tools(&mut self) -> Vec<ToolInfo> {
            Vec::new()
        }
        fn javascript(&mut self, _: &str, _: &[String], _: &[u8]) -> JsOutcome {
            JsOutcome { stdout: Vec::new(), stderr: Vec::new(), status: 1 }
        }
    }

    #[test]
    #[ignore]
    fn bench_pipeline() {
        let mut data = Vec::new();
        let mut i: u64 = 0;
        while data.len() < 5 * 1024 * 1024 {
            let line = format!(
                "{{\"id\":{i},\"user\":\"user{}\",\"level\":\"{}\",\"msg\":\"request handled in {} ms with some padding text here\",\"ok\":true}}\n",
                (i * 7919) % 1000,
                ["info", "warn", "error"][(i % 3) as usize],
                i % 997
            );
            data.extend_from_slice(line.as_bytes());
            i += 1;
        }
        let mut sys = MemSystem::default();
        sys.files.insert("big.csv".into(), data);
        let mut shell = crate::Shell::new();
        shell.run(&mut sys, "cut -d, -f2 big.csv > c2; sort c2 > s2; uniq -c s2 > u2");
        for script in [
            "cut -d, -f2 big.csv | sort | uniq -c | sort -rn | head -3",
            "cat big.csv > /dev/null",
            "true",
            "cut -d, -f2 big.csv | sort > /dev/null",
            "cut -d, -f2 big.csv | sort | uniq -c > /dev/null",
            "cat s2 | uniq -c | sort -rn | head -3 > /dev/null",
            "cut -d, -f2 big.csv > /dev/null",
            "sort c2 > /dev/null",
            "uniq -c s2 > /dev/null",
            "sort -rn u2 > /dev/null",
            "sort u2 > /dev/null",
            "sort -n u2 > /dev/null",
            "cat u2 > /dev/null",
            "wc -l u2",
            "sort big.csv > /dev/null",
            "sort -t, -k2,2 big.csv > /dev/null",
            "sort -n big.csv > /dev/null",
            "uniq -c big.csv > /dev/null",
            "wc big.csv",
            "tr a-z A-Z < big.csv > /dev/null",
        ] {
            let mut best = std::time::Duration::MAX;
            for _ in 0..25 {
                let start = std::time::Instant::now();
                shell.run(&mut sys, script);
                best = best.min(start.elapsed());
            }
            println!("{script}: {best:?}");
        }
        println!("lines {i}\n{}", String::from_utf8_lossy(&sys.stdout[..sys.stdout.len().min(200)]));
    }
}
