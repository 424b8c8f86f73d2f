//! Reading environment variables, one way for every archbuild crate: the build driver, the
//! runtime and the CLI all read through [`Env`], so a variable means the same thing wherever it
//! is read.
//!
//! One rule set, the one `docs/environment.md` states: values are trimmed (text and paths alike),
//! and unset, empty or all-blank values read as unset. Text that is not UTF-8 is read with its
//! bad bytes replaced, so the setting's parser refuses it with the variable's name instead of
//! the setting silently falling back to its default; a path keeps its bytes. List variables
//! (`PATH`, `PYTHONPATH`) split into paths; switches and sizes use the one vocabulary of
//! [`is_on`], [`is_off`] and [`parse_size`]. The build driver's `archbuild::Env` reads through
//! this one (adding only Cargo's `rerun-if-env-changed` lines), as the runtime does. An optional observer hears the name of every
//! variable read, so a build script can print `cargo:rerun-if-env-changed` for it. A fixed set
//! of variables ([`Env::from_vars`]) stands in for the process environment in tests, which would
//! otherwise race on the shared process environment.
//!
//! ```
//! use archbuild_config::Env;
//! let env = Env::from_vars([("ARCHBUILD_JIT_CACHE_MAX_BYTES", " 512M "), ("EMPTY", "")]);
//! assert_eq!(env.size("ARCHBUILD_JIT_CACHE_MAX_BYTES"), Ok(Some(512 << 20)));
//! assert_eq!(env.var("EMPTY"), None);
//! ```

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::sync::Arc;

use crate::vocab::{is_off, is_on, parse_size};

/// Hears the name of each variable read (see [`Env::with_observer`]).
type Observer = Arc<dyn Fn(&str) + Send + Sync>;

/// A source of environment variables: the process environment or a fixed set.
#[derive(Clone, Default)]
pub struct Env {
    /// `None` reads the process environment.
    fixed: Option<BTreeMap<OsString, OsString>>,
    observer: Option<Observer>,
}

/// Variables whose values `Debug` never shows: the remote cache's password and keys.
const SECRET: &[&str] = &[
    crate::endpoint::PASSWORD_VAR,
    crate::signing::HMAC_KEY_VAR,
    crate::signing::SIGNING_KEY_VAR,
    crate::signing::PUBLIC_KEY_VAR,
];

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A fixed set travels inside a `Build`, whose `Debug` a user may print: its secrets show
        // as `***`, and the remote cache's URL redacted.
        let fixed = self.fixed.as_ref().map(|map| {
            map.iter()
                .map(|(k, v)| {
                    let name = k.to_string_lossy();
                    let shown = if SECRET.contains(&name.as_ref()) {
                        crate::remote_url::MASK.to_owned()
                    } else if name == crate::remote_url::URL_VAR {
                        crate::remote_url::redact(&v.to_string_lossy())
                    } else {
                        format!("{v:?}")
                    };
                    (name, shown)
                })
                .collect::<BTreeMap<_, _>>()
        });
        f.debug_struct("Env")
            .field("fixed", &fixed)
            .field("observer", &self.observer.is_some())
            .finish()
    }
}

impl Env {
    /// The process environment, with no observer.
    pub fn process() -> Self {
        Self::default()
    }

    /// A fixed set of variables; nothing else is visible.
    pub fn from_vars<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        Self {
            fixed: Some(
                vars.into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
            observer: None,
        }
    }

    /// Calls `observer` with the name of every variable read from now on, set or not (a build
    /// script prints `cargo:rerun-if-env-changed=NAME` there).
    pub fn with_observer(mut self, observer: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// The fixed set, or `None` for the process environment.
    pub fn fixed(&self) -> Option<&BTreeMap<OsString, OsString>> {
        self.fixed.as_ref()
    }

    /// The raw value of `name`, as the environment holds it; every other reader goes through
    /// this one, so the observer hears every read.
    pub fn var_os(&self, name: &str) -> Option<OsString> {
        if let Some(observer) = &self.observer {
            observer(name);
        }
        match &self.fixed {
            Some(map) => map.get(OsStr::new(name)).cloned(),
            None => std::env::var_os(name),
        }
    }

    /// The value of `name`, trimmed; unset, empty and all-blank values read as `None`. Bytes
    /// that are not UTF-8 are replaced (U+FFFD), so a parser sees and refuses the value.
    pub fn var(&self, name: &str) -> Option<String> {
        let value = self.var_os(name)?;
        let value = value.to_string_lossy();
        let value = value.trim();
        (!value.is_empty()).then(|| value.to_owned())
    }

    /// A variable holding one path, trimmed as text is (`CUDA_HOME=" /opt/cuda "` is
    /// `/opt/cuda`); unset, empty and all-blank values read as `None` (`CUDA_HOME=" "` names no
    /// directory). Bytes that are not UTF-8 are kept: they are a valid file name.
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        let value = self.var_os(name)?;
        let bytes = value.as_bytes();
        let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
        let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace())?;
        Some(PathBuf::from(OsString::from_vec(
            bytes[start..=end].to_vec(),
        )))
    }

    /// A list variable (`PATH`, `PYTHONPATH`) split into its paths; empty when unset.
    pub fn paths(&self, name: &str) -> Vec<PathBuf> {
        self.var_os(name)
            .map(|v| std::env::split_paths(&v).collect())
            .unwrap_or_default()
    }

    /// Whether switch `name` is on: set to one of [`is_on`]'s spellings (`1`, `true`, `yes`,
    /// `on`, any case).
    pub fn flag(&self, name: &str) -> bool {
        self.var(name).is_some_and(|v| is_on(&v))
    }

    /// Whether `name` is set to one of [`is_off`]'s spellings (`off`, `0`, `false`, `no`,
    /// `none`, any case).
    pub fn is_off(&self, name: &str) -> bool {
        self.var(name).is_some_and(|v| is_off(&v))
    }

    /// Size `name` in [`parse_size()`]'s syntax (`512M`, `2GiB`, bytes): `Ok(None)` when unset,
    /// `Err` with the value as read when it is not a size.
    pub fn size(&self, name: &str) -> Result<Option<u64>, String> {
        match self.var(name) {
            None => Ok(None),
            Some(v) => parse_size(&v).map(Some).ok_or(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[test]
    fn text_is_trimmed_and_blank_reads_as_unset() {
        let env = Env::from_vars([("A", " x "), ("B", ""), ("C", "  ")]);
        assert_eq!(env.var("A").as_deref(), Some("x"));
        assert_eq!(env.var("B"), None);
        assert_eq!(env.var("C"), None);
        assert_eq!(env.var("D"), None);
        assert_eq!(
            env.var_os("B"),
            Some(OsString::new()),
            "the raw value stays raw"
        );
    }

    #[test]
    fn non_utf8_text_reaches_its_parser_and_a_path_keeps_its_bytes() {
        let env = Env::from_vars([
            (
                OsString::from("A"),
                OsString::from_vec(vec![b' ', 0xff, b'x', b' ']),
            ),
            (
                "P".into(),
                OsString::from_vec(b" /opt/cu\xffda \t".to_vec()),
            ),
            ("Q".into(), " \t ".into()),
            ("R".into(), "/a b/".into()),
        ]);
        assert_eq!(env.var("A").as_deref(), Some("\u{fffd}x"));
        assert_eq!(
            env.path("P").map(|p| p.into_os_string().into_vec()),
            Some(b"/opt/cu\xffda".to_vec())
        );
        assert_eq!(env.path("Q"), None);
        assert_eq!(env.path("R"), Some(PathBuf::from("/a b/")));
        assert_eq!(env.path("UNSET"), None);
    }

    #[test]
    fn lists_switches_and_sizes() {
        let list = std::env::join_paths(["/a", "/b c"]).unwrap();
        let env = Env::from_vars([
            (OsString::from("LIST"), list),
            ("ON".into(), "Yes".into()),
            ("OFF".into(), " none ".into()),
            ("SIZE".into(), "2G".into()),
            ("BAD".into(), "lots".into()),
        ]);
        assert_eq!(
            env.paths("LIST"),
            [PathBuf::from("/a"), PathBuf::from("/b c")]
        );
        assert!(env.paths("UNSET").is_empty());
        assert!(env.flag("ON") && !env.flag("OFF") && !env.flag("UNSET"));
        assert!(env.is_off("OFF") && !env.is_off("ON") && !env.is_off("UNSET"));
        assert_eq!(env.size("SIZE"), Ok(Some(2 << 30)));
        assert_eq!(env.size("UNSET"), Ok(None));
        assert_eq!(env.size("BAD"), Err("lots".into()));
    }

    #[test]
    fn the_observer_hears_every_read_set_or_not() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&heard);
        let env = Env::from_vars([("A", "1"), ("P", "/x")])
            .with_observer(move |name| log.lock().unwrap().push(name.to_owned()));
        env.flag("A");
        env.var("MISSING");
        env.paths("P");
        env.clone().size("S").unwrap();
        assert_eq!(*heard.lock().unwrap(), ["A", "MISSING", "P", "S"]);
    }

    #[test]
    fn debug_hides_the_remote_caches_secrets() {
        let env = Env::from_vars([
            ("ARCHBUILD_REMOTE_CACHE", "redis://:Url-Pw-1@h:1/0"),
            ("ARCHBUILD_REMOTE_CACHE_PASSWORD", "Var-Pw-2"),
            ("ARCHBUILD_REMOTE_CACHE_HMAC_KEY", "Hmac-Key-3"),
            ("ARCHBUILD_REMOTE_CACHE_SIGNING_KEY", "Signing-Key-4"),
            ("ARCHBUILD_REMOTE_CACHE_PUBLIC_KEY", "Public-Key-5"),
            ("CUDA_HOME", "/opt/cuda"),
        ]);
        let d = format!("{env:?}");
        for secret in [
            "Url-Pw-1",
            "Var-Pw-2",
            "Hmac-Key-3",
            "Signing-Key-4",
            "Public-Key-5",
        ] {
            assert!(!d.contains(secret), "{secret} in {d}");
        }
        assert!(
            d.contains("/opt/cuda") && d.contains("redis://:***@h:1/0"),
            "{d}"
        );
    }

    #[test]
    fn the_process_environment_is_read_when_no_set_is_fixed() {
        // `PATH` is set in every environment the tests run in.
        assert!(Env::process().var_os("PATH").is_some());
        assert!(Env::process().fixed().is_none());
        assert!(Env::from_vars::<&str, &str>([]).var_os("PATH").is_none());
    }
}
