//! `comm`: compare two sorted files line by line (GNU coreutils semantics
//! in the C locale): `-1 -2 -3`, `--output-delimiter`, order checking
//! (`--check-order`, `--nocheck-order`, and GNU's default of warning once
//! unpairable lines were seen), `--total`, `-z`.

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "comm",
    run,
    help: "Usage: comm [OPTION]... FILE1 FILE2\n\
Compare sorted files FILE1 and FILE2 line by line.\n\
When FILE1 or FILE2 (not both) is -, read standard input.\n\
With no options, produce three-column output.  Column one contains\n\
lines unique to FILE1, column two contains lines unique to FILE2,\n\
and column three contains lines common to both files.\n\
\n\
  -1                      suppress column 1 (lines unique to FILE1)\n\
  -2                      suppress column 2 (lines unique to FILE2)\n\
  -3                      suppress column 3 (lines that appear in both files)\n\
      --check-order       check that the input is correctly sorted\n\
      --nocheck-order     do not check that the input is correctly sorted\n\
      --output-delimiter=STR  separate columns with STR\n\
      --total             output a summary\n\
  -z, --zero-terminated   line delimiter is NUL, not newline\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "123z",
    long: &[
        ("check-order", 'C', HasArg::No),
        ("nocheck-order", 'N', HasArg::No),
        ("output-delimiter", 'O', HasArg::Yes),
        ("total", 'T', HasArg::No),
        ("zero-terminated", 'z', HasArg::No),
    ],
    stop_at_operand: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Default,
    Enabled,
    Disabled,
}

fn records(data: &[u8], delim: u8) -> Vec<&[u8]> {
    if data.is_empty() {
        return Vec::new();
    }
    let body = if data.last() == Some(&delim) { &data[..data.len() - 1] } else { data };
    body.split(|&b| b == delim).collect()
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("comm", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let show = [!parsed.has('1'), !parsed.has('2'), !parsed.has('3')];
    let mut check = Check::Default;
    for (c, _) in &parsed.opts {
        match c {
            'C' => check = Check::Enabled,
            'N' => check = Check::Disabled,
            _ => {}
        }
    }
    let delim = if parsed.has('z') { 0 } else { b'\n' };
    let col_sep: Vec<u8> = match parsed.value('O') {
        Some("") => vec![0],
        Some(s) => s.as_bytes().to_vec(),
        None => b"\t".to_vec(),
    };
    let ops = &parsed.operands;
    if ops.len() < 2 {
        match ops.first() {
            None => ctx.err("comm: missing operand\n"),
            Some(a) => ctx.err(format!("comm: missing operand after '{a}'\n")),
        }
        ctx.err("Try 'comm --help' for more information.\n");
        return 1;
    }
    if ops.len() > 2 {
        ctx.err(format!("comm: extra operand '{}'\nTry 'comm --help' for more information.\n", ops[2]));
        return 1;
    }
    let mut datas = Vec::new();
    for path in ops.iter() {
        match ctx.read_input(path) {
            Ok(d) => datas.push(d),
            Err(e) => {
                ctx.file_error("comm", path, &e);
                return 1;
            }
        }
    }
    let a = records(&datas[0], delim);
    let b = records(&datas[1], delim);
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut seen_unpairable = false;
    let mut warned = [false, false];
    let mut fatal = false;
    let mut totals = [0u64; 3];
    // Writes a line in column `col` (0-based) with the separators of the
    // shown columns before it.
    let write = |out: &mut Vec<u8>, col: usize, line: &[u8]| {
        if !show[col] {
            return;
        }
        for _ in show.iter().take(col).filter(|&&shown| shown) {
            out.extend_from_slice(&col_sep);
        }
        out.extend_from_slice(line);
        out.push(delim);
    };
    while i < a.len() || j < b.len() {
        let order = if i >= a.len() {
            std::cmp::Ordering::Greater
        } else if j >= b.len() {
            std::cmp::Ordering::Less
        } else {
            a[i].cmp(b[j])
        };
        match order {
            std::cmp::Ordering::Equal => {
                write(&mut out, 2, a[i]);
                totals[2] += 1;
            }
            std::cmp::Ordering::Less => {
                seen_unpairable = true;
                write(&mut out, 0, a[i]);
                totals[0] += 1;
            }
            std::cmp::Ordering::Greater => {
                seen_unpairable = true;
                write(&mut out, 1, b[j]);
                totals[1] += 1;
            }
        }
        let step = [order != std::cmp::Ordering::Greater, order != std::cmp::Ordering::Less];
        for (f, lines, pos) in [(0usize, &a, &mut i), (1, &b, &mut j)] {
            if !step[f] {
                continue;
            }
            *pos += 1;
            if *pos < lines.len()
                && check != Check::Disabled
                && (check == Check::Enabled || seen_unpairable)
                && !warned[f]
                && lines[*pos - 1] > lines[*pos]
            {
                ctx.out(&out).ok();
                out.clear();
                ctx.error("comm", format!("file {} is not in sorted order", f + 1));
                if check == Check::Enabled {
                    fatal = true;
                }
                warned[f] = true;
            }
        }
        if fatal {
            return 1;
        }
    }
    if parsed.has('T') {
        let mut line = Vec::new();
        for t in totals {
            line.extend_from_slice(t.to_string().as_bytes());
            line.extend_from_slice(&col_sep);
        }
        line.extend_from_slice(b"total");
        line.push(delim);
        out.extend_from_slice(&line);
    }
    let _ = ctx.out(&out);
    if warned[0] || warned[1] {
        ctx.error("comm", "input is not in sorted order");
        return 1;
    }
    0
}
