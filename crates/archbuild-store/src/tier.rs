//! The second tier of a store: a shared cache other machines read and write. [`Tier`] is the
//! interface a storage engine implements (OpenDAL's, behind the `remote` feature, or a test's);
//! [`Remote`] wraps one with what makes it safe to put under a build: a read-only mode, one
//! warning and local-only operation after the first failure, and counters for the report.
//!
//! Entries travel in the local format (`entry`), so the reader verifies key and checksum of
//! everything it downloads: a corrupted or swapped remote entry is counted, skipped and never
//! served. With a signing key configured, they travel signed (`sign`): the writer signs each
//! entry with its remote path, the reader refuses anything unsigned or not signed by the key it
//! trusts as it refuses a damaged entry, and a machine holding only the public key never writes.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::entry;
use crate::key::Key;
use crate::sign;
use archbuild_config::{RemoteConfig, RemoteMode, MODE_VAR, PUBLIC_KEY_VAR, SIGNING_KEY_VAR};

/// A storage engine holding entries under `<namespace>/<key hex>` paths.
pub trait Tier: Send + Sync + std::fmt::Debug {
    /// The entry's bytes, `Ok(None)` when absent; `Err` for a failure of the engine.
    fn get(&self, path: &str) -> Result<Option<Vec<u8>>, String>;
    /// Stores the entry's bytes (whole: engines write objects atomically).
    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), String>;
}

/// Counters of one process's use of a remote cache.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RemoteStats {
    /// The remote's URL with its password hidden (`redis://:***@host:6379/0`).
    pub url: String,
    pub mode: String,
    /// Entries downloaded and verified.
    pub hits: u64,
    /// Lookups that found nothing.
    pub misses: u64,
    /// Entries uploaded.
    pub writes: u64,
    /// Downloaded entries that failed verification (never served).
    pub rejected: u64,
    /// Whether the remote failed and the rest ran on the local cache alone.
    pub disabled: bool,
    /// The warnings given (at most one for a failure, one per rejected entry).
    pub warnings: Vec<String>,
}

type Opener = Box<dyn Fn() -> Result<Box<dyn Tier>, String> + Send + Sync>;

/// A remote tier in use: opened on first use (a build served from the local tier never
/// connects), given up on its first failure.
pub struct Remote {
    config: RemoteConfig,
    opener: Opener,
    tier: OnceLock<Result<Box<dyn Tier>, String>>,
    disabled: AtomicBool,
    hits: AtomicU64,
    misses: AtomicU64,
    writes: AtomicU64,
    rejected: AtomicU64,
    /// Whether this process said that a public key alone makes it read-only.
    told_read_only: AtomicBool,
    warnings: Mutex<Vec<String>>,
    /// Paths found absent or damaged: not asked again by this process (a build asks whether
    /// an entry exists, then reads it).
    known_bad: Mutex<HashSet<String>>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.config.url)
            .field("mode", &self.config.mode)
            .field("signing", self.config.signing())
            .finish_non_exhaustive()
    }
}

impl Remote {
    /// A remote served by OpenDAL (the `remote` feature); without the feature, a remote that
    /// warns once that this build of archbuild cannot reach it and serves nothing.
    pub fn open(config: RemoteConfig) -> Arc<Self> {
        let c = config.clone();
        let opener: Opener = Box::new(move || crate::open_tier(&c));
        Arc::new(Self::with_opener(config, opener))
    }

    /// A remote served by a given tier (tests, embedders with their own engine).
    pub fn with_tier(config: RemoteConfig, tier: Box<dyn Tier>) -> Arc<Self> {
        let r = Self::with_opener(config, Box::new(|| Err("unreachable".into())));
        let _ = r.tier.set(Ok(tier));
        Arc::new(r)
    }

    fn with_opener(config: RemoteConfig, opener: Opener) -> Self {
        Self {
            config,
            opener,
            tier: OnceLock::new(),
            disabled: AtomicBool::new(false),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            told_read_only: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            known_bad: Mutex::new(HashSet::new()),
        }
    }

    pub fn config(&self) -> &RemoteConfig {
        &self.config
    }

    fn tier(&self) -> Option<&dyn Tier> {
        if self.disabled.load(Ordering::Relaxed) {
            return None;
        }
        match self.tier.get_or_init(|| (self.opener)()) {
            Ok(t) => Some(t.as_ref()),
            Err(e) => {
                self.give_up(e);
                None
            }
        }
    }

    fn give_up(&self, why: &str) {
        if !self.disabled.swap(true, Ordering::SeqCst) {
            // An engine's error may quote what it was given.
            let why = self.config.scrub(why);
            self.warn(format!(
                "the remote cache {} failed ({why}); this build goes on with the local cache \
                 only (check that the server is up and reachable and its user name and \
                 password are right, or unset ARCHBUILD_REMOTE_CACHE)",
                self.config.url
            ));
        }
    }

    fn warn(&self, text: String) {
        if let Ok(mut w) = self.warnings.lock() {
            w.push(text);
        }
    }

    /// The verified payload of `key` in namespace `ns`, if the remote has an intact entry (and,
    /// where a key is configured, one signed with it).
    pub fn get(&self, magic: &[u8; 8], ns: &str, key: &Key) -> Option<Vec<u8>> {
        let path = sign::path(self.config.signing(), magic, ns, key);
        if self.known_bad.lock().is_ok_and(|b| b.contains(&path)) {
            return None;
        }
        let tier = self.tier()?;
        let payload = match tier.get(&path) {
            Ok(Some(bytes)) => match self.checked(magic, key, &path, &bytes) {
                Ok(payload) => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return Some(payload.to_vec());
                }
                Err(()) => None,
            },
            Ok(None) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
            Err(e) => {
                self.give_up(&e);
                return None;
            }
        };
        // Absent or refused: not asked again by this process (nor warned about twice).
        if let Ok(mut b) = self.known_bad.lock() {
            b.insert(path);
        }
        payload
    }

    /// The payload of a downloaded object, or `Err` once it is counted and warned about.
    fn checked<'a>(
        &self,
        magic: &[u8; 8],
        key: &Key,
        path: &str,
        bytes: &'a [u8],
    ) -> Result<&'a [u8], ()> {
        let entry = sign::open(self.config.signing(), path, bytes).map_err(|why| {
            self.reject(
                path,
                &why.to_string(),
                "someone without the key wrote it, or the writers sign with another key: check \
                 who writes to",
            )
        })?;
        entry::verify(magic, key, entry).map_err(|why| {
            self.reject(
                path,
                &why.to_string(),
                "a writer with a bug, a damaged store, or someone writing bad entries: check who \
                 writes to",
            )
        })
    }

    fn reject(&self, path: &str, why: &str, who: &str) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
        self.warn(format!(
            "the remote cache entry {path} failed verification ({why}); it was not used and \
             the result is rebuilt ({who} {})",
            self.config.url
        ));
    }

    /// Whether this machine must sign and cannot (a public key alone): then it never writes,
    /// and says so once.
    fn verify_only(&self) -> bool {
        let s = self.config.signing();
        let verify_only = s.is_required() && !s.can_sign();
        if verify_only && !self.told_read_only.swap(true, Ordering::SeqCst) {
            self.warn(format!(
                "the remote cache {} is read-only on this machine: {PUBLIC_KEY_VAR} verifies its \
                 entries but cannot sign them, so nothing is uploaded (set {MODE_VAR}=read-only \
                 to say so, or give {SIGNING_KEY_VAR} to the machines that should write)",
                self.config.url
            ));
        }
        verify_only
    }

    /// Uploads an encoded entry, signed where a key is configured (nothing in read-only mode,
    /// with a public key alone, or after a failure).
    pub fn put_encoded(&self, magic: &[u8; 8], ns: &str, key: &Key, bytes: &[u8]) {
        if self.config.mode == RemoteMode::ReadOnly || self.verify_only() {
            return;
        }
        let Some(tier) = self.tier() else { return };
        let signing = self.config.signing();
        let path = sign::path(signing, magic, ns, key);
        let sealed;
        let bytes = if signing.is_required() {
            let Some(s) = sign::seal(signing, &path, bytes) else {
                return;
            };
            sealed = s;
            &sealed
        } else {
            bytes
        };
        if let Ok(mut b) = self.known_bad.lock() {
            b.remove(&path);
        }
        match tier.put(&path, bytes) {
            Ok(()) => {
                self.writes.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => self.give_up(&e),
        }
    }

    /// What happened so far.
    pub fn stats(&self) -> RemoteStats {
        RemoteStats {
            url: self.config.url.redacted(),
            mode: if self.config.signing().is_required() && !self.config.signing().can_sign() {
                RemoteMode::ReadOnly.as_str().to_owned()
            } else {
                self.config.mode.as_str().to_owned()
            },
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            disabled: self.disabled.load(Ordering::Relaxed),
            warnings: self.warnings.lock().map(|w| w.clone()).unwrap_or_default(),
        }
    }
}

/// An in-memory remote engine for the crate's unit tests (the real engines are tested against
/// real servers in `tests/`).
#[cfg(test)]
#[derive(Debug, Default, Clone)]
pub(crate) struct Mem(std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>>);

#[cfg(test)]
impl Tier for Mem {
    fn get(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(self.0.lock().unwrap().get(path).cloned())
    }
    fn put(&self, path: &str, bytes: &[u8]) -> Result<(), String> {
        self.0.lock().unwrap().insert(path.into(), bytes.to_vec());
        Ok(())
    }
}

#[cfg(test)]
impl Mem {
    /// Writes an object behind the store's back (a planted or corrupted entry).
    pub(crate) fn set(&self, path: &str, bytes: Vec<u8>) {
        self.0.lock().unwrap().insert(path.into(), bytes);
    }
    /// The stored object at `path`.
    pub(crate) fn object(&self, path: &str) -> Vec<u8> {
        self.0.lock().unwrap()[path].clone()
    }
    /// How many objects are stored.
    pub(crate) fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}
