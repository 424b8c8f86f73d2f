//! The one way archbuild reads environment variables.
//!
//! The rules (trimming, blank = unset, the on/off and size words) are `archbuild_config::Env`'s,
//! the reader every archbuild crate shares: this `Env` wraps one and adds only what a build
//! needs, the names read. Every read reaches the shared reader through [`Env::var_os`]'s
//! observer, which remembers the name and, inside a build script, prints
//! `cargo:rerun-if-env-changed=NAME` once (as cc-rs does), so Cargo reruns the build script
//! when a variable that influenced the build changes. Tests inject a fixed set of variables with
//! [`Env::from_vars`] instead of mutating the process environment, which would race between
//! parallel tests. Every variable is documented in `docs/environment.md`.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Variables read without `cargo:rerun-if-env-changed` (see the module docs).
const UNTRACKED: &[&str] = &["PATH"];

/// The names read so far, and whether new ones are announced to Cargo.
#[derive(Debug, Default, Clone)]
struct Reads {
    names: BTreeSet<String>,
    cargo_metadata: bool,
    /// The directive syntax the package's `rust-version` allows.
    syntax: Syntax,
}

/// Which build-script directives the package may use: `cargo::KEY=VALUE` from Rust 1.77 and
/// Cargo's error directive from 1.84 (Cargo refuses them in a package whose `rust-version` is
/// older); a package without a `rust-version` builds with the Rust archbuild needs, which has
/// both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// `cargo:KEY=VALUE`, metadata as `cargo:KEY=VALUE`, failures on stderr.
    Single,
    /// `cargo::KEY=VALUE`, metadata as `cargo::metadata=KEY=VALUE`.
    Double { error: bool },
}

impl Default for Syntax {
    fn default() -> Self {
        Syntax::Double { error: true }
    }
}

impl Syntax {
    /// The syntax for a package of this `rust-version` (`CARGO_PKG_RUST_VERSION`, `1.70`).
    pub(crate) fn for_rust_version(v: Option<&str>) -> Self {
        let mut parts = v
            .unwrap_or_default()
            .split('.')
            .map(|p| p.parse::<u32>().ok());
        let (major, minor) = (parts.next().flatten(), parts.next().flatten().unwrap_or(0));
        match major {
            Some(1) if minor < 77 => Syntax::Single,
            Some(1) => Syntax::Double { error: minor >= 84 },
            _ => Syntax::default(),
        }
    }

    /// One directive line: `cargo::rustc-link-lib=static=add`.
    pub(crate) fn line(self, key: &str, value: impl std::fmt::Display) -> String {
        match self {
            Syntax::Single => format!("cargo:{key}={value}"),
            Syntax::Double { .. } => format!("cargo::{key}={value}"),
        }
    }

    /// Metadata a dependent's build script reads as `DEP_<LINKS>_<KEY>`.
    pub(crate) fn metadata(self, key: &str, value: impl std::fmt::Display) -> String {
        match self {
            Syntax::Single => format!("cargo:{key}={value}"),
            Syntax::Double { .. } => format!("cargo::metadata={key}={value}"),
        }
    }

    /// Whether a failure is told through Cargo's error directive.
    pub(crate) fn has_error(self) -> bool {
        matches!(self, Syntax::Double { error: true })
    }
}

/// A source of environment variables that records (and in build scripts announces) each read.
#[derive(Debug)]
pub struct Env {
    /// The shared reader (the process environment or a fixed set), observed by `reads`.
    vars: archbuild_config::Env,
    reads: Arc<Mutex<Reads>>,
}

impl Default for Env {
    fn default() -> Self {
        Self::process()
    }
}

impl Clone for Env {
    /// A clone remembers what was read so far and records its own reads from then on.
    fn clone(&self) -> Self {
        let reads = self.reads.lock().map(|r| r.clone()).unwrap_or_default();
        Self::observing(self.vars.clone(), reads)
    }
}

impl Env {
    /// `vars` with an observer recording into fresh `reads`.
    fn observing(vars: archbuild_config::Env, reads: Reads) -> Self {
        let reads = Arc::new(Mutex::new(reads));
        let log = Arc::clone(&reads);
        let vars = vars.with_observer(move |name| note(&log, name));
        Self { vars, reads }
    }

    /// The process environment. Cargo metadata lines are printed when this process looks like a
    /// build script (Cargo sets `OUT_DIR`, `TARGET` and `HOST` only for build scripts).
    pub fn process() -> Self {
        let vars = archbuild_config::Env::process();
        let in_build_script = ["OUT_DIR", "TARGET", "HOST"]
            .iter()
            .all(|k| vars.var_os(k).is_some());
        let rust_version = vars.var_os("CARGO_PKG_RUST_VERSION");
        let syntax = Syntax::for_rust_version(rust_version.as_deref().and_then(|v| v.to_str()));
        Self::observing(
            vars,
            Reads {
                cargo_metadata: in_build_script,
                syntax,
                ..Reads::default()
            },
        )
    }

    /// A fixed set of variables; nothing else is visible and no metadata is printed.
    pub fn from_vars<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        Self::observing(archbuild_config::Env::from_vars(vars), Reads::default())
    }

    /// Turns `cargo:rerun-if-env-changed` lines on or off.
    pub fn with_cargo_metadata(self, on: bool) -> Self {
        if let Ok(mut r) = self.reads.lock() {
            r.cargo_metadata = on;
        }
        self
    }

    /// The directive syntax of the package whose build script this is.
    pub(crate) fn syntax(&self) -> Syntax {
        self.reads.lock().map(|r| r.syntax).unwrap_or_default()
    }

    /// Whether this environment prints Cargo build-script metadata.
    pub fn cargo_metadata(&self) -> bool {
        self.reads.lock().is_ok_and(|r| r.cargo_metadata)
    }

    /// The shared reader, recording into this `Env`: for readers that live in
    /// `archbuild-config` and serve the runtime too (the remote cache's configuration).
    pub(crate) fn shared(&self) -> &archbuild_config::Env {
        &self.vars
    }

    /// Reads a variable as the environment holds it: every other reader goes through this one.
    pub fn var_os(&self, name: &str) -> Option<OsString> {
        self.vars.var_os(name)
    }

    /// Reads a variable as text, trimmed; empty or all-blank values count as unset (so a CI
    /// matrix can leave `ARCHBUILD_ARCHS=` empty to mean "the default"), and bytes that are
    /// not UTF-8 are replaced, so the setting's parser names the variable.
    pub fn var(&self, name: &str) -> Option<String> {
        self.vars.var(name)
    }

    /// Reads a variable holding a path, trimmed; empty or all-blank counts as unset, as the
    /// runtime reads the same variables (`CUDA_HOME=" "` is no toolkit root in either).
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        self.vars.path(name)
    }

    /// Reads a boolean-ish flag in the one on/off vocabulary of every archbuild switch
    /// ([`archbuild_config::is_on`]: `1`, `true`, `yes`, `on`, any case).
    pub fn flag(&self, name: &str) -> bool {
        self.vars.flag(name)
    }

    /// Whether `name` is set to one of the "off" words ([`archbuild_config::is_off`]: `off`,
    /// `0`, `false`, `no`, `none`, any case).
    pub fn is_off(&self, name: &str) -> bool {
        self.vars.is_off(name)
    }

    /// Every variable read so far, sorted (the build report lists them).
    pub fn read_names(&self) -> Vec<String> {
        self.reads
            .lock()
            .map(|r| r.names.iter().cloned().collect())
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
            None if self.is_fixed() => archbuild_config::Env::process().var_os(name),
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
            // The names only: each value is then read through `var_os`, observed.
            #[expect(
                clippy::disallowed_methods,
                reason = "the names only; each value is read through `var_os`, observed"
            )]
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

/// Records a read of `name`; the first read of a tracked name inside a build script is
/// announced to Cargo.
fn note(reads: &Mutex<Reads>, name: &str) {
    let Ok(mut r) = reads.lock() else { return };
    if r.names.insert(name.to_owned()) && r.cargo_metadata && !UNTRACKED.contains(&name) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", r.syntax.line("rerun-if-env-changed", name));
    }
}

#[cfg(test)]
mod tests {
    /// Every variable the build driver's code reads through `Env` (a literal name in a read, or
    /// a `…_VAR` constant) is in `docs/environment.md`; names in test code are the tests' own.
    #[test]
    fn every_variable_read_is_documented() {
        const TESTS_OWN: &[&str] = &["PADDED", "BLANK", "NON_UTF8", "TABS"];
        let doc = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/environment.md"
        ))
        .unwrap();
        let mut names = std::collections::BTreeSet::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = e.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for read in [".var(\"", ".var_os(\"", ".path(\"", ".paths(\"", ".flag(\""] {
                    for part in text.split(read).skip(1) {
                        names.insert(part.split('"').next().unwrap_or("").to_owned());
                    }
                }
                for part in text.split("_VAR: &str = \"").skip(1) {
                    names.insert(part.split('"').next().unwrap_or("").to_owned());
                }
            }
        }
        let is_name = |n: &str| {
            n.len() > 1
                && n.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        };
        let missing: Vec<&String> = names
            .iter()
            .filter(|n| is_name(n) && !TESTS_OWN.contains(&n.as_str()))
            .filter(|n| !doc.contains(&format!("`{n}`")))
            .collect();
        assert!(names.len() > 20, "found only {names:?}");
        assert!(
            missing.is_empty(),
            "read but not in docs/environment.md: {missing:?}"
        );
    }

    use super::*;

    #[test]
    fn records_reads_and_treats_blank_as_unset() {
        let env = Env::from_vars([("ARCHBUILD_ARCHS", " "), ("CUDA_HOME", "/opt/cuda")]);
        assert_eq!(env.var("ARCHBUILD_ARCHS"), None);
        assert_eq!(env.path("CUDA_HOME"), Some(PathBuf::from("/opt/cuda")));
        assert_eq!(env.var("NVCC"), None);
        assert_eq!(env.read_names(), ["ARCHBUILD_ARCHS", "CUDA_HOME", "NVCC"]);
    }

    /// The build (this `Env`) and the runtime (`archbuild_config::Env`, which every runtime
    /// read goes through) read the same values for the same environment: blank, padded,
    /// non-UTF-8, and every spelling of the on/off words `docs/environment.md` lists.
    #[test]
    fn the_build_and_the_runtime_read_the_same_values() {
        use std::os::unix::ffi::OsStringExt;
        let mut vars: Vec<(OsString, OsString)> = [
            ("BLANK", " "),
            ("EMPTY", ""),
            ("TABS", "\t \n"),
            ("PADDED", "  /opt/cuda  "),
            ("CUDA_HOME", " "),
            ("CUDA_PATH", "/usr/local/cuda "),
            ("SIZE", " 512M "),
            ("BAD_SIZE", "lots"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
        vars.push(("NON_UTF8".into(), OsString::from_vec(b" /x\xff ".to_vec())));
        let words = [
            "1", "true", "yes", "on", "On", "TRUE", " yes ", "0", "false", "no", "off", "none",
            "OFF", "None", " off ", "No", "maybe",
        ];
        for (i, w) in words.iter().enumerate() {
            vars.push((format!("WORD_{i}").into(), (*w).into()));
        }
        let names: Vec<String> = vars
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .chain(["UNSET".to_owned()])
            .collect();
        let build = Env::from_vars(vars.clone());
        let runtime = archbuild_config::Env::from_vars(vars);
        for name in &names {
            assert_eq!(build.var(name), runtime.var(name), "{name}");
            assert_eq!(build.path(name), runtime.path(name), "{name}");
            assert_eq!(build.flag(name), runtime.flag(name), "{name}");
            assert_eq!(build.is_off(name), runtime.is_off(name), "{name}");
            assert_eq!(build.shared().size(name), runtime.size(name), "{name}");
        }
        // What the rules are, as docs/environment.md states them.
        assert_eq!(build.var("BLANK"), None);
        assert_eq!(build.path("CUDA_HOME"), None);
        assert_eq!(build.path("TABS"), None);
        assert_eq!(build.var("PADDED").as_deref(), Some("/opt/cuda"));
        assert_eq!(
            build.path("CUDA_PATH"),
            Some(PathBuf::from("/usr/local/cuda"))
        );
        assert_eq!(build.var("NON_UTF8").as_deref(), Some("/x\u{fffd}"));
        for (i, w) in words.iter().enumerate() {
            let name = format!("WORD_{i}");
            let (on, off) = (build.flag(&name), build.is_off(&name));
            assert_eq!((on, off), (i < 7, (7..16).contains(&i)), "{w:?}");
        }
    }

    #[test]
    fn a_clone_keeps_what_was_read_and_records_on_its_own() {
        let env = Env::from_vars([("A", "1")]);
        env.var("A");
        let clone = env.clone();
        clone.var("B");
        env.var("C");
        assert_eq!(clone.read_names(), ["A", "B"]);
        assert_eq!(env.read_names(), ["A", "C"]);
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
    /// reader, the build cache (`cache/evict.rs`), the remote cache (`prepare/remote.rs`), the JIT cache
    /// and nvJitLink (the runtime's `env.rs`) all read `archbuild_config`'s one vocabulary.
    #[test]
    fn every_switch_reads_the_one_vocabulary() {
        for off in ["none", "off", "0", "false", "no", " OFF ", "None"] {
            let env = Env::from_vars([("ARCHBUILD_PROVISION", off)]);
            assert!(!env.flag("ARCHBUILD_PROVISION"), "{off}");
            assert!(archbuild_config::is_off(off), "{off}");
        }
        for on in ["1", "true", "yes", "on", "On"] {
            let env = Env::from_vars([("ARCHBUILD_PROVISION", on)]);
            assert!(env.flag("ARCHBUILD_PROVISION"), "{on}");
        }
    }
}
