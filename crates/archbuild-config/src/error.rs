//! The crate's errors: a remote cache setting that is not usable. A remote that fails at run
//! time is never an error (it is a warning and the local tier carries on). A URL is quoted
//! redacted (its password as `***`), never in clear, and a signing key not at all.

/// A remote cache setting that is not usable.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "the remote cache URL `{url}` from {origin} is not usable: {why}\n  \
         hint: use redis://host:port/db, webdav://host:port/path, s3://bucket/prefix, \
         gs://bucket/prefix, azblob://container/prefix, gha or file:///shared/dir"
    )]
    BadUrl {
        origin: String,
        url: String,
        why: String,
    },
    #[error("the remote cache `{url}` cannot use {what}: {why}\n  hint: {hint}")]
    Credentials {
        url: String,
        what: String,
        why: String,
        hint: String,
    },
    #[error(
        "the remote cache mode `{value}` from {origin} is not one archbuild knows\n  \
         hint: use `read-write` (the default) or `read-only` (pull-request builds)"
    )]
    BadMode { origin: String, value: String },
    #[error(
        "the remote cache timeout `{value}` from {origin} is not a number of seconds\n  \
         hint: use whole seconds such as `10`, or unset it for the default of 10"
    )]
    BadTimeout { origin: String, value: String },
    /// A signing key that is not usable; the message names the variable, never its value.
    #[error("the remote cache key in {var} is not usable: {why}\n  hint: {hint}")]
    BadKey {
        var: String,
        why: String,
        hint: String,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
