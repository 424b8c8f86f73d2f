//! One cache directory as `cargo archbuild cache` manages it, the build cache and the JIT cache
//! alike: where it is, its size cap, what it holds, emptying it and applying its cap now. Both
//! caches are stores laid out the same way (`<namespace>/<2 hex>/<62 hex>`), so one scan and
//! one eviction serve both, and the command has one code path for the two.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::local::Store;
use crate::lru::{scan, Eviction};

/// A cache directory with its size cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheDir {
    name: &'static str,
    dir: PathBuf,
    max_bytes: u64,
}

/// What a cache directory holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub entries: u64,
    pub bytes: u64,
}

impl CacheDir {
    /// The cache `name` (`build`, `jit`) at `dir`, capped at `max_bytes`.
    pub fn new(name: &'static str, dir: impl Into<PathBuf>, max_bytes: u64) -> Self {
        Self {
            name,
            dir: dir.into(),
            max_bytes,
        }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The entries and their bytes (temp files of running writers are not entries).
    pub fn usage(&self) -> Usage {
        let (entries, _) = scan(&self.dir, SystemTime::now());
        Usage {
            entries: entries.len() as u64,
            bytes: entries.iter().map(|e| e.len).sum(),
        }
    }

    /// Applies the size cap now: removes stale temp files, then the least recently used
    /// entries until the cache fits its cap. Entries used in the last couple of seconds (a
    /// build or a load running now) are spared.
    pub fn trim(&self) -> Eviction {
        Store::new(&self.dir).evict(self.max_bytes, SystemTime::now())
    }

    /// Removes every entry, and nothing a writer running now needs: its temp directory
    /// (`tmp/.tmp-build-*`, younger than a day) and young temp files stay, and files not laid
    /// out as entries are not touched. An entry a running build was about to read is then a
    /// miss, and that build compiles it again.
    pub fn clean(&self) -> Eviction {
        // Entries used "since" a start time in the future: none, so every entry may go.
        let later = SystemTime::now() + Duration::from_secs(24 * 60 * 60);
        Store::new(&self.dir).evict(0, later)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;

    #[test]
    fn usage_trim_and_clean_of_any_store() {
        let dir = tempfile::tempdir().unwrap();
        // Two stores of different entry formats and namespaces, as the build and JIT caches.
        let build = Store::new(dir.path().join("build"));
        let jit = Store::new(dir.path().join("jit")).with_magic(b"ABJIT\x03\0\0");
        for (store, ns) in [(&build, "cubin"), (&jit, "jit")] {
            for i in 0..3u8 {
                store.put(ns, &Key::of(&[i]), &[i; 100]).unwrap();
                let old = SystemTime::now() - Duration::from_secs(3600 * u64::from(3 - i));
                let path = store.entry_path(ns, &Key::of(&[i]));
                std::fs::File::open(&path)
                    .unwrap()
                    .set_modified(old)
                    .unwrap();
            }
            let entry = std::fs::metadata(store.entry_path(ns, &Key::of(&[0])))
                .unwrap()
                .len();
            let cache = CacheDir::new("x", store.dir(), entry * 2);
            assert_eq!(
                cache.usage(),
                Usage {
                    entries: 3,
                    bytes: 3 * entry
                }
            );
            let trimmed = cache.trim();
            assert_eq!((trimmed.entries, trimmed.remaining), (1, 2 * entry));
            assert!(
                !store.entry_path(ns, &Key::of(&[0])).exists(),
                "oldest first"
            );
            let cleaned = cache.clean();
            assert_eq!((cleaned.entries, cleaned.remaining), (2, 0));
            assert_eq!(cache.usage(), Usage::default());
        }
    }
}
