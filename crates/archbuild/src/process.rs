//! Running tool processes: argument vectors (never a shell), output captured, and no orphans.
//!
//! Each child gets its own process group, recorded in a lock-free table. On SIGINT, SIGTERM or
//! SIGHUP a handler (registered through signal-hook, which first runs any handler the host
//! program installed) kills every recorded group — nvcc *and* the cicc/ptxas it started — then
//! lets the signal take its default course. `PR_SET_PDEATHSIG` additionally kills a direct child
//! if archbuild itself dies by SIGKILL.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Once;

use crate::error::{Error, Result};

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
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            env_only: false,
            cwd: None,
        }
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn envs(mut self, env: Vec<(OsString, OsString)>) -> Self {
        self.env.extend(env);
        self
    }

    /// Runs the child with exactly `env` as its environment, nothing inherited.
    pub fn hermetic(mut self, env: &[(OsString, OsString)]) -> Self {
        self.env = env.to_vec();
        self.env_only = true;
        self
    }

    /// Prepends a launcher (e.g. `sccache`): `launcher program args…`.
    pub fn with_launcher(self, launcher: Option<&Path>) -> Self {
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
    pub fn display(&self) -> String {
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

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        if self.env_only {
            command.env_clear();
        }
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Runs to completion, capturing stdout and stderr.
    pub fn output(&self) -> Result<Output> {
        install_handlers();
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(Error::Interrupted);
        }
        let mut command = self.command();
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        isolate(&mut command);
        let child = command.spawn().map_err(|source| Error::Spawn {
            program: self.program.clone(),
            source,
        })?;
        let slot = register(child.id() as i32);
        let result = child.wait_with_output();
        unregister(slot);
        let out = result.map_err(|source| Error::Spawn {
            program: self.program.clone(),
            source,
        })?;
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(Error::Interrupted);
        }
        Ok(out)
    }
    /// Runs to completion, handing each stdout line to `on_line` as it arrives (progress of
    /// long tools such as pip); stderr is captured and returned.
    pub fn run_streaming(
        &self,
        on_line: &mut dyn FnMut(&str),
    ) -> Result<(std::process::ExitStatus, String)> {
        use std::io::{BufRead, Read};
        install_handlers();
        let mut command = self.command();
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        isolate(&mut command);
        let mut child = command.spawn().map_err(|source| Error::Spawn {
            program: self.program.clone(),
            source,
        })?;
        let slot = register(child.id() as i32);
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
        unregister(slot);
        let stderr = err_thread.join().unwrap_or_default();
        let status = status.map_err(|source| Error::Spawn {
            program: self.program.clone(),
            source,
        })?;
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(Error::Interrupted);
        }
        Ok((status, stderr))
    }
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

fn unregister(slot: Option<usize>) {
    if let Some(i) = slot {
        GROUPS[i].store(0, Ordering::SeqCst);
    }
}

#[cfg(unix)]
fn on_signal(sig: libc::c_int) {
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
    // Restores the default action and re-raises (async-signal-safe; aborts if that fails).
    let _ = signal_hook::low_level::emulate_default_handler(sig);
}

#[cfg(unix)]
fn install_handlers() {
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            // SAFETY: `on_signal` only uses atomics, kill(2) and signal-hook's emulation of the
            // default action, all async-signal-safe. A failed registration leaves the signal's
            // previous behaviour, which is all a build can do then.
            let _ = unsafe { signal_hook::low_level::register(sig, move || on_signal(sig)) };
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
}
