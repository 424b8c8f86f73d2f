//! archbuild's configuration, one crate below all the others, so the build driver, the runtime
//! loader, the cache store and the CLI read, spell and write every setting alike: the one reader
//! of environment variables and its one rule set ([`Env`]: trimmed, blank = unset, lists split
//! into paths, an observer for `cargo:rerun-if-env-changed`); the words every switch and size
//! accepts ([`is_on`], [`is_off`], [`parse_size()`]); archbuild's home directory ([`home_dir`]);
//! the remote cache's settings ([`RemoteConfig::resolve`], the one reader of
//! `ARCHBUILD_REMOTE_CACHE*` for the build cache and the JIT cache, with the URL mapped to its
//! storage engine by [`endpoint`] and held as a [`RemoteUrl`] that prints its password as `***`,
//! and the keys that sign and verify its entries, [`Signing`], which never print);
//! and the one atomic writer ([`write_atomic`], [`stage`]), honouring the umask, for cache
//! entries and every command's outputs. The cache store itself (keys, entries, tiers) is
//! `archbuild-store`, which reads its configuration from here.
//!
//! ```
//! use archbuild_config::{Env, RemoteConfig, RemoteMode, RemoteSettings};
//! let env = Env::from_vars([
//!     ("ARCHBUILD_REMOTE_CACHE", "redis://:secret@cache:6379/0"),
//!     ("ARCHBUILD_REMOTE_CACHE_MODE", " read-only "),
//! ]);
//! let remote = RemoteConfig::resolve(&env, &RemoteSettings::default()).unwrap().unwrap();
//! assert_eq!(remote.mode, RemoteMode::ReadOnly);
//! assert_eq!(remote.url.to_string(), "redis://:***@cache:6379/0");
//! ```

mod atomic;
mod endpoint;
mod env;
mod error;
mod home;
mod remote;
mod remote_url;
mod signing;
mod vocab;

pub use atomic::{current_umask, stage, write_atomic, Durability, Staged};
pub use endpoint::{endpoint, Endpoint, PASSWORD_VAR, USERNAME_VAR};
pub use env::Env;
pub use error::{Error, Result};
pub use home::{cache_dir, home_dir, user_home, CACHE_DIR_VARS, HOME_VAR};
pub use remote::{
    RemoteConfig, RemoteMode, RemoteSettings, SettingError, DEFAULT_TIMEOUT, MODE_VAR, TIMEOUT_VAR,
};
pub use remote_url::{RemoteUrl, URL_VAR};
pub use signing::{Signing, HMAC_KEY_VAR, PUBLIC_KEY_VAR, SIGNING_KEY_VAR};
pub use vocab::{is_off, is_on, parse_size};

/// The README's examples, compiled (and run) as doctests so the crates.io page stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
