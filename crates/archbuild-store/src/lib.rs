//! archbuild's cache store, shared by the build cache (`archbuild`) and the JIT cache
//! (`archbuild-runtime`): keys built from every input that shapes an output, one verified entry
//! format, a local tier of atomically written files, and a remote tier on storage people
//! already run (Redis, WebDAV, S3, GCS, Azure Blob, the GitHub Actions cache, a shared
//! directory) behind the `remote` feature. The one reader of environment variables ([`Env`]),
//! the words every switch and size accepts, the one remote cache configuration reader
//! ([`RemoteConfig::resolve`]), the one cache-directory interface ([`CacheDir`]) and the one
//! atomic writer ([`write_atomic`], [`stage`]) live here too, so all of archbuild reads, spells,
//! manages and writes them alike.
//!
//! ```
//! use archbuild_store::{Key, KeyBuilder, Store};
//! let dir = tempfile::tempdir().unwrap();
//! let store = Store::new(dir.path());
//! let key = KeyBuilder::new("example").str("input", "x").finish();
//! store.put("ptx", &key, b"payload").unwrap();
//! assert_eq!(store.get("ptx", &key).as_deref(), Some(&b"payload"[..]));
//! ```

mod atomic;
mod cache_dir;
mod config;
mod endpoint;
pub mod entry;
mod env;
mod error;
mod home;
mod key;
mod local;
mod lru;
#[cfg(feature = "remote")]
mod remote;
mod remote_url;
mod tier;
mod vocab;

pub use atomic::{current_umask, stage, write_atomic, Durability, Staged};
pub use cache_dir::{CacheDir, Usage};
pub use config::{
    RemoteConfig, RemoteMode, RemoteSettings, SettingError, DEFAULT_TIMEOUT, MODE_VAR, TIMEOUT_VAR,
    URL_VAR,
};
pub use endpoint::{endpoint, Endpoint, PASSWORD_VAR, USERNAME_VAR};
pub use env::Env;
pub use error::{Error, Result};
pub use home::{home_dir, HOME_VAR};
pub use key::{Key, KeyBuilder};
pub use local::{Store, BUILD_MAGIC};
pub use lru::{scan, Entry, Eviction};
pub use remote_url::RemoteUrl;
pub use tier::{Remote, RemoteStats, Tier};
pub use vocab::{is_off, is_on, parse_size};

/// Whether this build can reach remote caches (the `remote` feature).
pub const REMOTE_SUPPORTED: bool = cfg!(feature = "remote");

#[cfg(feature = "remote")]
fn open_tier(config: &RemoteConfig) -> std::result::Result<Box<dyn Tier>, String> {
    remote::open(config)
}

#[cfg(not(feature = "remote"))]
fn open_tier(_: &RemoteConfig) -> std::result::Result<Box<dyn Tier>, String> {
    Err(
        "this build of archbuild has no remote tier: enable the `remote` feature of the \
         `archbuild` (build.rs) or `archbuild-runtime` crate, or use `cargo archbuild`, which \
         has it"
            .into(),
    )
}
