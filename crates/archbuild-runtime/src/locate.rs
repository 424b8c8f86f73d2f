//! Finding nvJitLink: the places it is searched for, in order (`ARCHBUILD_NVJITLINK`,
//! archbuild's provisioned toolkits, pip's `nvidia/cu13/lib` in the Python environments in
//! sight, `CUDA_HOME`/`CUDA_PATH`, the system search path), and [`Located`], a library whose
//! version is known but which is opened only when something must be compiled.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use archbuild_arch::CudaVersion;
use archbuild_config::Env;

use crate::cache::{CacheKey, JitCache, Lookup};
use crate::env;
use crate::error::{Error, Result};
use crate::nvjitlink::NvJitLink;

/// An nvJitLink library on disk and its version, opened on first use.
#[derive(Debug)]
pub(crate) struct Located {
    path: PathBuf,
    version: CudaVersion,
    lib: Mutex<Option<Arc<NvJitLink>>>,
}

impl Located {
    /// A library the caller opened.
    pub(crate) fn opened(lib: NvJitLink) -> Self {
        Self {
            path: lib.path().to_path_buf(),
            version: lib.version(),
            lib: Mutex::new(Some(Arc::new(lib))),
        }
    }

    /// A library known by path and version only (tests of what happens when it won't open).
    #[cfg(test)]
    pub(crate) fn unopened(path: PathBuf, version: CudaVersion) -> Self {
        Self {
            path,
            version,
            lib: Mutex::new(None),
        }
    }

    pub(crate) fn version(&self) -> CudaVersion {
        self.version
    }

    /// The library, opened on the first call. A file that changed version since it was
    /// located (an upgrade in between) is refused rather than mislabelled.
    pub(crate) fn open(&self) -> Result<Arc<NvJitLink>> {
        let mut slot = self.lib.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(lib) = slot.as_ref() {
            return Ok(lib.clone());
        }
        let lib = NvJitLink::open(&self.path)?;
        if lib.version() != self.version {
            return Err(Error::NvJitLinkLoad {
                path: self.path.clone(),
                detail: format!(
                    "it was version {} when found and is {} now",
                    self.version,
                    lib.version()
                ),
            });
        }
        let lib = Arc::new(lib);
        *slot = Some(lib.clone());
        Ok(lib)
    }
}

/// Where to look for nvJitLink, in order. `ARCHBUILD_NVJITLINK=off` yields nothing.
pub fn candidates() -> Vec<PathBuf> {
    let vars = Env::process();
    let mut out = Vec::new();
    if vars.is_off(env::NVJITLINK) {
        return out;
    }
    if let Some(path) = vars.path(env::NVJITLINK) {
        out.push(path);
    }
    let home = archbuild_config::home_dir(|k| vars.var(k));
    if let Some(home) = home {
        // Newest provisioned toolkit first (names sort by version).
        let mut kits = list_dir(&home.join("toolkits"));
        // `.tmp-*` folders are installs in progress; `NAME.lock` files are their locks.
        kits.retain(|k| {
            k.is_dir()
                && k.file_name()
                    .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
        });
        kits.sort();
        kits.reverse();
        out.extend(
            kits.into_iter()
                .map(|k| k.join("nvidia/cu13/lib/libnvJitLink.so.13")),
        );
    }
    let mut py_roots: Vec<PathBuf> = Vec::new();
    py_roots.extend(vars.paths(env::PYTHONPATH));
    let mut prefixes: Vec<PathBuf> = [env::VIRTUAL_ENV, env::CONDA_PREFIX]
        .iter()
        .filter_map(|v| vars.path(v))
        .collect();
    if let Some(h) = archbuild_config::user_home(|k| vars.var(k)) {
        prefixes.push(h.join(".local"));
    }
    // The environment of the `python3` on PATH (a venv's bin/ is on PATH without VIRTUAL_ENV
    // in images that activate it that way).
    for dir in vars.paths(env::PATH) {
        if let (true, Some(prefix)) = (dir.join("python3").exists(), dir.parent()) {
            prefixes.push(prefix.to_path_buf());
        }
    }
    prefixes.extend(["/usr/local", "/usr"].map(PathBuf::from));
    for prefix in prefixes {
        for lib in list_dir(&prefix.join("lib")) {
            let is_python = lib
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python3"));
            if is_python {
                py_roots.push(lib.join("site-packages"));
                py_roots.push(lib.join("dist-packages"));
            }
        }
    }
    for root in py_roots {
        out.push(root.join("nvidia/cu13/lib/libnvJitLink.so.13"));
        out.push(root.join("nvidia/nvjitlink/lib/libnvJitLink.so.12"));
    }
    for var in [env::CUDA_HOME, env::CUDA_PATH] {
        if let Some(root) = vars.path(var) {
            out.push(root.join("lib64/libnvJitLink.so"));
            out.push(root.join("lib/libnvJitLink.so"));
            // A pip `--target` directory (what archbuild provisions, and what `CUDA_HOME`
            // then names for the build): the wheel's layout.
            out.push(root.join("nvidia/cu13/lib/libnvJitLink.so.13"));
            out.push(root.join("nvidia/nvjitlink/lib/libnvJitLink.so.12"));
        }
    }
    out.push(PathBuf::from("/usr/local/cuda/lib64/libnvJitLink.so"));
    // Bare names go through the dynamic linker's search (LD_LIBRARY_PATH, ldconfig).
    out.extend(["libnvJitLink.so.13", "libnvJitLink.so"].map(PathBuf::from));
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// Loads the first candidate that opens and whose version satisfies `accept`; the error part
/// of the result lists what was tried, for the message the user sees.
pub fn discover(accept: impl Fn(CudaVersion) -> bool) -> std::result::Result<NvJitLink, String> {
    let found = locate(accept, None)?;
    let lib = found.open().map_err(|e| e.to_string())?;
    drop(found);
    Arc::try_unwrap(lib).map_err(|_| "nvJitLink is shared".to_string())
}

/// Finds the first candidate whose version satisfies `accept`, without opening it when `memo`
/// (archbuild's JIT cache) already knows the version of that very file (same path, size and
/// modification time): a JIT cache hit needs the compiler's version, which is part of the key,
/// but not the compiler, and opening the 117 MB library costs 7–15 ms.
pub(crate) fn locate(
    accept: impl Fn(CudaVersion) -> bool,
    memo: Option<&JitCache>,
) -> std::result::Result<Located, String> {
    let explicit = Env::process().var(env::NVJITLINK);
    if explicit.as_deref().is_some_and(archbuild_config::is_off) {
        return Err("nvJitLink is disabled (ARCHBUILD_NVJITLINK=off)".into());
    }
    locate_in(candidates(), explicit.as_deref(), accept, memo)
}

/// [`locate`] over these candidates; `explicit`: the value of `ARCHBUILD_NVJITLINK`.
fn locate_in(
    candidates: Vec<PathBuf>,
    explicit: Option<&str>,
    accept: impl Fn(CudaVersion) -> bool,
    memo: Option<&JitCache>,
) -> std::result::Result<Located, String> {
    let mut tried = Vec::new();
    for path in candidates {
        let bare = path.components().count() == 1;
        if !bare && !path.exists() {
            if explicit == path.to_str() {
                tried.push(format!(
                    "ARCHBUILD_NVJITLINK={} does not exist",
                    path.display()
                ));
            }
            continue;
        }
        let id = (!bare).then(|| memo.and_then(|m| file_id(&path).map(|id| (m, id))));
        if let Some(Some((cache, id))) = &id {
            if let Some(version) = recall(cache, id) {
                if accept(version) {
                    return Ok(Located {
                        path,
                        version,
                        lib: Mutex::new(None),
                    });
                }
                tried.push(too_old(&path, version));
                continue;
            }
        }
        match NvJitLink::open(&path) {
            Ok(lib) => {
                if let Some(Some((cache, id))) = &id {
                    remember(cache, id, lib.version());
                }
                if accept(lib.version()) {
                    return Ok(Located::opened(lib));
                }
                tried.push(too_old(&path, lib.version()));
            }
            Err(e) if !bare => tried.push(format!("{}: {e}", path.display())),
            Err(_) => {}
        }
    }
    if tried.is_empty() {
        Err(
            "no nvJitLink was found (set ARCHBUILD_NVJITLINK, or `pip install nvidia-nvjitlink`)"
                .into(),
        )
    } else {
        Err(format!(
            "no suitable nvJitLink was found ({})",
            tried.join("; ")
        ))
    }
}

fn too_old(path: &Path, version: CudaVersion) -> String {
    format!("{} is version {version}, too old", path.display())
}

/// What identifies a library file: its path, size and modification time (as ccache
/// identifies compilers); a reinstall or an upgrade changes it.
fn file_id(path: &Path) -> Option<CacheKey> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    let id = format!("{}\n{}\n{}", path.display(), meta.len(), mtime.as_nanos());
    Some(CacheKey::new(
        id.as_bytes(),
        "nvjitlink-version",
        "archbuild-locate-v1",
    ))
}

/// The version recorded for a library file, if any (a bad record reads as none).
fn recall(cache: &JitCache, id: &CacheKey) -> Option<CudaVersion> {
    let Lookup::Hit(bytes) = cache.get(id) else {
        return None;
    };
    let text = std::str::from_utf8(&bytes).ok()?;
    let (major, minor) = text.trim().split_once('.')?;
    Some(CudaVersion::new(major.parse().ok()?, minor.parse().ok()?))
}

/// Records a library file's version; a failure only means the next start opens it again.
fn remember(cache: &JitCache, id: &CacheKey, version: CudaVersion) {
    let _ = cache.put(id, version.to_string().as_bytes());
}

fn list_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(found: &Located) -> bool {
        found.lib.lock().unwrap().is_some()
    }

    #[test]
    fn a_recorded_version_spares_opening_the_library() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = JitCache::open(tmp.path().join("cache")).unwrap();
        // Not a library: opening it fails, so finding it proves the record was used.
        let fake = tmp.path().join("libnvJitLink.so.13");
        std::fs::write(&fake, b"not an ELF file").unwrap();
        let find = |accept: &dyn Fn(CudaVersion) -> bool| {
            locate_in(vec![fake.clone()], None, accept, Some(&cache))
        };
        let err = find(&|_| true).unwrap_err();
        assert!(err.contains("libnvJitLink.so.13: nvJitLink at"), "{err}");

        remember(&cache, &file_id(&fake).unwrap(), CudaVersion::new(13, 5));
        let found = find(&|_| true).unwrap();
        assert_eq!(found.version(), CudaVersion::new(13, 5));
        assert!(!opened(&found));
        // Opening it later (for a compile) fails with an error, not a panic.
        assert!(matches!(found.open(), Err(Error::NvJitLinkLoad { .. })));
        let err = find(&|v| v > CudaVersion::new(13, 5)).unwrap_err();
        assert!(err.contains("is version 13.5, too old"), "{err}");

        // Another file at the same path (new size and time) is not taken on the record's word.
        std::fs::write(&fake, b"not an ELF file either").unwrap();
        let r = find(&|_| true);
        assert!(r.is_err(), "{r:?}");
        // Without a memo nothing is recalled.
        remember(&cache, &file_id(&fake).unwrap(), CudaVersion::new(13, 5));
        assert!(locate_in(vec![fake.clone()], None, |_| true, None).is_err());
        // A damaged record reads as none.
        cache.put(&file_id(&fake).unwrap(), b"thirteen").unwrap();
        assert!(find(&|_| true).is_err());
    }

    #[test]
    fn a_real_library_is_recorded_then_found_unopened() {
        let Ok(first) = locate(|_| true, None) else {
            eprintln!("SKIPPED: no libnvJitLink found");
            return;
        };
        let path = first.path.clone();
        drop(first);
        let tmp = tempfile::tempdir().unwrap();
        let cache = JitCache::open(tmp.path()).unwrap();
        let found = locate_in(vec![path.clone()], None, |_| true, Some(&cache)).unwrap();
        assert!(
            opened(&found),
            "the first time, the version comes from the library"
        );
        let again = locate_in(vec![path], None, |_| true, Some(&cache)).unwrap();
        assert_eq!(again.version(), found.version());
        assert!(!opened(&again), "the second time, from the record");
        assert_eq!(again.open().unwrap().version(), found.version());
    }
}
