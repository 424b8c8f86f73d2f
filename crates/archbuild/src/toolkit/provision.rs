//! Provisioning a CUDA toolkit from PyPI wheels, once, atomically: the default release or any
//! of the table's (`releases.rs`), each into its own directory, side by side.
//!
//! `python3 -m pip install --target <home>/toolkits/.tmp-cuda-R-PID <pinned wheels>` installs
//! into a private directory; the result is checked (`nvcc --version` must report the pinned
//! release), marked complete, and renamed to `<home>/toolkits/cuda-R`, by the one PyPI
//! installer (`base/pypi.rs`: the lock, the sweep of a killed install's leftovers, the rename).
//!
//! The wheels lay the toolkit out as `nvidia/cu13/{bin,include,lib,nvvm}`, and `bin/nvcc.profile`
//! locates everything relative to itself (`$(_HERE_)/..`), so nvcc works from there as is.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::base::process::Cmd;
use crate::base::pypi::{last_lines, Install, InstallEvent, Pip, PipFailure, Steps};
use crate::error::{Error, Result};
use crate::toolkit::releases::{default_release, Release, RELEASES};

pub use crate::base::pypi::stderr_progress;

/// The CUDA release archbuild provisions when no version is asked for: the newest of
/// [`crate::toolkit::RELEASES`].
pub const PINNED_RELEASE: &str = NEWEST.version;

/// The pinned release's wheels. `nvidia-nvvm` (cicc) is a dependency nvcc's wheel leaves
/// unpinned; it is pinned too so a later nvvm release cannot slip in under the pinned nvcc.
pub const PINNED_WHEELS: &[&str] = NEWEST.wheels;

const NEWEST: &Release = &RELEASES[RELEASES.len() - 1];

/// File inside a toolkit directory that says provisioning finished and was verified.
pub(crate) const MARKER: &str = ".archbuild-complete";

/// Directory the pinned toolkit is installed into.
pub fn provisioned_dir(home: &Home) -> PathBuf {
    release_dir(home, default_release())
}

/// Directory a release is installed into, `<home>/toolkits/cuda-13.0.88`.
pub fn release_dir(home: &Home, release: &Release) -> PathBuf {
    home.toolkits_dir()
        .join(format!("cuda-{}", release.version))
}

/// The nvcc of a toolkit installed from the wheels, relative to its directory.
const NVCC: &str = "nvidia/cu13/bin/nvcc";

/// Installs the pinned toolkit (or waits for / reuses an installation) and returns its nvcc.
pub fn provision(
    env: &Env,
    home: &Home,
    progress: &mut dyn FnMut(&InstallEvent),
) -> Result<PathBuf> {
    provision_release(env, home, default_release(), progress)
}

/// Installs `release` (or waits for / reuses an installation of it) beside any other, and
/// returns its nvcc.
pub fn provision_release(
    env: &Env,
    home: &Home,
    release: &'static Release,
    progress: &mut dyn FnMut(&InstallEvent),
) -> Result<PathBuf> {
    let install = Install {
        env,
        base: home.toolkits_dir(),
        stem: format!("cuda-{}", release.version),
        what: format!("CUDA {}", release.version),
        // Offline, the error says what was installed and why.
        detail: format!("{} wheels, about 500 MB", release.wheels.len()),
    };
    let nvcc = install.dir().join(NVCC);
    install.run(&mut Wheels { nvcc, release }, progress)
}

/// The toolkit's side of the install: the release's wheels, checked by `nvcc --version`.
struct Wheels {
    /// Where the finished install's nvcc is.
    nvcc: PathBuf,
    release: &'static Release,
}

impl Steps for Wheels {
    type Done = PathBuf;

    fn ready(&mut self, dir: &Path) -> Result<Option<PathBuf>> {
        let nvcc = dir.join(NVCC);
        Ok((dir.join(MARKER).is_file() && nvcc.is_file()).then_some(nvcc))
    }

    fn no_pip(&self, e: Error) -> Error {
        e
    }

    fn fill(
        &mut self,
        pip: &Pip,
        tmp: &Path,
        progress: &mut dyn FnMut(&InstallEvent),
    ) -> Result<(PathBuf, PathBuf)> {
        let mut args = vec![OsString::from("install"), "--target".into(), tmp.into()];
        args.extend(self.release.wheels.iter().map(OsString::from));
        let version = self.release.version;
        pip.run(args, progress).map_err(|f| match f {
            PipFailure::Failed { status, stderr } => pip_failed(status, &stderr),
            PipFailure::NotStarted(detail) => Error::PipMissing {
                python: pip.python.clone(),
                detail,
            },
        })?;
        let out = Cmd::new(tmp.join(NVCC)).arg("--version").output();
        let detail = match out {
            Ok(o)
                if o.status.success()
                    && String::from_utf8_lossy(&o.stdout).contains(&format!("V{version}")) =>
            {
                std::fs::write(tmp.join(MARKER), self.release.wheels.join("\n"))
                    .map_err(|e| Error::io("write", tmp.join(MARKER), e))?;
                return Ok((tmp.to_path_buf(), self.nvcc.clone()));
            }
            Ok(o) => format!(
                "`nvcc --version` said `{}`, expected release V{version}",
                last_lines(&String::from_utf8_lossy(&o.stdout), 1).trim()
            ),
            Err(e) => e.to_string(),
        };
        Err(Error::ProvisionBroken {
            dir: tmp.to_path_buf(),
            detail,
        })
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
    Error::PipFailed {
        status,
        hint,
        tail: last_lines(stderr, 6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offline, provisioning refuses before it creates, locks or runs anything, naming the
    /// setting; a toolkit already installed is still found, and pip told to use no index may
    /// install from local wheels.
    #[test]
    fn offline_provisioning_refuses_with_the_setting_and_the_fix() {
        use crate::base::pypi::{refuse_offline, OFFLINE_VAR};
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

    /// The constants older callers use are the table's default release.
    #[test]
    fn the_pinned_constants_are_the_default_release() {
        assert_eq!(PINNED_RELEASE, default_release().version);
        assert_eq!(PINNED_RELEASE, "13.5.37");
        assert!(
            PINNED_WHEELS.contains(&"nvidia-nvvm==13.5.37"),
            "{PINNED_WHEELS:?}"
        );
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
        assert_eq!(
            events,
            [InstallEvent::Ready {
                what: format!("CUDA {PINNED_RELEASE}"),
                dir
            }]
        );
    }
}
