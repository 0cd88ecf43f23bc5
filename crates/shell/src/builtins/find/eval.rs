//! Walking the trees and evaluating the expression on each entry.

use super::*;

pub(super) fn visit(
    ctx: &mut Ctx,
    expr: &Expr,
    w: &mut Walker,
    path: &str,
    start: &str,
    depth: usize,
    meta: Meta,
) {
    if ctx.interrupted() {
        w.quit = true;
    }
    if w.quit {
        return;
    }
    let in_range = w.maxdepth.is_none_or(|m| depth <= m);
    if !in_range {
        return;
    }
    let entry = Entry { path, start, depth, meta };
    w.prune = false;
    if !w.depth_first && depth >= w.mindepth {
        eval(ctx, expr, w, &entry);
    }
    let descend =
        meta.kind == Kind::Dir && (w.depth_first || !w.prune) && w.maxdepth.is_none_or(|m| depth < m);
    if descend && !w.quit {
        match ctx.sys().readdir(path) {
            Ok(entries) => {
                for e in entries {
                    if w.quit {
                        break;
                    }
                    let child = join(path, &e.name);
                    let child_meta = match ctx.sys().stat(&child) {
                        Ok(m) => m,
                        Err(_) => continue,
                    };
                    visit(ctx, expr, w, &child, start, depth + 1, child_meta);
                }
            }
            Err(e) => {
                ctx.err(format!("find: {}: {}\n", find_quote(path), e.describe()));
                w.status = 1;
            }
        }
    }
    if w.depth_first && depth >= w.mindepth && !w.quit {
        // The entry may have changed (a -delete below it).
        let meta = ctx.sys().stat(path).unwrap_or(meta);
        let entry = Entry { path, start, depth, meta };
        eval(ctx, expr, w, &entry);
    }
}

pub(super) fn eval(ctx: &mut Ctx, e: &Expr, w: &mut Walker, f: &Entry) -> bool {
    if w.quit {
        return false;
    }
    match e {
        Expr::And(a, b) => eval(ctx, a, w, f) && eval(ctx, b, w, f),
        Expr::Or(a, b) => eval(ctx, a, w, f) || eval(ctx, b, w, f),
        Expr::Comma(a, b) => {
            eval(ctx, a, w, f);
            eval(ctx, b, w, f)
        }
        Expr::Not(a) => !eval(ctx, a, w, f),
        Expr::True => true,
        Expr::False => false,
        Expr::Name(pat, ci) => {
            let name = entry_name(f);
            if *ci {
                fnmatch(pat, &name.to_ascii_lowercase())
            } else {
                fnmatch(pat, name)
            }
        }
        Expr::Path(pat, ci) => {
            if *ci {
                fnmatch(pat, &f.path.to_ascii_lowercase())
            } else {
                fnmatch(pat, f.path)
            }
        }
        Expr::Regex(re) => re.is_match(f.path),
        Expr::Type(kinds) => kinds.iter().any(|k| match k {
            'f' => f.meta.kind == Kind::File,
            'd' => f.meta.kind == Kind::Dir,
            _ => false,
        }),
        Expr::Size(cmp, n, unit) => cmp.test(apparent_size(&f.meta).div_ceil(*unit), *n),
        Expr::Empty => match f.meta.kind {
            Kind::File => f.meta.size == 0,
            Kind::Dir => ctx.sys().readdir(f.path).map(|v| v.is_empty()).unwrap_or(false),
        },
        Expr::Newer(slot) => w.newer.get(*slot).is_some_and(|&t| f.meta.mtime_ms > t),
        Expr::Age(cmp, n, unit) => {
            let age = w.now_ms.saturating_sub(f.meta.mtime_ms);
            if *unit == 60_000 {
                // -mmin rounds the age up to whole minutes.
                cmp.test(age.div_ceil(*unit), *n)
            } else {
                cmp.test(age / unit, *n)
            }
        }
        Expr::Perm(kind, m) => {
            let mode = f.meta.mode;
            match kind {
                '-' => mode & m == *m,
                '/' => *m == 0 || mode & m != 0,
                // `-executable` as the oracle's (namespaced) root sees it.
                'x' => f.meta.kind == Kind::Dir || mode & m != 0,
                _ => mode == *m,
            }
        }
        Expr::Owner(name) => name == OWNER || name == &UID.to_string(),
        Expr::Print => output(ctx, w, format!("{}\n", f.path)),
        Expr::Print0 => output(ctx, w, format!("{}\0", f.path)),
        Expr::Printf(fmt) => {
            let text = printf(ctx, fmt, f);
            output(ctx, w, text)
        }
        Expr::Exec(argv, None) => {
            let argv: Vec<String> = argv.iter().map(|a| a.replace("{}", f.path)).collect();
            if !runnable(&argv[0]) {
                ctx.err(format!("find: {}: No such file or directory\n", find_quote(&argv[0])));
                return false;
            }
            ctx.exec(&argv, None) == 0
        }
        Expr::Exec(_, Some(id)) => {
            let full = match w.batches.get_mut(*id) {
                Some((_, pending, bytes)) => {
                    pending.push(f.path.to_string());
                    *bytes += f.path.len() + 1;
                    *bytes >= BATCH_BYTES
                }
                None => false,
            };
            if full {
                flush(ctx, w, *id);
            }
            true
        }
        Expr::Delete => {
            let base = base_name(f.path);
            if base == "." || base == ".." {
                return true;
            }
            match ctx.sys().remove(f.path, false) {
                Ok(()) => true,
                Err(e) => {
                    ctx.err(format!("find: cannot delete {}: {}\n", find_quote(f.path), e.describe()));
                    w.status = 1;
                    false
                }
            }
        }
        Expr::Prune => {
            w.prune = true;
            true
        }
        Expr::Quit => {
            w.quit = true;
            true
        }
    }
}

pub(super) fn output(ctx: &mut Ctx, w: &mut Walker, text: String) -> bool {
    if ctx.out(text).is_err() {
        w.quit = true;
    }
    true
}

/// The name `-name` matches: the last component (a start point keeps its
/// name; `/` stays `/`).
pub(super) fn entry_name<'a>(f: &Entry<'a>) -> &'a str {
    base_name(f.path)
}
