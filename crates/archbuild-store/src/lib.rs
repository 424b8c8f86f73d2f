//! archbuild's cache store, shared by the build cache (`archbuild`) and the JIT cache
//! (`archbuild-runtime`): keys built from every input that shapes an output, one verified entry
//! format, a local tier of atomically written files, and a remote tier on storage people
//! already run (Redis, WebDAV, S3, GCS, Azure Blob, the GitHub Actions cache, a shared
//! directory) behind the `remote` feature, whose entries can be signed (HMAC-SHA256 or ed25519,
//! `sign`) so a shared cache proves who wrote them, and the one cache-directory interface
//! ([`CacheDir`]) that `cargo archbuild cache` runs for both caches. Its configuration (the remote
//! cache's settings, the environment reader) and the atomic writer its local tier writes with are
//! `archbuild-config`'s.
//!
//! ```
//! use archbuild_store::{Key, KeyBuilder, Store};
//! let dir = tempfile::tempdir().unwrap();
//! let store = Store::new(dir.path());
//! let key = KeyBuilder::new("example").str("input", "x").finish();
//! store.put("ptx", &key, b"payload").unwrap();
//! assert_eq!(store.get("ptx", &key).as_deref(), Some(&b"payload"[..]));
//! ```

mod cache_dir;
pub mod entry;
mod key;
mod local;
mod lru;
#[cfg(feature = "remote")]
mod remote;
#[cfg(feature = "remote")]
mod sign;
#[cfg(not(feature = "remote"))]
#[path = "sign_off.rs"]
mod sign;
// Its fail-closed rules are tested in every build, the workspace's (remote on) included.
#[cfg(all(test, feature = "remote"))]
mod sign_off;
mod tier;

use archbuild_config::RemoteConfig;

pub use cache_dir::{CacheDir, Usage};
pub use key::{Key, KeyBuilder};
pub use local::{Store, BUILD_MAGIC};
pub use lru::{scan, Entry, Eviction};
pub use tier::{Remote, RemoteStats, Tier};

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
