//! The job table of a shell without job control, emulated: a command
//! started with `&` runs to completion at once (in a subshell), and is
//! recorded as a job with its exit status and a fake, deterministic process
//! ID (`$!`). Time is virtual: `sleep` inside a background job does not
//! block, it lengthens the job; the job counts as running until the shell's
//! own clock (its `sleep`s, and `wait`s for jobs) reaches the job's end.
//! A running job can be killed (its status becomes 128 + the signal); a
//! finished one leaves the table but `wait PID` still gives its status, as
//! in bash.

/// Jobs kept in the table at most, and statuses of finished background
/// processes remembered at most (bash bounds the latter by `CHILD_MAX`):
/// the oldest are forgotten first.
const MAX_JOBS: usize = 1024;
const MAX_STATUSES: usize = 4096;

/// A command as `jobs` shows it: pipelines and lists spaced like bash.
pub fn text(list: &brush_parser::ast::AndOrList) -> String {
    use brush_parser::ast::AndOr;
    fn pipeline(p: &brush_parser::ast::Pipeline) -> String {
        let stages: Vec<String> = p.seq.iter().map(ToString::to_string).collect();
        let bang = if p.bang { "! " } else { "" };
        format!("{bang}{}", stages.join(" | "))
    }
    let mut out = pipeline(&list.first);
    for next in &list.additional {
        match next {
            AndOr::And(p) => out = format!("{out} && {}", pipeline(p)),
            AndOr::Or(p) => out = format!("{out} || {}", pipeline(p)),
        }
    }
    out
}

#[derive(Debug, Clone)]
pub struct Job {
    pub id: usize,
    pub pid: u32,
    /// The command as `jobs` shows it.
    pub text: String,
    pub status: i32,
    /// When it ends on the shell's virtual clock (milliseconds).
    pub end_ms: u64,
    /// The signal that ended it, if one did.
    pub signal: Option<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct Jobs {
    table: Vec<Job>,
    /// Finished background processes: PID and status.
    statuses: Vec<(u32, i32)>,
    /// `$!`.
    pub last_pid: Option<u32>,
}

/// A job looked up by `%spec` or PID.
pub enum Lookup {
    Job(usize),
    /// A finished process's status (no longer in the table).
    Done(i32),
    NoSuchJob,
    NotChild,
    Invalid,
}

impl Jobs {
    /// Records a finished background command; returns its job number.
    pub fn add(&mut self, pid: u32, text: String, status: i32, end_ms: u64, now: u64) -> usize {
        self.reap(now);
        if self.table.len() >= MAX_JOBS {
            let old = self.table.remove(0);
            self.remember(old.pid, old.status);
        }
        let id = self.table.last().map_or(1, |j| j.id + 1);
        self.table.push(Job { id, pid, text, status, end_ms, signal: None });
        self.last_pid = Some(pid);
        id
    }

    fn remember(&mut self, pid: u32, status: i32) {
        if self.statuses.len() >= MAX_STATUSES {
            self.statuses.remove(0);
        }
        self.statuses.retain(|(p, _)| *p != pid);
        self.statuses.push((pid, status));
    }

    /// Moves the jobs that ended before now out of the table (bash reaps
    /// them between commands once their end has been noticed).
    pub fn reap(&mut self, now: u64) {
        let mut i = 0;
        while i < self.table.len() {
            if self.table[i].end_ms < now {
                let job = self.table.remove(i);
                self.remember(job.pid, job.status);
            } else {
                i += 1;
            }
        }
    }

    pub fn table(&mut self, now: u64) -> &[Job] {
        self.reap(now);
        &self.table
    }

    /// The `+` (current) and `-` (previous) marks of a job.
    pub fn mark(&self, index: usize) -> char {
        let n = self.table.len();
        if index + 1 == n {
            '+'
        } else if index + 2 == n {
            '-'
        } else {
            ' '
        }
    }

    /// Finds a job by `%N`, `%%`, `%+`, `%-`, `%PREFIX`, `%?TEXT` or a PID.
    pub fn lookup(&mut self, spec: &str, now: u64) -> Lookup {
        self.reap(now);
        if let Some(rest) = spec.strip_prefix('%') {
            let n = self.table.len();
            let found = match rest {
                "" | "%" | "+" => n.checked_sub(1),
                "-" => n.checked_sub(2).or(n.checked_sub(1)),
                _ => match rest.parse::<usize>() {
                    Ok(id) => self.table.iter().position(|j| j.id == id),
                    Err(_) => match rest.strip_prefix('?') {
                        Some(text) => self.table.iter().rposition(|j| j.text.contains(text)),
                        None => self.table.iter().rposition(|j| j.text.starts_with(rest)),
                    },
                },
            };
            return found.map_or(Lookup::NoSuchJob, Lookup::Job);
        }
        match spec.parse::<i64>() {
            Ok(pid) => {
                if let Some(i) = self.table.iter().position(|j| i64::from(j.pid) == pid) {
                    return Lookup::Job(i);
                }
                match self.statuses.iter().find(|(p, _)| i64::from(*p) == pid) {
                    Some((_, status)) => Lookup::Done(*status),
                    None => Lookup::NotChild,
                }
            }
            Err(_) => Lookup::Invalid,
        }
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Takes the job at `index` out of the table (`disown`).
    pub fn remove(&mut self, index: usize) -> Job {
        self.table.remove(index)
    }

    pub fn job(&self, index: usize) -> &Job {
        &self.table[index]
    }

    /// Waits for the job at `index`: it leaves the table (the caller's
    /// clock moves to its end).
    pub fn wait_job(&mut self, index: usize) -> Job {
        let job = self.table.remove(index);
        self.remember(job.pid, job.status);
        job
    }

    /// Waits for every job.
    pub fn wait_all(&mut self) -> Vec<Job> {
        let jobs = std::mem::take(&mut self.table);
        for job in &jobs {
            self.remember(job.pid, job.status);
        }
        jobs
    }

    /// The job that ends first (`wait -n`), among `candidates` if given.
    pub fn first_to_end(&self, candidates: Option<&[usize]>) -> Option<usize> {
        (0..self.table.len())
            .filter(|i| candidates.is_none_or(|c| c.contains(i)))
            .min_by_key(|&i| self.table[i].end_ms)
    }

    /// Sends `signal` to the job at `index`: a running job ends now with
    /// status 128 + signal unless the signal does not stop a process
    /// (`CHLD`, `CONT`, `URG`, `WINCH`, `0`); a finished one is unaffected.
    pub fn signal(&mut self, index: usize, signal: u32, now: u64) {
        let job = &mut self.table[index];
        if job.end_ms <= now || matches!(signal, 0 | 17 | 18 | 23 | 28) {
            return;
        }
        job.end_ms = now;
        job.status = 128 + signal as i32;
        job.signal = Some(signal);
    }

    /// Whether the finished process `pid` is remembered (a zombie: `kill`
    /// succeeds and does nothing).
    pub fn known_pid(&self, pid: i64) -> bool {
        self.statuses.iter().any(|(p, _)| i64::from(*p) == pid)
    }
}
