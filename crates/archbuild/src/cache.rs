//! The content cache: entries addressed by a key that hashes every input of a compile phase.
//!
//! An entry is `magic | sha256(payload) | length | payload`, written to a temp file in the same
//! directory and renamed into place, so a reader sees a whole entry or none. Every read checks
//! the hash; a torn, truncated or tampered entry is treated as a miss and removed, so a killed
//! build leaves nothing a later build trusts. Keys are built from length-prefixed fields, so
//! `("ab", "c")` and `("a", "bc")` never collide.

use std::path::{Path, PathBuf};

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
#[derive(Debug, Clone)]
pub(crate) struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, ns: &str, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.dir.join(ns).join(&hex[..2]).join(&hex[2..])
    }

    /// The payload stored under `key`, if present and intact.
    pub fn get(&self, ns: &str, key: &Key) -> Option<Vec<u8>> {
        let path = self.path(ns, key);
        let bytes = std::fs::read(&path).ok()?;
        match decode(&bytes) {
            Some(payload) => Some(payload.to_vec()),
            None => {
                // Corrupt: never trust it, and don't trip over it again.
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Whether an entry exists (not verified: `get` verifies when the payload is read).
    pub fn contains(&self, ns: &str, key: &Key) -> bool {
        self.path(ns, key).is_file()
    }

    /// Stores `payload` under `key` atomically.
    pub fn put(&self, ns: &str, key: &Key, payload: &[u8]) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(HEADER + payload.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&Key::of(payload).0);
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(payload);
        write_atomic(&self.path(ns, key), &bytes)
    }

    /// Number of entries and their total size on disk.
    pub fn stats(&self) -> (u64, u64) {
        fn walk(dir: &Path, acc: &mut (u64, u64)) {
            let Ok(rd) = std::fs::read_dir(dir) else {
                return;
            };
            for e in rd.flatten() {
                let Ok(md) = e.metadata() else { continue };
                if md.is_dir() {
                    walk(&e.path(), acc);
                } else if !e.file_name().to_string_lossy().starts_with(".tmp-") {
                    acc.0 += 1;
                    acc.1 += md.len();
                }
            }
        }
        let mut acc = (0, 0);
        walk(&self.dir, &mut acc);
        acc
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
        let path = store.path("ptx", &key);
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
