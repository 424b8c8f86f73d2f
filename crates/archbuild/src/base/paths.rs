//! Where archbuild keeps its files: the home directory (`ARCHBUILD_HOME`, else the platform
//! cache directory + `archbuild`), the build cache under it (`ARCHBUILD_CACHE_DIR` overrides),
//! and provisioned toolkits under `toolkits/`.

use std::path::{Path, PathBuf};

use crate::base::env::Env;

/// archbuild's directories, resolved once from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
    cache: PathBuf,
}

impl Home {
    /// Resolves `ARCHBUILD_HOME` (default: `dirs::cache_dir()/archbuild`, e.g.
    /// `~/.cache/archbuild`) and `ARCHBUILD_CACHE_DIR` (default: `<home>/cache`).
    pub fn from_env(env: &Env) -> Self {
        let root = archbuild_config::home_dir(|k| env.var(k))
            .unwrap_or_else(|| std::env::temp_dir().join("archbuild"));
        let cache = env
            .path("ARCHBUILD_CACHE_DIR")
            .unwrap_or_else(|| root.join("cache"));
        Self { root, cache }
    }

    /// A home at an explicit directory (tests, tools with their own layout).
    pub fn at(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let cache = root.join("cache");
        Self { root, cache }
    }

    /// Uses another build-cache directory.
    pub fn with_cache_dir(mut self, cache: impl Into<PathBuf>) -> Self {
        self.cache = cache.into();
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The per-target build cache.
    pub fn cache_dir(&self) -> &Path {
        &self.cache
    }

    /// Where provisioned toolkits live: `<home>/toolkits/cuda-<release>/`.
    pub fn toolkits_dir(&self) -> PathBuf {
        self.root.join("toolkits")
    }
}

pub(crate) use archbuild_config::write_atomic;

/// Like [`write_atomic`], but leaves the file alone when it already holds `bytes`, so Cargo and
/// `include_bytes!` see an unchanged modification time after a no-op build.
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    write_atomic(path, bytes)?;
    Ok(true)
}

/// A file's size and modification time in nanoseconds: a cheap identity for a file that is
/// re-hashed only when this stamp changes.
pub(crate) fn file_stamp(path: &Path) -> Option<(u64, u128)> {
    let md = std::fs::metadata(path).ok()?;
    let mtime = md
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((md.len(), mtime))
}

/// Removes `.` and `a/..` without touching the file system (nvcc reports `dir/../x.h`).
pub(crate) fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The free space a build wants on the cache's disk: below it, the build runs without the
/// cache (one warning) rather than fail when a compile's temporary files or an entry do not
/// fit.
pub const CACHE_ROOM: u64 = 64 << 20;

/// The bytes free on the disk of `dir` (or of its nearest existing ancestor) when fewer than
/// [`CACHE_ROOM`]; `None` when there is room or the file system does not say.
pub fn short_of_room(dir: &Path) -> Option<u64> {
    let existing = dir.ancestors().find(|d| d.exists())?;
    available_space(existing).filter(|free| *free < CACHE_ROOM)
}

/// The bytes an unprivileged process may still write on the disk of `dir` (`statvfs`'s
/// `f_bavail`), or `None` when the file system does not say.
#[cfg(unix)]
pub(crate) fn available_space(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `st` a buffer of the size statvfs fills.
    if unsafe { libc::statvfs(path.as_ptr(), st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled `st`.
    let st = unsafe { st.assume_init() };
    #[allow(
        clippy::unnecessary_cast,
        reason = "the field types differ between platforms"
    )]
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(not(unix))]
pub(crate) fn available_space(_: &Path) -> Option<u64> {
    None
}

/// The text of `## heading` in `docs/<file>` (up to the next `## `), for tests that hold a page
/// to the code it describes.
#[cfg(test)]
pub(crate) fn doc_section(file: &str, heading: &str) -> String {
    let path = format!("{}/../../docs/{file}", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = doc
        .split(&format!("## {heading}"))
        .nth(1)
        .unwrap_or_else(|| panic!("docs/{file} has no section `## {heading}`"));
    section.split("\n## ").next().unwrap_or(section).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_overrides() {
        let env = Env::from_vars([("ARCHBUILD_HOME", "/h"), ("ARCHBUILD_CACHE_DIR", "/c")]);
        let home = Home::from_env(&env);
        assert_eq!(home.root(), Path::new("/h"));
        assert_eq!(home.cache_dir(), Path::new("/c"));
        assert_eq!(home.toolkits_dir(), Path::new("/h/toolkits"));
        let home = Home::from_env(&Env::from_vars([("ARCHBUILD_HOME", "/h")]));
        assert_eq!(home.cache_dir(), Path::new("/h/cache"));
    }

    #[test]
    fn atomic_write_replaces_and_skips_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/f.bin");
        assert!(write_if_changed(&p, b"one").unwrap());
        assert!(!write_if_changed(&p, b"one").unwrap());
        assert!(write_if_changed(&p, b"two").unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(p.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp files left behind");
    }
}
