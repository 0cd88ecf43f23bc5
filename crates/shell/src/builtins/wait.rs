//! `wait [-fn] [-p VAR] [ID]...`: background commands ran when started
//! (see [`crate::jobs`]); waiting gives their recorded status and moves the
//! shell's virtual clock to their end.

use super::Builtin;
use crate::ctx::Ctx;
use crate::jobs::{Job, Lookup};

pub const BUILTIN: Builtin = Builtin {
    name: "wait",
    run,
    help: "Usage: wait [-fn] [-p var] [id ...]\nWaits for background jobs and returns the status of the last ID.\n",
    help_flag: false,
};

const USAGE: &str = "wait: usage: wait [-fn] [-p var] [id ...]\n";

/// What bash calls a signal when a job it ended is reported.
fn description(signal: u32) -> String {
    match signal {
        1 => "Hangup".into(),
        3 => "Quit".into(),
        4 => "Illegal instruction".into(),
        5 => "Trace/breakpoint trap".into(),
        6 => "Aborted".into(),
        7 => "Bus error".into(),
        8 => "Floating point exception".into(),
        9 => "Killed".into(),
        10 => "User defined signal 1".into(),
        11 => "Segmentation fault".into(),
        12 => "User defined signal 2".into(),
        14 => "Alarm clock".into(),
        15 => "Terminated".into(),
        n => format!("Signal {n}"),
    }
}

/// Waits for a job that left the table: the clock moves to its end (a
/// real pause, bounded by the run's limits), and a job a signal ended is
/// reported as bash does (but not `INT` or `PIPE`).
pub(crate) fn finish(ctx: &mut Ctx, job: &Job) -> i32 {
    if job.end_ms > ctx.interp.clock_ms {
        let pause = job.end_ms - ctx.interp.clock_ms;
        ctx.sys().sleep(pause);
        ctx.interp.clock_ms = job.end_ms;
    }
    if let Some(signal) = job.signal.filter(|s| !matches!(s, 2 | 13)) {
        let text = job.text.strip_suffix(" &").unwrap_or(&job.text);
        ctx.shell_error(&format!("{:5} {:<24}{text}", job.pid, description(signal)));
    }
    job.status
}

fn run(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut any = false;
    let mut var = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if a.len() < 2 || !a.starts_with('-') {
            break;
        }
        let mut chars = a[1..].chars();
        while let Some(c) = chars.next() {
            match c {
                'n' => any = true,
                'f' => {}
                'p' => {
                    let rest: String = chars.by_ref().collect();
                    let name = if rest.is_empty() {
                        i += 1;
                        match args.get(i) {
                            Some(n) => n.clone(),
                            None => {
                                ctx.shell_error("wait: -p: option requires an argument");
                                ctx.err(USAGE);
                                return 2;
                            }
                        }
                    } else {
                        rest
                    };
                    var = Some(name);
                }
                _ => {
                    ctx.shell_error(&format!("wait: -{c}: invalid option"));
                    ctx.err(USAGE);
                    return 2;
                }
            }
        }
        i += 1;
    }
    let ids = &args[i..];
    let now = ctx.interp.clock_ms;
    if ids.is_empty() && !any {
        let jobs = ctx.state().jobs.wait_all();
        for job in &jobs {
            finish(ctx, job);
        }
        return 0;
    }
    let mut status = 127;
    let mut candidates = Vec::new();
    for id in ids {
        let found = ctx.state().jobs.lookup(id, now);
        status = match found {
            Lookup::Job(index) if any => {
                candidates.push(ctx.state().jobs.job(index).pid);
                continue;
            }
            Lookup::Job(index) => {
                let job = ctx.state().jobs.wait_job(index);
                finish(ctx, &job)
            }
            Lookup::Done(status) if any => {
                let _ = status;
                continue;
            }
            Lookup::Done(status) => status,
            Lookup::NoSuchJob => {
                ctx.shell_error(&format!("wait: {id}: no such job"));
                127
            }
            Lookup::NotChild => {
                ctx.shell_error(&format!("wait: pid {id} is not a child of this shell"));
                127
            }
            Lookup::Invalid => {
                ctx.shell_error(&format!("wait: `{id}': not a pid or valid job spec"));
                if any {
                    continue;
                }
                1
            }
        };
    }
    if any {
        let jobs = &mut ctx.state().jobs;
        let index = if ids.is_empty() {
            jobs.first_to_end(None)
        } else {
            let pids = candidates;
            let indices: Vec<usize> = (0..jobs.len()).filter(|&k| pids.contains(&jobs.job(k).pid)).collect();
            jobs.first_to_end(Some(&indices))
        };
        let Some(index) = index else { return 127 };
        let job = jobs.wait_job(index);
        if let Some(name) = var {
            ctx.state().set(&name, job.pid.to_string());
        }
        return finish(ctx, &job);
    }
    status
}
