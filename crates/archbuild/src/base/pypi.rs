//! The one way archbuild installs from PyPI — a CUDA toolkit's wheels, a header library's wheel:
//! under an exclusive lock (`<stem>.lock`), into a private `.tmp-<stem>-PID` directory that a
//! killed install leaves behind and the next install sweeps, checked and marked complete by
//! the caller, then renamed into place as `<stem>`. Concurrent processes (parallel test
//! binaries, several build scripts) wait for the one that installs, then reuse its result; a
//! directory without the caller's completion marker is never used.
//!
//! pip reads its own configuration (`PIP_INDEX_URL`, `PIP_FIND_LINKS`, `PIP_NO_INDEX`,
//! proxies); offline (`CARGO_NET_OFFLINE`) nothing is installed unless pip is told to use no
//! index.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::base::env::Env;
use crate::base::process::{Cmd, Ended};
use crate::error::{Error, Result};

/// Progress of an install from PyPI, for a progress bar or log lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstallEvent {
    /// Another process holds the lock and is installing; waiting for it.
    Waiting { what: String, lock: PathBuf },
    /// Already installed here (checked as the caller checks an install).
    Ready { what: String, dir: PathBuf },
    /// Starting pip; `detail` says what is fetched (`7 wheels, about 500 MB`).
    Installing {
        what: String,
        dir: PathBuf,
        detail: String,
    },
    /// A line pip printed (`Collecting …`, `Downloading … (120.3 MB)`, `Installing …`).
    Pip(String),
    /// Installed and verified.
    Installed {
        what: String,
        dir: PathBuf,
        millis: u64,
    },
}

impl std::fmt::Display for InstallEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Waiting { what, lock } => write!(
                f,
                "waiting for another process to finish installing {what} ({})",
                lock.display()
            ),
            Self::Ready { what, dir } => write!(f, "{what} is installed in {}", dir.display()),
            Self::Installing { what, dir, detail } => write!(
                f,
                "installing {what} from PyPI into {} ({detail}; once)",
                dir.display()
            ),
            Self::Pip(line) => write!(f, "pip: {line}"),
            Self::Installed { what, dir, millis } => write!(
                f,
                "installed {what} in {} ({:.1} s)",
                dir.display(),
                *millis as f64 / 1000.0
            ),
        }
    }
}

/// Prints each event as an `archbuild: …` line on stderr (in a build script Cargo shows these
/// with `-vv`; `cargo:warning` would be too loud for pip's chatter).
pub fn stderr_progress(event: &InstallEvent) {
    eprintln!("archbuild: {event}");
}

/// The variable Cargo reads for `net.offline`; users set it for a build that must not reach the
/// network.
pub(crate) const OFFLINE_VAR: &str = "CARGO_NET_OFFLINE";

/// Refuses `what` (an install from PyPI) when Cargo is offline, unless pip itself is told to
/// use no index (`PIP_NO_INDEX`, local wheels through `PIP_FIND_LINKS`), so it cannot reach the
/// network either.
pub(crate) fn refuse_offline(env: &Env, what: impl FnOnce() -> String) -> Result<()> {
    let on = |v: &str| env.var(v).is_some_and(|x| archbuild_config::is_on(&x));
    if offline(env)? && !on("PIP_NO_INDEX") {
        return Err(Error::Offline {
            what: what(),
            setting: OFFLINE_VAR,
        });
    }
    Ok(())
}

/// Whether Cargo is offline (`CARGO_NET_OFFLINE`, Cargo's `net.offline`): a switch word, unset
/// meaning online; any other value is an error rather than a guess (a typo must not reach the
/// network).
pub(crate) fn offline(env: &Env) -> Result<bool> {
    match env.var(OFFLINE_VAR) {
        None => Ok(false),
        Some(v) if archbuild_config::is_on(&v) => Ok(true),
        Some(v) if archbuild_config::is_off(&v) => Ok(false),
        Some(v) => Err(Error::Config {
            what: "offline switch",
            origin: OFFLINE_VAR.to_owned(),
            value: v,
            hint: "Cargo reads it as `net.offline`, a boolean: use `true` to build without the \
                   network or `false` (or unset it) to allow it"
                .to_owned(),
        }),
    }
}

/// One install: where it goes and what it is called in messages.
pub(crate) struct Install<'e> {
    pub env: &'e Env,
    /// The directory that holds installs of this kind, their locks and temp directories.
    pub base: PathBuf,
    /// The finished install's directory name (`cuda-13.5.37`, `nvidia-cutlass-4.2.0`).
    pub stem: String,
    /// What is installed, as messages name it (`CUDA 13.5.37`).
    pub what: String,
    /// What pip fetches, for the `Installing` line (`7 wheels, about 500 MB`).
    pub detail: String,
}

/// What an install's caller does: check a finished directory, fill a temp one.
pub(crate) trait Steps {
    type Done;
    /// The install in `dir` when it is complete and intact; `Ok(None)` when absent or
    /// incomplete (it is then installed again); an error when it must not be used or replaced.
    fn ready(&mut self, dir: &Path) -> Result<Option<Self::Done>>;
    /// The error when no working pip was found (`e` says why).
    fn no_pip(&self, e: Error) -> Error;
    /// Runs pip into `tmp` (a fresh directory), checks the result and writes the completion
    /// marker: the directory to rename into place and what it holds.
    fn fill(
        &mut self,
        pip: &Pip,
        tmp: &Path,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> Result<(PathBuf, Self::Done)>;
}

impl Install<'_> {
    /// The finished install's directory.
    pub(crate) fn dir(&self) -> PathBuf {
        self.base.join(&self.stem)
    }

    /// The install, done once: found ready, or waited for, or made here.
    pub(crate) fn run<S: Steps>(
        &self,
        steps: &mut S,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> Result<S::Done> {
        let dir = self.dir();
        let ready = |steps: &mut S, progress: &mut dyn FnMut(&InstallEvent)| {
            let done = steps.ready(&dir)?;
            if done.is_some() {
                progress(&InstallEvent::Ready {
                    what: self.what.clone(),
                    dir: dir.clone(),
                });
            }
            Ok::<_, Error>(done)
        };
        if let Some(done) = ready(steps, progress)? {
            return Ok(done);
        }
        refuse_offline(self.env, || format!("installing {} from PyPI", self.what))?;
        std::fs::create_dir_all(&self.base).map_err(|e| Error::io("create", &self.base, e))?;
        let lock_path = self.base.join(format!("{}.lock", self.stem));
        let _lock = lock(&lock_path, &mut || {
            progress(&InstallEvent::Waiting {
                what: self.what.clone(),
                lock: lock_path.clone(),
            })
        })?;
        if let Some(done) = ready(steps, progress)? {
            return Ok(done);
        }
        let pip = Pip::find(self.env, &self.what).map_err(|e| steps.no_pip(e))?;
        // We hold the lock: any temp directory is a leftover of a killed install.
        let prefix = format!(".tmp-{}-", self.stem);
        if let Ok(rd) = std::fs::read_dir(&self.base) {
            for e in rd.flatten() {
                if e.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let tmp = self.base.join(format!("{prefix}{}", std::process::id()));
        std::fs::create_dir_all(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
        progress(&InstallEvent::Installing {
            what: self.what.clone(),
            dir: dir.clone(),
            detail: self.detail.clone(),
        });
        let start = Instant::now();
        let result = steps.fill(&pip, &tmp, progress).and_then(|(filled, done)| {
            if dir.exists() {
                // No complete install there (checked above under the lock): replace it.
                std::fs::remove_dir_all(&dir).map_err(|e| Error::io("remove", &dir, e))?;
            }
            std::fs::rename(&filled, &dir).map_err(|e| Error::io("rename into place", &dir, e))?;
            Ok(done)
        });
        let _ = std::fs::remove_dir_all(&tmp);
        let done = result?;
        progress(&InstallEvent::Installed {
            what: self.what.clone(),
            dir,
            millis: start.elapsed().as_millis() as u64,
        });
        Ok(done)
    }
}

/// A Python with a working pip: `ARCHBUILD_PYTHON`, else `python3` (then `python`) on `PATH`.
pub(crate) struct Pip<'e> {
    pub python: PathBuf,
    env: &'e Env,
}

/// A pip run that failed.
#[derive(Debug)]
pub(crate) enum PipFailure {
    NotStarted(String),
    Failed { status: Ended, stderr: String },
}

impl PipFailure {
    /// pip's errors, without its retry warnings and progress (else its last lines).
    pub(crate) fn said(&self) -> String {
        let stderr = match self {
            PipFailure::NotStarted(e) => return e.clone(),
            PipFailure::Failed { stderr, .. } => stderr,
        };
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("ERROR") || l.contains("Error"))
            .collect();
        if errors.is_empty() {
            last_lines(stderr, 6)
        } else {
            errors.join("\n")
        }
    }

    /// How pip ended: its exit status, or `not started`.
    pub(crate) fn status(&self) -> String {
        match self {
            PipFailure::NotStarted(_) => "not started".into(),
            PipFailure::Failed { status, .. } => status.to_string(),
        }
    }
}

/// The last `n` non-blank lines of `text`.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

impl<'e> Pip<'e> {
    /// Finds Python and checks that `python -m pip` runs.
    pub(crate) fn find(env: &'e Env, what: &str) -> Result<Self> {
        let python = find_python(env, what)?;
        let out = Cmd::new(&python)
            .args(["-m", "pip", "--version"])
            .envs(env.child_overrides())
            .output();
        let detail = match out {
            Ok(o) if o.status.success() => return Ok(Pip { python, env }),
            Ok(o) => last_lines(&String::from_utf8_lossy(&o.stderr), 1),
            Err(e) => e.to_string(),
        };
        Err(Error::PipMissing {
            python,
            detail: detail.trim().to_owned(),
        })
    }

    /// Runs `python -m pip <args> --no-input --disable-pip-version-check`, each line it prints
    /// going to `progress`.
    pub(crate) fn run(
        &self,
        args: impl IntoIterator<Item = impl Into<OsString>>,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> std::result::Result<(), PipFailure> {
        let cmd = Cmd::new(&self.python)
            .args(["-m", "pip"])
            .args(args)
            .args(["--no-input", "--disable-pip-version-check"])
            .envs(self.env.child_overrides());
        let (status, stderr) = cmd
            .run_streaming(&mut |line| {
                let l = line.trim();
                if !l.is_empty() {
                    progress(&InstallEvent::Pip(l.to_owned()));
                }
            })
            .map_err(|e| PipFailure::NotStarted(e.to_string()))?;
        if status.success() {
            Ok(())
        } else {
            Err(PipFailure::Failed { status, stderr })
        }
    }
}

/// `ARCHBUILD_PYTHON`, else `python3` (then `python`) on `PATH`.
fn find_python(env: &Env, what: &str) -> Result<PathBuf> {
    if let Some(p) = env.path("ARCHBUILD_PYTHON") {
        if p.is_file() {
            return Ok(p);
        }
        return Err(Error::PythonMissing {
            python: format!("ARCHBUILD_PYTHON=`{}`", p.display()),
            where_: String::new(),
            what: what.to_owned(),
        });
    }
    let path = env.var_os("PATH").unwrap_or_default();
    ["python3", "python"]
        .iter()
        .find_map(|name| crate::base::process::on_path(name, &path))
        .ok_or_else(|| Error::PythonMissing {
            python: "python3".into(),
            where_: format!(" on PATH ({})", path.to_string_lossy()),
            what: what.to_owned(),
        })
}

/// An exclusive advisory lock (`flock` on Unix, `LockFileEx` on Windows, through std),
/// released when dropped or when the process dies.
pub(crate) struct Lock(#[expect(dead_code, reason = "held for its Drop")] File);

/// Takes the lock at `path`, calling `waiting` first when another process holds it.
pub(crate) fn lock(path: &Path, waiting: &mut dyn FnMut()) -> Result<Lock> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io("open lock file", path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        // Another process is installing: say so, then wait for it.
        Err(std::fs::TryLockError::WouldBlock) => {
            waiting();
            file.lock().map_err(|e| Error::io("lock", path, e))?;
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", path, e)),
    }
    Ok(Lock(file))
}
