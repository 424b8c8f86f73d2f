//! What the preprocessor looked at, observed rather than predicted.
//!
//! Direct mode serves a result without running anything when every input is as it was: the
//! files the compile read *and* every path it looked for and did not find (a header created
//! there would be found first next time). Predicting those paths from include directories and
//! a scan of the text misses directories given inside flags, computed `__has_include`
//! operands, `#include_next` and the host compiler's own search. So each preprocessing run
//! (nvcc, the host compiler's driver, cc1plus, cicc; the host library's preprocessing too)
//! runs with a small `LD_PRELOAD` library (`observe_shim.c`, embedded here as source and
//! built with the machine's C compiler the first time a home needs it, not when archbuild is
//! built: a dependent that takes shipped fat binaries compiles no C) that writes every path
//! opened for reading or looked at with `stat`/`access` — found or not — to a log beside the
//! job's dependency file. The manifest then records exactly that
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

/// The observer's source, built under the home on first use (`install`).
const SOURCE: &str = include_str!("observe_shim.c");
/// Where `LD_PRELOAD` reaches the compilers nvcc runs.
const OBSERVABLE: bool = cfg!(all(target_os = "linux", target_env = "gnu"));
/// The C compilers tried, in order, on `PATH`.
const C_COMPILERS: [&str; 3] = ["cc", "gcc", "clang"];

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
    /// Not glibc Linux, where `LD_PRELOAD` does not reach the compilers.
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
                "the file-system observer needs glibc Linux, where LD_PRELOAD reaches the \
                 compilers",
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
        if !OBSERVABLE {
            return Observation::Off(Unobserved::NotBuilt);
        }
        match install(home, env) {
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

/// The observer library under `<home>/observe/<source and compiler>/`, built there when no
/// intact one is: each file is named by its content's BLAKE3, checked on every use, and
/// written by a rename, so a torn or replaced file is never preloaded and two builds that
/// install at once each leave a whole one.
fn install(home: &Path, env: &Env) -> Result<PathBuf, String> {
    let path = env.var_os("PATH").unwrap_or_default();
    let compiler = C_COMPILERS
        .iter()
        .find_map(|c| crate::base::process::on_path(c, &path))
        .ok_or_else(|| {
            "no C compiler (cc, gcc or clang) on PATH to build it; install gcc".to_owned()
        })?;
    let stamp = crate::base::paths::file_stamp(&compiler).unwrap_or_default();
    let mut key = blake3::Hasher::new();
    key.update(SOURCE.as_bytes())
        .update(compiler.as_os_str().as_bytes())
        .update(format!("{stamp:?}").as_bytes());
    let dir = home.join("observe").join(&key.finalize().to_hex()[..16]);
    if let Some(lib) = intact(&dir) {
        return Ok(lib);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let work = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let (src, out) = (
        work.path().join("observe.c"),
        work.path().join("observe.so"),
    );
    std::fs::write(&src, SOURCE).map_err(|e| format!("{}: {e}", src.display()))?;
    let done = Cmd::new(&compiler)
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&out)
        .arg(&src)
        .arg("-ldl")
        .output()
        .map_err(|e| format!("{} could not start: {e}", compiler.display()))?;
    if !done.status.success() {
        return Err(format!(
            "{} could not build it: {}",
            compiler.display(),
            String::from_utf8_lossy(&done.stderr).trim()
        ));
    }
    let bytes = std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let lib = dir.join(library_name(&bytes));
    crate::base::paths::write_atomic(&lib, &bytes)
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    Ok(lib)
}

/// `libarchbuild_observe-<blake3, 16 hex>.so`.
fn library_name(bytes: &[u8]) -> String {
    format!(
        "libarchbuild_observe-{}.so",
        &blake3::hash(bytes).to_hex()[..16]
    )
}

/// A library in `dir` whose content still has the hash its name says.
fn intact(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
        let path = e.path();
        let name = path.file_name()?.to_str()?;
        let ok = name.starts_with("libarchbuild_observe-")
            && std::fs::read(&path).is_ok_and(|b| library_name(&b) == name);
        ok.then_some(path)
    })
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
    fn the_library_is_built_once_per_home_named_by_its_hash_and_rebuilt_when_damaged() {
        if !OBSERVABLE {
            return;
        }
        let home = tempfile::tempdir().unwrap();
        let path = Env::process().var_os("PATH").unwrap_or_default();
        let env = Env::from_vars([("PATH", path)]);
        let Observation::On(lib) = Observation::from_env(&env, home.path()) else {
            panic!("a C compiler is on PATH here");
        };
        let bytes = std::fs::read(&lib).unwrap();
        assert_eq!(
            lib.file_name().unwrap().to_str().unwrap(),
            library_name(&bytes)
        );
        // Installed: a second build finds it, builds nothing.
        let mtime = std::fs::metadata(&lib).unwrap().modified().unwrap();
        assert_eq!(
            Observation::from_env(&env, home.path()),
            Observation::On(lib.clone())
        );
        assert_eq!(std::fs::metadata(&lib).unwrap().modified().unwrap(), mtime);
        // Damaged: never preloaded, built again.
        std::fs::write(&lib, b"not a library").unwrap();
        let Observation::On(again) = Observation::from_env(&env, home.path()) else {
            panic!("rebuilt");
        };
        assert_eq!(std::fs::read(&again).unwrap().len(), bytes.len());
        // No compiler on PATH: the prediction stands in, and says why.
        let bare = Env::from_vars([("PATH", "/nonexistent")]);
        let other = tempfile::tempdir().unwrap();
        match Observation::from_env(&bare, other.path()) {
            Observation::Off(Unobserved::NotInstalled(why)) => {
                assert!(why.contains("no C compiler"), "{why}")
            }
            o => panic!("{o:?}"),
        }
    }

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
