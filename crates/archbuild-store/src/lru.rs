//! Keeping a store under a size cap, least recently used first: both caches (the build cache
//! after each build, the JIT cache after each write) call [`Store::evict`].
//!
//! The entries are listed with their size and mtime (a hit sets an entry's mtime to now, see
//! `Store::get`) and the least recently used are removed until the total fits the cap. Never
//! removed: entries this store read or wrote (it remembers them) and anything used since
//! `since` (a concurrent user's), so a cap smaller than one build leaves the store over the cap
//! instead of breaking the build. Only files laid out like entries (`<namespace>/<2 hex>/<62
//! hex>`) are counted or removed, so a cache directory pointed at a shared folder loses nothing
//! else. Temp files (`.tmp-*`) of writers killed mid-write are removed after an hour, temp build
//! directories (`tmp/.tmp-build-*`) of killed builds after a day (a compile can run for long);
//! younger ones belong to running writers and are neither counted nor touched. Races with other
//! processes are harmless: a file already gone counts as removed, and readers treat a vanished
//! entry as a miss.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::local::Store;

/// `.tmp-*` files older than this are leftovers of a killed writer.
const STALE_TMP_FILE: Duration = Duration::from_secs(60 * 60);
/// `tmp/.tmp-build-*` directories older than this (by their newest file) are a killed build's.
const STALE_TMP_DIR: Duration = Duration::from_secs(24 * 60 * 60);
/// A build's own timestamps may trail its start clock a little (coarse filesystem clocks).
const SLACK: Duration = Duration::from_secs(2);

/// What an eviction removed and left.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Eviction {
    /// Entries removed and their bytes.
    pub entries: u64,
    pub bytes: u64,
    /// The cap in bytes.
    pub cap: u64,
    /// Bytes of entries left (above the cap when the spared entries alone exceed it).
    pub remaining: u64,
}

/// A cache entry: where it is, its size, when it was last used.
#[derive(Debug)]
pub struct Entry {
    pub path: PathBuf,
    pub len: u64,
    pub used: SystemTime,
}

/// The entries of the store at `root`, and the temp files and directories old enough (at `now`)
/// to be leftovers. Reads only.
pub fn scan(root: &Path, now: SystemTime) -> (Vec<Entry>, Vec<PathBuf>) {
    let age = |t: SystemTime| now.duration_since(t).unwrap_or_default();
    let (mut entries, mut stale) = (Vec::new(), Vec::new());
    for (ns, _) in children(root).filter(|(_, md)| md.is_dir()) {
        if ns.file_name().is_some_and(|n| n == "tmp") {
            for (dir, md) in children(&ns).filter(|(p, md)| md.is_dir() && is_temp(p)) {
                let newest = children(&dir)
                    .map(|(_, m)| mtime(&m))
                    .fold(mtime(&md), SystemTime::max);
                if age(newest) > STALE_TMP_DIR {
                    stale.push(dir);
                }
            }
            continue;
        }
        for (shard, _) in children(&ns).filter(|(p, md)| md.is_dir() && hex_name(p, 2)) {
            for (path, md) in children(&shard).filter(|(_, md)| md.is_file()) {
                if is_temp(&path) {
                    if age(mtime(&md)) > STALE_TMP_FILE {
                        stale.push(path);
                    }
                } else if hex_name(&path, 62) {
                    let used = mtime(&md);
                    let len = md.len();
                    entries.push(Entry { path, len, used });
                }
            }
        }
    }
    (entries, stale)
}

/// A directory's children with their metadata (symlinks not followed); unreadable ones skipped.
fn children(dir: &Path) -> impl Iterator<Item = (PathBuf, Metadata)> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.path(), e.metadata().ok()?)))
}

fn mtime(md: &Metadata) -> SystemTime {
    md.modified().unwrap_or(SystemTime::UNIX_EPOCH)
}

fn is_temp(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(".tmp-"))
}

fn hex_name(path: &Path, len: usize) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n.len() == len && n.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

impl Store {
    /// Removes leftover temp files, then least recently used entries until the store fits
    /// `max_bytes`, sparing what this store read or wrote and anything used since `since` (a
    /// build's own entries, and a concurrent build's).
    pub fn evict(&self, max_bytes: u64, since: SystemTime) -> Eviction {
        let recent = since.checked_sub(SLACK).unwrap_or(since);
        self.evict_sparing(max_bytes, |e| {
            e.used >= recent || self.used_this_build(&e.path)
        })
    }

    /// Removes leftover temp files, then least recently used entries until the store fits
    /// `max_bytes`, sparing the entries `spare` names (the JIT cache spares the entry it just
    /// wrote; `trim` spares nothing).
    pub fn evict_sparing(&self, max_bytes: u64, spare: impl Fn(&Entry) -> bool) -> Eviction {
        let store = self;
        let (mut entries, stale) = scan(store.dir(), SystemTime::now());
        for path in stale {
            // Another process may be removing it too; whatever is left is retried next time.
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
        entries.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.path.cmp(&b.path)));
        let mut out = Eviction {
            cap: max_bytes,
            remaining: entries.iter().map(|e| e.len).sum(),
            ..Eviction::default()
        };
        for e in entries {
            if out.remaining <= max_bytes {
                break;
            }
            if spare(&e) {
                continue;
            }
            match std::fs::metadata(&e.path).map(|md| mtime(&md)) {
                // Used by another build since the scan: keep it.
                Ok(t) if t != e.used => continue,
                Ok(_) => match std::fs::remove_file(&e.path) {
                    Ok(()) => {
                        out.entries += 1;
                        out.bytes += e.len;
                    }
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                    // Read-only cache or similar: it stays, and counts.
                    Err(_) => continue,
                },
                // Gone already (another process evicted it).
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(_) => continue,
            }
            out.remaining -= e.len;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;

    const HOUR: Duration = Duration::from_secs(3600);
    const PAYLOAD: &[u8] = &[7; 100];
    /// Header (magic, key, hash, length) plus payload.
    const ENTRY: u64 = crate::entry::HEADER as u64 + 100;

    fn ago(d: Duration) -> SystemTime {
        SystemTime::now() - d
    }

    fn set_mtime(path: &Path, t: SystemTime) {
        std::fs::File::open(path).unwrap().set_modified(t).unwrap();
    }

    /// Stores entries `names` with a fresh store, each last used `hours` ago.
    fn fill(dir: &Path, entries: &[(&str, u64)]) -> Vec<PathBuf> {
        let store = Store::new(dir);
        entries
            .iter()
            .map(|(name, hours)| {
                store
                    .put("ptx", &Key::of(name.as_bytes()), PAYLOAD)
                    .unwrap();
                let path = store.entry_path("ptx", &Key::of(name.as_bytes()));
                set_mtime(&path, ago(HOUR * *hours as u32));
                path
            })
            .collect()
    }

    fn exists(paths: &[PathBuf]) -> Vec<bool> {
        paths.iter().map(|p| p.exists()).collect()
    }

    #[test]
    fn least_recently_used_entries_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let paths = fill(dir.path(), &[("c", 2), ("a", 4), ("d", 1), ("b", 3)]);
        // Another (later) build evicts, with room for two entries.
        let out = Store::new(dir.path()).evict(2 * ENTRY + 10, SystemTime::now());
        assert_eq!(exists(&paths), [true, false, true, false]);
        assert_eq!(
            out,
            Eviction {
                entries: 2,
                bytes: 2 * ENTRY,
                cap: 2 * ENTRY + 10,
                remaining: 2 * ENTRY,
            }
        );
        // Under the cap: nothing more goes.
        let again = Store::new(dir.path()).evict(2 * ENTRY, SystemTime::now());
        assert_eq!((again.entries, again.remaining), (0, 2 * ENTRY));
        assert_eq!(exists(&paths), [true, false, true, false]);
    }

    #[test]
    fn a_hit_refreshes_an_entry_so_it_survives() {
        let dir = tempfile::tempdir().unwrap();
        let paths = fill(dir.path(), &[("a", 4), ("b", 3), ("c", 2), ("d", 1)]);
        // A build reads `a` and finds `b`: both become the most recently used.
        let earlier = Store::new(dir.path());
        assert_eq!(earlier.get("ptx", &Key::of(b"a")).as_deref(), Some(PAYLOAD));
        assert!(earlier.contains("ptx", &Key::of(b"b")));
        for p in &paths[..2] {
            let used = std::fs::metadata(p).unwrap().modified().unwrap();
            assert!(used > ago(HOUR / 60), "{} not refreshed", p.display());
        }
        // A build starting later (so `a` and `b` are not its own) keeps two entries.
        let later = SystemTime::now() + HOUR;
        let out = Store::new(dir.path()).evict(2 * ENTRY, later);
        assert_eq!(exists(&paths), [true, true, false, false]);
        assert_eq!(out.entries, 2);
    }

    #[test]
    fn entries_of_this_build_survive_over_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let paths = fill(dir.path(), &[("used", 5), ("unused", 4)]);
        let start = SystemTime::now() - SLACK;
        let this = Store::new(dir.path());
        assert!(this.get("ptx", &Key::of(b"used")).is_some());
        // As if refreshing its mtime had failed (read-only file, coarse clock): still spared.
        set_mtime(&paths[0], ago(HOUR * 5));
        this.put("ptx", &Key::of(b"written"), PAYLOAD).unwrap();
        // A concurrent build wrote one after this build started.
        Store::new(dir.path())
            .put("ptx", &Key::of(b"theirs"), PAYLOAD)
            .unwrap();
        let out = this.evict(0, start);
        assert_eq!(exists(&paths), [true, false]);
        for name in ["written", "theirs"] {
            assert!(this.entry_path("ptx", &Key::of(name.as_bytes())).exists());
        }
        assert_eq!(
            (out.entries, out.bytes, out.remaining),
            (1, ENTRY, 3 * ENTRY)
        );
    }

    #[test]
    fn stale_temp_files_go_young_ones_and_foreign_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let entry = fill(root, &[("e", 3)]).remove(0);
        let shard = entry.parent().unwrap().to_path_buf();
        let file = |rel: &Path, hours_ago: u32| {
            std::fs::create_dir_all(rel.parent().unwrap()).unwrap();
            std::fs::write(rel, [0; 1000]).unwrap();
            set_mtime(rel, ago(HOUR * hours_ago));
            rel.to_path_buf()
        };
        let old_tmp = file(&shard.join(".tmp-old"), 2);
        let young_tmp = file(&shard.join(".tmp-young"), 0);
        let old_build = root.join("tmp/.tmp-build-old");
        let old_build_file = file(&old_build.join("0.ptx"), 48);
        set_mtime(&old_build, ago(HOUR * 48));
        let running_build = root.join("tmp/.tmp-build-running");
        let long_job = file(&running_build.join("0.d"), 3);
        set_mtime(&running_build, ago(HOUR * 3));
        let foreign = [
            file(&root.join("README"), 9),
            file(&shard.join("not-an-entry"), 9),
            file(&root.join("toolkits/cuda/bin/nvcc"), 9),
        ];

        // Only the entry counts; temp files, young or old, do not.
        let (entries, _) = scan(root, SystemTime::now());
        assert_eq!(
            (entries.len(), entries.iter().map(|e| e.len).sum::<u64>()),
            (1, ENTRY)
        );
        let out = Store::new(root).evict(0, SystemTime::now());
        assert_eq!((out.entries, out.remaining), (1, 0));
        assert!(!entry.exists());
        assert!(!old_tmp.exists() && !old_build.exists() && !old_build_file.exists());
        assert!(young_tmp.exists() && long_job.exists());
        assert_eq!(exists(&foreign), [true; 3]);
    }
}
