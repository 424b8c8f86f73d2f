//! A remote cache's URL and credentials, which never print in clear. [`RemoteUrl`]'s `Display`,
//! `Debug` and `Serialize` give the redacted form (`redis://:***@host:6379/0`: the user name
//! stays, the password becomes `***`), so a note, a warning, an error or a JSON report cannot
//! show the password by accident; the clear text is crate-private and read only where the
//! OpenDAL operator's options are made (`remote`). The userinfo's parts are percent-decoded
//! there ([`userinfo`]), so a password may hold any character (`%40` for `@`, `%2F` for `/`).

use std::fmt;

/// The remote cache's URL (`off`, `none`, `0`, … turn off one named in Cargo.toml). Here, with
/// the URL's type, so the environment reader can redact it without depending on `remote`.
pub const URL_VAR: &str = "ARCHBUILD_REMOTE_CACHE";

/// What a password is shown as.
pub(crate) const MASK: &str = "***";

/// A remote-cache URL as the user gave it (trimmed), credentials included; it prints redacted.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct RemoteUrl(String);

impl RemoteUrl {
    pub fn new(url: &str) -> Self {
        Self(url.trim().to_owned())
    }

    /// The URL with its password (if any) replaced by `***`.
    pub fn redacted(&self) -> String {
        redact(&self.0)
    }

    /// Whether the URL is one of the words that turn the remote off (`off`, `none`, `0`, …).
    pub fn is_off(&self) -> bool {
        crate::vocab::is_off(&self.0)
    }

    /// The clear text, for the operator's options only.
    pub(crate) fn clear(&self) -> &str {
        &self.0
    }
}

impl From<&str> for RemoteUrl {
    fn from(url: &str) -> Self {
        Self::new(url)
    }
}

impl fmt::Display for RemoteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for RemoteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RemoteUrl").field(&self.redacted()).finish()
    }
}

impl serde::Serialize for RemoteUrl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.redacted())
    }
}

/// A user name and password from the URL or from their own variables; the password prints as
/// `***`.
#[derive(Clone, PartialEq, Eq, Default)]
pub(crate) struct Credentials {
    pub(crate) username: Option<String>,
    pub(crate) password: Option<String>,
}

impl Credentials {
    pub(crate) fn is_empty(&self) -> bool {
        self.username.is_none() && self.password.is_none()
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| MASK))
            .finish()
    }
}

/// `text` with the password of a URL's userinfo replaced by `***`. Any text is accepted (an
/// error quotes what the user wrote, parsable or not), and the userinfo is taken to run from the
/// first `://` to the *last* `@`: a password with an unencoded `/`, `?`, `#` or `@` is still
/// hidden (a path holding `@` after a `:` is over-redacted, which hides nothing that matters).
pub(crate) fn redact(text: &str) -> String {
    let Some(at) = text.rfind('@') else {
        return text.to_owned();
    };
    // The first `://` (a password may hold another); none before the `@`: no scheme was written.
    let start = text[..at].find("://").map_or(0, |i| i + 3);
    match text[start..at].split_once(':') {
        Some((user, _)) => format!("{}{user}:{MASK}{}", &text[..start], &text[at..]),
        None => text.to_owned(),
    }
}

/// The user name and password of a URL's userinfo (what precedes `@` in the authority),
/// percent-decoded; an empty part is absent (`:pw` is a password alone). `Err` says what is
/// wrong without quoting the secret.
pub(crate) fn userinfo(info: &str) -> Result<Credentials, &'static str> {
    let (user, password) = match info.split_once(':') {
        Some((u, p)) => (u, Some(p)),
        None => (info, None),
    };
    let part = |s: &str| -> Result<Option<String>, &'static str> {
        let s = percent_decode(s)?;
        Ok((!s.is_empty()).then_some(s))
    };
    Ok(Credentials {
        username: part(user)?,
        password: match password {
            Some(p) => part(p)?,
            None => None,
        },
    })
}

fn percent_decode(s: &str) -> Result<String, &'static str> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or(
                    "its user name or password has a `%` not followed by two hex digits \
                     (write a literal `%` as `%25`)",
                )?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|_| "its user name or password is not UTF-8 once percent-decoded")
}

/// `text` with `secret` replaced by `***` wherever it appears (an engine's error message quoting
/// what it was given). Empty secrets change nothing.
pub(crate) fn scrub(text: &str, secret: &str) -> String {
    if secret.is_empty() {
        text.to_owned()
    } else {
        text.replace(secret, MASK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_with_credentials_prints_redacted() {
        for (url, shown) in [
            ("redis://:pw@host:6379/0", "redis://:***@host:6379/0"),
            (
                "redis://user:pw@host:6379/0",
                "redis://user:***@host:6379/0",
            ),
            (
                "rediss://alice:s3cret@cache.example:6380/2",
                "rediss://alice:***@cache.example:6380/2",
            ),
            (
                "webdav://bob:hunter22@dav.local/cache/",
                "webdav://bob:***@dav.local/cache/",
            ),
            (
                "webdavs://bob:hunter22@dav.local:8443/c",
                "webdavs://bob:***@dav.local:8443/c",
            ),
            // Percent-encoded passwords: the encoded form is hidden whole.
            ("redis://:p%40ss%2Fw%3Ard@h:1/0", "redis://:***@h:1/0"),
            // Unencoded reserved characters in the password still hide it.
            ("redis://:pa/ss@h:1/0", "redis://:***@h:1/0"),
            ("webdav://u:a@b?c#d@h/", "webdav://u:***@h/"),
            // No scheme (an error quotes it), or a mangled one: still hidden.
            ("user:pw@host:6379", "user:***@host:6379"),
            ("u:pw@h://x", "u:***@h://x"),
            ("redis://:a://b@h/0", "redis://:***@h/0"),
            // Nothing secret: unchanged.
            ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
            ("webdav://bob@dav.local/c", "webdav://bob@dav.local/c"),
            ("s3://bucket/prefix", "s3://bucket/prefix"),
            ("gha", "gha"),
        ] {
            let u = RemoteUrl::new(url);
            assert_eq!(u.redacted(), shown, "{url}");
            assert_eq!(u.to_string(), shown, "Display of {url}");
            assert_eq!(format!("{u:?}"), format!("RemoteUrl({shown:?})"));
            let json = serde_json::to_string(&u).unwrap();
            assert_eq!(json, format!("{shown:?}"), "Serialize of {url}");
        }
    }

    #[test]
    fn userinfo_is_percent_decoded_and_empty_parts_are_absent() {
        let c = |user: Option<&str>, pw: Option<&str>| Credentials {
            username: user.map(str::to_owned),
            password: pw.map(str::to_owned),
        };
        assert_eq!(userinfo(":pw"), Ok(c(None, Some("pw"))));
        assert_eq!(userinfo("u:pw"), Ok(c(Some("u"), Some("pw"))));
        assert_eq!(userinfo("u"), Ok(c(Some("u"), None)));
        assert_eq!(userinfo("u:"), Ok(c(Some("u"), None)));
        assert_eq!(
            userinfo("us%65r:p%40ss%2Fw%3Ard%25"),
            Ok(c(Some("user"), Some("p@ss/w:rd%")))
        );
        assert_eq!(
            userinfo(":a:b"),
            Ok(c(None, Some("a:b"))),
            "first `:` splits"
        );
        for bad in [":p%4", ":p%zz", ":%ff%fe"] {
            let e = userinfo(bad).unwrap_err();
            assert!(!e.contains(&bad[1..]), "{e} quotes the secret");
        }
    }

    #[test]
    fn credentials_debug_hides_the_password() {
        let c = Credentials {
            username: Some("u".into()),
            password: Some("hunter22".into()),
        };
        let d = format!("{c:?}");
        assert!(
            d.contains("\"u\"") && d.contains(MASK) && !d.contains("hunter22"),
            "{d}"
        );
        assert_eq!(scrub("auth hunter22 failed", "hunter22"), "auth *** failed");
        assert_eq!(scrub("unchanged", ""), "unchanged");
    }
}
