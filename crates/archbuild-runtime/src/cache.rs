//! archbuild's persistent JIT cache: cubins compiled from PTX, keyed on the PTX, the target and
//! the compiler, so a second start of a program skips a JIT that costs seconds.
//!
//! Guarantees: the directory is private (0700); an entry is written to a temporary file in the
//! same directory and renamed into place, so readers see a whole entry or none; every entry
//! carries its key and a BLAKE3 checksum of its cubin, both verified before every load, so a corrupted,
//! truncated or swapped entry is never loaded (the loader recompiles and rewrites it); the
//! cache has a size cap enforced by evicting the least recently used entries (a hit touches the
//! entry's mtime). Entries are not fsync'ed: after a crash an entry may be torn, which the
//! checksum catches.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use archbuild_store::{Key, Remote, RemoteConfig, RemoteMode, RemoteStats};

use crate::env;
use crate::error::{Error, Result};

/// Default size cap: 256 MiB, the driver's own default for its JIT cache.
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;

const MAGIC: &[u8; 8] = b"ABJIT\x02\0\0";
const HEADER: usize = 8 + 32 + 32 + 8;
const SUFFIX: &str = "cubin";
/// The remote tier's namespace for JIT results.
const REMOTE_NS: &str = "jit";
const TMP_PREFIX: &str = ".tmp-";
/// Temporary files older than this are leftovers of a killed process and get removed.
const STALE_TMP: Duration = Duration::from_secs(600);

/// What a cache entry is for: a hash of the PTX, the target and the compiler identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    digest: [u8; 32],
}

impl CacheKey {
    /// `ptx`: the PTX text (a trailing NUL is ignored); `target`: what it is compiled for
    /// (`sm_90`, `sm_90a`); `compiler`: the compiler identity (`driver CUDA 13.0`,
    /// `nvJitLink 13.5`).
    pub fn new(ptx: &[u8], target: &str, compiler: &str) -> Self {
        Self::from_digest(
            *blake3::hash(crate::driver::ptx_text(ptx)).as_bytes(),
            target,
            compiler,
        )
    }

    /// Like [`CacheKey::new`] with the PTX already reduced to a digest that identifies it
    /// (the loader uses [`crate::FatBinary::image_digest`], which needs no decompression).
    pub fn from_digest(content: [u8; 32], target: &str, compiler: &str) -> Self {
        let mut h = blake3::Hasher::new();
        h.update(b"archbuild-jit-key-v2\0");
        h.update(&content);
        for part in [target, compiler] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        Self {
            digest: *h.finalize().as_bytes(),
        }
    }

    /// The key as 64 hex digits (the entry's file stem).
    pub fn hex(&self) -> String {
        hex::encode(self.digest)
    }
}

/// The outcome of a lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A verified cubin.
    Hit(Vec<u8>),
    /// No entry.
    Miss,
    /// An entry existed but failed verification (it was removed); the reason says why.
    Rejected(String),
}

/// A JIT cache directory, optionally in front of a remote tier shared by a fleet.
#[derive(Debug, Clone)]
pub struct JitCache {
    dir: PathBuf,
    max_bytes: u64,
    remote: Option<Arc<Remote>>,
}

impl JitCache {
    /// Opens (creating if needed) the cache at `dir` and makes it private (0700). Fails if the
    /// directory cannot be created or belongs to someone else.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        let err = |action, source| Error::Cache {
            path: dir.clone(),
            action,
            source,
        };
        fs::create_dir_all(&dir).map_err(|e| err("creating the directory", e))?;
        let meta = fs::metadata(&dir).map_err(|e| err("reading the directory", e))?;
        if meta.permissions().mode() & 0o777 != 0o700 {
            // chmod fails with EPERM unless we own the directory: a shared or planted
            // directory is refused instead of used.
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| err("making the directory private (chmod 0700)", e))?;
        }
        Ok(Self {
            dir,
            max_bytes: DEFAULT_MAX_BYTES,
            remote: None,
        })
    }

    /// The cache configured by the environment: `ARCHBUILD_JIT_CACHE` (a directory, or `off`),
    /// else `<ARCHBUILD_HOME>/jit` (`<user cache dir>/archbuild/jit` by default); cap from
    /// `ARCHBUILD_JIT_CACHE_MAX_BYTES`.
    /// `Ok(None)` means caching is off (or there is no user cache directory).
    pub fn from_env() -> Result<Option<Self>> {
        let dir = match env::var(env::JIT_CACHE) {
            Some(v) if env::is_off(&v) => return Ok(None),
            Some(v) => PathBuf::from(v),
            None => match Self::default_dir() {
                Some(d) => d,
                None => return Ok(None),
            },
        };
        let max = match env::var(env::JIT_CACHE_MAX_BYTES) {
            None => DEFAULT_MAX_BYTES,
            Some(v) => env::parse_bytes(&v).ok_or_else(|| Error::Env {
                var: env::JIT_CACHE_MAX_BYTES,
                value: v.clone(),
                detail: "expected a size such as `268435456`, `512M` or `2G`; fix the value or \
                         unset it for the default of 256M"
                    .into(),
            })?,
        };
        let remote = remote_from_env()?;
        Ok(Some(
            Self::open(dir)?.with_max_bytes(max).with_remote(remote),
        ))
    }

    /// Puts a remote tier behind this cache: a local miss asks it (verifying what comes back),
    /// and every new entry is uploaded (unless read-only).
    pub fn with_remote(mut self, remote: Option<Arc<Remote>>) -> Self {
        self.remote = remote;
        self
    }

    /// What the remote tier did so far, when there is one.
    pub fn remote_stats(&self) -> Option<RemoteStats> {
        self.remote.as_ref().map(|r| r.stats())
    }

    /// `<ARCHBUILD_HOME>/jit`, the home being `<user cache dir>/archbuild` unless set
    /// (`~/.cache/archbuild/jit` on Linux), as for the build cache and toolkits.
    pub fn default_dir() -> Option<PathBuf> {
        let home = env::var(env::HOME)
            .filter(|h| !h.trim().is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("archbuild")))?;
        Some(home.join("jit"))
    }

    /// Sets the size cap in bytes.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The size cap in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Where the entry for `key` lives.
    pub fn entry_path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{}.{SUFFIX}", key.hex()))
    }

    /// Looks `key` up. A hit is verified (key and checksum) and marks the entry as recently
    /// used; an entry that fails verification is removed and reported as [`Lookup::Rejected`].
    pub fn get(&self, key: &CacheKey) -> Lookup {
        let path = self.entry_path(key);
        let Ok(mut file) = fs::File::open(&path) else {
            return self.fetch_remote(key, &path);
        };
        match read_verified(&mut file, key) {
            Ok(cubin) => {
                touch(&file);
                Lookup::Hit(cubin)
            }
            Err(why) => {
                let _ = fs::remove_file(&path);
                Lookup::Rejected(why)
            }
        }
    }

    /// A local miss: the remote tier's verified entry, kept locally.
    fn fetch_remote(&self, key: &CacheKey, path: &Path) -> Lookup {
        let Some(remote) = &self.remote else {
            return Lookup::Miss;
        };
        let Some(cubin) = remote.get(MAGIC, REMOTE_NS, &Key(key.digest)) else {
            return Lookup::Miss;
        };
        let bytes = archbuild_store::entry::encode(MAGIC, &Key(key.digest), &cubin);
        if archbuild_store::write_atomic(path, &bytes).is_ok() {
            self.evict(Some(path));
        }
        Lookup::Hit(cubin)
    }

    /// Stores `cubin` under `key` atomically, then evicts least recently used entries until
    /// the cache fits its cap (never the entry just written).
    pub fn put(&self, key: &CacheKey, cubin: &[u8]) -> Result<()> {
        let path = self.entry_path(key);
        let err = |action, source| Error::Cache {
            path: path.clone(),
            action,
            source,
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(TMP_PREFIX)
            .tempfile_in(&self.dir)
            .map_err(|e| err("creating a temporary file", e))?;
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&key.digest);
        header.extend_from_slice(blake3::hash(cubin).as_bytes());
        header.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
        tmp.write_all(&header)
            .and_then(|()| tmp.write_all(cubin))
            .map_err(|e| err("writing an entry", e))?;
        tmp.persist(&path)
            .map_err(|e| err("renaming an entry into place", e.error))?;
        self.evict(Some(&path));
        if let Some(remote) = &self.remote {
            let k = Key(key.digest);
            remote.put_encoded(
                REMOTE_NS,
                &k,
                &archbuild_store::entry::encode(MAGIC, &k, cubin),
            );
        }
        Ok(())
    }

    /// The entries (path, size, last use), oldest first.
    pub fn entries(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let mut v = Vec::new();
        let Ok(rd) = fs::read_dir(&self.dir) else {
            return v;
        };
        let now = SystemTime::now();
        for e in rd.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Ok(meta) = e.metadata() else { continue };
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if name.starts_with(TMP_PREFIX) {
                if now.duration_since(mtime).unwrap_or_default() > STALE_TMP {
                    let _ = fs::remove_file(e.path());
                }
                continue;
            }
            if meta.is_file() && name.ends_with(SUFFIX) {
                v.push((e.path(), meta.len(), mtime));
            }
        }
        v.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
        v
    }

    /// Total bytes of the entries.
    pub fn size(&self) -> u64 {
        self.entries().iter().map(|e| e.1).sum()
    }

    /// Applies the size cap now (`cargo archbuild cache trim`), least recently used first;
    /// returns the entries and bytes removed.
    pub fn trim(&self) -> (u64, u64) {
        self.evict(None)
    }

    fn evict(&self, keep: Option<&Path>) -> (u64, u64) {
        let entries = self.entries();
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        let mut removed = (0, 0);
        for (path, len, _) in entries {
            if total <= self.max_bytes {
                break;
            }
            if Some(path.as_path()) == keep {
                continue;
            }
            // Another process may have evicted it already; either way it is gone.
            if fs::remove_file(&path).is_ok() {
                removed = (removed.0 + 1, removed.1 + len);
            }
            total = total.saturating_sub(len);
        }
        removed
    }
}

/// The remote tier `ARCHBUILD_REMOTE_CACHE` names (`off` or unset: none).
fn remote_from_env() -> Result<Option<Arc<Remote>>> {
    let Some(url) = env::var(env::REMOTE_CACHE).filter(|v| !env::is_off(v)) else {
        return Ok(None);
    };
    let bad = |var: &'static str, value: &str, e: archbuild_store::Error| Error::Env {
        var,
        value: value.to_owned(),
        detail: e.to_string(),
    };
    let mut config =
        RemoteConfig::new(&url, env::REMOTE_CACHE).map_err(|e| bad(env::REMOTE_CACHE, &url, e))?;
    if let Some(m) = env::var(env::REMOTE_CACHE_MODE) {
        let mode = RemoteMode::parse(&m, env::REMOTE_CACHE_MODE)
            .map_err(|e| bad(env::REMOTE_CACHE_MODE, &m, e))?;
        config = config.with_mode(mode);
    }
    Ok(Some(Remote::open(config)))
}

/// Reads an entry, checking framing, key and checksum (the store's one entry format); the
/// error says which check failed. The file is read at its size in one go and the header is
/// then dropped in place, so a multi-megabyte cubin is neither zero-filled nor copied twice.
fn read_verified(file: &mut fs::File, key: &CacheKey) -> Result<Vec<u8>, String> {
    let len = file
        .metadata()
        .map_err(|e| format!("unreadable entry ({e})"))?
        .len();
    let mut bytes = Vec::with_capacity(len as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("unreadable entry ({e})"))?;
    let payload_len = archbuild_store::entry::verify(MAGIC, &Key(key.digest), &bytes)
        .map_err(|why| why.to_string())?
        .len();
    bytes.drain(..bytes.len() - payload_len);
    Ok(bytes)
}

/// Marks an entry as used now, for LRU eviction. Best effort: a read-only cache still serves.
fn touch(file: &fs::File) {
    // futimens works on a read-only descriptor of a file we own.
    let _ = file.set_modified(SystemTime::now());
}
