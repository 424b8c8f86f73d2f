//! A remote-cache URL mapped to the OpenDAL service that serves it: a storage engine people
//! already run. Parsing is pure, so every accepted form is tested without a server.
//!
//! | URL | engine |
//! |---|---|
//! | `redis://[user:password@]host:port/db`, `rediss://…` | Redis (TLS with `rediss`) |
//! | `webdav://[user:password@]host:port/path`, `webdavs://…` | WebDAV over HTTP (HTTPS with `webdavs`) |
//! | `s3://bucket/prefix` | S3 and compatible stores (endpoint, region, keys from `AWS_*`) |
//! | `gs://bucket/prefix` | Google Cloud Storage (credentials from the usual `GOOGLE_*`) |
//! | `azblob://container/prefix` | Azure Blob Storage (account from `AZBLOB_*`/`AZURE_*`) |
//! | `gha` | the GitHub Actions cache (inside a workflow run) |
//! | `file:///mnt/shared` | a shared directory (NFS, SMB, a bind mount) |
//!
//! Redis and WebDAV take a user name and password from the URL's userinfo (percent-encoded), or,
//! for a URL without one, from [`USERNAME_VAR`] and [`PASSWORD_VAR`]; they become the OpenDAL
//! service's own `username`/`password` options, and the URL prints redacted everywhere
//! ([`RemoteUrl`](crate::RemoteUrl)). The other engines read their credentials from their usual variables and
//! refuse a userinfo, which they would otherwise take for a bucket name.

use crate::error::{Error, Result};
use crate::remote_url::{redact, userinfo, Credentials, MASK};

/// The remote cache's user name, for a Redis or WebDAV URL that names none.
pub const USERNAME_VAR: &str = "ARCHBUILD_REMOTE_CACHE_USERNAME";
/// The remote cache's password, for a Redis or WebDAV URL that names none.
pub const PASSWORD_VAR: &str = "ARCHBUILD_REMOTE_CACHE_PASSWORD";

/// An OpenDAL service and its options, from a remote-cache URL.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub scheme: &'static str,
    /// The service's options; a `password` among them is printed as `***` by `Debug`.
    pub options: Vec<(String, String)>,
    /// The host and port a Redis server listens at: connected to before the first request, so
    /// that a port with nothing listening ends the remote at once (Redis's client retries a
    /// refused connection for seconds before it reports it).
    pub address: Option<(String, u16)>,
}

impl Endpoint {
    /// The value of option `key`.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let options: Vec<(&str, &str)> = self
            .options
            .iter()
            .map(|(k, v)| (k.as_str(), if k == "password" { MASK } else { v.as_str() }))
            .collect();
        f.debug_struct("Endpoint")
            .field("scheme", &self.scheme)
            .field("options", &options)
            .field("address", &self.address)
            .finish()
    }
}

fn bad(url: &str, origin: &str, why: &str) -> Error {
    Error::BadUrl {
        origin: origin.to_owned(),
        url: redact(url),
        why: why.to_owned(),
    }
}

/// Maps a remote-cache URL to the OpenDAL service that serves it (with the credentials of its
/// userinfo; a `RemoteConfig` adds those of the variables).
pub fn endpoint(url: &str, origin: &str) -> Result<Endpoint> {
    parse(url, origin, &Credentials::default())
}

/// Where an engine that takes no user name or password in its URL reads its credentials.
fn credentials_source(scheme: &str) -> &'static str {
    match scheme {
        "s3" => "S3 reads them from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
        "gcs" => "GCS reads them from GOOGLE_APPLICATION_CREDENTIALS",
        "azblob" => "Azure Blob Storage reads them from AZBLOB_ACCOUNT_NAME and AZBLOB_ACCOUNT_KEY",
        "ghac" => "the GitHub Actions cache uses the workflow's own token",
        _ => "a shared directory is reached with the file system's permissions, not a password",
    }
}

pub(crate) fn parse(url: &str, origin: &str, vars: &Credentials) -> Result<Endpoint> {
    let url = url.trim();
    let e = engine(url, origin)?;
    if !matches!(e.scheme, "redis" | "webdav") {
        if !vars.is_empty() {
            return Err(Error::Credentials {
                url: redact(url),
                what: format!("{USERNAME_VAR} or {PASSWORD_VAR}"),
                why: credentials_source(e.scheme).to_owned(),
                hint: "unset them (only Redis and WebDAV remotes take them)".to_owned(),
            });
        }
        return Ok(e);
    }
    let Endpoint {
        scheme,
        mut options,
        address,
    } = e;
    let authority = url.split_once("://").map_or("", |(_, rest)| {
        rest.split_once('/').map_or(rest, |(a, _)| a)
    });
    let from_url = match authority.rsplit_once('@') {
        Some((info, _)) => userinfo(info).map_err(|why| bad(url, origin, why))?,
        None => Credentials::default(),
    };
    let username = from_url.username.or_else(|| vars.username.clone());
    let password = from_url.password.or_else(|| vars.password.clone());
    if scheme == "webdav" && password.is_some() && username.is_none() {
        return Err(Error::Credentials {
            url: redact(url),
            what: "a password without a user name".into(),
            why: "WebDAV's basic authentication sends both".into(),
            hint: format!("write webdav://user:password@host/path, or set {USERNAME_VAR}"),
        });
    }
    options.extend(username.map(|u| ("username".to_owned(), u)));
    options.extend(password.map(|p| ("password".to_owned(), p)));
    Ok(Endpoint {
        scheme,
        options,
        address,
    })
}

/// `host[:port]` (or `[v6]:port`), with `default` for a missing port; `None` if malformed.
fn host_port(hostport: &str, default: u16) -> Option<(String, u16)> {
    let (host, port) = match hostport.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']')?;
            match after {
                "" => (host, None),
                p => (host, Some(p.strip_prefix(':')?)),
            }
        }
        None => match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        },
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default,
    };
    (!host.is_empty()).then(|| (host.to_owned(), port))
}

/// A remote-cache URL cut at its `://`, its userinfo and its path, for the engines to read.
struct Parts<'a> {
    url: &'a str,
    origin: &'a str,
    /// The scheme as written (not lowercased).
    scheme: &'a str,
    /// The userinfo (`parse` decodes it for the engines that take one), host and port.
    authority: &'a str,
    /// The host and port, the userinfo removed.
    hostport: &'a str,
    /// The path, `/` where the URL has none.
    path: &'a str,
}

impl Parts<'_> {
    /// A `BadUrl` error for this URL.
    fn bad(&self, why: &str) -> Error {
        bad(self.url, self.origin, why)
    }

    /// Refuses a userinfo in the URL of an engine that reads its credentials elsewhere.
    fn no_userinfo(&self, service: &str) -> Result<()> {
        if self.authority.contains('@') {
            Err(Error::Credentials {
                url: redact(self.url),
                what: format!(
                    "the user name or password in its URL (from {})",
                    self.origin
                ),
                why: credentials_source(service).to_owned(),
                hint: "remove `user:password@` from the URL".to_owned(),
            })
        } else {
            Ok(())
        }
    }

    /// Refuses a URL whose authority names no host, bucket or container (`what`).
    fn need_authority(&self, what: &str) -> Result<()> {
        if self.hostport.is_empty() {
            Err(self.bad(&format!("it names no {what}")))
        } else {
            Ok(())
        }
    }

    /// The host and port a server listens at (`default` for a missing port).
    fn address(&self, default: u16) -> Result<Option<(String, u16)>> {
        if self.path.contains('@') {
            // A password's unencoded `/` ends the authority early, leaving its tail in the path.
            return Err(self.bad(
                "it has an `@` after the host (percent-encode `/` as `%2F` and `@` as `%40` in \
                 a password or a path)",
            ));
        }
        host_port(self.hostport, default).map(Some).ok_or_else(|| {
            self.bad(
                "its host or port is not valid (a port is a number; percent-encode `:`, `/` \
                 and `@` in a password)",
            )
        })
    }
}

/// One service option.
fn opt(k: &str, v: &str) -> (String, String) {
    (k.to_owned(), v.to_owned())
}

/// A service's `root` option for a URL path: `/`, or the path with one trailing `/`.
fn root(p: &str) -> String {
    let p = p.trim_end_matches('/');
    if p.is_empty() {
        "/".to_owned()
    } else {
        format!("{p}/")
    }
}

/// A Redis server, `redis://host:port/db` (`rediss` for TLS).
fn redis(p: &Parts) -> Result<Endpoint> {
    p.need_authority("host")?;
    let address = p.address(6379)?;
    let db = p.path.trim_matches('/');
    let db = if db.is_empty() { "0" } else { db };
    if db.parse::<u32>().is_err() {
        return Err(p.bad("the path must be a database number"));
    }
    Ok(Endpoint {
        scheme: "redis",
        options: vec![
            opt("endpoint", &format!("{}://{}", p.scheme, p.hostport)),
            opt("db", db),
        ],
        address,
    })
}

/// A WebDAV server over HTTP, or HTTPS with `tls`.
fn webdav(p: &Parts, tls: bool) -> Result<Endpoint> {
    p.need_authority("host")?;
    // Checked, not kept: HTTP fails fast by itself, and may go through a proxy that a
    // direct connection would miss.
    p.address(if tls { 443 } else { 80 })?;
    let http = if tls { "https" } else { "http" };
    Ok(Endpoint {
        scheme: "webdav",
        options: vec![
            opt("endpoint", &format!("{http}://{}", p.hostport)),
            opt("root", &root(p.path)),
        ],
        address: None,
    })
}

/// An object store (S3, GCS, Azure Blob) whose authority names its bucket or container (`key`).
fn object_store(p: &Parts, scheme: &'static str, key: &str) -> Result<Endpoint> {
    p.no_userinfo(scheme)?;
    p.need_authority(key)?;
    Ok(Endpoint {
        scheme,
        options: vec![opt(key, p.authority), opt("root", &root(p.path))],
        address: None,
    })
}

/// A shared directory, `file:///path` (or `file://localhost/path`).
fn shared_dir(p: &Parts) -> Result<Endpoint> {
    p.no_userinfo("fs")?;
    if !p.authority.is_empty() && p.authority != "localhost" {
        return Err(p.bad("a file URL names a local path: `file:///mnt/shared`"));
    }
    if p.path == "/" {
        return Err(p.bad("it names no directory"));
    }
    Ok(Endpoint {
        scheme: "fs",
        options: vec![opt("root", p.path)],
        address: None,
    })
}

/// The service, its options and address, credentials aside (`parse` adds them).
fn engine(url: &str, origin: &str) -> Result<Endpoint> {
    if url == "gha" || url == "gha://" {
        return Ok(Endpoint {
            scheme: "ghac",
            options: vec![("version".into(), "archbuild-v1".into())],
            address: None,
        });
    }
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| bad(url, origin, "it has no `scheme://`"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let p = Parts {
        url,
        origin,
        scheme,
        authority,
        hostport: authority.rsplit_once('@').map_or(authority, |(_, h)| h),
        path,
    };
    match scheme.to_ascii_lowercase().as_str() {
        "redis" | "rediss" => redis(&p),
        "webdav" => webdav(&p, false),
        "webdavs" => webdav(&p, true),
        "s3" => object_store(&p, "s3", "bucket"),
        "gs" | "gcs" => object_store(&p, "gcs", "bucket"),
        "azblob" => object_store(&p, "azblob", "container"),
        "file" => shared_dir(&p),
        _ if !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            Err(p.bad("it does not start with `scheme://`"))
        }
        _ => Err(p.bad(&format!("`{scheme}` is not a known engine"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(url: &str) -> (&'static str, Vec<(String, String)>) {
        let e = endpoint(url, "test").unwrap();
        (e.scheme, e.options)
    }

    fn o(k: &str, v: &str) -> (String, String) {
        (k.to_owned(), v.to_owned())
    }

    /// A password no other part of a URL or message spells.
    const SECRET: &str = "S3cretPw";

    #[test]
    fn every_engine_maps_to_its_service() {
        assert_eq!(
            opts("redis://127.0.0.1:6379/2"),
            (
                "redis",
                vec![o("endpoint", "redis://127.0.0.1:6379"), o("db", "2")]
            )
        );
        assert_eq!(opts("redis://h:1").1[1], o("db", "0"));
        assert_eq!(
            opts("webdav://127.0.0.1:8080/cache/ab"),
            (
                "webdav",
                vec![
                    o("endpoint", "http://127.0.0.1:8080"),
                    o("root", "/cache/ab/")
                ]
            )
        );
        assert_eq!(opts("webdavs://h/").1[0], o("endpoint", "https://h"));
        assert_eq!(
            opts("s3://bucket/prefix"),
            ("s3", vec![o("bucket", "bucket"), o("root", "/prefix/")])
        );
        assert_eq!(opts("gs://b").0, "gcs");
        assert_eq!(opts("azblob://c/p").0, "azblob");
        assert_eq!(opts("gha").0, "ghac");
        assert_eq!(
            opts("file:///mnt/shared"),
            ("fs", vec![o("root", "/mnt/shared")])
        );
    }

    #[test]
    fn credentials_in_the_url_become_the_services_own_options() {
        // Redis: the endpoint loses the userinfo (the client would ignore it there), the
        // password goes where the client sends it from, percent-decoded.
        let e = endpoint("redis://:p%40ss%2Fw%3A@cache:7000/3", "test").unwrap();
        assert_eq!(
            e.options,
            [
                o("endpoint", "redis://cache:7000"),
                o("db", "3"),
                o("password", "p@ss/w:")
            ]
        );
        assert_eq!(e.address, Some(("cache".into(), 7000)));
        let e = endpoint("rediss://alice:pw@cache/0", "test").unwrap();
        assert_eq!(
            e.options,
            [
                o("endpoint", "rediss://cache"),
                o("db", "0"),
                o("username", "alice"),
                o("password", "pw")
            ]
        );
        assert_eq!(e.address, Some(("cache".into(), 6379)), "default port");
        let e = endpoint("redis://[::1]:7001/0", "test").unwrap();
        assert_eq!(e.address, Some(("::1".into(), 7001)));
        // WebDAV: basic authentication; HTTP needs no connection check.
        let e = endpoint("webdavs://bob:hunter%2022@dav:8443/c", "test").unwrap();
        assert_eq!(
            e.options,
            [
                o("endpoint", "https://dav:8443"),
                o("root", "/c/"),
                o("username", "bob"),
                o("password", "hunter 22")
            ]
        );
        assert_eq!(e.address, None);
        let e = endpoint("webdav://bob@dav/c", "test").unwrap();
        assert_eq!(e.option("username"), Some("bob"));
        assert_eq!(e.option("password"), None);
    }

    #[test]
    fn an_endpoint_debugs_without_its_password() {
        let e = endpoint(&format!("redis://u:{SECRET}@h:1/0"), "test").unwrap();
        let d = format!("{e:?}");
        assert!(!d.contains(SECRET) && d.contains("\"***\""), "{d}");
        assert!(d.contains("\"u\""), "{d}");
    }

    #[test]
    fn bad_urls_say_what_is_wrong_and_never_quote_the_password() {
        let s = SECRET;
        for (url, why) in [
            ("127.0.0.1:6379".to_owned(), "no `scheme://`"),
            ("ftp://h/x".to_owned(), "`ftp` is not a known engine"),
            ("redis://h/x".to_owned(), "database number"),
            ("s3:///p".to_owned(), "no bucket"),
            ("file://host/p".to_owned(), "local path"),
            (format!("ftp://u:{s}@h/x"), "`ftp` is not a known engine"),
            (format!("redis://:{s}@h/x"), "database number"),
            (format!("redis://:{s}@/0"), "names no host"),
            (format!("u:{s}@h://x"), "`scheme://`"),
            // A password's unencoded `/` (or `@`) puts its tail after the host.
            (
                format!("redis://:a/{s}@h:1/0"),
                "percent-encode `/` as `%2F`",
            ),
            (
                format!("webdav://u:1/{s}@h/"),
                "percent-encode `/` as `%2F`",
            ),
            (format!("webdav://u:{s}@h:port/"), "a port is a number"),
            (format!("redis://:{s}%zz@h/0"), "two hex digits"),
            (format!("webdav://:{s}@h/c"), "password without a user name"),
            (format!("s3://key:{s}@bucket/p"), "AWS_ACCESS_KEY_ID"),
            (format!("gs://k:{s}@b/p"), "GOOGLE_APPLICATION_CREDENTIALS"),
            (format!("azblob://a:{s}@c/p"), "AZBLOB_ACCOUNT_KEY"),
            (format!("file://u:{s}@/p"), "file system's permissions"),
        ] {
            let e = endpoint(&url, "ARCHBUILD_REMOTE_CACHE")
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{url}: {e}");
            assert!(!e.contains(SECRET), "{url}: the password is quoted: {e}");
            if url.contains(SECRET) {
                assert!(e.contains(MASK), "{url}: {e}");
            }
            let origin_named = e.contains("ARCHBUILD_REMOTE_CACHE") || e.contains("webdav://");
            assert!(origin_named && e.contains("hint:"), "{e}");
        }
    }
}
