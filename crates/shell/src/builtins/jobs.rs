//! `jobs`, `fg`, `bg` and `disown` over the emulated job table (see
//! [`crate::jobs`]). The shell has no job control: `fg` and `bg` fail as
//! in a non-interactive bash.

use super::Builtin;
use crate::ctx::Ctx;
use crate::jobs::Lookup;

pub const JOBS: Builtin = Builtin {
    name: "jobs",
    run: jobs,
    help: "Usage: jobs [-lnprs] [jobspec ...]\nLists the background jobs.\n",
    help_flag: false,
};

pub const FG: Builtin = Builtin {
    name: "fg",
    run: fg,
    help: "Usage: fg [job_spec]\nNo job control in this shell.\n",
    help_flag: false,
};

pub const BG: Builtin = Builtin {
    name: "bg",
    run: bg,
    help: "Usage: bg [job_spec ...]\nNo job control in this shell.\n",
    help_flag: false,
};

pub const DISOWN: Builtin = Builtin {
    name: "disown",
    run: disown,
    help: "Usage: disown [-h] [-ar] [jobspec ... | pid ...]\nRemoves jobs from the table.\n",
    help_flag: false,
};

fn state_word(status: i32, signal: Option<u32>, running: bool) -> String {
    match (running, signal, status) {
        (true, _, _) => "Running".into(),
        (_, Some(15), _) => "Terminated".into(),
        (_, Some(9), _) => "Killed".into(),
        (_, Some(1), _) => "Hangup".into(),
        (_, Some(2), _) => "Interrupt".into(),
        (_, Some(n), _) => format!("Signal {n}"),
        (_, None, 0) => "Done".into(),
        (_, None, n) => format!("Exit {n}"),
    }
}

fn jobs(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut long, mut pids, mut running_only, mut stopped_only) = (false, false, false, false);
    let mut i = 0;
    while let Some(a) = args.get(i).filter(|a| a.len() > 1 && a.starts_with('-')) {
        if a == "--" {
            i += 1;
            break;
        }
        for c in a[1..].chars() {
            match c {
                'l' => long = true,
                'p' => pids = true,
                'r' => running_only = true,
                's' => stopped_only = true,
                'n' => {}
                _ => {
                    ctx.shell_error(&format!("jobs: -{c}: invalid option"));
                    ctx.err("jobs: usage: jobs [-lnprs] [jobspec ...] or jobs -x command [args]\n");
                    return 2;
                }
            }
        }
        i += 1;
    }
    let now = ctx.interp.clock_ms;
    let mut status = 0;
    let mut selected = Vec::new();
    if args.len() > i {
        for spec in &args[i..] {
            match ctx.state().jobs.lookup(spec, now) {
                Lookup::Job(index) => selected.push(index),
                _ => {
                    ctx.shell_error(&format!("jobs: {spec}: no such job"));
                    status = 1;
                }
            }
        }
    } else {
        selected = (0..ctx.state().jobs.table(now).len()).collect();
    }
    let mut text = String::new();
    let mut done = Vec::new();
    let table = &ctx.interp.state.jobs;
    for &index in &selected {
        let job = table.job(index);
        let running = job.end_ms > now;
        if (running_only && !running) || stopped_only {
            continue;
        }
        if !running {
            done.push(job.pid);
        }
        if pids {
            text.push_str(&format!("{}\n", job.pid));
            continue;
        }
        let word = state_word(job.status, job.signal, running);
        let mark = table.mark(index);
        let shown =
            if running { job.text.as_str() } else { job.text.strip_suffix(" &").unwrap_or(&job.text) };
        if long {
            text.push_str(&format!("[{}]{mark} {:5} {word:<24}{shown}\n", job.id, job.pid));
        } else {
            text.push_str(&format!("[{}]{mark}  {word:<24}{shown}\n", job.id));
        }
    }
    let _ = ctx.out(text);
    // Finished jobs leave the table once reported.
    for pid in done {
        if let Lookup::Job(index) = ctx.state().jobs.lookup(&pid.to_string(), now) {
            ctx.state().jobs.wait_job(index);
        }
    }
    status
}

fn fg(ctx: &mut Ctx, _args: &[String]) -> i32 {
    ctx.shell_error("fg: no job control");
    1
}

fn bg(ctx: &mut Ctx, _args: &[String]) -> i32 {
    ctx.shell_error("bg: no job control");
    1
}

fn disown(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut all, mut running, mut keep) = (false, false, false);
    let mut i = 0;
    while let Some(a) = args.get(i).filter(|a| a.len() > 1 && a.starts_with('-')) {
        if a == "--" {
            i += 1;
            break;
        }
        for c in a[1..].chars() {
            match c {
                'a' => all = true,
                'r' => running = true,
                'h' => keep = true,
                _ => {
                    ctx.shell_error(&format!("disown: -{c}: invalid option"));
                    ctx.err("disown: usage: disown [-h] [-ar] [jobspec ... | pid ...]\n");
                    return 2;
                }
            }
        }
        i += 1;
    }
    let now = ctx.interp.clock_ms;
    let specs = &args[i..];
    if specs.is_empty() && (all || running) {
        if !keep {
            let jobs = &mut ctx.state().jobs;
            let mut k = 0;
            while k < jobs.len() {
                if !running || jobs.job(k).end_ms > now {
                    jobs.remove(k);
                } else {
                    k += 1;
                }
            }
        }
        return 0;
    }
    let default = ["%+".to_string()];
    let specs = if specs.is_empty() { &default[..] } else { specs };
    let mut status = 0;
    for spec in specs {
        match ctx.state().jobs.lookup(spec, now) {
            Lookup::Job(index) => {
                if !keep {
                    ctx.state().jobs.remove(index);
                }
            }
            _ => {
                let shown = if args[i..].is_empty() { "current" } else { spec.as_str() };
                ctx.shell_error(&format!("disown: {shown}: no such job"));
                status = 1;
            }
        }
    }
    status
}
