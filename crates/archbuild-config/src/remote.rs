//! What a remote cache is: a URL (which `endpoint` maps to a storage engine), whether this
//! machine may write to it, how long one operation may take, the credentials of its own
//! variables, and the keys its entries are signed and verified with (`signing`); and the one
//! reader of its configuration ([`RemoteConfig::resolve`]), which the build cache and the JIT
//! cache both use, so `ARCHBUILD_REMOTE_CACHE*` mean the same to both.

use std::time::Duration;

use crate::endpoint::{parse, Endpoint, PASSWORD_VAR, USERNAME_VAR};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::remote_url::{scrub, Credentials, RemoteUrl, MASK, URL_VAR};
use crate::signing::{Signing, HMAC_KEY_VAR, PUBLIC_KEY_VAR, SIGNING_KEY_VAR};

/// Whether this machine may write to the remote cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RemoteMode {
    /// Read hits, write new results (trusted builds: main branch CI, developers).
    #[default]
    ReadWrite,
    /// Read hits, never write (pull-request builds).
    ReadOnly,
}

impl RemoteMode {
    /// `read-write` or `read-only` (also `rw`/`ro`).
    pub fn parse(value: &str, origin: &str) -> Result<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "read-write" | "readwrite" | "rw" => Ok(Self::ReadWrite),
            "read-only" | "readonly" | "ro" => Ok(Self::ReadOnly),
            _ => Err(Error::BadMode {
                origin: origin.to_owned(),
                value: value.to_owned(),
            }),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadWrite => "read-write",
            Self::ReadOnly => "read-only",
        }
    }
}

/// A configured remote cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteConfig {
    /// The URL as the user gave it; it prints with its password hidden ([`RemoteUrl`]).
    pub url: RemoteUrl,
    pub mode: RemoteMode,
    /// The longest one operation may take before the remote is given up for this process.
    pub timeout: Duration,
    /// From [`USERNAME_VAR`](crate::USERNAME_VAR) and
    /// [`PASSWORD_VAR`](crate::PASSWORD_VAR): each fills what the URL's userinfo leaves out.
    credentials: Credentials,
    /// The keys entries are signed and verified with (unsigned by default); `Debug` shows the
    /// scheme only.
    signing: Signing,
}

/// Default bound on one remote operation.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// `read-write` (default) or `read-only`.
pub const MODE_VAR: &str = "ARCHBUILD_REMOTE_CACHE_MODE";
/// The longest one remote operation may take, in whole seconds (default 10).
pub const TIMEOUT_VAR: &str = "ARCHBUILD_REMOTE_CACHE_TIMEOUT";

/// The settings around the environment's: those a program gives (`Build::remote_cache`, the
/// command line) win over the environment, those of Cargo.toml lose to it. The runtime has
/// neither (`RemoteSettings::default()`).
#[derive(Debug, Clone, Default)]
pub struct RemoteSettings {
    /// The URL a program gives, and where it comes from (`Build::remote_cache`).
    pub url: Option<(RemoteUrl, &'static str)>,
    /// The mode a program gives.
    pub mode: Option<RemoteMode>,
    /// The URL below the environment (Cargo.toml's `remote-cache`), and where it comes from.
    pub fallback_url: Option<(String, &'static str)>,
    /// The mode below the environment (Cargo.toml's `remote-cache-mode`), as written.
    pub fallback_mode: Option<(String, &'static str)>,
}

/// A remote cache setting that is not usable: where it comes from (a variable or
/// `Build::remote_cache`), its value as read (a URL redacted), and what is wrong with it.
#[derive(Debug)]
pub struct SettingError {
    pub origin: &'static str,
    pub value: String,
    /// Boxed: the error travels in every `Result` of the reader.
    pub error: Box<Error>,
}

impl RemoteConfig {
    /// The remote cache configured by `settings` and `env`, checked but not connected:
    /// `Ok(None)` when none is named or the winning setting is `off`. One precedence for every
    /// setting: the program's, then the environment's (`ARCHBUILD_REMOTE_CACHE`, `_MODE`,
    /// `_TIMEOUT`, `_USERNAME`, `_PASSWORD`), then Cargo.toml's. The signing keys
    /// (`_HMAC_KEY`, `_SIGNING_KEY`, `_PUBLIC_KEY`) are the environment's alone: a secret has no
    /// place in a manifest, and one place to look is simpler; an error about one quotes `***`.
    pub fn resolve(
        env: &Env,
        settings: &RemoteSettings,
    ) -> std::result::Result<Option<Self>, SettingError> {
        let (url, origin) = if let Some((u, origin)) = &settings.url {
            (u.clone(), *origin)
        } else if let Some(u) = env.var(URL_VAR) {
            (RemoteUrl::new(&u), URL_VAR)
        } else if let Some((u, origin)) = &settings.fallback_url {
            (RemoteUrl::new(u), *origin)
        } else {
            return Ok(None);
        };
        if url.is_off() {
            return Ok(None);
        }
        let bad = |origin: &'static str, value: String| {
            move |error: Error| SettingError {
                origin,
                value,
                error: Box::new(error),
            }
        };
        let mut config = Self::from_url(url.clone(), origin)
            .and_then(|c| c.with_credentials(env.var(USERNAME_VAR), env.var(PASSWORD_VAR)))
            .map_err(bad(origin, url.redacted()))?;
        let mode = if let Some(m) = settings.mode {
            Some(m)
        } else if let Some(m) = env.var(MODE_VAR) {
            Some(RemoteMode::parse(&m, MODE_VAR).map_err(bad(MODE_VAR, m.clone()))?)
        } else if let Some((m, origin)) = &settings.fallback_mode {
            Some(RemoteMode::parse(m, origin).map_err(bad(origin, m.clone()))?)
        } else {
            None
        };
        if let Some(m) = mode {
            config = config.with_mode(m);
        }
        if let Some(t) = env.var(TIMEOUT_VAR) {
            let secs: u64 = t.parse().map_err(|_| SettingError {
                origin: TIMEOUT_VAR,
                value: t.clone(),
                error: Box::new(Error::BadTimeout {
                    origin: TIMEOUT_VAR.to_owned(),
                    value: t.clone(),
                }),
            })?;
            // Zero would give up before the first byte: one second is the shortest bound.
            config = config.with_timeout(Duration::from_secs(secs.max(1)));
        }
        let signing = Signing::parse(
            env.var(HMAC_KEY_VAR).as_deref(),
            env.var(SIGNING_KEY_VAR).as_deref(),
            env.var(PUBLIC_KEY_VAR).as_deref(),
        )
        .map_err(|(origin, error)| SettingError {
            origin,
            value: MASK.to_owned(),
            error: Box::new(error),
        })?;
        Ok(Some(config.with_signing(signing)))
    }
}

impl RemoteConfig {
    /// A read-write remote at `url` (checked now, so a typo fails before any compile).
    pub fn new(url: &str, origin: &str) -> Result<Self> {
        Self::from_url(RemoteUrl::new(url), origin)
    }

    /// [`RemoteConfig::new`] for a URL already wrapped (it never leaves its wrapper).
    pub fn from_url(url: RemoteUrl, origin: &str) -> Result<Self> {
        parse(url.clear(), origin, &Credentials::default())?;
        Ok(Self {
            url,
            mode: RemoteMode::ReadWrite,
            timeout: DEFAULT_TIMEOUT,
            credentials: Credentials::default(),
            signing: Signing::default(),
        })
    }

    pub fn with_mode(mut self, mode: RemoteMode) -> Self {
        self.mode = mode;
        self
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Signs and verifies entries with `signing`'s keys ([`Signing::default`]: unsigned).
    pub fn with_signing(mut self, signing: Signing) -> Self {
        self.signing = signing;
        self
    }

    /// The keys entries are signed and verified with.
    pub fn signing(&self) -> &Signing {
        &self.signing
    }

    /// The user name and password of [`USERNAME_VAR`](crate::USERNAME_VAR) and
    /// [`PASSWORD_VAR`](crate::PASSWORD_VAR) (blank: `None`), used where the URL's userinfo
    /// has none; checked now (an engine that takes its credentials elsewhere refuses them).
    pub fn with_credentials(
        mut self,
        username: Option<String>,
        password: Option<String>,
    ) -> Result<Self> {
        let blank = |v: Option<String>| v.filter(|v| !v.is_empty());
        let credentials = Credentials {
            username: blank(username),
            password: blank(password),
        };
        parse(self.url.clear(), "the remote cache setting", &credentials)?;
        self.credentials = credentials;
        Ok(self)
    }

    /// The OpenDAL service and options, the variables' credentials included, in clear: for the
    /// store's remote tier, which opens the operator with them (they print only as `***`).
    pub fn endpoint(&self) -> Result<Endpoint> {
        parse(
            self.url.clear(),
            "the remote cache setting",
            &self.credentials,
        )
    }

    /// `text` (an engine's error) with this remote's URL redacted and its password hidden.
    pub fn scrub(&self, text: &str) -> String {
        let text = text.replace(self.url.clear(), &self.url.redacted());
        let url_password = self
            .endpoint()
            .ok()
            .and_then(|e| e.option("password").map(str::to_owned));
        [url_password, self.credentials.password.clone()]
            .iter()
            .flatten()
            .fold(text, |t, p| scrub(&t, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::USERNAME_VAR;

    const SECRET: &str = "S3cretPw";

    fn creds(url: &str, user: Option<&str>, pw: Option<&str>) -> Result<RemoteConfig> {
        RemoteConfig::new(url, "test")?
            .with_credentials(user.map(str::to_owned), pw.map(str::to_owned))
    }

    #[test]
    fn the_variables_fill_what_the_url_leaves_out() {
        let option = |c: &RemoteConfig, k: &str| c.endpoint().unwrap().option(k).map(str::to_owned);
        let c = creds("redis://h:1/0", None, Some(SECRET)).unwrap();
        assert_eq!(option(&c, "password").as_deref(), Some(SECRET));
        assert_eq!(option(&c, "username"), None);
        let c = creds("redis://:from-url@h:1/0", Some("v"), Some(SECRET)).unwrap();
        assert_eq!(
            option(&c, "password").as_deref(),
            Some("from-url"),
            "URL first"
        );
        assert_eq!(option(&c, "username").as_deref(), Some("v"));
        let c = creds("webdav://bob@h/c", None, Some(SECRET)).unwrap();
        assert_eq!(option(&c, "username").as_deref(), Some("bob"));
        assert_eq!(option(&c, "password").as_deref(), Some(SECRET));
        // Blank variables are unset.
        let c = creds("s3://b/p", Some(""), Some("")).unwrap();
        assert_eq!(c.endpoint().unwrap().option("password"), None);
    }

    #[test]
    fn variables_an_engine_cannot_use_are_refused_without_quoting_them() {
        for (url, user, why) in [
            ("s3://b/p", None, "AWS_ACCESS_KEY_ID"),
            ("gha", Some("u"), "workflow's own token"),
            ("file:///shared", None, "file system's permissions"),
            ("webdav://h/c", None, USERNAME_VAR),
        ] {
            let e = creds(url, user, Some(SECRET)).unwrap_err();
            assert!(matches!(e, Error::Credentials { .. }), "{e:?}");
            let e = e.to_string();
            assert!(e.contains(why) && e.contains("hint:"), "{e}");
            assert!(!e.contains(SECRET), "{e}");
        }
    }

    #[test]
    fn a_config_never_prints_its_passwords() {
        let url = format!("redis://u:{SECRET}@h:1/0");
        let c = creds(&url, None, None).unwrap();
        assert_eq!(c.url.to_string(), "redis://u:***@h:1/0");
        let c = creds("redis://h:1/0", None, Some("var-Pw-9")).unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("var-Pw-9") && d.contains("***"), "{d}");
        // An engine's message quoting what it was given loses the URL and the passwords.
        let c = creds(&url, None, None).unwrap();
        let text = format!("cannot reach {url}: AUTH {SECRET} refused");
        assert_eq!(
            c.scrub(&text),
            "cannot reach redis://u:***@h:1/0: AUTH *** refused"
        );
        let c = creds("redis://h:1/0", None, Some("var-Pw-9")).unwrap();
        assert_eq!(c.scrub("AUTH var-Pw-9"), "AUTH ***");
    }

    fn resolve(vars: &[(&str, &str)], settings: &RemoteSettings) -> Option<RemoteConfig> {
        RemoteConfig::resolve(&Env::from_vars(vars.iter().copied()), settings)
            .unwrap_or_else(|e| panic!("{}", e.error))
    }

    #[test]
    fn one_precedence_for_every_setting() {
        let manifest = RemoteSettings {
            fallback_url: Some(("redis://pkg:6379/0".into(), "Cargo.toml")),
            fallback_mode: Some(("read-only".into(), "Cargo.toml")),
            ..Default::default()
        };
        let c = resolve(&[], &manifest).unwrap();
        assert_eq!(c.url.redacted(), "redis://pkg:6379/0");
        assert_eq!((c.mode, c.timeout), (RemoteMode::ReadOnly, DEFAULT_TIMEOUT));
        let env = [
            (URL_VAR, " webdav://env:80/c "),
            (MODE_VAR, "rw"),
            (TIMEOUT_VAR, " 3 "),
        ];
        let c = resolve(&env, &manifest).unwrap();
        assert_eq!(c.url.redacted(), "webdav://env:80/c");
        assert_eq!(
            (c.mode, c.timeout),
            (RemoteMode::ReadWrite, Duration::from_secs(3))
        );
        let program = RemoteSettings {
            url: Some((RemoteUrl::new("file:///shared"), "Build::remote_cache")),
            mode: Some(RemoteMode::ReadOnly),
            ..manifest.clone()
        };
        let c = resolve(&env, &program).unwrap();
        assert_eq!(c.url, RemoteUrl::new("file:///shared"));
        assert_eq!(c.mode, RemoteMode::ReadOnly);
        for off in ["off", "none", "0", "false", "no", " OFF "] {
            assert_eq!(resolve(&[(URL_VAR, off)], &manifest), None, "{off}");
        }
        assert_eq!(resolve(&[(URL_VAR, " ")], &RemoteSettings::default()), None);
        let c = resolve(&[(URL_VAR, "gha"), (TIMEOUT_VAR, "0")], &manifest).unwrap();
        assert_eq!(c.timeout, Duration::from_secs(1));
    }

    #[test]
    fn a_bad_setting_names_its_own_origin_and_value() {
        let err = |vars: &[(&str, &str)]| {
            RemoteConfig::resolve(
                &Env::from_vars(vars.iter().copied()),
                &RemoteSettings::default(),
            )
            .unwrap_err()
        };
        let e = err(&[(URL_VAR, "gha"), (MODE_VAR, "maybe")]);
        assert_eq!((e.origin, e.value.as_str()), (MODE_VAR, "maybe"));
        assert!(matches!(*e.error, Error::BadMode { .. }), "{e:?}");
        let e = err(&[(URL_VAR, "gha"), (TIMEOUT_VAR, "10s")]);
        assert_eq!((e.origin, e.value.as_str()), (TIMEOUT_VAR, "10s"));
        assert!(e.error.to_string().contains("whole seconds"), "{}", e.error);
        let e = err(&[(URL_VAR, &format!("redis://:{SECRET}@h:1/x"))]);
        assert_eq!(
            (e.origin, e.value.as_str()),
            (URL_VAR, "redis://:***@h:1/x")
        );
    }

    #[test]
    fn modes() {
        assert_eq!(
            RemoteMode::parse(" RO ", "x").unwrap(),
            RemoteMode::ReadOnly
        );
        let e = RemoteMode::parse("sometimes", "ARCHBUILD_REMOTE_CACHE_MODE").unwrap_err();
        assert!(e.to_string().contains("read-only"), "{e}");
    }
}
