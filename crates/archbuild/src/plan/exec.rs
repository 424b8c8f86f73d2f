//! Running a graph of jobs in parallel, within the machine's limits.
//!
//! Inside a build script every compiler process holds a token of Cargo's jobserver (the build
//! script's own implicit token counts as one), so archbuild never oversubscribes the `-j` Cargo
//! was given. Outside Cargo it runs its own pool. Either way the number of workers is capped by
//! the CPU count, `ARCHBUILD_JOBS`, and available memory divided by the per-job estimate
//! (`ARCHBUILD_JOB_MEMORY`, MiB; nvcc takes 3–5 GB per job on large kernels, 0.2 GB on small).
//!
//! Among ready jobs the one with the highest priority starts first (`plan::priorities`: the
//! longest chain of jobs first, and within a class the newest arch), so that no core idles behind
//! one long chain at the end. After the first failure no new job starts; running ones finish
//! so their diagnostics can be grouped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::base::env::Env;
use crate::error::{Error, Result};

/// How many jobs may run at once: the explicit count, else `ARCHBUILD_JOBS`, else the CPUs,
/// capped by available memory over `ARCHBUILD_JOB_MEMORY`. A value that is not a positive whole
/// number is an error naming it (it would otherwise be ignored without a word).
pub(crate) fn parallelism(env: &Env, explicit: Option<usize>) -> Result<usize> {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let positive = |origin: &str, value: String, what: &'static str, hint: &str| match value
        .trim()
        .parse::<u64>(
    ) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(Error::Config {
            what,
            origin: origin.to_owned(),
            value,
            hint: hint.to_owned(),
        }),
    };
    let jobs_hint = "use a whole number of 1 or more, such as `4`, or leave it unset for one job \
                     per CPU";
    let jobs = match explicit {
        Some(n) => positive(
            "Build::jobs / --jobs",
            n.to_string(),
            "job count",
            jobs_hint,
        )? as usize,
        None => match env.var("ARCHBUILD_JOBS") {
            Some(v) => positive("ARCHBUILD_JOBS", v, "job count", jobs_hint)? as usize,
            None => cores,
        },
    };
    let per_job_mib = match env.var("ARCHBUILD_JOB_MEMORY") {
        Some(v) => positive(
            "ARCHBUILD_JOB_MEMORY",
            v,
            "memory per job",
            "use the MiB one compile needs as a whole number, such as `4096`, or leave it unset \
             for 2048",
        )?,
        None => 2048,
    };
    let by_memory = available_memory_mib().map(|m| (m / per_job_mib).max(1) as usize);
    Ok(jobs.min(by_memory.unwrap_or(usize::MAX)).max(1))
}

/// `MemAvailable` from /proc/meminfo, in MiB.
fn available_memory_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// Cargo's jobserver, when this process is a build script that received one.
fn cargo_jobserver(env: &Env) -> Option<&'static jobserver::Client> {
    static CLIENT: OnceLock<Option<jobserver::Client>> = OnceLock::new();
    if !env.cargo_metadata() || env.is_fixed() {
        return None;
    }
    // SAFETY: called once per process (OnceLock); the descriptors named in CARGO_MAKEFLAGS
    // were passed to this build script by Cargo for exactly this use.
    CLIENT
        .get_or_init(|| unsafe { jobserver::Client::from_env() })
        .as_ref()
}

/// At most `n` processes of this machine at once, when the build runs more jobs than that
/// because a cluster runs the launched ones (`dist.rs`).
pub(crate) struct Slots {
    free: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
}

/// One of [`Slots`], returned when dropped.
pub(crate) struct Slot<'a>(&'a Slots);

impl Slots {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            free: std::sync::Mutex::new(n.max(1)),
            freed: std::sync::Condvar::new(),
        }
    }

    pub(crate) fn acquire(&self) -> Slot<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

/// Hands out permission to run a process.
pub(crate) struct Limiter {
    client: Option<&'static jobserver::Client>,
    implicit_free: AtomicBool,
}

/// Permission to run one process; returned when dropped.
pub(crate) enum Token<'a> {
    Implicit(&'a Limiter),
    Acquired(
        #[expect(dead_code, reason = "held for its Drop, which returns the token")]
        jobserver::Acquired,
    ),
    Pool,
}

impl Drop for Token<'_> {
    fn drop(&mut self) {
        if let Token::Implicit(l) = self {
            l.implicit_free.store(true, Ordering::SeqCst);
        }
    }
}

impl Limiter {
    pub(crate) fn new(env: &Env) -> Self {
        Self {
            client: cargo_jobserver(env),
            implicit_free: AtomicBool::new(true),
        }
    }

    pub(crate) fn uses_jobserver(&self) -> bool {
        self.client.is_some()
    }

    /// Blocks until a process may start.
    ///
    /// Waits for the implicit token *and* a jobserver token at once, never in a blocking read of
    /// the jobserver alone: when several build scripts hold all of Cargo's `-j` tokens, the
    /// only token this process will ever get is its implicit one, and a thread asleep in
    /// `Client::acquire` would not notice it come free (a deadlock seen with `-j2` and three
    /// kernel crates, whose remaining jobs all waited on the sleeping one).
    pub(crate) fn acquire(&self) -> Token<'_> {
        let Some(client) = self.client else {
            return Token::Pool;
        };
        let mut wait = std::time::Duration::from_millis(1);
        let mut poll_jobserver = true;
        loop {
            if self.implicit_free.swap(false, Ordering::SeqCst) {
                return Token::Implicit(self);
            }
            if poll_jobserver {
                match client.try_acquire() {
                    Ok(Some(a)) => return Token::Acquired(a),
                    Ok(None) => {}
                    // A jobserver pipe that cannot be read without blocking: wait for the
                    // implicit token alone, which never oversubscribes and never deadlocks.
                    Err(e) if e.kind() == std::io::ErrorKind::Unsupported => poll_jobserver = false,
                    // A broken jobserver must not stop the build; fall back to our own pool.
                    Err(_) => return Token::Pool,
                }
            }
            std::thread::sleep(wait);
            wait = (wait * 2).min(std::time::Duration::from_millis(20));
        }
    }
}

/// What happened to a job.
#[derive(Debug)]
pub(crate) enum Outcome<T, F> {
    Done(Arc<T>),
    Failed(F),
    /// Not run: its dependency failed, or the build stopped after a failure.
    Skipped,
}

struct State<T, F> {
    /// Ready jobs; the one with the highest priority (then the lowest index) starts next.
    queue: Vec<usize>,
    outcomes: Vec<Option<Outcome<T, F>>>,
    running: usize,
    stop: bool,
    /// Early jobs waiting for this job's output.
    parked: Vec<Vec<usize>>,
    /// Early jobs that run again with their dependency's output.
    resumed: Vec<bool>,
    /// How many of the jobs it waits for have not succeeded yet.
    waiting: Vec<usize>,
}

impl<T, F> State<T, F> {
    /// Job `job` made `out`: its plain dependents (`ready`), the jobs waiting for it that now
    /// wait for nothing else, and the early jobs parked on it are ready.
    fn succeeded(
        &mut self,
        job: usize,
        out: T,
        ready: impl Iterator<Item = usize>,
        waiters: &[usize],
    ) {
        self.outcomes[job] = Some(Outcome::Done(Arc::new(out)));
        self.queue.extend(ready);
        for &w in waiters {
            self.waiting[w] -= 1;
            if self.waiting[w] == 0 {
                self.queue.push(w);
            }
        }
        let parked = std::mem::take(&mut self.parked[job]);
        self.queue.extend(parked);
    }

    /// An early job that needs its dependency `dep`'s output: again, with it.
    fn resume(&mut self, job: usize, dep: Option<usize>) {
        self.resumed[job] = true;
        match dep {
            Some(d) => match &self.outcomes[d] {
                Some(Outcome::Done(_)) => self.queue.push(job),
                Some(_) => {}
                None => self.parked[d].push(job),
            },
            None => self.queue.push(job),
        }
    }
}

/// What a job gets of the job it depends on.
pub(crate) enum Input<'a, T> {
    /// It depends on none.
    None,
    /// Its dependency's output.
    Done(&'a T),
    /// Its dependency has started and may still run (an *early* job, below). A job that finds
    /// it needs the output returns `Ok(None)` and runs again with it, without holding a worker
    /// while it waits.
    Started,
    /// The outputs of the jobs it waits for (a device link's inputs), in their order.
    All(Vec<&'a T>),
}

impl<'a, T> Input<'a, T> {
    /// The dependency's output when it has finished.
    pub(crate) fn done(&self) -> Option<&'a T> {
        match self {
            Input::Done(t) => Some(t),
            _ => None,
        }
    }
}

/// Runs `task` for every job, a job only after its dependency succeeded — or, for an `early`
/// job, once its dependency has *started*, so the job can do what does not need the
/// dependency's output, and, returning `Ok(None)`, run again with it once it exists — on
/// `workers` threads; among ready jobs the highest `priority` starts first. A job without a
/// dependency may instead wait for several (`waits`): it starts once all of them succeeded,
/// with their outputs (`Input::All`). `task(job, input)` does its own cache lookup and takes a
/// jobserver token only when it must start a process.
pub(crate) fn run_graph<T, F, R>(
    deps: &[Option<usize>],
    waits: &[Vec<usize>],
    early: &[bool],
    priority: &[u32],
    workers: usize,
    task: R,
) -> Vec<Outcome<T, F>>
where
    T: Send + Sync,
    F: Send,
    R: Fn(usize, Input<'_, T>) -> Result<Option<T>, F> + Sync,
{
    let n = deps.len();
    let is_early = |i: usize| early.get(i).copied().unwrap_or(false);
    let mut dependents = vec![Vec::new(); n];
    for (i, d) in deps.iter().enumerate() {
        if let Some(d) = d {
            dependents[*d].push(i);
        }
    }
    let no_waits = Vec::new();
    let waits_of = |i: usize| waits.get(i).unwrap_or(&no_waits);
    let mut waiters = vec![Vec::new(); n];
    for i in 0..n {
        for &w in waits_of(i) {
            waiters[w].push(i);
        }
    }
    let state = Mutex::new(State {
        queue: (0..n)
            .filter(|&i| deps[i].is_none() && waits_of(i).is_empty())
            .collect(),
        waiting: (0..n).map(|i| waits_of(i).len()).collect(),
        outcomes: (0..n).map(|_| None).collect(),
        running: 0,
        stop: false,
        parked: vec![Vec::new(); n],
        resumed: vec![false; n],
    });
    let wake = Condvar::new();
    let worker = || loop {
        let (job, input) = {
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if st.stop || crate::base::process::interrupted() {
                    st.queue.clear();
                }
                let next = st
                    .queue
                    .iter()
                    .enumerate()
                    .max_by_key(|(_, &j)| (priority[j], std::cmp::Reverse(j)))
                    .map(|(pos, _)| pos);
                if let Some(j) = next.map(|pos| st.queue.swap_remove(pos)) {
                    let early_now = is_early(j) && !st.resumed[j];
                    let input = match deps[j] {
                        Some(d) if !early_now => match &st.outcomes[d] {
                            Some(Outcome::Done(t)) => vec![Arc::clone(t)],
                            _ => vec![],
                        },
                        _ => waits_of(j)
                            .iter()
                            .filter_map(|&w| match &st.outcomes[w] {
                                Some(Outcome::Done(t)) => Some(Arc::clone(t)),
                                _ => None,
                            })
                            .collect(),
                    };
                    // Its early dependents may start now (once: not again when it resumes).
                    if !st.resumed[j] {
                        let starting = dependents[j].iter().copied().filter(|&i| is_early(i));
                        st.queue.extend(starting);
                    }
                    st.running += 1;
                    break (j, (input, early_now));
                }
                if st.running == 0 {
                    wake.notify_all();
                    return;
                }
                st = wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        let (outputs, early_now) = input;
        let input = match (&outputs[..], early_now) {
            _ if !waits_of(job).is_empty() => Input::All(outputs.iter().map(|t| &**t).collect()),
            ([t], _) => Input::Done(&**t),
            (_, true) => Input::Started,
            (_, false) => Input::None,
        };
        let result = task(job, input);
        let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
        st.running -= 1;
        match result {
            Ok(Some(t)) => {
                let ready = dependents[job].iter().copied().filter(|&i| !is_early(i));
                st.succeeded(job, t, ready, &waiters[job]);
            }
            Ok(None) => st.resume(job, deps[job]),
            Err(f) => {
                st.outcomes[job] = Some(Outcome::Failed(f));
                st.stop = true;
            }
        }
        wake.notify_all();
    };
    std::thread::scope(|s| {
        for _ in 0..workers.clamp(1, n.max(1)) {
            s.spawn(worker);
        }
    });
    let st = state.into_inner().unwrap_or_else(|e| e.into_inner());
    st.outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Skipped))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Every job's output, where all succeeded.
    fn succeeded<F: std::fmt::Debug>(out: &[Outcome<usize, F>]) -> Vec<usize> {
        out.iter()
            .map(|o| match o {
                Outcome::Done(v) => **v,
                other => panic!("all succeed: {other:?}"),
            })
            .collect()
    }

    /// With every jobserver token held elsewhere (Cargo `-j2` running two build scripts), a
    /// waiting job must get the implicit token as soon as it is released.
    #[test]
    fn a_waiter_gets_the_implicit_token_when_no_jobserver_token_comes() {
        let client: &'static jobserver::Client =
            Box::leak(Box::new(jobserver::Client::new(0).expect("jobserver")));
        let limiter: &'static Limiter = Box::leak(Box::new(Limiter {
            client: Some(client),
            implicit_free: AtomicBool::new(true),
        }));
        let held = limiter.acquire();
        assert!(matches!(held, Token::Implicit(_)));
        let (tx, rx) = std::sync::mpsc::channel();
        // Not scoped: with the bug this thread never returns, and the test must fail, not hang.
        std::thread::spawn(move || {
            let t = limiter.acquire();
            let implicit = matches!(t, Token::Implicit(_));
            tx.send(implicit).ok();
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        drop(held);
        let got = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(
            got,
            Ok(true),
            "the waiter never received the released implicit token"
        );
    }

    #[test]
    fn dependencies_run_first_and_failures_stop_the_rest() {
        let deps = [None, None, Some(0), Some(1)];
        let order = Mutex::new(Vec::new());
        let out = run_graph(
            &deps,
            &[],
            &[],
            &[0; 4],
            2,
            |j, input: Input<'_, usize>| -> Result<Option<usize>, ()> {
                order.lock().unwrap().push(j);
                Ok(Some(input.done().copied().unwrap_or(0) + j * 10))
            },
        );
        let values = succeeded(&out);
        assert_eq!(values, [0, 10, 20, 40]);
        let order = order.into_inner().unwrap();
        let pos = |j| order.iter().position(|&x| x == j).unwrap();
        assert!(pos(0) < pos(2) && pos(1) < pos(3));

        let ran = AtomicUsize::new(0);
        let out = run_graph(
            &[None, Some(0), None],
            &[],
            &[],
            &[1, 1, 0],
            1,
            |j, _: Input<'_, ()>| {
                ran.fetch_add(1, Ordering::SeqCst);
                if j == 0 {
                    Err("boom")
                } else {
                    Ok(Some(()))
                }
            },
        );
        assert!(matches!(out[0], Outcome::Failed("boom")));
        assert!(matches!(out[1], Outcome::Skipped));
        assert!(
            matches!(out[2], Outcome::Skipped),
            "one worker: nothing starts after a failure"
        );
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }

    /// An early job starts while its dependency runs (here the dependency cannot finish until
    /// the early job has started), gives its worker back when it needs the output, and runs
    /// again with it; a plain dependent of the same job starts only after it.
    #[test]
    fn an_early_job_starts_while_its_dependency_runs_and_resumes_with_its_output() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = Mutex::new(rx);
        let calls = Mutex::new(Vec::new());
        let out = run_graph(
            &[None, Some(0), Some(0)],
            &[],
            &[false, true, false],
            &[9, 5, 1],
            2,
            |j, input: Input<'_, usize>| -> Result<Option<usize>, ()> {
                let seen = match &input {
                    Input::None => "none",
                    Input::Started => "started",
                    Input::Done(_) => "done",
                    Input::All(_) => "all",
                };
                calls.lock().unwrap().push((j, seen));
                match (j, input) {
                    (0, Input::None) => {
                        let got = rx
                            .lock()
                            .unwrap()
                            .recv_timeout(std::time::Duration::from_secs(10));
                        assert!(got.is_ok(), "the early job never started");
                        Ok(Some(7))
                    }
                    (1, Input::Started) => {
                        tx.send(()).unwrap();
                        Ok(None)
                    }
                    (1 | 2, Input::Done(v)) => Ok(Some(*v + j)),
                    _ => Err(()),
                }
            },
        );
        let values = succeeded(&out);
        assert_eq!(values, [7, 8, 9]);
        let calls = calls.into_inner().unwrap();
        assert!(
            calls.contains(&(1, "started")) && calls.contains(&(1, "done")),
            "{calls:?}"
        );
        assert!(
            calls.contains(&(2, "done")) && !calls.contains(&(2, "started")),
            "{calls:?}"
        );
    }

    /// A job that waits for several starts once all of them succeeded, with their outputs in
    /// its order; one that waits for a failed job is skipped.
    #[test]
    fn a_job_waiting_for_several_gets_all_their_outputs() {
        let out = run_graph(
            &[None, None, None, None],
            &[vec![], vec![], vec![1, 0], vec![]],
            &[],
            &[0, 0, 9, 0],
            3,
            |j, input: Input<'_, usize>| -> Result<Option<usize>, ()> {
                match input {
                    Input::All(v) => Ok(Some(v.iter().fold(0, |a, x| a * 10 + **x))),
                    Input::None => Ok(Some(j + 1)),
                    _ => Err(()),
                }
            },
        );
        let values = succeeded(&out);
        assert_eq!(values, [1, 2, 21, 4]);
        let out = run_graph(
            &[None, None, None],
            &[vec![], vec![], vec![0, 1]],
            &[],
            &[0, 0, 0],
            1,
            |j, _: Input<'_, ()>| if j == 0 { Err("boom") } else { Ok(Some(())) },
        );
        assert!(matches!(out[2], Outcome::Skipped));
    }

    #[test]
    fn ready_jobs_start_by_priority() {
        let order = Mutex::new(Vec::new());
        // 0 and 1 are ready at once; 2 depends on 0; 3 is ready and has the lowest priority.
        run_graph(
            &[None, None, Some(0), None],
            &[],
            &[],
            &[5, 9, 7, 1],
            1,
            |j, _: Input<'_, ()>| -> Result<Option<()>, ()> {
                order.lock().unwrap().push(j);
                Ok(Some(()))
            },
        );
        assert_eq!(order.into_inner().unwrap(), [1, 0, 2, 3]);
    }

    #[test]
    fn parallelism_respects_env() {
        assert_eq!(
            parallelism(&Env::from_vars([("ARCHBUILD_JOBS", "1")]), None).unwrap(),
            1
        );
        let none = Env::from_vars(Vec::<(String, String)>::new());
        assert_eq!(
            parallelism(&none, Some(1)).unwrap(),
            1,
            "the API's jobs(1) wins"
        );
        let huge = Env::from_vars([("ARCHBUILD_JOB_MEMORY", "100000000")]);
        assert_eq!(
            parallelism(&huge, Some(8)).unwrap(),
            1,
            "memory caps the pool"
        );
    }

    #[test]
    fn garbage_counts_are_errors_that_name_the_variable() {
        for (var, value) in [
            ("ARCHBUILD_JOBS", "lots"),
            ("ARCHBUILD_JOBS", "0"),
            ("ARCHBUILD_JOBS", "-2"),
            ("ARCHBUILD_JOB_MEMORY", "4G"),
        ] {
            let e = parallelism(&Env::from_vars([(var, value)]), None)
                .unwrap_err()
                .to_string();
            assert!(e.contains(var) && e.contains(&format!("`{value}`")), "{e}");
        }
        let none = Env::from_vars(Vec::<(String, String)>::new());
        let e = parallelism(&none, Some(0)).unwrap_err().to_string();
        insta::assert_snapshot!(e);
    }
}
