//! The `*sum` commands (`md5sum`, `sha256sum`): GNU coreutils' driver for
//! printing and checking checksums, over either digest.

use super::super::args::{self, HasArg, Spec};
use crate::ctx::Ctx;

/// The usage text of a `*sum` command: its name and what it prints.
macro_rules! checksum_help {
    ($name:literal, $what:literal) => {
        concat!(
            "Usage: ",
            $name,
            " [OPTION]... [FILE]...\nPrint or check ",
            $what,
            " checksums.\n\n",
            "With no FILE, or when FILE is -, read standard input.\n",
            "  -b, --binary          read in binary mode (marks names with '*')\n",
            "  -c, --check           read checksums from the FILEs and check them\n",
            "      --tag             create a BSD-style checksum\n",
            "  -t, --text            read in text mode (default)\n",
            "  -z, --zero            end each output line with NUL, not newline\n",
            "The following options are useful only when verifying checksums:\n",
            "      --ignore-missing  don't fail or report status for missing files\n",
            "      --quiet           don't print OK for each successfully verified file\n",
            "      --status          don't output anything, status code shows success\n",
            "      --strict          exit non-zero for improperly formatted checksum lines\n",
            "  -w, --warn            warn about improperly formatted checksum lines\n",
            "      --help            display this help and exit\n",
        )
    };
}
pub(crate) use checksum_help;

/// A checksum algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Algo {
    Sha256,
    Md5,
}

impl Algo {
    fn name(self) -> &'static str {
        match self {
            Algo::Sha256 => "sha256sum",
            Algo::Md5 => "md5sum",
        }
    }

    fn tag(self) -> &'static str {
        match self {
            Algo::Sha256 => "SHA256",
            Algo::Md5 => "MD5",
        }
    }

    fn hex_len(self) -> usize {
        match self {
            Algo::Sha256 => 64,
            Algo::Md5 => 32,
        }
    }

    fn digest(self, data: &[u8]) -> String {
        let bytes: Vec<u8> = match self {
            Algo::Sha256 => {
                use sha2::Digest;
                sha2::Sha256::digest(data).to_vec()
            }
            Algo::Md5 => {
                use md5::Digest;
                md5::Md5::digest(data).to_vec()
            }
        };
        let mut s = String::with_capacity(bytes.len() * 2);
        for b in bytes {
            s.push_str(&format!("{b:02x}"));
        }
        s
    }
}

const SPEC: Spec = Spec {
    short: "bctzw",
    long: &[
        ("binary", 'b', HasArg::No),
        ("check", 'c', HasArg::No),
        ("tag", 'T', HasArg::No),
        ("text", 't', HasArg::No),
        ("zero", 'z', HasArg::No),
        ("ignore-missing", 'I', HasArg::No),
        ("quiet", 'q', HasArg::No),
        ("status", 's', HasArg::No),
        ("strict", 'S', HasArg::No),
        ("warn", 'w', HasArg::No),
    ],
    stop_at_operand: false,
};

/// The shared `*sum` command.
pub(crate) fn checksum_main(ctx: &mut Ctx, args: &[String], algo: Algo) -> i32 {
    let name = algo.name();
    let p = match args::parse(name, args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            // GNU's *sum commands exit 1 on a bad option
            ctx.err(msg);
            return 1;
        }
    };
    let files = if p.operands.is_empty() { vec!["-".to_string()] } else { p.operands.clone() };
    if p.has('c') {
        if p.has('T') {
            ctx.err(format!(
                "{name}: the --tag option is meaningless when verifying checksums\nTry '{name} --help' for more information.\n"
            ));
            return 1;
        }
        let opts = CheckOpts {
            quiet: p.has('q'),
            status: p.has('s'),
            strict: p.has('S'),
            warn: p.has('w'),
            ignore_missing: p.has('I'),
        };
        let mut status = 0;
        for f in &files {
            status = status.max(check_file(ctx, algo, f, &opts));
        }
        return status;
    }
    for (opt, long) in
        [('q', "quiet"), ('s', "status"), ('S', "strict"), ('w', "warn"), ('I', "ignore-missing")]
    {
        if p.has(opt) {
            ctx.err(format!(
                "{name}: the --{long} option is meaningful only when verifying checksums\nTry '{name} --help' for more information.\n"
            ));
            return 1;
        }
    }
    let end = if p.has('z') { '\0' } else { '\n' };
    let mut status = 0;
    for f in &files {
        let data = match ctx.read_input(f) {
            Ok(d) => d,
            Err(e) => {
                ctx.file_error(name, f, &e);
                status = 1;
                continue;
            }
        };
        let hash = algo.digest(&data);
        let (escaped, shown) = escape_name(f, p.has('z'));
        let line = if p.has('T') {
            format!("{}{} ({shown}) = {hash}{end}", if escaped { "\\" } else { "" }, algo.tag())
        } else {
            let mode = if p.has('b') && !p.has('t') { '*' } else { ' ' };
            format!("{}{hash} {mode}{shown}{end}", if escaped { "\\" } else { "" })
        };
        if ctx.out(line).is_err() {
            return 1;
        }
    }
    status
}

/// GNU escapes `\` and newline in names (and marks the line with `\`).
fn escape_name(name: &str, zero: bool) -> (bool, String) {
    if zero || !name.contains(['\\', '\n']) {
        return (false, name.to_string());
    }
    (true, name.replace('\\', "\\\\").replace('\n', "\\n"))
}

fn unescape_name(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

struct CheckOpts {
    quiet: bool,
    status: bool,
    strict: bool,
    warn: bool,
    ignore_missing: bool,
}

/// One line of a checksum file: the expected hash and the file name.
fn parse_line(line: &str, algo: Algo) -> Option<(String, String)> {
    let (escaped, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let unesc = |n: &str| if escaped { unescape_name(n) } else { Some(n.to_string()) };
    // BSD style: `SHA256 (name) = hash`
    if let Some(rest) = line.strip_prefix(algo.tag()).and_then(|r| r.strip_prefix(" (")) {
        let (name, hash) = rest.rsplit_once(") = ")?;
        if hash.len() == algo.hex_len() && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Some((hash.to_ascii_lowercase(), unesc(name)?));
        }
        return None;
    }
    let hash = line.get(..algo.hex_len())?;
    if !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let rest = line.get(algo.hex_len()..)?;
    let name = rest.strip_prefix("  ").or_else(|| rest.strip_prefix(" *"))?;
    if name.is_empty() {
        return None;
    }
    Some((hash.to_ascii_lowercase(), unesc(name)?))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn check_file(ctx: &mut Ctx, algo: Algo, file: &str, o: &CheckOpts) -> i32 {
    let name = algo.name();
    let data = match ctx.read_input(file) {
        Ok(d) => d,
        Err(e) => {
            ctx.file_error(name, file, &e);
            return 1;
        }
    };
    let shown_file = if file == "-" { "standard input" } else { file };
    let text = String::from_utf8_lossy(&data).into_owned();
    let (mut bad_format, mut unreadable, mut mismatched, mut good_lines, mut matched) = (0, 0, 0, 0, 0);
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        let Some((hash, target)) = parse_line(line, algo) else {
            bad_format += 1;
            if o.warn {
                ctx.err(format!(
                    "{name}: {shown_file}: {}: improperly formatted {} checksum line\n",
                    n + 1,
                    algo.tag()
                ));
            }
            continue;
        };
        good_lines += 1;
        let content = match ctx.read_input(&target) {
            Ok(d) => d,
            Err(e) => {
                if o.ignore_missing && e.errno == "ENOENT" {
                    continue;
                }
                ctx.file_error(name, &target, &e);
                unreadable += 1;
                if !o.status && ctx.out(format!("{target}: FAILED open or read\n")).is_err() {
                    return 1;
                }
                continue;
            }
        };
        if algo.digest(&content) == hash {
            matched += 1;
            if !o.quiet && !o.status && ctx.out(format!("{target}: OK\n")).is_err() {
                return 1;
            }
        } else {
            mismatched += 1;
            if !o.status && ctx.out(format!("{target}: FAILED\n")).is_err() {
                return 1;
            }
        }
    }
    if good_lines == 0 {
        ctx.err(format!("{name}: {shown_file}: no properly formatted checksum lines found\n"));
        return 1;
    }
    if !o.status {
        if bad_format > 0 {
            let what = plural(bad_format, "line is", "lines are");
            ctx.err(format!("{name}: WARNING: {what} improperly formatted\n"));
        }
        if unreadable > 0 {
            let what = plural(unreadable, "listed file", "listed files");
            ctx.err(format!("{name}: WARNING: {what} could not be read\n"));
        }
        if mismatched > 0 {
            let what = plural(mismatched, "computed checksum", "computed checksums");
            ctx.err(format!("{name}: WARNING: {what} did NOT match\n"));
        }
    }
    if o.ignore_missing && matched == 0 && mismatched == 0 && unreadable == 0 {
        ctx.err(format!("{name}: {shown_file}: no file was verified\n"));
        return 1;
    }
    i32::from(mismatched > 0 || unreadable > 0 || (o.strict && bad_format > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests() {
        assert_eq!(Algo::Md5.digest(b"hi"), "49f68a5c8493ec2c0bf489821c21fc3b");
        assert_eq!(
            Algo::Sha256.digest(b"a\n"),
            "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7"
        );
    }

    #[test]
    fn check_lines() {
        let h = "49f68a5c8493ec2c0bf489821c21fc3b";
        assert_eq!(parse_line(&format!("{h}  a b"), Algo::Md5), Some((h.to_string(), "a b".to_string())));
        assert_eq!(parse_line(&format!("{h} *a"), Algo::Md5), Some((h.to_string(), "a".to_string())));
        assert_eq!(parse_line(&format!("MD5 (x) = {h}"), Algo::Md5), Some((h.to_string(), "x".to_string())));
        assert_eq!(
            parse_line(&format!("\\{h}  we\\\\ird"), Algo::Md5),
            Some((h.to_string(), "we\\ird".to_string()))
        );
        assert_eq!(parse_line("garbage", Algo::Md5), None);
    }
}
