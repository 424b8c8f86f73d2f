//! The content cache: entries addressed by a key that hashes every input of a compile phase.
//!
//! An entry is `magic | sha256(payload) | length | payload`, written to a temp file in the same
//! directory and renamed into place, so a reader sees a whole entry or none. Every read checks
//! the hash; a torn, truncated or tampered entry is treated as a miss and removed, so a killed
//! build leaves nothing a later build trusts. Keys are built from length-prefixed fields, so
//! `("ab", "c")` and `("a", "bc")` never collide.
//!
//! A hit (`get`, `contains`) sets the entry's mtime to now, and the store remembers every entry
//! it read or wrote: after the build, `evict` removes the least recently used entries beyond
//! the size cap and spares those.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::paths::write_atomic;

const MAGIC: &[u8; 8] = b"ARCHBC01";
const HEADER: usize = 8 + 32 + 8;

/// A 256-bit cache key (or content hash).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Key(pub [u8; 32]);

impl Key {
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The hash of some bytes.
    pub fn of(bytes: &[u8]) -> Self {
        Key(Sha256::digest(bytes).into())
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({})", &self.hex()[..16])
    }
}

/// Builds a key from labelled, length-prefixed fields.
#[derive(Clone)]
pub(crate) struct KeyBuilder(Sha256);

impl KeyBuilder {
    pub fn new(kind: &str) -> Self {
        let mut b = Self(Sha256::new());
        b.field("archbuild-key-v1", kind.as_bytes());
        b
    }

    pub fn field(&mut self, label: &str, value: &[u8]) -> &mut Self {
        for part in [label.as_bytes(), value] {
            self.0.update((part.len() as u64).to_le_bytes());
            self.0.update(part);
        }
        self
    }

    pub fn str(&mut self, label: &str, value: &str) -> &mut Self {
        self.field(label, value.as_bytes())
    }

    pub fn key(&mut self, label: &str, value: &Key) -> &mut Self {
        self.field(label, &value.0)
    }

    pub fn finish(&self) -> Key {
        Key(self.0.clone().finalize().into())
    }
}

/// A directory of verified entries, grouped by namespace (`ptx`, `cubin`, `deps`, ...).
/// Clones share what they remember of the build's use.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    dir: PathBuf,
    /// Entries read or written through this store: eviction spares them.
    used: Arc<Mutex<HashSet<PathBuf>>>,
    /// Whether anything was written (else there is nothing new to evict for).
    wrote: Arc<AtomicBool>,
}

impl Store {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            used: Arc::default(),
            wrote: Arc::default(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry for `key` lives: `<dir>/<ns>/<2 hex digits>/<62 hex digits>`.
    pub fn entry_path(&self, ns: &str, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.dir.join(ns).join(&hex[..2]).join(&hex[2..])
    }

    /// The payload stored under `key`, if present and intact; a hit marks the entry used.
    pub fn get(&self, ns: &str, key: &Key) -> Option<Vec<u8>> {
        let path = self.entry_path(ns, key);
        let mut file = File::open(&path).ok()?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        match decode(&bytes) {
            Some(payload) => {
                self.mark_used(path, &file);
                Some(payload.to_vec())
            }
            None => {
                // Corrupt: never trust it, and don't trip over it again.
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Whether an entry exists (not verified: `get` verifies when the payload is read); a hit
    /// marks the entry used.
    pub fn contains(&self, ns: &str, key: &Key) -> bool {
        let path = self.entry_path(ns, key);
        match File::open(&path) {
            Ok(file) if file.metadata().is_ok_and(|m| m.is_file()) => {
                self.mark_used(path, &file);
                true
            }
            _ => false,
        }
    }

    /// Stores `payload` under `key` atomically.
    pub fn put(&self, ns: &str, key: &Key, payload: &[u8]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(HEADER + payload.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&Key::of(payload).0);
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(payload);
        let path = self.entry_path(ns, key);
        write_atomic(&path, &bytes)?;
        self.wrote.store(true, Ordering::Relaxed);
        if let Ok(mut used) = self.used.lock() {
            used.insert(path);
        }
        Ok(())
    }

    /// Remembers a hit and sets its mtime to now (best effort: a read-only cache still serves).
    fn mark_used(&self, path: PathBuf, file: &File) {
        // futimens works on a read-only descriptor of a file we own.
        let _ = file.set_modified(SystemTime::now());
        if let Ok(mut used) = self.used.lock() {
            used.insert(path);
        }
    }

    /// Whether this store (or a clone) read or wrote the entry at `path`.
    pub fn used_this_build(&self, path: &Path) -> bool {
        self.used.lock().is_ok_and(|used| used.contains(path))
    }

    /// Whether this store (or a clone) wrote anything.
    pub fn wrote(&self) -> bool {
        self.wrote.load(Ordering::Relaxed)
    }

    /// Number of entries and their total size on disk (temp files not counted).
    pub fn stats(&self) -> (u64, u64) {
        let (entries, _) = crate::evict::scan(&self.dir, SystemTime::now());
        (entries.len() as u64, entries.iter().map(|e| e.len).sum())
    }
}

fn decode(bytes: &[u8]) -> Option<&[u8]> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(bytes[40..48].try_into().ok()?);
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len || Key::of(payload).0 != bytes[8..40] {
        return None;
    }
    Some(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_unambiguous() {
        let a = KeyBuilder::new("t").str("x", "ab").str("y", "c").finish();
        let b = KeyBuilder::new("t").str("x", "a").str("y", "bc").finish();
        assert_ne!(a, b);
        assert_eq!(
            a,
            KeyBuilder::new("t").str("x", "ab").str("y", "c").finish()
        );
    }

    #[test]
    fn round_trip_and_corruption_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let key = Key::of(b"k");
        assert_eq!(store.get("ptx", &key), None);
        store.put("ptx", &key, b"payload").unwrap();
        assert_eq!(store.get("ptx", &key).as_deref(), Some(&b"payload"[..]));
        assert_eq!(store.stats().0, 1);

        // Flip one payload byte: the entry must not be served, and is removed.
        let path = store.entry_path("ptx", &key);
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(store.get("ptx", &key), None);
        assert!(!path.exists());

        // A truncated entry (as a killed writer without rename could never leave, but a disk
        // full might) is a miss too.
        store.put("ptx", &key, b"payload").unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
        assert_eq!(store.get("ptx", &key), None);
    }
}
