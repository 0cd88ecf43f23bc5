//! `column`: columnate lists (util-linux semantics, basic): fill columns
//! (default) or rows (`-x`) for a width of 80 (`-c` to change), or a table
//! (`-t`) split on whitespace or the `-s` characters and joined with two
//! spaces or the `-o` string.

use super::args::{self, HasArg, Spec};
use super::Builtin;
use crate::ctx::Ctx;

pub const BUILTIN: Builtin = Builtin {
    name: "column",
    run,
    help: "Usage:\n column [options] [<file>...]\n\
\n\
Columnate lists.\n\
\n\
Options:\n\
 -t, --table                      create a table\n\
 -s, --separator <string>         possible table delimiters\n\
 -o, --output-separator <string>  columns separator for table output (default is two spaces)\n\
 -c, --output-width <width>       width of output in number of characters\n\
 -x, --fillrows                   fill rows before columns\n",
    help_flag: true,
};

const SPEC: Spec = Spec {
    short: "tc:s:o:x",
    long: &[
        ("table", 't', HasArg::No),
        ("output-width", 'c', HasArg::Yes),
        ("separator", 's', HasArg::Yes),
        ("output-separator", 'o', HasArg::Yes),
        ("fillrows", 'x', HasArg::No),
    ],
    stop_at_operand: false,
};

const TAB: usize = 8;

fn table(lines: &[&[u8]], seps: Option<&[u8]>, out_sep: &[u8], out: &mut Vec<u8>) {
    let rows: Vec<Vec<&[u8]>> = lines
        .iter()
        .map(|line| match seps {
            Some(seps) => line.split(|b| seps.contains(b)).collect(),
            None => line.split(|&b| b == b' ' || b == b'\t').filter(|c| !c.is_empty()).collect(),
        })
        .collect();
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; ncols];
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.len());
        }
    }
    for row in &rows {
        for (i, w) in widths.iter().enumerate() {
            let cell: &[u8] = row.get(i).copied().unwrap_or_default();
            out.extend_from_slice(cell);
            if i + 1 < ncols {
                out.extend(std::iter::repeat_n(b' ', w - cell.len()));
                out.extend_from_slice(out_sep);
            }
        }
        out.push(b'\n');
    }
}

fn pad_with_tabs(out: &mut Vec<u8>, mut chcnt: usize, endcol: usize) {
    while chcnt < endcol {
        out.push(b'\t');
        chcnt = (chcnt + TAB) & !(TAB - 1);
    }
}

fn fill(ents: &[&[u8]], width: usize, rows_first: bool, out: &mut Vec<u8>) {
    let longest = ents.iter().map(|e| e.len()).max().unwrap_or(0);
    let maxlength = (longest + TAB) & !(TAB - 1);
    if maxlength >= width || ents.is_empty() {
        for e in ents {
            out.extend_from_slice(e);
            out.push(b'\n');
        }
        return;
    }
    let numcols = (width / maxlength).max(1);
    if rows_first {
        let mut col = 0;
        let mut chcnt = 0;
        let mut endcol = maxlength;
        for (k, e) in ents.iter().enumerate() {
            out.extend_from_slice(e);
            chcnt += e.len();
            if k + 1 == ents.len() {
                break;
            }
            col += 1;
            if col == numcols {
                chcnt = 0;
                col = 0;
                endcol = maxlength;
                out.push(b'\n');
            } else {
                pad_with_tabs(out, chcnt, endcol);
                chcnt = chcnt.max(endcol);
                endcol += maxlength;
            }
        }
        out.push(b'\n');
        return;
    }
    let numrows = ents.len().div_ceil(numcols);
    for row in 0..numrows {
        let mut endcol = maxlength;
        let mut base = row;
        let mut chcnt = 0;
        for _ in 0..numcols {
            let Some(e) = ents.get(base) else { break };
            out.extend_from_slice(e);
            chcnt += e.len();
            base += numrows;
            if base >= ents.len() {
                break;
            }
            pad_with_tabs(out, chcnt, endcol);
            chcnt = chcnt.max(endcol);
            endcol += maxlength;
        }
        out.push(b'\n');
    }
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let parsed = match args::parse("column", args, &SPEC) {
        Ok(p) => p,
        Err(msg) => {
            ctx.err(msg);
            return 1;
        }
    };
    let mut width = 80usize;
    if let Some(c) = parsed.value('c') {
        match c.parse::<usize>() {
            Ok(n) => width = n,
            Err(_) => {
                ctx.error("column", format!("invalid columns argument: '{c}'"));
                return 1;
            }
        }
    }
    let operands = if parsed.operands.is_empty() { vec!["-".to_string()] } else { parsed.operands.clone() };
    let mut datas = Vec::new();
    let mut status = 0;
    for path in &operands {
        // util-linux column: a `-` operand is a file name.
        let read = if path == "-" && !parsed.operands.is_empty() {
            ctx.sys().read(path)
        } else {
            ctx.read_input(path)
        };
        match read {
            Ok(d) => datas.push(d),
            Err(e) => {
                if e.errno == "EISDIR" {
                    ctx.err(format!("column: read failed: {}\n", e.describe()));
                } else {
                    ctx.file_error("column", path, &e);
                }
                status = 1;
            }
        }
    }
    let mut lines: Vec<&[u8]> = Vec::new();
    for d in &datas {
        for line in d.split(|&b| b == b'\n') {
            if !line.is_empty() {
                lines.push(line);
            }
        }
    }
    let mut out = Vec::new();
    if parsed.has('t') {
        let seps = parsed.value('s').map(str::as_bytes);
        let out_sep = parsed.value('o').map_or(&b"  "[..], str::as_bytes);
        table(&lines, seps, out_sep, &mut out);
    } else {
        fill(&lines, width, parsed.has('x'), &mut out);
    }
    let _ = ctx.out(&out);
    status
}

#[cfg(test)]
mod tests {
    fn fill(ents: &[&str], width: usize, rows: bool) -> String {
        let e: Vec<&[u8]> = ents.iter().map(|s| s.as_bytes()).collect();
        let mut out = Vec::new();
        super::fill(&e, width, rows, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn fills() {
        let nums: Vec<String> = (1..=30).map(|n| n.to_string()).collect();
        let refs: Vec<&str> = nums.iter().map(String::as_str).collect();
        let cols = fill(&refs, 80, false);
        assert_eq!(cols.lines().next(), Some("1\t4\t7\t10\t13\t16\t19\t22\t25\t28"));
        let rows = fill(&refs, 80, true);
        assert_eq!(rows.lines().nth(1), Some("11\t12\t13\t14\t15\t16\t17\t18\t19\t20"));
        assert_eq!(fill(&["a", "b"], 10, false), "a\nb\n");
    }

    #[test]
    fn tables() {
        let lines: Vec<&[u8]> = vec![b"a b  c", b" dd e", b" f"];
        let mut out = Vec::new();
        super::table(&lines, None, b"  ", &mut out);
        assert_eq!(String::from_utf8_lossy(&out), "a   b  c\ndd  e  \nf      \n");
    }
}
