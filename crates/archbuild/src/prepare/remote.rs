//! Which remote cache a build uses, from one precedence: the build script or CLI
//! (`Build::remote_cache`), then `ARCHBUILD_REMOTE_CACHE`, then `remote-cache` in
//! `[package.metadata.archbuild]`; the mode likewise (`ARCHBUILD_REMOTE_CACHE_MODE`,
//! `remote-cache-mode`). An environment value of `off` (or `none`, `0`, …) turns off a remote
//! that Cargo.toml names, e.g. for a laptop away from the office network. A Redis or WebDAV
//! URL without `user:password@` takes them from `ARCHBUILD_REMOTE_CACHE_USERNAME` and
//! `ARCHBUILD_REMOTE_CACHE_PASSWORD`; the URL is only ever shown redacted.

use std::sync::Arc;

use archbuild_config::{RemoteConfig, RemoteSettings};
use archbuild_store::Remote;

use crate::base::env::Env;
use crate::config::manifest::PackageConfig;
use crate::error::{Error, Result};
use crate::prepare::spec::Spec;

/// The remote configured for this build, if any (checked, not yet connected): the program's
/// settings and Cargo.toml's around the environment's, read by the store's one reader (the
/// JIT cache's too).
pub(crate) fn resolve(
    b: &Spec,
    env: &Env,
    pkg: Option<&PackageConfig>,
) -> Result<Option<RemoteConfig>> {
    let manifest_origin = "Cargo.toml [package.metadata.archbuild]";
    let settings = RemoteSettings {
        url: b.remote_cache.clone().map(|u| (u, "Build::remote_cache")),
        mode: b.remote_cache_mode,
        fallback_url: pkg
            .and_then(|p| p.remote_cache.clone())
            .map(|u| (u, manifest_origin)),
        fallback_mode: pkg
            .and_then(|p| p.remote_cache_mode.clone())
            .map(|m| (m, manifest_origin)),
    };
    RemoteConfig::resolve(env.shared(), &settings).map_err(|e| {
        let (what, hint) = match *e.error {
            archbuild_config::Error::BadTimeout { .. } => (
                "remote cache timeout",
                "use whole seconds such as `10`, or unset it for the default of 10".to_owned(),
            ),
            other => ("remote cache setting", other.to_string()),
        };
        Error::Config {
            what,
            origin: e.origin.to_owned(),
            value: e.value,
            hint,
        }
    })
}

/// Opens the remote tier (lazily: nothing connects until a local miss).
pub(crate) fn open(config: Option<RemoteConfig>) -> Option<Arc<Remote>> {
    config.map(Remote::open)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use archbuild_config::{
        RemoteMode, RemoteUrl, MODE_VAR, PASSWORD_VAR, TIMEOUT_VAR, URL_VAR, USERNAME_VAR,
    };

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
        assert!(
            e.starts_with("invalid remote cache setting in ARCHBUILD_REMOTE_CACHE_MODE: `maybe`"),
            "{e}"
        );
        assert!(e.contains("read-only"), "{e}");
        let env = Env::from_vars([(URL_VAR, "gha"), (TIMEOUT_VAR, "ten")]);
        let e = resolve(&b, &env, None).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid remote cache timeout in ARCHBUILD_REMOTE_CACHE_TIMEOUT: `ten`; use whole \
             seconds such as `10`, or unset it for the default of 10"
        );
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
