//! Which remote cache a build uses, from one precedence: the build script or CLI
//! (`Build::remote_cache`), then `ARCHBUILD_REMOTE_CACHE`, then `remote-cache` in
//! `[package.metadata.archbuild]`; the mode likewise (`ARCHBUILD_REMOTE_CACHE_MODE`,
//! `remote-cache-mode`). An environment value of `off` (or `none`, `0`, …) turns off a remote
//! that Cargo.toml names, e.g. for a laptop away from the office network. A Redis or WebDAV
//! URL without `user:password@` takes them from `ARCHBUILD_REMOTE_CACHE_USERNAME` and
//! `ARCHBUILD_REMOTE_CACHE_PASSWORD`; the URL is only ever shown redacted.

use std::sync::Arc;
use std::time::Duration;

use archbuild_store::{Remote, RemoteConfig, RemoteMode, RemoteUrl, PASSWORD_VAR, USERNAME_VAR};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::manifest::PackageConfig;
use crate::spec::Spec;

pub(crate) const URL_VAR: &str = "ARCHBUILD_REMOTE_CACHE";
pub(crate) const MODE_VAR: &str = "ARCHBUILD_REMOTE_CACHE_MODE";
pub(crate) const TIMEOUT_VAR: &str = "ARCHBUILD_REMOTE_CACHE_TIMEOUT";

/// The remote configured for this build, if any (checked, not yet connected).
pub(crate) fn resolve(
    b: &Spec,
    env: &Env,
    pkg: Option<&PackageConfig>,
) -> Result<Option<RemoteConfig>> {
    let manifest_origin = "Cargo.toml [package.metadata.archbuild]";
    let (url, origin) = if let Some(u) = &b.remote_cache {
        (u.clone(), "Build::remote_cache")
    } else if let Some(u) = env.var(URL_VAR) {
        (RemoteUrl::new(&u), URL_VAR)
    } else if let Some(u) = pkg.and_then(|p| p.remote_cache.as_deref()) {
        (RemoteUrl::new(u), manifest_origin)
    } else {
        return Ok(None);
    };
    if url.is_off() {
        return Ok(None);
    }
    let store_err = |e: archbuild_store::Error| Error::Config {
        what: "remote cache setting",
        origin: origin.to_owned(),
        value: url.redacted(),
        hint: e.to_string(),
    };
    let mut config = RemoteConfig::from_url(url.clone(), origin)
        .and_then(|c| c.with_credentials(env.var(USERNAME_VAR), env.var(PASSWORD_VAR)))
        .map_err(store_err)?;
    let mode = if let Some(m) = b.remote_cache_mode {
        Some(m)
    } else if let Some(m) = env.var(MODE_VAR) {
        Some(RemoteMode::parse(&m, MODE_VAR).map_err(store_err)?)
    } else if let Some(m) = pkg.and_then(|p| p.remote_cache_mode.clone()) {
        Some(RemoteMode::parse(&m, manifest_origin).map_err(store_err)?)
    } else {
        None
    };
    if let Some(m) = mode {
        config = config.with_mode(m);
    }
    if let Some(t) = env.var(TIMEOUT_VAR) {
        let secs: u64 = t.trim().parse().map_err(|_| Error::Config {
            what: "remote cache timeout",
            origin: TIMEOUT_VAR.to_owned(),
            value: t.clone(),
            hint: "use whole seconds such as `10`, or unset it for the default of 10".into(),
        })?;
        config = config.with_timeout(Duration::from_secs(secs.max(1)));
    }
    Ok(Some(config))
}

/// Opens the remote tier (lazily: nothing connects until a local miss).
pub(crate) fn open(config: Option<RemoteConfig>) -> Option<Arc<Remote>> {
    config.map(Remote::open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_off() {
        let pkg = PackageConfig {
            remote_cache: Some("redis://pkg:6379/0".into()),
            remote_cache_mode: Some("read-only".into()),
            ..Default::default()
        };
        let b = Spec::default();
        let env = Env::from_vars([("X", "")]);
        let c = resolve(&b, &env, Some(&pkg)).unwrap().unwrap();
        assert_eq!(
            (c.url.redacted().as_str(), c.mode),
            ("redis://pkg:6379/0", RemoteMode::ReadOnly)
        );
        let env = Env::from_vars([
            (URL_VAR, "webdav://env:80/c"),
            (MODE_VAR, "read-write"),
            (TIMEOUT_VAR, "3"),
        ]);
        let c = resolve(&b, &env, Some(&pkg)).unwrap().unwrap();
        assert_eq!(
            (c.url.redacted().as_str(), c.mode, c.timeout),
            (
                "webdav://env:80/c",
                RemoteMode::ReadWrite,
                Duration::from_secs(3)
            )
        );
        for off in ["off", "none", "0", "false", "no", "OFF"] {
            let env = Env::from_vars([(URL_VAR, off)]);
            assert_eq!(resolve(&b, &env, Some(&pkg)).unwrap(), None, "{off}");
        }
        let env = Env::from_vars([(URL_VAR, "off")]);
        let b = Spec {
            remote_cache: Some(RemoteUrl::new("file:///shared")),
            ..Default::default()
        };
        assert_eq!(
            resolve(&b, &env, Some(&pkg)).unwrap().unwrap().url,
            RemoteUrl::new("file:///shared")
        );
    }

    #[test]
    fn bad_values_name_the_variable_and_the_fix() {
        let b = Spec::default();
        let env = Env::from_vars([(URL_VAR, "redis:/oops")]);
        let e = resolve(&b, &env, None).unwrap_err().to_string();
        assert!(
            e.contains(URL_VAR) && e.contains("redis://host:port/db"),
            "{e}"
        );
        let env = Env::from_vars([(URL_VAR, "gha"), (MODE_VAR, "maybe")]);
        let e = resolve(&b, &env, None).unwrap_err().to_string();
        assert!(e.contains(MODE_VAR) && e.contains("read-only"), "{e}");
    }

    #[test]
    fn credentials_are_checked_and_never_quoted() {
        let b = Spec::default();
        let env = Env::from_vars([(URL_VAR, "redis://:Hidden-pw1@h:1/0")]);
        let c = resolve(&b, &env, None).unwrap().unwrap();
        assert_eq!(c.url.to_string(), "redis://:***@h:1/0");
        let env = Env::from_vars([(URL_VAR, "redis://:Hidden-pw1@h:1/x")]);
        let e = resolve(&b, &env, None).unwrap_err().to_string();
        assert!(
            e.contains("redis://:***@h:1/x") && !e.contains("Hidden-pw1"),
            "{e}"
        );
        // A password variable an engine cannot use is an error naming it, not a silent no-op.
        let env = Env::from_vars([(URL_VAR, "s3://b/p"), (PASSWORD_VAR, "Hidden-pw1")]);
        let e = resolve(&b, &env, None).unwrap_err().to_string();
        assert!(
            e.contains(PASSWORD_VAR) && e.contains("AWS_ACCESS_KEY_ID"),
            "{e}"
        );
        assert!(!e.contains("Hidden-pw1"), "{e}");
        let env = Env::from_vars([(URL_VAR, "webdav://h/c"), (PASSWORD_VAR, "Hidden-pw1")]);
        let e = resolve(&b, &env, None).unwrap_err().to_string();
        assert!(e.contains(USERNAME_VAR), "{e}");
        let env = Env::from_vars([
            (URL_VAR, "webdav://h/c"),
            (USERNAME_VAR, "bob"),
            (PASSWORD_VAR, "Hidden-pw1"),
        ]);
        let c = resolve(&b, &env, None).unwrap().unwrap();
        assert!(!format!("{c:?}").contains("Hidden-pw1"), "{c:?}");
    }

    #[test]
    fn credential_errors_say_what_and_how_to_fix_it() {
        let b = Spec::default();
        let err = |vars: &[(&str, &str)]| {
            let env = Env::from_vars(vars.iter().copied());
            resolve(&b, &env, None).unwrap_err().to_string()
        };
        let text = [
            err(&[(URL_VAR, "s3://bucket/p"), (PASSWORD_VAR, "Hidden-pw1")]),
            err(&[(URL_VAR, "webdav://:Hidden-pw1@dav/c")]),
            err(&[(URL_VAR, "redis://:half/Hidden-pw1@cache:6379/0")]),
            err(&[(URL_VAR, "redis://:Hidden%zz@cache:6379/0")]),
        ]
        .join("\n\n");
        assert!(!text.contains("Hidden"), "{text}");
        insta::assert_snapshot!(text);
    }
}
