//! What the preprocessor looked at, observed rather than predicted.
//!
//! Direct mode serves a result without running anything when every input is as it was: the
//! files the compile read *and* every path it looked for and did not find (a header created
//! there would be found first next time). Predicting those paths from include directories and
//! a scan of the text misses directories given inside flags, computed `__has_include`
//! operands, `#include_next` and the host compiler's own search. So each preprocessing run
//! (nvcc, the host compiler's driver, cc1plus, cicc; the host library's preprocessing too)
//! runs with a small `LD_PRELOAD` library (`observe_shim.c`, built by `build.rs` and embedded
//! here) that writes every path opened for reading or looked at with `stat`/`access` — found
//! or not — to a log beside the job's dependency file. The manifest then records exactly that
//! set: a path that was absent must still be absent, one that was read must have the same
//! content, one only looked at must still be the same kind of thing.
//!
//! Where observation is unavailable (not a glibc Linux build, `ARCHBUILD_OBSERVE=off`, a home
//! whose path `LD_PRELOAD` cannot carry, a compile whose processes the library did not reach:
//! a launcher that compiled elsewhere, a statically linked compiler), the prediction is the
//! fallback and `-v` says why.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::base::env::Env;
use crate::base::paths::lexical;
use crate::base::process::Cmd;

/// The observer library, when this build of archbuild has one (`build.rs`).
#[cfg(archbuild_observer)]
const LIBRARY: Option<&[u8]> = Some(include_bytes!(concat!(
    env!("OUT_DIR"),
    "/libarchbuild_observe.so"
)));
#[cfg(not(archbuild_observer))]
const LIBRARY: Option<&[u8]> = None;

/// The variable that turns observation off (`off`): for comparing with the prediction, or
/// for a compiler that misbehaves under `LD_PRELOAD`.
pub(crate) const OBSERVE_VAR: &str = "ARCHBUILD_OBSERVE";
/// The log the library appends to; set for the child processes only.
const LOG_VAR: &str = "ARCHBUILD_OBSERVE_LOG";

/// Whether this build's preprocessing runs are observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Observation {
    /// The library installed at this path (under the home, checked byte for byte).
    On(PathBuf),
    Off(Unobserved),
}

impl Default for Observation {
    fn default() -> Self {
        Observation::Off(Unobserved::TurnedOff)
    }
}

/// Why direct mode predicts the paths a compile looked at instead of observing them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unobserved {
    /// `ARCHBUILD_OBSERVE=off`.
    TurnedOff,
    /// This build of archbuild has no observer (not glibc Linux, or no C compiler when it was
    /// built).
    NotBuilt,
    /// The library could not be written under the home.
    NotInstalled(String),
    /// The home's path holds a space or a colon, which separate `LD_PRELOAD`'s entries.
    UnsafePath(PathBuf),
    /// The run's log does not show the source being read: its processes were not reached.
    NotSeen,
}

impl std::fmt::Display for Unobserved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unobserved::TurnedOff => write!(f, "{OBSERVE_VAR}=off"),
            Unobserved::NotBuilt => f.write_str(
                "this build of archbuild has no file-system observer (it needs glibc Linux and \
                 a C compiler when archbuild is built)",
            ),
            Unobserved::NotInstalled(why) => {
                write!(f, "the file-system observer could not be installed: {why}")
            }
            Unobserved::UnsafePath(p) => write!(
                f,
                "the observer's path {} holds a space or a colon, which LD_PRELOAD cannot \
                 carry; set ARCHBUILD_HOME to a path without them",
                p.display()
            ),
            Unobserved::NotSeen => f.write_str(
                "the compile's file-system calls were not seen (a launcher compiled it \
                 elsewhere, or the compiler is statically linked)",
            ),
        }
    }
}

impl Observation {
    /// Installs the library under `<home>/observe/` unless `ARCHBUILD_OBSERVE` is off.
    pub(crate) fn from_env(env: &Env, home: &Path) -> Self {
        if env
            .var(OBSERVE_VAR)
            .is_some_and(|v| archbuild_config::is_off(&v))
        {
            return Observation::Off(Unobserved::TurnedOff);
        }
        let Some(bytes) = LIBRARY else {
            return Observation::Off(Unobserved::NotBuilt);
        };
        match install(home, bytes) {
            Ok(lib) if lib.as_os_str().as_bytes().iter().any(|b| b" :".contains(b)) => {
                Observation::Off(Unobserved::UnsafePath(lib))
            }
            Ok(lib) => Observation::On(lib),
            Err(why) => Observation::Off(Unobserved::NotInstalled(why)),
        }
    }

    /// Runs `cmd` observed, logging to `log` (a stale log is removed first).
    pub(crate) fn wrap(&self, cmd: &mut Cmd, log: &Path) {
        let Observation::On(lib) = self else {
            return;
        };
        let _ = std::fs::remove_file(log);
        let mut preload = lib.as_os_str().to_owned();
        if let Some((_, old)) = cmd.env.iter().find(|(k, _)| k == "LD_PRELOAD") {
            preload.push(":");
            preload.push(old);
        }
        cmd.env.retain(|(k, _)| k != "LD_PRELOAD" && k != LOG_VAR);
        cmd.env.push(("LD_PRELOAD".into(), preload));
        cmd.env.push((LOG_VAR.into(), log.as_os_str().to_owned()));
    }

    /// What the run logging to `log` looked at, or why the prediction stands in for it.
    /// `source` (the compiled file) must be among the files read, or the processes were not
    /// reached; paths under `skip` (the job's own temporary files) are not inputs.
    pub(crate) fn seen(&self, log: &Path, source: &Path, skip: &[&Path]) -> Seen {
        match self {
            Observation::Off(why) => Seen::Predicted(why.clone()),
            Observation::On(_) => match std::fs::read(log) {
                Ok(text) => parse(&text, source, skip),
                Err(_) => Seen::Predicted(Unobserved::NotSeen),
            },
        }
    }
}

/// Gives `to` the observation `from` has: nvcc's plan run step by step (`cicc_split.rs`)
/// preprocesses in a process nvcc does not start.
pub(crate) fn carry(from: &Cmd, to: &mut Cmd) {
    for (k, v) in from
        .env
        .iter()
        .filter(|(k, _)| k == "LD_PRELOAD" || k == LOG_VAR)
    {
        to.env.retain(|(n, _)| n != k);
        to.env.push((k.clone(), v.clone()));
    }
}

/// The log beside a job's dependency file.
pub(crate) fn log_path(depfile: &Path) -> PathBuf {
    let mut p = depfile.as_os_str().to_owned();
    p.push(".seen");
    PathBuf::from(p)
}

fn install(home: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    let id = blake3::hash(bytes).to_hex();
    let lib = home
        .join("observe")
        .join(&id[..16])
        .join("libarchbuild_observe.so");
    if std::fs::read(&lib).is_ok_and(|b| b == bytes) {
        return Ok(lib);
    }
    let dir = lib.parent().unwrap_or(home);
    std::fs::create_dir_all(dir)
        .and_then(|()| crate::base::paths::write_atomic(&lib, bytes))
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    Ok(lib)
}

/// The paths one compile looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Every path, with whether it was opened for reading (else only looked at, or absent).
    Observed(BTreeMap<PathBuf, bool>),
    Predicted(Unobserved),
}

fn parse(text: &[u8], source: &Path, skip: &[&Path]) -> Seen {
    let mut seen: BTreeMap<PathBuf, bool> = BTreeMap::new();
    for line in text.split(|&b| b == b'\n') {
        let (Some(&op), Some(path)) = (line.first(), line.get(2..)) else {
            continue;
        };
        if line.get(1) != Some(&b' ') || !path.starts_with(b"/") {
            continue;
        }
        let path = lexical(Path::new(&OsString::from(std::ffi::OsStr::from_bytes(
            path,
        ))));
        if !is_input(&path, skip) {
            continue;
        }
        *seen.entry(path).or_default() |= op == b'r';
    }
    let source = lexical(source);
    let read_source = seen.get(&source).copied().unwrap_or(false)
        || std::fs::canonicalize(&source)
            .ok()
            .and_then(|c| seen.get(&c).copied())
            .unwrap_or(false);
    if read_source {
        Seen::Observed(seen)
    } else {
        Seen::Predicted(Unobserved::NotSeen)
    }
}

/// Whether a path the compile looked at can shape its output: not the kernel's files
/// (`/proc`, `/dev`, `/sys`), not the job's own files, not nvcc's temporaries.
fn is_input(path: &Path, skip: &[&Path]) -> bool {
    let system = ["/proc", "/dev", "/sys"]
        .iter()
        .any(|d| path.starts_with(d));
    let temporary = path
        .file_name()
        .is_some_and(|n| n.as_bytes().starts_with(b"tmpxft_"));
    // The paths seen are lexical; a job's directory given as `cache/../tmp` must be too.
    !system && !temporary && !skip.iter().any(|s| path.starts_with(lexical(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_gives_each_path_once_with_whether_it_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("k/a.cu");
        let log = format!(
            "s /usr/include\nn {d}/k/inc/h.cuh\nr {d}/k/../k/a.cu\nm {d}/k/h.cuh\nr {d}/k/h.cuh\n\
             r /tmp/tmpxft_0001-2.cpp\nr /proc/self/maps\nr {d}/job/a.ii\nbroken\nr relative\n",
            d = dir.path().display()
        );
        // The job's own directory as a build may name it, through `..` (a cache directory
        // given as `pkg/../cache`): its files are the job's, not inputs.
        let skip = dir.path().join("k/../job");
        let Seen::Observed(seen) = parse(log.as_bytes(), &src, &[&skip]) else {
            panic!("the source was read");
        };
        let want: BTreeMap<PathBuf, bool> = [
            (PathBuf::from("/usr/include"), false),
            (dir.path().join("k/inc/h.cuh"), false),
            (src.clone(), true),
            (dir.path().join("k/h.cuh"), true),
        ]
        .into_iter()
        .collect();
        assert_eq!(seen, want);
        assert_eq!(
            parse(b"s /usr/include\n", &src, &[]),
            Seen::Predicted(Unobserved::NotSeen),
            "a log without the source is not trusted"
        );
    }

    #[test]
    fn the_library_is_added_to_a_preload_list_the_command_already_has() {
        let o = Observation::On(PathBuf::from("/h/observe/x/lib.so"));
        let mut cmd = Cmd::new("nvcc").hermetic(&[("LD_PRELOAD".into(), "/other.so".into())]);
        o.wrap(&mut cmd, Path::new("/t/a.d.seen"));
        let get = |k: &str| cmd.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        assert_eq!(
            get("LD_PRELOAD"),
            Some("/h/observe/x/lib.so:/other.so".into())
        );
        assert_eq!(get(LOG_VAR), Some("/t/a.d.seen".into()));
    }
}
