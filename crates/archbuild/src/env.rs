//! The one way archbuild reads environment variables.
//!
//! Every variable goes through [`Env::var_os`], which remembers the name and, inside a build
//! script, prints `cargo:rerun-if-env-changed=NAME` once (as cc-rs does), so Cargo reruns the
//! build script when a variable that influenced the build changes; the value itself comes from
//! `archbuild_store::Env`, the reader every archbuild crate shares. Tests inject a fixed set of
//! variables with [`Env::from_vars`] instead of mutating the process environment, which would
//! race between parallel tests. Every variable is documented in `docs/environment.md`.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

/// Variables read without `cargo:rerun-if-env-changed` (see the module docs).
const UNTRACKED: &[&str] = &["PATH"];

/// A source of environment variables that records (and in build scripts announces) each read.
#[derive(Debug)]
pub struct Env {
    /// The process environment, or a fixed set (tests, embedding tools).
    vars: archbuild_store::Env,
    /// Print `cargo:rerun-if-env-changed` lines.
    cargo_metadata: bool,
    read: Mutex<BTreeSet<String>>,
}

impl Default for Env {
    fn default() -> Self {
        Self::process()
    }
}

impl Clone for Env {
    fn clone(&self) -> Self {
        Self {
            vars: self.vars.clone(),
            cargo_metadata: self.cargo_metadata,
            read: Mutex::new(self.read.lock().map(|r| r.clone()).unwrap_or_default()),
        }
    }
}

impl Env {
    /// The process environment. Cargo metadata lines are printed when this process looks like a
    /// build script (Cargo sets `OUT_DIR`, `TARGET` and `HOST` only for build scripts).
    pub fn process() -> Self {
        let vars = archbuild_store::Env::process();
        let in_build_script = ["OUT_DIR", "TARGET", "HOST"]
            .iter()
            .all(|k| vars.var_os(k).is_some());
        Self {
            vars,
            cargo_metadata: in_build_script,
            read: Mutex::new(BTreeSet::new()),
        }
    }

    /// A fixed set of variables; nothing else is visible and no metadata is printed.
    pub fn from_vars<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        Self {
            vars: archbuild_store::Env::from_vars(vars),
            cargo_metadata: false,
            read: Mutex::new(BTreeSet::new()),
        }
    }

    /// Turns `cargo:rerun-if-env-changed` lines on or off.
    pub fn with_cargo_metadata(mut self, on: bool) -> Self {
        self.cargo_metadata = on;
        self
    }

    /// Whether this environment prints Cargo build-script metadata.
    pub fn cargo_metadata(&self) -> bool {
        self.cargo_metadata
    }

    /// Reads a variable: the one place this crate reads the environment.
    pub fn var_os(&self, name: &str) -> Option<OsString> {
        let first_read = self
            .read
            .lock()
            .map(|mut r| r.insert(name.to_owned()))
            .unwrap_or(false);
        if first_read && self.cargo_metadata && !UNTRACKED.contains(&name) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "cargo:rerun-if-env-changed={name}");
        }
        self.vars.var_os(name)
    }

    /// Reads a variable as text (non-UTF-8 bytes are replaced). Empty or all-blank values count
    /// as unset, so a CI matrix can leave `ARCHBUILD_ARCHS=` empty to mean "the default".
    pub fn var(&self, name: &str) -> Option<String> {
        let v = self.var_os(name)?;
        let s = v.to_string_lossy().into_owned();
        if s.trim().is_empty() {
            None
        } else {
            Some(s)
        }
    }

    /// Reads a variable holding a path; empty or all-blank counts as unset, as for every variable
    /// (`docs/environment.md`) and as the runtime reads the same variables (`CUDA_HOME=" "` is
    /// no toolkit root in either).
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        self.var_os(name)
            .filter(|v| !v.to_string_lossy().trim().is_empty())
            .map(PathBuf::from)
    }

    /// Reads a boolean-ish flag in the one on/off vocabulary of every archbuild switch
    /// ([`archbuild_store::is_on`]: `1`, `true`, `yes`, `on`, any case).
    pub fn flag(&self, name: &str) -> bool {
        self.var(name).is_some_and(|v| archbuild_store::is_on(&v))
    }

    /// Every variable read so far, sorted (the build report lists them).
    pub fn read_names(&self) -> Vec<String> {
        self.read
            .lock()
            .map(|r| r.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The `(name, value)` pairs a child process should see in addition to the inherited
    /// environment: for a fixed set, every variable of the set (children inherit nothing else
    /// archbuild-specific); for the process environment, nothing (children inherit it).
    pub(crate) fn child_overrides(&self) -> Vec<(OsString, OsString)> {
        match self.vars.fixed() {
            Some(map) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            None => Vec::new(),
        }
    }

    /// [`Env::var_os`], except that a fixed set without `name` falls back to the process's
    /// value: for variables a compiler needs to run (`PATH`) that shape no output.
    pub(crate) fn var_os_or_inherited(&self, name: &str) -> Option<OsString> {
        match self.var_os(name) {
            Some(v) => Some(v),
            None if self.is_fixed() => archbuild_store::Env::process().var_os(name),
            None => None,
        }
    }

    /// Every variable whose name starts with `prefix` (a launcher's own configuration), each
    /// read through [`Env::var_os`].
    pub(crate) fn vars_with_prefix(&self, prefix: &str) -> Vec<(OsString, OsString)> {
        let names: Vec<String> = match self.vars.fixed() {
            Some(map) => map
                .keys()
                .filter_map(|k| k.to_str().map(str::to_owned))
                .collect(),
            None => std::env::vars_os()
                .filter_map(|(k, _)| k.into_string().ok())
                .collect(),
        };
        names
            .into_iter()
            .filter(|n| n.starts_with(prefix))
            .filter_map(|n| self.var_os(&n).map(|v| (OsString::from(n), v)))
            .collect()
    }

    /// Whether this is a fixed set rather than the process environment.
    pub(crate) fn is_fixed(&self) -> bool {
        self.vars.fixed().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_reads_and_treats_blank_as_unset() {
        let env = Env::from_vars([("ARCHBUILD_ARCHS", " "), ("CUDA_HOME", "/opt/cuda")]);
        assert_eq!(env.var("ARCHBUILD_ARCHS"), None);
        assert_eq!(env.path("CUDA_HOME"), Some(PathBuf::from("/opt/cuda")));
        assert_eq!(env.var("NVCC"), None);
        assert_eq!(env.read_names(), ["ARCHBUILD_ARCHS", "CUDA_HOME", "NVCC"]);
    }

    #[test]
    fn flags() {
        let env = Env::from_vars([("A", "1"), ("B", "no"), ("C", "TRUE")]);
        assert!(env.flag("A"));
        assert!(!env.flag("B"));
        assert!(env.flag("C"));
        assert!(!env.flag("D"));
    }

    /// `none`, `off`, `0`, `false` and `no` switch off every switch, in any case: this flag
    /// reader, the build cache (`cache_cap.rs`), the remote cache (`remote.rs`), the JIT cache
    /// and nvJitLink (the runtime's `env.rs`) all read `archbuild_store`'s one vocabulary.
    #[test]
    fn every_switch_reads_the_one_vocabulary() {
        for off in ["none", "off", "0", "false", "no", " OFF ", "None"] {
            let env = Env::from_vars([("ARCHBUILD_PROVISION", off)]);
            assert!(!env.flag("ARCHBUILD_PROVISION"), "{off}");
            assert!(archbuild_store::is_off(off), "{off}");
        }
        for on in ["1", "true", "yes", "on", "On"] {
            let env = Env::from_vars([("ARCHBUILD_PROVISION", on)]);
            assert!(env.flag("ARCHBUILD_PROVISION"), "{on}");
        }
    }
}
