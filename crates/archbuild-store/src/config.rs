//! What a remote cache is: a URL naming a storage engine people already run, and whether this
//! machine may write to it. Parsing is pure, so every accepted form is tested without a server.
//!
//! | URL | engine |
//! |---|---|
//! | `redis://host:port/db`, `rediss://…` | Redis (TLS with `rediss`) |
//! | `webdav://host:port/path`, `webdavs://…` | WebDAV over HTTP (HTTPS with `webdavs`) |
//! | `s3://bucket/prefix` | S3 and compatible stores (endpoint, region, keys from `AWS_*`) |
//! | `gs://bucket/prefix` | Google Cloud Storage (credentials from the usual `GOOGLE_*`) |
//! | `azblob://container/prefix` | Azure Blob Storage (account from `AZBLOB_*`/`AZURE_*`) |
//! | `gha` | the GitHub Actions cache (inside a workflow run) |
//! | `file:///mnt/shared` | a shared directory (NFS, SMB, a bind mount) |

use std::time::Duration;

use crate::error::{Error, Result};

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
    /// The URL as the user gave it (credentials never appear in it: they come from the
    /// engine's usual environment variables).
    pub url: String,
    pub mode: RemoteMode,
    /// The longest one operation may take before the remote is given up for this process.
    pub timeout: Duration,
}

/// Default bound on one remote operation.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

impl RemoteConfig {
    /// A read-write remote at `url` (checked now, so a typo fails before any compile).
    pub fn new(url: &str, origin: &str) -> Result<Self> {
        endpoint(url, origin)?;
        Ok(Self {
            url: url.trim().to_owned(),
            mode: RemoteMode::ReadWrite,
            timeout: DEFAULT_TIMEOUT,
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
}

/// An OpenDAL service and its options, from a remote-cache URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub scheme: &'static str,
    pub options: Vec<(String, String)>,
}

fn bad(url: &str, origin: &str, why: &str) -> Error {
    Error::BadUrl {
        origin: origin.to_owned(),
        url: url.to_owned(),
        why: why.to_owned(),
    }
}

/// Maps a remote-cache URL to the OpenDAL service that serves it.
pub fn endpoint(url: &str, origin: &str) -> Result<Endpoint> {
    let url = url.trim();
    if url == "gha" || url == "gha://" {
        return Ok(Endpoint {
            scheme: "ghac",
            options: vec![("version".into(), "archbuild-v1".into())],
        });
    }
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| bad(url, origin, "it has no `scheme://`"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let opt = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    let root = |p: &str| {
        let p = p.trim_end_matches('/');
        if p.is_empty() {
            "/".to_owned()
        } else {
            format!("{p}/")
        }
    };
    let need_authority = |what: &str| {
        if authority.is_empty() {
            Err(bad(url, origin, &format!("it names no {what}")))
        } else {
            Ok(())
        }
    };
    let e = match scheme.to_ascii_lowercase().as_str() {
        "redis" | "rediss" => {
            need_authority("host")?;
            let db = path.trim_matches('/');
            let db = if db.is_empty() { "0" } else { db };
            if db.parse::<u32>().is_err() {
                return Err(bad(url, origin, "the path must be a database number"));
            }
            Endpoint {
                scheme: "redis",
                options: vec![
                    opt("endpoint", &format!("{scheme}://{authority}")),
                    opt("db", db),
                ],
            }
        }
        "webdav" | "webdavs" => {
            need_authority("host")?;
            let http = if scheme.eq_ignore_ascii_case("webdavs") {
                "https"
            } else {
                "http"
            };
            Endpoint {
                scheme: "webdav",
                options: vec![
                    opt("endpoint", &format!("{http}://{authority}")),
                    opt("root", &root(path)),
                ],
            }
        }
        "s3" => {
            need_authority("bucket")?;
            Endpoint {
                scheme: "s3",
                options: vec![opt("bucket", authority), opt("root", &root(path))],
            }
        }
        "gs" | "gcs" => {
            need_authority("bucket")?;
            Endpoint {
                scheme: "gcs",
                options: vec![opt("bucket", authority), opt("root", &root(path))],
            }
        }
        "azblob" => {
            need_authority("container")?;
            Endpoint {
                scheme: "azblob",
                options: vec![opt("container", authority), opt("root", &root(path))],
            }
        }
        "file" => {
            if !authority.is_empty() && authority != "localhost" {
                return Err(bad(
                    url,
                    origin,
                    "a file URL names a local path: `file:///mnt/shared`",
                ));
            }
            if path == "/" {
                return Err(bad(url, origin, "it names no directory"));
            }
            Endpoint {
                scheme: "fs",
                options: vec![opt("root", path)],
            }
        }
        _ => {
            return Err(bad(
                url,
                origin,
                &format!("`{scheme}` is not a known engine"),
            ))
        }
    };
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(url: &str) -> (&'static str, Vec<(String, String)>) {
        let e = endpoint(url, "test").unwrap();
        (e.scheme, e.options)
    }

    #[test]
    fn every_engine_maps_to_its_service() {
        let o = |k: &str, v: &str| (k.to_owned(), v.to_owned());
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
    fn bad_urls_say_what_is_wrong() {
        for (url, why) in [
            ("127.0.0.1:6379", "no `scheme://`"),
            ("ftp://h/x", "`ftp` is not a known engine"),
            ("redis://h/x", "database number"),
            ("s3:///p", "no bucket"),
            ("file://host/p", "local path"),
        ] {
            let e = endpoint(url, "ARCHBUILD_REMOTE_CACHE")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(why) && e.contains("ARCHBUILD_REMOTE_CACHE"),
                "{e}"
            );
        }
        let e = RemoteMode::parse("sometimes", "ARCHBUILD_REMOTE_CACHE_MODE").unwrap_err();
        assert!(e.to_string().contains("read-only"), "{e}");
    }
}
