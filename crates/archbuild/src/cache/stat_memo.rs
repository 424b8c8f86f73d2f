//! What reading a file told (its content hash and the clock macro it names), remembered across
//! builds by the file's identity on disk: device, inode, size, and modification and change
//! times to the nanosecond. A no-op build then checks the thousands of headers a CUTLASS source
//! reads with one `stat` each instead of reading and hashing them all (as ccache's inode cache
//! does).
//!
//! A remembered hash is only as good as the stamp it stands for, so two rules keep it from
//! ever standing for other content: the change time (`ctime`) is in the stamp, and no user tool
//! can set it — every write moves it; and a file is remembered only when its times are older
//! than [`SETTLED`] when it was read, because the kernel stamps times from a clock that ticks
//! in milliseconds, and a second write within the same tick as the read would leave the stamp
//! as it was. The memo lives in the local cache directory (`stat-memo.json`), written
//! atomically at the end of a build that learned something; a missing or unreadable one is an
//! empty memo, and losing one costs reads, never a wrong hash.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// How old a file's times must be for what reading it told to be remembered.
pub(crate) const SETTLED: Duration = Duration::from_secs(2);

/// The memo's file in the cache directory.
const FILE: &str = "stat-memo.json";

/// The memo's file in the cache directory `cache_dir`: a file the build reads and replaces,
/// so `compile -o` refuses to name it.
pub fn path(cache_dir: &Path) -> PathBuf {
    cache_dir.join(FILE)
}

/// Entries kept at most; past it, a build that learned something keeps what it used.
const MAX_ENTRIES: usize = 200_000;

/// A file's identity on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    pub(crate) fn of(m: &std::fs::Metadata) -> Self {
        Self {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        }
    }

    /// Whether both times are older than `settled` before `now`.
    fn settled(&self, now: SystemTime, settled: Duration) -> bool {
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let limit = i128::try_from(now.saturating_sub(settled).as_nanos()).unwrap_or(0);
        self.mtime_ns < limit && self.ctime_ns < limit
    }
}

/// What one read of a file told, as remembered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Told {
    stamp: Stamp,
    /// The content's BLAKE3, hex.
    pub hash: String,
    /// The clock macro the text names, if any.
    pub clock: Option<String>,
}

/// The memo of one build: loaded at its start, saved at its end.
#[derive(Debug, Default)]
pub(crate) struct StatMemo {
    /// Where it is saved; `None`: a build without a local cache remembers nothing.
    file: Option<PathBuf>,
    /// By path (UTF-8 paths only: the memo is JSON).
    entries: Mutex<HashMap<String, Told>>,
    /// The paths this build looked up or learned, kept first when the memo is trimmed.
    used: Mutex<Vec<String>>,
    learned: AtomicBool,
    settled: Duration,
}

impl StatMemo {
    /// The memo saved in `cache_dir`, or an empty one; saved back when dropped.
    pub(crate) fn load(cache_dir: &Path) -> Self {
        Self::load_settling(cache_dir, SETTLED)
    }

    /// [`StatMemo::load`] with another settle window (tests).
    fn load_settling(cache_dir: &Path, settled: Duration) -> Self {
        let file = path(cache_dir);
        // Only a regular file is the memo: reading a FIFO there would wait forever, and what is
        // not archbuild's file is not replaced either (the build then learns without a memo).
        let regular = match std::fs::symlink_metadata(&file) {
            Ok(m) => m.file_type().is_file(),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        };
        let entries = regular
            .then(|| std::fs::read(&file).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Self {
            file: regular.then_some(file),
            entries: Mutex::new(entries),
            used: Mutex::default(),
            learned: AtomicBool::new(false),
            settled,
        }
    }

    /// What was told of the file at `path` when it had `stamp`, if remembered.
    pub(crate) fn get(&self, path: &Path, stamp: &Stamp) -> Option<Told> {
        let told = self.entries.lock().ok()?.get(path.to_str()?).cloned()?;
        if told.stamp != *stamp {
            return None;
        }
        if let Ok(mut u) = self.used.lock() {
            u.push(path.to_string_lossy().into_owned());
        }
        Some(told)
    }

    /// Remembers what reading `path` told, when its stamp (taken before the read) had settled
    /// at `read_at`.
    pub(crate) fn remember(
        &self,
        path: &Path,
        stamp: Stamp,
        read_at: SystemTime,
        hash: String,
        clock: Option<&str>,
    ) {
        let Some(key) = path.to_str() else {
            return;
        };
        if self.file.is_none() || !stamp.settled(read_at, self.settled) {
            return;
        }
        let told = Told {
            stamp,
            hash,
            clock: clock.map(str::to_owned),
        };
        if let Ok(mut m) = self.entries.lock() {
            if m.get(key) != Some(&told) {
                m.insert(key.to_owned(), told);
                self.learned.store(true, Ordering::Relaxed);
            }
        }
        if let Ok(mut u) = self.used.lock() {
            u.push(key.to_owned());
        }
    }

    /// Writes the memo back when this build learned something (once). Best effort: a memo
    /// that cannot be written costs the next build reads.
    pub(crate) fn save(&self) {
        let (Some(file), true) = (&self.file, self.learned.load(Ordering::Relaxed)) else {
            return;
        };
        let Ok(mut m) = self.entries.lock() else {
            return;
        };
        if m.len() > MAX_ENTRIES {
            let used: std::collections::HashSet<String> = self
                .used
                .lock()
                .map(|u| u.iter().cloned().collect())
                .unwrap_or_default();
            m.retain(|p, _| used.contains(p));
        }
        if let Ok(json) = serde_json::to_vec(&*m) {
            let _ = archbuild_config::write_atomic(file, &json);
        }
        self.learned.store(false, Ordering::Relaxed);
    }
}

impl Drop for StatMemo {
    fn drop(&mut self) {
        self.save();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memo(dir: &Path, settled: Duration) -> StatMemo {
        StatMemo::load_settling(dir, settled)
    }

    fn stamp(p: &Path) -> Stamp {
        Stamp::of(&std::fs::metadata(p).unwrap())
    }

    /// Remembered and saved, a file's facts come back for the same stamp, and not once the file
    /// was written again, even at the same size with its modification time put back.
    #[test]
    fn a_remembered_file_is_told_again_until_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.h");
        std::fs::write(&f, "int a;").unwrap();
        let m = memo(dir.path(), Duration::ZERO);
        let s = stamp(&f);
        m.remember(&f, s, SystemTime::now(), "h1".into(), Some("__TIME__"));
        m.save();
        let again = memo(dir.path(), Duration::ZERO);
        let told = again.get(&f, &stamp(&f)).unwrap();
        assert_eq!(
            (told.hash.as_str(), told.clock.as_deref()),
            ("h1", Some("__TIME__"))
        );

        let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&f, "int b;").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 6);
        assert!(
            again.get(&f, &stamp(&f)).is_none(),
            "a rewritten file is told again"
        );
    }

    /// A file whose times are not older than the settle window is not remembered: a second
    /// write within the same clock tick would leave its stamp unchanged.
    #[test]
    fn a_file_written_just_now_is_not_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.h");
        std::fs::write(&f, "int a;").unwrap();
        let m = memo(dir.path(), SETTLED);
        m.remember(&f, stamp(&f), SystemTime::now(), "h1".into(), None);
        assert!(m.get(&f, &stamp(&f)).is_none());
        m.save();
        assert!(
            !dir.path().join(FILE).exists(),
            "nothing learned, nothing written"
        );
    }

    /// A memo file that is not one (truncated, another format) is an empty memo.
    #[test]
    fn an_unreadable_memo_is_an_empty_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), b"{\"/x\": [1,").unwrap();
        let m = StatMemo::load(dir.path());
        let f = dir.path().join(FILE);
        assert!(m.get(&f, &stamp(&f)).is_none());
    }

    /// A FIFO where the memo goes (a user's mistake, or a hostile file) neither hangs the build
    /// nor is replaced: the build runs without a memo.
    #[test]
    fn a_fifo_at_the_memo_s_path_is_left_alone_and_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let file = path(dir.path());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        // coreutils' mkfifo is on every Linux machine this suite runs on: no skip.
        let made = std::process::Command::new("mkfifo").arg(&file).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", file.display());
        let (tx, rx) = std::sync::mpsc::channel();
        let d = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let m = memo(&d, Duration::ZERO);
            m.learned.store(true, Ordering::Relaxed);
            m.save();
            let _ = tx.send(m.file.is_none());
        });
        let none = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("loading the memo blocked on a FIFO");
        assert!(none, "a FIFO was taken as the memo");
        let kind = std::fs::symlink_metadata(&file).unwrap().file_type();
        assert!(!kind.is_file(), "the FIFO was replaced");
    }
}
