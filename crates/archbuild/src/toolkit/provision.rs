//! Provisioning the pinned CUDA toolkit from PyPI wheels, once, atomically.
//!
//! `python3 -m pip install --target <home>/toolkits/.tmp-cuda-R-PID <pinned wheels>` installs
//! into a private directory; the result is checked (`nvcc --version` must report the pinned
//! release), marked complete, and renamed to `<home>/toolkits/cuda-R`. An exclusive `flock` on
//! `cuda-R.lock` makes concurrent processes (parallel test binaries, several build scripts)
//! wait for the one that installs, then reuse its result. A killed install leaves only a
//! `.tmp-*` directory, which the next provisioning removes; a directory without the completion
//! marker is never used.
//!
//! The wheels lay the toolkit out as `nvidia/cu13/{bin,include,lib,nvvm}`, and `bin/nvcc.profile`
//! locates everything relative to itself (`$(_HERE_)/..`), so nvcc works from there as is.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::process::Cmd;
use crate::error::{Error, Result};

/// The CUDA release archbuild provisions.
pub const PINNED_RELEASE: &str = "13.5.37";

/// The pinned wheels. `nvidia-nvvm` (cicc) is a dependency nvcc's wheel leaves unpinned; it is
/// pinned here so a later nvvm release cannot slip in under the 13.5.37 nvcc.
pub const PINNED_WHEELS: &[&str] = &[
    "nvidia-cuda-nvcc==13.5.37",
    "nvidia-cuda-runtime==13.5.37",
    "nvidia-cuda-crt==13.5.37",
    "nvidia-cuda-cccl==13.3.5.0.6",
    "nvidia-cuda-cuobjdump==13.5.37",
    "nvidia-nvjitlink==13.5.37",
    "nvidia-nvvm==13.5.37",
];

/// File inside a toolkit directory that says provisioning finished and was verified.
pub(crate) const MARKER: &str = ".archbuild-complete";

/// Progress of provisioning, for a progress bar or log lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProvisionEvent {
    /// Another process holds the lock and is installing; waiting for it.
    Waiting { lock: PathBuf },
    /// The toolkit is already installed here.
    Ready { dir: PathBuf },
    /// Starting pip.
    Installing { dir: PathBuf, wheels: Vec<String> },
    /// A line pip printed (`Collecting …`, `Downloading … (120.3 MB)`, `Installing …`).
    Pip(String),
    /// Installed and verified.
    Installed { dir: PathBuf, seconds: u64 },
}

impl std::fmt::Display for ProvisionEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Waiting { lock } => {
                write!(f, "waiting for another process to finish installing CUDA ({})", lock.display())
            }
            Self::Ready { dir } => write!(f, "CUDA {PINNED_RELEASE} is installed in {}", dir.display()),
            Self::Installing { dir, wheels } => write!(
                f,
                "installing CUDA {PINNED_RELEASE} from PyPI into {} ({} wheels, about 500 MB; once)",
                dir.display(),
                wheels.len()
            ),
            Self::Pip(line) => write!(f, "pip: {line}"),
            Self::Installed { dir, seconds } => {
                write!(f, "installed CUDA {PINNED_RELEASE} in {} ({seconds} s)", dir.display())
            }
        }
    }
}

/// Prints each event as an `archbuild: …` line on stderr (in a build script Cargo shows these
/// with `-vv`; `cargo:warning` would be too loud for pip's chatter).
pub fn stderr_progress(event: &ProvisionEvent) {
    eprintln!("archbuild: {event}");
}

/// Directory the pinned toolkit is installed into.
pub fn provisioned_dir(home: &Home) -> PathBuf {
    home.toolkits_dir().join(format!("cuda-{PINNED_RELEASE}"))
}

/// The variable Cargo reads for `net.offline`; users set it for a build that must not reach the
/// network.
pub(crate) const OFFLINE_VAR: &str = "CARGO_NET_OFFLINE";

/// Refuses `what` (an install from PyPI) when Cargo is offline, unless pip itself is told to
/// use no index (`PIP_NO_INDEX`, local wheels through `PIP_FIND_LINKS`), so it cannot reach the
/// network either.
pub(crate) fn refuse_offline(env: &Env, what: impl FnOnce() -> String) -> Result<()> {
    let offline = env
        .var(OFFLINE_VAR)
        .is_some_and(|v| archbuild_config::is_on(&v));
    let local = env
        .var("PIP_NO_INDEX")
        .is_some_and(|v| archbuild_config::is_on(&v));
    if offline && !local {
        return Err(Error::Offline {
            what: what(),
            setting: OFFLINE_VAR,
        });
    }
    Ok(())
}

/// Installs the pinned toolkit (or waits for / reuses an installation) and returns its nvcc.
pub fn provision(
    env: &Env,
    home: &Home,
    progress: &mut dyn FnMut(&ProvisionEvent),
) -> Result<PathBuf> {
    let final_dir = provisioned_dir(home);
    let nvcc = final_dir.join("nvidia/cu13/bin/nvcc");
    if final_dir.join(MARKER).is_file() && nvcc.is_file() {
        progress(&ProvisionEvent::Ready { dir: final_dir });
        return Ok(nvcc);
    }
    refuse_offline(env, || {
        format!("installing CUDA {PINNED_RELEASE} from PyPI (no toolkit was found)")
    })?;
    let toolkits = home.toolkits_dir();
    std::fs::create_dir_all(&toolkits).map_err(|e| Error::io("create", &toolkits, e))?;
    let lock_path = toolkits.join(format!("cuda-{PINNED_RELEASE}.lock"));
    let _lock = lock(&lock_path, &mut || {
        progress(&ProvisionEvent::Waiting {
            lock: lock_path.clone(),
        })
    })?;
    if final_dir.join(MARKER).is_file() && nvcc.is_file() {
        progress(&ProvisionEvent::Ready { dir: final_dir });
        return Ok(nvcc);
    }

    let python = find_python(env)?;
    check_pip(&python, env)?;

    // We hold the lock: any temp directory is a leftover of a killed install.
    let prefix = format!(".tmp-cuda-{PINNED_RELEASE}-");
    if let Ok(rd) = std::fs::read_dir(&toolkits) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let tmp = toolkits.join(format!("{prefix}{}", std::process::id()));
    let wheels: Vec<String> = PINNED_WHEELS.iter().map(|s| s.to_string()).collect();
    progress(&ProvisionEvent::Installing {
        dir: final_dir.clone(),
        wheels: wheels.clone(),
    });
    let start = Instant::now();
    let cmd = Cmd::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--no-input",
            "--disable-pip-version-check",
            "--target",
        ])
        .arg(&tmp)
        .args(&wheels)
        .envs(env.child_overrides());
    let (status, stderr) = cmd.run_streaming(&mut |line| {
        let l = line.trim();
        if !l.is_empty() {
            progress(&ProvisionEvent::Pip(l.to_owned()));
        }
    })?;
    if !status.success() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(pip_failed(status, &stderr));
    }

    let tmp_nvcc = tmp.join("nvidia/cu13/bin/nvcc");
    let out = Cmd::new(&tmp_nvcc).arg("--version").output();
    let ok = matches!(&out, Ok(o) if o.status.success()
        && String::from_utf8_lossy(&o.stdout).contains(&format!("V{PINNED_RELEASE}")));
    if !ok {
        let detail = match out {
            Ok(o) => {
                let text = String::from_utf8_lossy(&o.stdout);
                let last = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("nothing");
                format!(
                    "`nvcc --version` said `{}`, expected release V{PINNED_RELEASE}",
                    last.trim()
                )
            }
            Err(e) => e.to_string(),
        };
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(Error::ProvisionBroken { dir: tmp, detail });
    }
    std::fs::write(tmp.join(MARKER), PINNED_WHEELS.join("\n"))
        .map_err(|e| Error::io("write", tmp.join(MARKER), e))?;
    if final_dir.exists() {
        // An incomplete directory (no marker) from some other tool: replace it.
        std::fs::remove_dir_all(&final_dir).map_err(|e| Error::io("remove", &final_dir, e))?;
    }
    std::fs::rename(&tmp, &final_dir).map_err(|e| Error::io("rename into place", &final_dir, e))?;
    progress(&ProvisionEvent::Installed {
        dir: final_dir,
        seconds: start.elapsed().as_secs(),
    });
    Ok(nvcc)
}

/// `ARCHBUILD_PYTHON`, else `python3` (then `python`) on `PATH`.
pub(crate) fn find_python(env: &Env) -> Result<PathBuf> {
    if let Some(p) = env.path("ARCHBUILD_PYTHON") {
        if p.is_file() {
            return Ok(p);
        }
        return Err(Error::PythonMissing {
            python: format!("ARCHBUILD_PYTHON=`{}`", p.display()),
            where_: String::new(),
            pinned: PINNED_RELEASE,
        });
    }
    let path = env.var_os("PATH").unwrap_or_default();
    for name in ["python3", "python"] {
        for dir in std::env::split_paths(&path) {
            let cand = dir.join(name);
            if cand.is_file() {
                return Ok(cand);
            }
        }
    }
    Err(Error::PythonMissing {
        python: "python3".into(),
        where_: format!(" on PATH ({})", path.to_string_lossy()),
        pinned: PINNED_RELEASE,
    })
}

pub(crate) fn check_pip(python: &Path, env: &Env) -> Result<()> {
    let out = Cmd::new(python)
        .args(["-m", "pip", "--version"])
        .envs(env.child_overrides())
        .output();
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => {
            let stderr = String::from_utf8_lossy(&o.stderr);
            let detail = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            Err(Error::PipMissing {
                python: python.to_path_buf(),
                detail: detail.trim().to_owned(),
            })
        }
        Err(e) => Err(Error::PipMissing {
            python: python.to_path_buf(),
            detail: e.to_string(),
        }),
    }
}

/// Classifies a pip failure so the hint names the likely fix.
fn pip_failed(status: crate::base::process::Ended, stderr: &str) -> Error {
    const NETWORK: &[&str] = &[
        "NewConnectionError",
        "Failed to establish a new connection",
        "Temporary failure in name resolution",
        "Name or service not known",
        "ConnectTimeout",
        "Read timed out",
        "ProxyError",
        "Network is unreachable",
        "Connection refused",
        "Could not find a version that satisfies",
        "No matching distribution found",
    ];
    let hint = if NETWORK.iter().any(|n| stderr.contains(n)) {
        "pip could not download the wheels from PyPI: check the network connection and proxy \
         settings (HTTPS_PROXY, PIP_INDEX_URL), or install the CUDA toolkit on this machine \
         another way and set CUDA_HOME"
    } else if stderr.contains("No space left") {
        "the disk is full: free space or set ARCHBUILD_HOME to a larger disk (about 1.5 GB needed)"
    } else {
        "see pip's output below; fix the cause or install the CUDA toolkit yourself and set CUDA_HOME"
    };
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(6)..].join("\n");
    Error::PipFailed { status, hint, tail }
}

/// An exclusive advisory lock (`flock` through fs4), released when dropped or when the process
/// dies.
pub(crate) struct Lock(#[expect(dead_code, reason = "held for its Drop")] File);

/// Takes the lock at `path`, calling `waiting` first when another process holds it.
pub(crate) fn lock(path: &Path, waiting: &mut dyn FnMut()) -> Result<Lock> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io("open lock file", path, e))?;
    use fs4::FileExt;
    match FileExt::try_lock(&file) {
        Ok(()) => {}
        // Another process is installing: say so, then wait for it.
        Err(fs4::TryLockError::WouldBlock) => {
            waiting();
            FileExt::lock(&file).map_err(|e| Error::io("lock", path, e))?;
        }
        Err(fs4::TryLockError::Error(e)) => return Err(Error::io("lock", path, e)),
    }
    Ok(Lock(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offline, provisioning refuses before it creates, locks or runs anything, naming the
    /// setting; a toolkit already installed is still found, and pip told to use no index may
    /// install from local wheels.
    #[test]
    fn offline_provisioning_refuses_with_the_setting_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let env = Env::from_vars([(OFFLINE_VAR, "true"), ("ARCHBUILD_PYTHON", "/nonexistent")]);
        let e = provision(&env, &home, &mut |_| {}).unwrap_err();
        assert!(matches!(e, Error::Offline { .. }), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains("CARGO_NET_OFFLINE") && text.contains("CUDA_HOME"),
            "{text}"
        );
        assert!(
            !dir.path().join("home").exists(),
            "offline provisioning wrote to the home"
        );
        let local = Env::from_vars([(OFFLINE_VAR, "true"), ("PIP_NO_INDEX", "1")]);
        assert!(refuse_offline(&local, String::new).is_ok());
        let online = Env::from_vars([(OFFLINE_VAR, "false")]);
        assert!(refuse_offline(&online, String::new).is_ok());
    }

    #[test]
    fn pip_failures_are_classified() {
        let e = pip_failed(crate::base::process::Ended::Exited(1), "WARNING: Retrying ... NewConnectionError\nERROR: No matching distribution found for nvidia-cuda-nvcc==13.5.37");
        let s = e.to_string();
        assert!(s.contains("check the network connection"), "{s}");
        assert!(s.contains("No matching distribution"), "{s}");
        let e = pip_failed(
            crate::base::process::Ended::Exited(1),
            "OSError: [Errno 28] No space left on device",
        );
        assert!(e.to_string().contains("disk is full"));
    }

    #[test]
    fn ready_toolkit_is_reused_without_python() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::at(tmp.path());
        let dir = provisioned_dir(&home);
        std::fs::create_dir_all(dir.join("nvidia/cu13/bin")).unwrap();
        std::fs::write(dir.join("nvidia/cu13/bin/nvcc"), "").unwrap();
        std::fs::write(dir.join(MARKER), "").unwrap();
        let env = Env::from_vars([("PATH", "/nonexistent")]);
        let mut events = Vec::new();
        let nvcc = provision(&env, &home, &mut |e| events.push(e.clone())).unwrap();
        assert_eq!(nvcc, dir.join("nvidia/cu13/bin/nvcc"));
        assert_eq!(events, [ProvisionEvent::Ready { dir }]);
    }
}
