//! archbuild's persistent JIT cache: cubins compiled from PTX, keyed on the PTX, the target and
//! the compiler, so a second start of a program skips a JIT that costs seconds.
//!
//! It is an `archbuild_store::Store` (the build cache's store, with its own entry magic), so the
//! guarantees are the store's: the directory is private (0700, checked here); an entry is
//! written to a temporary file and renamed into place, so readers see a whole entry or none;
//! every entry carries its key and an XXH3-128 checksum of its cubin, both verified before every
//! load, so a corrupted, truncated or swapped entry is never loaded (the loader recompiles and
//! rewrites it); the size cap is kept by the store's least-recently-used eviction after every
//! write (a hit touches the entry's mtime). Entries are flushed best effort only: after a crash
//! an entry may be torn, which the checksum catches. Its remote tier is configured by the
//! store's one reader of `ARCHBUILD_REMOTE_CACHE*` (the build cache's too), and `cargo
//! archbuild cache` manages it through the store's one cache-directory interface
//! ([`JitCache::cache_dir`]).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use archbuild_config::{home_dir, Env, RemoteConfig, RemoteSettings};
use archbuild_store::{CacheDir, Key, Remote, RemoteStats, Store};

/// Why the store refused an entry (its `Display` is the reason people read).
pub use archbuild_store::entry::Rejection;

use crate::env;
use crate::error::{Error, Result};

/// Default size cap: 256 MiB, the driver's own default for its JIT cache.
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;

const MAGIC: &[u8; 8] = b"ABJIT\x03\0\0";
/// The store namespace of JIT results, locally (`<dir>/jit/<2 hex>/<62 hex>`) and remotely.
const NS: &str = "jit";

/// What a cache entry is for: a hash of the PTX, the target and the compiler identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    digest: [u8; 32],
}

impl CacheKey {
    /// `ptx`: the PTX text (a trailing NUL is ignored); `target`: what it is compiled for
    /// (`sm_90`, `sm_90a`); `compiler`: the compiler identity (`driver CUDA 13.0`,
    /// `nvJitLink 13.5`).
    pub fn new(ptx: &[u8], target: &str, compiler: &str) -> Self {
        Self::from_digest(
            *blake3::hash(crate::backend::ptx_text(ptx)).as_bytes(),
            target,
            compiler,
        )
    }

    /// Like [`CacheKey::new`] with the PTX already reduced to a digest that identifies it
    /// (the loader uses [`crate::FatBinary::image_digest`], which needs no decompression).
    pub fn from_digest(content: [u8; 32], target: &str, compiler: &str) -> Self {
        let mut h = blake3::Hasher::new();
        h.update(b"archbuild-jit-key-v2\0");
        h.update(&content);
        for part in [target, compiler] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        Self {
            digest: *h.finalize().as_bytes(),
        }
    }

    /// The key as 64 hex digits (the entry's file stem).
    pub fn hex(&self) -> String {
        archbuild_store::Key(self.digest).hex()
    }
}

/// The outcome of a lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A verified cubin.
    Hit(Vec<u8>),
    /// No entry.
    Miss,
    /// An entry existed but failed verification (it was removed); the store says why.
    Rejected(Rejection),
}

/// A JIT cache directory, optionally in front of a remote tier shared by a fleet.
#[derive(Debug, Clone)]
pub struct JitCache {
    store: Store,
    max_bytes: u64,
}

impl JitCache {
    /// Opens (creating if needed) the cache at `dir` and makes it private (0700). Fails if the
    /// directory cannot be created or belongs to someone else.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        let err = |action, source| Error::Cache {
            path: dir.clone(),
            action,
            source,
        };
        fs::create_dir_all(&dir).map_err(|e| err("creating the directory", e))?;
        let meta = fs::metadata(&dir).map_err(|e| err("reading the directory", e))?;
        if meta.permissions().mode() & 0o777 != 0o700 {
            // chmod fails with EPERM unless we own the directory: a shared or planted
            // directory is refused instead of used.
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| err("making the directory private (chmod 0700)", e))?;
        }
        Ok(Self {
            store: Store::new(dir).with_magic(MAGIC),
            max_bytes: DEFAULT_MAX_BYTES,
        })
    }

    /// The cache configured by the environment: `ARCHBUILD_JIT_CACHE` (a directory, or `off`),
    /// else `<ARCHBUILD_HOME>/jit` (`<user cache dir>/archbuild/jit` by default); cap from
    /// `ARCHBUILD_JIT_CACHE_MAX_BYTES`.
    /// `Ok(None)` means caching is off (or there is no user cache directory).
    pub fn from_env() -> Result<Option<Self>> {
        Self::from_vars(&Env::process())
    }

    /// [`JitCache::from_env`] for the variables of `vars` (a fixed set in tests and embedders).
    pub fn from_vars(vars: &Env) -> Result<Option<Self>> {
        let dir = if vars.is_off(env::JIT_CACHE) {
            return Ok(None);
        } else if let Some(dir) = vars.path(env::JIT_CACHE) {
            dir
        } else {
            match default_dir(vars) {
                Some(d) => d,
                None => return Ok(None),
            }
        };
        let max = vars
            .size(env::JIT_CACHE_MAX_BYTES)
            .map_err(|value| Error::Env {
                var: env::JIT_CACHE_MAX_BYTES,
                value,
                detail: "expected a size such as `268435456`, `512M` or `2G`; fix the value or \
                         unset it for the default of 256M"
                    .into(),
            })?
            .unwrap_or(DEFAULT_MAX_BYTES);
        let remote = remote_from_env(vars)?;
        Ok(Some(
            Self::open(dir)?.with_max_bytes(max).with_remote(remote),
        ))
    }

    /// Puts a remote tier behind this cache: a local miss asks it (verifying what comes back),
    /// and every new entry is uploaded (unless read-only).
    pub fn with_remote(mut self, remote: Option<Arc<Remote>>) -> Self {
        self.store = self.store.with_remote(remote);
        self
    }

    /// What the remote tier did so far, when there is one.
    pub fn remote_stats(&self) -> Option<RemoteStats> {
        self.store.remote().map(|r| r.stats())
    }

    /// `<ARCHBUILD_HOME>/jit`, the home being `<user cache dir>/archbuild` unless set
    /// (`~/.cache/archbuild/jit` on Linux), as for the build cache and toolkits.
    pub fn default_dir() -> Option<PathBuf> {
        default_dir(&Env::process())
    }

    /// This cache as `cargo archbuild cache` manages it (the build cache's interface too).
    pub fn cache_dir(&self) -> CacheDir {
        CacheDir::new("jit", self.dir(), self.max_bytes)
    }

    /// Sets the size cap in bytes.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// The size cap in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Where the entry for `key` lives.
    pub fn entry_path(&self, key: &CacheKey) -> PathBuf {
        self.store.entry_path(NS, &Key(key.digest))
    }

    /// Looks `key` up, locally then in the remote tier. A hit is verified (key and checksum)
    /// and marks the entry as recently used; an entry that fails verification is removed and
    /// reported as [`Lookup::Rejected`].
    pub fn get(&self, key: &CacheKey) -> Lookup {
        match self.store.lookup(NS, &Key(key.digest)) {
            Ok(Some(cubin)) => {
                if self.store.remote().is_some() {
                    // A remote hit may have added an entry: keep the cap.
                    self.keep_cap(&self.entry_path(key));
                }
                Lookup::Hit(cubin)
            }
            Ok(None) => Lookup::Miss,
            Err(why) => Lookup::Rejected(why),
        }
    }

    /// Stores `cubin` under `key` atomically (and in the remote tier, unless read-only), then
    /// evicts least recently used entries until the cache fits its cap (never the entry just
    /// written).
    pub fn put(&self, key: &CacheKey, cubin: &[u8]) -> Result<()> {
        let path = self.entry_path(key);
        self.store
            .put(NS, &Key(key.digest), cubin)
            .map_err(|source| Error::Cache {
                path: path.clone(),
                action: "writing an entry",
                source,
            })?;
        self.keep_cap(&path);
        Ok(())
    }

    /// The entries (path, size, last use), oldest first.
    pub fn entries(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let (entries, _) = archbuild_store::scan(self.store.dir(), SystemTime::now());
        let mut v: Vec<_> = entries
            .into_iter()
            .map(|e| (e.path, e.len, e.used))
            .collect();
        v.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
        v
    }

    /// Total bytes of the entries.
    pub fn size(&self) -> u64 {
        self.cache_dir().usage().bytes
    }

    /// Evicts least recently used entries until the cache fits its cap, sparing `keep` (the
    /// entry just written or fetched).
    fn keep_cap(&self, keep: &Path) {
        self.store
            .evict_sparing(self.max_bytes, |e| e.path.as_path() == keep);
    }
}

/// `<ARCHBUILD_HOME>/jit` for the home `vars` name.
fn default_dir(vars: &Env) -> Option<PathBuf> {
    Some(home_dir(|k| vars.var(k))?.join("jit"))
}

/// The remote tier `ARCHBUILD_REMOTE_CACHE` names (`off` or unset: none), read by the store's
/// one reader, as the build reads it (`ARCHBUILD_REMOTE_CACHE_TIMEOUT` included).
fn remote_from_env(vars: &Env) -> Result<Option<Arc<Remote>>> {
    let config =
        RemoteConfig::resolve(vars, &RemoteSettings::default()).map_err(|e| Error::Env {
            var: e.origin,
            value: e.value,
            detail: e.error.to_string(),
        })?;
    Ok(config.map(Remote::open))
}
