//! The store: a directory of verified entries grouped by namespace (`ptx`, `cubin`, `deps`,
//! ...), in front of an optional remote tier.
//!
//! An entry (`entry`) is written to a temp file in its directory and renamed into place, so a
//! reader sees a whole entry or none; every read checks key and checksum, and an entry that
//! fails is removed and treated as a miss, so a killed build leaves nothing a later build
//! trusts. A local miss asks the remote tier; what it returns is verified the same way and kept
//! locally, so the next lookup makes no network round trip. A hit sets the entry's mtime to now,
//! and the store remembers every entry it read or wrote: eviction (least recently used first)
//! spares those.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::entry::{self, Rejection};
use crate::key::Key;
use crate::tier::Remote;
use archbuild_config::write_atomic;

/// The build cache's entry magic (the JIT cache has its own).
pub const BUILD_MAGIC: &[u8; 8] = b"ARCHBC04";

/// A directory of verified entries, with an optional remote tier. Clones share what they
/// remember of the build's use.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    magic: [u8; 8],
    remote: Option<Arc<Remote>>,
    /// Entries read or written through this store: eviction spares them.
    used: Arc<Mutex<HashSet<PathBuf>>>,
    /// Whether anything was written (else there is nothing new to evict for).
    wrote: Arc<AtomicBool>,
}

impl Store {
    /// A build cache at `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            magic: *BUILD_MAGIC,
            remote: None,
            used: Arc::default(),
            wrote: Arc::default(),
        }
    }

    /// Entries carry `magic` (each cache its own, so one never reads the other's entries).
    pub fn with_magic(mut self, magic: &[u8; 8]) -> Self {
        self.magic = *magic;
        self
    }

    /// Puts a remote tier behind the local one.
    pub fn with_remote(mut self, remote: Option<Arc<Remote>>) -> Self {
        self.remote = remote;
        self
    }

    pub fn remote(&self) -> Option<&Arc<Remote>> {
        self.remote.as_ref()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry for `key` lives: `<dir>/<ns>/<2 hex digits>/<62 hex digits>`, named by
    /// [`entry::name`] (the key with this store's entry format).
    pub fn entry_path(&self, ns: &str, key: &Key) -> PathBuf {
        let hex = entry::name(&self.magic, key);
        self.dir.join(ns).join(&hex[..2]).join(&hex[2..])
    }

    /// The payload stored under `key`, if present and intact here or in the remote tier; a hit
    /// marks the entry used.
    pub fn get(&self, ns: &str, key: &Key) -> Option<Vec<u8>> {
        self.get_local(ns, key)
            .or_else(|| self.fetch_remote(ns, key))
    }

    /// The local entry only (no network).
    pub fn get_local(&self, ns: &str, key: &Key) -> Option<Vec<u8>> {
        self.lookup_local(ns, key).ok().flatten()
    }

    /// The local entry, `None` when there is none, or why the one there was refused (it is
    /// then removed: never trusted, and not tripped over again). The header is read and checked
    /// first, then the payload straight into a buffer of its announced size: a multi-megabyte
    /// payload is copied once, and an entry of another key is refused without reading it.
    pub fn lookup_local(&self, ns: &str, key: &Key) -> Result<Option<Vec<u8>>, Rejection> {
        let path = self.entry_path(ns, key);
        let Ok(file) = File::open(&path) else {
            return Ok(None);
        };
        match read_entry(&file, &self.magic, key) {
            // An unreadable file is a miss, not damage: it is left alone.
            Err(_) => Ok(None),
            Ok(Ok(payload)) => {
                self.mark_used(path, &file);
                Ok(Some(payload))
            }
            Ok(Err(why)) => {
                let _ = std::fs::remove_file(&path);
                Err(why)
            }
        }
    }

    /// [`Store::get`], saying why a local entry was refused.
    pub fn lookup(&self, ns: &str, key: &Key) -> Result<Option<Vec<u8>>, Rejection> {
        match self.lookup_local(ns, key)? {
            Some(payload) => Ok(Some(payload)),
            None => Ok(self.fetch_remote(ns, key)),
        }
    }

    /// Downloads a verified entry and keeps it locally.
    fn fetch_remote(&self, ns: &str, key: &Key) -> Option<Vec<u8>> {
        let payload = self.remote.as_ref()?.get(&self.magic, ns, key)?;
        let path = self.entry_path(ns, key);
        // Best effort: a read-only local cache still serves what the remote returned.
        if write_atomic(&path, &entry::encode(&self.magic, key, &payload)).is_ok() {
            self.wrote.store(true, Ordering::Relaxed);
        }
        if let Ok(mut used) = self.used.lock() {
            used.insert(path);
        }
        Some(payload)
    }

    /// Whether an entry exists. A local entry is not read (`get` verifies it when the payload
    /// is needed); a remote one is downloaded, verified and kept locally. A hit marks the entry
    /// used.
    pub fn contains(&self, ns: &str, key: &Key) -> bool {
        let path = self.entry_path(ns, key);
        match File::open(&path) {
            Ok(file) if file.metadata().is_ok_and(|m| m.is_file()) => {
                self.mark_used(path, &file);
                true
            }
            _ => self.fetch_remote(ns, key).is_some(),
        }
    }

    /// Stores `payload` under `key` atomically, locally and (read-write mode) remotely.
    pub fn put(&self, ns: &str, key: &Key, payload: &[u8]) -> std::io::Result<()> {
        let bytes = entry::encode(&self.magic, key, payload);
        let path = self.entry_path(ns, key);
        let local = write_atomic(&path, &bytes);
        if local.is_ok() {
            self.wrote.store(true, Ordering::Relaxed);
            if let Ok(mut used) = self.used.lock() {
                used.insert(path);
            }
        }
        if let Some(r) = &self.remote {
            r.put_encoded(&self.magic, ns, key, &bytes);
        }
        local
    }

    /// Stores `payload` locally only: facts about this machine (file stamps) that mean nothing
    /// elsewhere.
    pub fn put_local(&self, ns: &str, key: &Key, payload: &[u8]) -> std::io::Result<()> {
        let path = self.entry_path(ns, key);
        write_atomic(&path, &entry::encode(&self.magic, key, payload))?;
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

    /// Whether this store (or a clone) wrote anything locally.
    pub fn wrote(&self) -> bool {
        self.wrote.load(Ordering::Relaxed)
    }
}

/// The verified payload of the entry in `file`, or why it was refused.
fn read_entry(
    file: &File,
    magic: &[u8; 8],
    key: &Key,
) -> std::io::Result<Result<Vec<u8>, Rejection>> {
    let size = file.metadata()?.len();
    let mut head = Vec::with_capacity(entry::HEADER);
    file.take(entry::HEADER as u64).read_to_end(&mut head)?;
    let header = match entry::check_header(magic, key, &head) {
        Ok(h) => h,
        Err(why) => return Ok(Err(why)),
    };
    // The file's size bounds the buffer, so a damaged length field allocates nothing.
    let actual = size.saturating_sub(entry::HEADER as u64);
    if actual != header.len {
        return Ok(Err(Rejection::Length {
            header: header.len,
            actual,
        }));
    }
    let mut payload = Vec::with_capacity(actual as usize);
    // One byte more than announced: a file that grew since `metadata` is caught as padded.
    file.take(actual + 1).read_to_end(&mut payload)?;
    Ok(header.check_payload(&payload).map(|()| payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tier::{Mem, Tier};
    use archbuild_config::{RemoteConfig, RemoteMode};

    #[derive(Debug)]
    struct Down;
    impl Tier for Down {
        fn get(&self, _: &str) -> Result<Option<Vec<u8>>, String> {
            Err("connection refused".into())
        }
        fn put(&self, _: &str, _: &[u8]) -> Result<(), String> {
            Err("connection refused".into())
        }
    }

    fn remote(tier: impl Tier + 'static, mode: RemoteMode) -> Option<Arc<Remote>> {
        let c = RemoteConfig::new("file:///mem", "test")
            .unwrap()
            .with_mode(mode);
        Some(Remote::with_tier(c, Box::new(tier)))
    }

    #[test]
    fn round_trip_and_corruption_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let key = Key::of(b"k");
        assert_eq!(store.get("ptx", &key), None);
        store.put("ptx", &key, b"payload").unwrap();
        assert_eq!(store.get("ptx", &key).as_deref(), Some(&b"payload"[..]));

        let path = store.entry_path("ptx", &key);
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(store.get("ptx", &key), None);
        assert!(!path.exists());
    }

    #[test]
    fn a_damaged_length_field_is_refused_before_the_payload_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let key = Key::of(b"k");
        store.put("cubin", &key, b"payload").unwrap();
        let path = store.entry_path("cubin", &key);
        let mut bytes = std::fs::read(&path).unwrap();
        // A length that no file could hold: refused by the file's size, nothing allocated.
        bytes[entry::HEADER - 8..entry::HEADER].copy_from_slice(&u64::MAX.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            store.lookup_local("cubin", &key),
            Err(Rejection::Length {
                header: u64::MAX,
                actual: 7
            })
        );
        assert!(!path.exists());
        store.put("cubin", &key, b"payload").unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(entry::HEADER - 1);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            store.lookup_local("cubin", &key),
            Err(Rejection::Truncated {
                len: entry::HEADER - 1
            })
        );
    }

    #[test]
    fn two_entry_formats_share_a_home_and_a_remote_without_touching_each_other() {
        // Two archbuild versions (another entry magic each) on one home directory and one
        // remote: each serves its own entry and neither refuses, deletes or overwrites the
        // other's.
        let mem = Mem::default();
        let dir = tempfile::tempdir().unwrap();
        let key = Key::of(b"same inputs");
        let old = Store::new(dir.path())
            .with_magic(b"ARCHBC03")
            .with_remote(remote(mem.clone(), RemoteMode::ReadWrite));
        let new = Store::new(dir.path()).with_remote(remote(mem.clone(), RemoteMode::ReadWrite));
        old.put("cubin", &key, b"old format").unwrap();
        new.put("cubin", &key, b"new format").unwrap();
        for _ in 0..2 {
            assert_eq!(old.lookup("cubin", &key), Ok(Some(b"old format".to_vec())));
            assert_eq!(new.lookup("cubin", &key), Ok(Some(b"new format".to_vec())));
        }
        // A second machine of each version is served by the remote.
        let elsewhere = tempfile::tempdir().unwrap();
        for (magic, payload) in [
            (b"ARCHBC03", &b"old format"[..]),
            (BUILD_MAGIC, b"new format"),
        ] {
            let s = Store::new(elsewhere.path())
                .with_magic(magic)
                .with_remote(remote(mem.clone(), RemoteMode::ReadOnly));
            assert_eq!(s.get("cubin", &key).as_deref(), Some(payload));
            assert_eq!(s.remote().unwrap().stats().rejected, 0);
        }
        assert_eq!(old.remote().unwrap().stats().rejected, 0);
        assert_eq!(new.remote().unwrap().stats().rejected, 0);
    }

    #[test]
    fn a_second_home_is_served_by_the_remote_and_keeps_the_entry() {
        let mem = Mem::default();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let key = Key::of(b"k");
        let sa = Store::new(a.path()).with_remote(remote(mem.clone(), RemoteMode::ReadWrite));
        sa.put("ptx", &key, b"ptx text").unwrap();
        let sb = Store::new(b.path()).with_remote(remote(mem.clone(), RemoteMode::ReadWrite));
        assert!(sb.contains("ptx", &key));
        assert!(sb.entry_path("ptx", &key).is_file(), "kept locally");
        assert_eq!(sb.get_local("ptx", &key).as_deref(), Some(&b"ptx text"[..]));
        assert_eq!(sb.remote().unwrap().stats().hits, 1);
    }

    #[test]
    fn read_only_writes_nothing_remote() {
        let mem = Mem::default();
        let dir = tempfile::tempdir().unwrap();
        let s = Store::new(dir.path()).with_remote(remote(mem.clone(), RemoteMode::ReadOnly));
        s.put("ptx", &Key::of(b"k"), b"x").unwrap();
        assert_eq!(mem.len(), 0);
        assert!(s.get_local("ptx", &Key::of(b"k")).is_some());
    }

    #[test]
    fn swapped_and_corrupted_remote_entries_are_never_served() {
        let mem = Mem::default();
        let dir = tempfile::tempdir().unwrap();
        let (k1, k2) = (Key::of(b"1"), Key::of(b"2"));
        let writer = Store::new(dir.path().join("w"))
            .with_remote(remote(mem.clone(), RemoteMode::ReadWrite));
        writer.put("cubin", &k1, b"one").unwrap();
        writer.put("cubin", &k2, b"two").unwrap();
        let at = |k| format!("cubin/{}", entry::name(BUILD_MAGIC, k));
        let mut one = mem.object(&at(&k1));
        mem.set(&at(&k2), one.clone()); // swapped
        *one.last_mut().unwrap() ^= 0x40; // corrupted
        mem.set(&at(&k1), one);
        let reader =
            Store::new(dir.path().join("r")).with_remote(remote(mem.clone(), RemoteMode::ReadOnly));
        assert_eq!(reader.get("cubin", &k1), None);
        assert!(!reader.contains("cubin", &k2));
        let stats = reader.remote().unwrap().stats();
        assert_eq!(stats.rejected, 2);
        assert!(stats.warnings[0].contains("checksum mismatch"), "{stats:?}");
        assert!(stats.warnings[1].contains("another key"), "{stats:?}");
    }

    #[test]
    fn a_failing_remote_warns_once_and_the_local_tier_carries_on() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::new(dir.path()).with_remote(remote(Down, RemoteMode::ReadWrite));
        for i in 0..5u8 {
            assert_eq!(s.get("ptx", &Key::of(&[i])), None);
            s.put("ptx", &Key::of(&[i]), b"x").unwrap();
        }
        assert_eq!(s.get("ptx", &Key::of(&[0])).as_deref(), Some(&b"x"[..]));
        let stats = s.remote().unwrap().stats();
        assert!(stats.disabled);
        assert_eq!(stats.warnings.len(), 1, "{stats:?}");
        assert!(stats.warnings[0].contains("connection refused"));
    }
}
