//! Running tool processes: argument vectors (never a shell), output captured, and no orphans.
//!
//! Each child gets its own process group, recorded in a lock-free table. On SIGINT, SIGTERM or
//! SIGHUP a handler (installed with sigaction(2); it runs any handler the host program had
//! installed first) kills every recorded group — nvcc *and* the cicc/ptxas it started — then
//! lets the signal take its default course. `PR_SET_PDEATHSIG` additionally kills a direct child
//! if archbuild itself dies by SIGKILL.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, Once};

use crate::error::{Error, Result};

pub(crate) use crate::ended::Ended;

const SLOTS: usize = 512;
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();

/// A command line: program plus arguments, with extra environment for the child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cmd {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    /// Whether `env` is the child's whole environment (compilers), not additions to ours.
    pub env_only: bool,
    pub cwd: Option<PathBuf>,
}

impl Cmd {
    pub(crate) fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            env_only: false,
            cwd: None,
        }
    }

    pub(crate) fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    pub(crate) fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub(crate) fn envs(mut self, env: Vec<(OsString, OsString)>) -> Self {
        self.env.extend(env);
        self
    }

    /// Runs the child with exactly `env` as its environment, nothing inherited.
    pub(crate) fn hermetic(mut self, env: &[(OsString, OsString)]) -> Self {
        self.env = env.to_vec();
        self.env_only = true;
        self
    }

    /// Prepends a launcher (e.g. `sccache`): `launcher program args…`.
    pub(crate) fn with_launcher(self, launcher: Option<&Path>) -> Self {
        match launcher {
            None => self,
            Some(l) => {
                let mut args = vec![self.program.into_os_string()];
                args.extend(self.args);
                Cmd {
                    program: l.to_path_buf(),
                    args,
                    env: self.env,
                    env_only: self.env_only,
                    cwd: self.cwd,
                }
            }
        }
    }

    /// The command as one line for messages and the dry-run listing (quoted where needed).
    pub(crate) fn display(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(|a| a.as_os_str()))
            .map(|a| {
                let s = a.to_string_lossy();
                if s.is_empty() || s.contains(|c: char| c.is_whitespace() || c == '"') {
                    format!("{s:?}")
                } else {
                    s.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs to completion, capturing stdout and stderr; not counted in a build's report.
    pub(crate) fn output(&self) -> Result<Output> {
        self.output_in(None)
    }

    /// [`Cmd::output`], counting the process in `spawns` when it starts.
    pub(crate) fn output_counted(&self, spawns: &Spawns) -> Result<Output> {
        self.output_in(Some(spawns))
    }

    fn output_in(&self, spawns: Option<&Spawns>) -> Result<Output> {
        let (child, slot) = self.start(spawns)?;
        let result = child.wait_with_output();
        drop(slot);
        let out = result.map_err(|source| self.spawn_error(source))?;
        finished()?;
        Ok(Output {
            status: Ended::of(out.status),
            stdout: out.stdout,
            stderr: out.stderr,
        })
    }

    /// Runs to completion, handing each stdout line to `on_line` as it arrives (progress of
    /// long tools such as pip); stderr is captured and returned.
    pub(crate) fn run_streaming(&self, on_line: &mut dyn FnMut(&str)) -> Result<(Ended, String)> {
        use std::io::{BufRead, Read};
        let (mut child, slot) = self.start(None)?;
        let mut stderr = child.stderr.take();
        let err_thread = std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(e) = stderr.as_mut() {
                let _ = e.read_to_string(&mut s);
            }
            s
        });
        if let Some(out) = child.stdout.take() {
            for line in std::io::BufReader::new(out).lines().map_while(|l| l.ok()) {
                on_line(&line);
            }
        }
        let status = child.wait();
        drop(slot);
        let stderr = err_thread.join().unwrap_or_default();
        let status = status.map_err(|source| self.spawn_error(source))?;
        finished()?;
        Ok((Ended::of(status), stderr))
    }

    /// The one place a child starts: nothing starts once the build is interrupted; the child
    /// gets its own process group, recorded until the returned slot is dropped, its stdio
    /// piped, and is counted in `spawns` once it runs.
    fn start(&self, spawns: Option<&Spawns>) -> Result<(std::process::Child, Slot)> {
        install_handlers();
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(Error::Interrupted);
        }
        let mut command = Command::new(&self.program);
        if self.env_only {
            command.env_clear();
        }
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        isolate(&mut command);
        let child = command.spawn().map_err(|source| self.spawn_error(source))?;
        if let Some(s) = spawns {
            s.0.fetch_add(1, Ordering::SeqCst);
        }
        let slot = Slot(register(child.id() as i32));
        Ok((child, slot))
    }

    fn spawn_error(&self, source: std::io::Error) -> Error {
        Error::Spawn {
            program: self.program.clone(),
            source,
        }
    }
}

/// An interrupt that arrived while the child ran is the build's outcome, not the child's.
fn finished() -> Result<()> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        true => Err(Error::Interrupted),
        false => Ok(()),
    }
}

/// What a finished process left: how it ended and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Output {
    pub status: Ended,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Counts the processes a build starts. Clones share one count, so the build's preparation
/// (toolkit and GPU queries) and its compiler jobs count into the one number the report reads.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spawns(Arc<AtomicUsize>);

impl Spawns {
    /// Processes started so far.
    pub(crate) fn started(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// A child's entry in the table of process groups the signal handler kills; removed on drop.
struct Slot(Option<usize>);

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            GROUPS[i].store(0, Ordering::SeqCst);
        }
    }
}

/// `program` looked up on `path` as the system runs a bare name (the `which` crate): the first
/// executable file of that name, relative entries taken from this process's directory; `None`
/// when no directory has one.
pub(crate) fn on_path(
    program: impl AsRef<std::ffi::OsStr>,
    path: impl AsRef<std::ffi::OsStr>,
) -> Option<PathBuf> {
    let cwd = std::env::current_dir().unwrap_or_default();
    which::which_in(program, Some(path), cwd).ok()
}

/// Whether an interrupt signal arrived.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(unix)]
fn isolate(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
}

#[cfg(not(unix))]
fn isolate(_command: &mut Command) {}

fn register(pid: i32) -> Option<usize> {
    (0..SLOTS).find(|&i| {
        GROUPS[i]
            .compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// The handlers the host program had for the signals handled here: signal, handler, flags.
#[cfg(unix)]
#[allow(
    clippy::type_complexity,
    reason = "three atomics per signal, read in the handler"
)]
static PREVIOUS: [(AtomicI32, AtomicUsize, AtomicI32); 3] = [
    (AtomicI32::new(0), AtomicUsize::new(0), AtomicI32::new(0)),
    (AtomicI32::new(0), AtomicUsize::new(0), AtomicI32::new(0)),
    (AtomicI32::new(0), AtomicUsize::new(0), AtomicI32::new(0)),
];

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    for g in &GROUPS {
        let pid = g.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: kill and signal/raise are async-signal-safe.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let previous = PREVIOUS
        .iter()
        .find(|(s, _, _)| s.load(Ordering::SeqCst) == sig)
        .map(|(_, h, f)| (h.load(Ordering::SeqCst), f.load(Ordering::SeqCst)));
    if let Some((handler, flags)) = previous.filter(|(h, _)| *h > libc::SIG_IGN) {
        // SAFETY: the host program installed this handler for this signal with these flags;
        // it is called as the kernel would have called it (no siginfo or context to give).
        unsafe {
            if flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(handler);
                f(sig, std::ptr::null_mut(), std::ptr::null_mut());
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                f(sig);
            }
        }
    }
    // The default action, as if no handler were installed: the process ends by this signal,
    // so the shell and Cargo see why. signal(2) and raise(3) are async-signal-safe.
    // SAFETY: both only change this process's disposition and deliver the signal.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

#[cfg(unix)]
fn install_handlers() {
    INSTALL.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: `on_signal` only uses atomics, kill(2), signal(2) and raise(3), all
            // async-signal-safe; the struct is zeroed, then its handler and mask are set. A
            // failed sigaction leaves the signal's previous behaviour, which is all a build can
            // do then.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                let mut old: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                if libc::sigaction(sig, &action, &mut old) == 0 {
                    if let Some((s, h, f)) = PREVIOUS
                        .iter()
                        .find(|(s, _, _)| s.load(Ordering::SeqCst) == 0)
                    {
                        h.store(old.sa_sigaction, Ordering::SeqCst);
                        f.store(old.sa_flags, Ordering::SeqCst);
                        s.store(sig, Ordering::SeqCst);
                    }
                }
            }
        }
    });
}

#[cfg(not(unix))]
fn install_handlers() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_only_when_needed() {
        let c = Cmd::new("/bin/nvcc").args(["-ptx", "a b.cu", ""]);
        assert_eq!(c.display(), r#"/bin/nvcc -ptx "a b.cu" """#);
        let l = Cmd::new("nvcc")
            .arg("-c")
            .with_launcher(Some(Path::new("sccache")));
        assert_eq!(l.display(), "sccache nvcc -c");
    }

    #[test]
    fn runs_and_reports_spawn_errors() {
        let out = Cmd::new("/bin/echo").arg("hi").output().unwrap();
        assert_eq!(out.stdout, b"hi\n");
        let err = Cmd::new("/nonexistent/tool").output().unwrap_err();
        assert!(err.to_string().contains("/nonexistent/tool"), "{err}");
    }

    /// `Ended` prints what the standard library prints for every exit code and signal, so
    /// messages and snapshots keep their words.
    #[cfg(unix)]
    #[test]
    fn ended_reads_like_the_standard_library() {
        use std::os::unix::process::ExitStatusExt;
        let raws = (0..=255)
            .map(|code| code << 8)
            .chain(1..=31)
            .chain([9 | 0x80]);
        for raw in raws {
            let status = std::process::ExitStatus::from_raw(raw);
            assert_eq!(
                Ended::of(status).to_string(),
                status.to_string(),
                "raw {raw:#x}"
            );
        }
        let killed = Ended::of(std::process::ExitStatus::from_raw(9));
        assert_eq!(
            killed,
            Ended::Signalled {
                signal: 9,
                core_dumped: false
            }
        );
    }

    /// How a process ended is classified on the enum: killed by SIGKILL directly or under
    /// nvcc (exit 137), a missing program (127), and everything else.
    #[test]
    fn ended_classifies_each_case() {
        let sig = |signal| Ended::Signalled {
            signal,
            core_dumped: false,
        };
        assert!(sig(9).killed());
        assert!(Ended::Exited(137).killed());
        assert!(!sig(11).killed() && !Ended::Exited(1).killed() && !Ended::Exited(9).killed());
        assert!(Ended::Exited(127).command_not_found());
        assert!(!Ended::Exited(1).command_not_found() && !sig(127 - 64).command_not_found());
        assert!(Ended::Exited(0).success() && !Ended::Exited(1).success() && !sig(9).success());
    }

    /// Both ways of running a command are the one spawn: counted, in the given directory,
    /// with the child's status.
    #[cfg(unix)]
    #[test]
    fn every_way_of_running_counts_and_honours_the_directory() {
        let spawns = Spawns::default();
        let mut pwd = Cmd::new("/bin/pwd");
        pwd.cwd = Some("/".into());
        let out = pwd.output_counted(&spawns).unwrap();
        assert_eq!(
            (out.status, &out.stdout[..]),
            (Ended::Exited(0), &b"/\n"[..])
        );
        let mut lines = Vec::new();
        let (ended, _) = pwd
            .run_streaming(&mut |l| lines.push(l.to_owned()))
            .unwrap();
        assert_eq!((ended, lines), (Ended::Exited(0), vec!["/".to_owned()]));
        let f = Cmd::new("/bin/sh")
            .args(["-c", "exit 3"])
            .output_counted(&spawns);
        assert_eq!(f.unwrap().status, Ended::Exited(3));
        assert_eq!(
            spawns.started(),
            2,
            "output_counted counts; plain runs do not"
        );
        let clone = spawns.clone();
        Cmd::new("/bin/true").output_counted(&clone).unwrap();
        assert_eq!(spawns.started(), 3, "clones share the count");
        assert!(Cmd::new("/nonexistent/tool")
            .output_counted(&spawns)
            .is_err());
        assert_eq!(
            spawns.started(),
            3,
            "a program that never started is not counted"
        );
    }
}
