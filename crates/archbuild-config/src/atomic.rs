//! archbuild's one way of writing a file: readers see the old content or the new, never a torn
//! file. The bytes go to a temp file (`.tmp-*`) in the destination directory, then a rename puts
//! it in place. A killed writer leaves only a `.tmp-*` file, which nobody reads and the caches'
//! eviction removes. Files are created with mode 0666 less the process's umask, as compilers
//! create their outputs (a temp file alone would be 0600, and a fat binary written for a team's
//! shared directory would be unreadable to the team).
//!
//! Two durabilities ([`Durability`]): cache entries and build outputs are flushed best effort
//! (an entry torn by a crash fails its checksum and is rebuilt), while a command's outputs are
//! flushed before the rename and a failed flush is an error (the user named that file). Several
//! files that belong together are staged first and renamed only when all are written
//! ([`stage`], [`Staged::commit`]).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// How hard a write tries to reach the disk before its rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Flush the data, ignoring a failure (cache entries, build outputs: both are rebuilt).
    BestEffort,
    /// Flush data and metadata; a failure fails the write (a command's outputs).
    Synced,
}

/// A complete temp copy of a file beside its destination, waiting for [`Staged::commit`];
/// dropped uncommitted, it is removed and the destination is untouched.
#[derive(Debug)]
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
}

impl Staged {
    /// Renames the temp file onto the destination.
    pub fn commit(self) -> std::io::Result<()> {
        self.tmp.persist(&self.target).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Writes `bytes` to a temp file in `target`'s directory (which must exist), flushed as
/// `durability` says; nothing is visible at `target` until [`Staged::commit`].
pub fn stage(target: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<Staged> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    match durability {
        Durability::BestEffort => {
            let _ = tmp.as_file().sync_data();
        }
        Durability::Synced => tmp.as_file().sync_all()?,
    }
    Ok(Staged {
        tmp,
        target: target.to_path_buf(),
    })
}

/// Writes `bytes` to `path` atomically, creating the parent directories; flushed best effort
/// (cache entries and build outputs).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    stage(path, bytes, Durability::BestEffort)?.commit()
}

/// The process's umask, from `/proc/self/status` (Linux 4.7 and newer); `None` elsewhere.
pub fn current_umask() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Umask:"))?;
    u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<std::ffi::OsString> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn outputs_honour_the_umask_like_a_compiler() {
        let Some(umask) = current_umask() else {
            // CI runs on Linux, where the umask is always there: skipping would assert nothing.
            assert!(
                std::env::var_os("CI").is_none(),
                "no /proc/self/status umask"
            );
            return println!("skipped: no /proc/self/status umask on this system");
        };
        let dir = tempfile::tempdir().unwrap();
        for durability in [Durability::BestEffort, Durability::Synced] {
            let p = dir.path().join("x.fatbin");
            std::fs::write(&p, b"old").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
            stage(&p, b"new", durability).unwrap().commit().unwrap();
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o666 & !umask, "umask {umask:o}");
            assert_eq!(std::fs::read(&p).unwrap(), b"new");
        }
    }

    #[test]
    fn a_staged_file_is_invisible_until_committed_and_gone_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.bin");
        std::fs::write(&p, b"old").unwrap();
        let staged = stage(&p, b"new", Durability::Synced).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        drop(staged);
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(names(dir.path()), ["out.bin"]);
        write_atomic(&dir.path().join("a/b/c.bin"), b"x").unwrap();
        assert_eq!(std::fs::read(dir.path().join("a/b/c.bin")).unwrap(), b"x");
        // `stage` alone creates no directory: a command's output directory must exist.
        assert!(stage(&dir.path().join("no/such/x"), b"x", Durability::Synced).is_err());
    }
}
