//! archbuild's JIT cache through the loader and directly: a miss compiles and stores, a hit
//! loads without compiling (the simulated driver counts JITs), and a corrupted, truncated,
//! bit-flipped or swapped entry is never loaded but recompiled and rewritten; LRU eviction keeps
//! the cache under its cap; the directory is private.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, SystemTime};

use archbuild_arch::CudaVersion;
use archbuild_runtime::jit::{CacheKey, JitCache, Lookup, Rejection};
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{BadEntry, CacheStatus, Compiler, LoadPath, Loader};

use crate::common::fatbin;

fn h100() -> SimDriver {
    SimDriver::new(CudaVersion::new(13, 0)).with_gpu(9, 0)
}

/// The one entry file in the cache.
fn only_entry(cache: &JitCache) -> std::path::PathBuf {
    let entries = cache.entries();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].0.clone()
}

#[test]
fn miss_then_hit_without_jit() {
    let dir = tempfile::tempdir().unwrap();
    let driver = h100();
    let cache = JitCache::open(dir.path().join("jit")).unwrap();
    let loader = Loader::with_driver(&driver).cache(Some(cache.clone()));
    let fb = fatbin(&["sm_80", "compute_80"]);

    let first = loader.load(&fb, 0).unwrap().report;
    assert_eq!(
        (first.path, first.cache.clone()),
        (LoadPath::DriverJit, CacheStatus::Stored)
    );
    assert!(
        first.jit_log.contains("sm_90"),
        "info log captured: {}",
        first.jit_log
    );
    assert_eq!(driver.jit_count(), 1);
    only_entry(&cache);

    let second = loader.load(&fb, 0).unwrap();
    let compiler = Compiler::Driver(CudaVersion::new(13, 0));
    assert_eq!(
        (second.report.path, second.report.cache),
        (LoadPath::CachedJit(compiler), CacheStatus::Hit)
    );
    assert_eq!(driver.jit_count(), 1, "a cache hit must not JIT");
    assert_eq!(second.module.machine_arch.sm_name(), "90");
    assert_eq!(second.module.kernels, ["scale"]);
    // A second loader (a second process) sharing the directory hits too.
    let other = Loader::with_driver(&driver).cache(Some(JitCache::open(cache.dir()).unwrap()));
    assert!(matches!(
        other.load(&fb, 0).unwrap().report.path,
        LoadPath::CachedJit(_)
    ));
    assert_eq!(driver.jit_count(), 1);
}

#[test]
fn key_covers_ptx_target_and_compiler() {
    let k = CacheKey::new(b"ptx", "sm_90", "driver CUDA 13.0");
    assert_eq!(
        k,
        CacheKey::new(b"ptx\0", "sm_90", "driver CUDA 13.0"),
        "trailing NUL is not content"
    );
    for other in [
        CacheKey::new(b"ptx2", "sm_90", "driver CUDA 13.0"),
        CacheKey::new(b"ptx", "sm_90a", "driver CUDA 13.0"),
        CacheKey::new(b"ptx", "sm_90", "driver CUDA 13.1"),
        CacheKey::new(b"ptx", "sm_90", "nvJitLink 13.0"),
    ] {
        assert_ne!(k, other);
    }
    // Different GPUs of one machine get different entries for the same PTX.
    let dir = tempfile::tempdir().unwrap();
    let driver = SimDriver::new(CudaVersion::new(13, 0))
        .with_gpu(8, 6)
        .with_gpu(8, 9);
    let cache = JitCache::open(dir.path()).unwrap();
    let loader = Loader::with_driver(&driver).cache(Some(cache.clone()));
    let fb = fatbin(&["compute_80"]);
    loader.load(&fb, 0).unwrap();
    loader.load(&fb, 1).unwrap();
    assert_eq!(cache.entries().len(), 2);
    assert_eq!(driver.jit_count(), 2);
}

/// Damages the entry, reloads, and checks: no bad entry was loaded (a fresh JIT ran), the
/// report carries the store's typed rejection (`typed`) and shows its reason, and the
/// rewritten entry is valid (the next load hits).
fn damaged_entry_is_recompiled(
    damage: impl Fn(&std::path::Path, &JitCache),
    reason: &str,
    typed: impl Fn(&Rejection) -> bool,
) {
    let dir = tempfile::tempdir().unwrap();
    let driver = h100();
    let cache = JitCache::open(dir.path()).unwrap();
    let loader = Loader::with_driver(&driver).cache(Some(cache.clone()));
    let fb = fatbin(&["compute_86"]);
    loader.load(&fb, 0).unwrap();
    let entry = only_entry(&cache);
    damage(&entry, &cache);

    let again = loader.load(&fb, 0).unwrap().report;
    assert_eq!(again.path, LoadPath::DriverJit, "{reason}");
    match &again.cache {
        CacheStatus::Replaced(BadEntry::Rejected(why)) => {
            assert!(typed(why), "{reason}: {why:?}");
            assert!(why.to_string().contains(reason), "{why}");
            let shown = again.to_string();
            assert!(
                shown.contains(&format!("JIT cache: bad entry replaced ({why})")),
                "{shown}"
            );
        }
        other => panic!("expected Replaced(Rejected({reason})), got {other:?}"),
    }
    assert_eq!(driver.jit_count(), 2);
    let third = loader.load(&fb, 0).unwrap().report;
    assert!(
        matches!(third.path, LoadPath::CachedJit(_)),
        "rewritten entry is valid"
    );
    assert_eq!(driver.jit_count(), 2);
}

#[test]
fn corrupted_entry_is_never_loaded() {
    damaged_entry_is_recompiled(
        |p, _| {
            fs::write(
                p,
                b"garbage that is long enough to pass the length check, but is not an entry at all",
            )
            .unwrap()
        },
        "bad magic",
        |r| *r == Rejection::BadMagic,
    );
}

#[test]
fn truncated_entry_is_never_loaded() {
    damaged_entry_is_recompiled(
        |p, _| {
            let b = fs::read(p).unwrap();
            fs::write(p, &b[..b.len() - 7]).unwrap();
        },
        "truncated",
        |r| matches!(r, Rejection::Length { header, actual } if header - actual == 7),
    );
    damaged_entry_is_recompiled(
        |p, _| fs::write(p, &fs::read(p).unwrap()[..20]).unwrap(),
        "truncated",
        |r| *r == Rejection::Truncated { len: 20 },
    );
}

#[test]
fn bit_flipped_entry_is_never_loaded() {
    damaged_entry_is_recompiled(
        |p, _| {
            let mut b = fs::read(p).unwrap();
            let last = b.len() - 3;
            b[last] ^= 0x10;
            fs::write(p, b).unwrap();
        },
        "checksum mismatch",
        |r| *r == Rejection::Checksum,
    );
}

#[test]
fn swapped_entry_is_never_loaded() {
    // A valid entry of another key, copied over this one: its checksum is fine, its key is not.
    damaged_entry_is_recompiled(
        |p, cache| {
            let other = CacheKey::new(
                b".version 9.0\n.target sm_75\n",
                "sm_90",
                "driver CUDA 13.0",
            );
            cache.put(&other, b"another cubin").unwrap();
            fs::copy(cache.entry_path(&other), p).unwrap();
            fs::remove_file(cache.entry_path(&other)).unwrap();
        },
        "another key",
        |r| *r == Rejection::OtherKey,
    );
}

/// An entry that verifies but that the driver refuses to load is replaced too, and the report
/// says the driver refused it (not a store rejection).
#[test]
fn a_cached_cubin_the_driver_refuses_is_replaced_with_the_drivers_reason() {
    let dir = tempfile::tempdir().unwrap();
    let driver = h100();
    let cache = JitCache::open(dir.path()).unwrap();
    let loader = Loader::with_driver(&driver).cache(Some(cache.clone()));
    let fb = fatbin(&["compute_86"]);
    loader.load(&fb, 0).unwrap();
    let entry = only_entry(&cache);
    // A well-formed entry of the same key (magic and key read from the entry) whose payload is
    // no cubin.
    let bytes = fs::read(&entry).unwrap();
    let magic: [u8; 8] = bytes[..8].try_into().unwrap();
    let key = archbuild_store::Key(bytes[8..40].try_into().unwrap());
    fs::write(
        &entry,
        archbuild_store::entry::encode(&magic, &key, b"not a cubin"),
    )
    .unwrap();
    let again = loader.load(&fb, 0).unwrap().report;
    assert_eq!(again.path, LoadPath::DriverJit);
    match &again.cache {
        CacheStatus::Replaced(why @ BadEntry::DriverRefused(_)) => assert!(
            why.to_string()
                .starts_with("the driver refused the cached cubin: "),
            "{why}"
        ),
        other => panic!("expected Replaced(DriverRefused), got {other:?}"),
    }
    assert_eq!(driver.jit_count(), 2);
}

#[test]
fn direct_get_put_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let cache = JitCache::open(dir.path()).unwrap();
    let key = CacheKey::new(b"x", "sm_90", "test");
    assert_eq!(cache.get(&key), Lookup::Miss);
    cache.put(&key, b"cubin bytes").unwrap();
    assert_eq!(cache.get(&key), Lookup::Hit(b"cubin bytes".to_vec()));
    cache.put(&key, b"replaced").unwrap();
    assert_eq!(cache.get(&key), Lookup::Hit(b"replaced".to_vec()));
    assert!(!fs::read_dir(dir.path()).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".tmp")));
}

#[test]
fn least_recently_used_entries_are_evicted() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<CacheKey> = (0..4)
        .map(|i| CacheKey::new(format!("ptx {i}").as_bytes(), "sm_90", "test"))
        .collect();
    let payload = vec![7u8; 1000];
    // Each entry is 1000 bytes plus an 80-byte header: room for three.
    let cache = JitCache::open(dir.path())
        .unwrap()
        .with_max_bytes(3 * 1080 + 100);
    let base = SystemTime::now() - Duration::from_secs(3600);
    for (i, k) in keys[..3].iter().enumerate() {
        cache.put(k, &payload).unwrap();
        let f = fs::File::options()
            .append(true)
            .open(cache.entry_path(k))
            .unwrap();
        f.set_modified(base + Duration::from_secs(60 * i as u64))
            .unwrap();
    }
    // Use the oldest entry: it becomes the most recent.
    assert!(matches!(cache.get(&keys[0]), Lookup::Hit(_)));
    cache.put(&keys[3], &payload).unwrap();
    let present: Vec<bool> = keys.iter().map(|k| cache.entry_path(k).exists()).collect();
    assert_eq!(
        present,
        [true, false, true, true],
        "entry 1 was least recently used"
    );
    assert!(cache.size() <= cache.max_bytes());
    // An entry larger than the whole cap is still kept (it was just written), alone.
    let small = JitCache::open(dir.path()).unwrap().with_max_bytes(500);
    small.put(&keys[1], &payload).unwrap();
    assert_eq!(small.entries().len(), 1);
    assert!(small.entry_path(&keys[1]).exists());
}

#[test]
fn directory_is_private() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/jit");
    JitCache::open(&path).unwrap();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o700
    );
    // An existing world-readable directory of ours is tightened.
    let open = dir.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o755)).unwrap();
    JitCache::open(&open).unwrap();
    assert_eq!(
        fs::metadata(&open).unwrap().permissions().mode() & 0o777,
        0o700
    );
    // A path that cannot be a directory is an error naming the fix.
    let file = dir.path().join("file");
    fs::write(&file, b"").unwrap();
    let err = JitCache::open(file.join("jit")).unwrap_err().to_string();
    assert!(err.contains("ARCHBUILD_JIT_CACHE"), "{err}");
}

#[test]
fn stale_temporary_files_are_cleaned() {
    let dir = tempfile::tempdir().unwrap();
    let cache = JitCache::open(dir.path()).unwrap();
    // Writers put their temporary file beside the entry (`<dir>/jit/<2 hex>/`).
    let shard = dir.path().join("jit/ab");
    fs::create_dir_all(&shard).unwrap();
    let stale = shard.join(".tmp-left-by-a-killed-process");
    fs::write(&stale, b"partial").unwrap();
    let f = fs::File::options().append(true).open(&stale).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(2 * 3600))
        .unwrap();
    let fresh = shard.join(".tmp-being-written-now");
    fs::write(&fresh, b"partial").unwrap();
    cache
        .put(&CacheKey::new(b"x", "sm_90", "test"), b"y")
        .unwrap();
    assert!(!stale.exists());
    assert!(fresh.exists(), "another process may still be writing it");
}

#[test]
fn cache_off_still_loads() {
    let driver = h100();
    let loader = Loader::with_driver(&driver).cache(None);
    let r = loader.load(&fatbin(&["compute_80"]), 0).unwrap().report;
    assert_eq!((r.path, r.cache), (LoadPath::DriverJit, CacheStatus::Off));
}

/// The JIT cache reads its remote tier with the build's reader: a timeout that is not whole
/// seconds is an error naming `ARCHBUILD_REMOTE_CACHE_TIMEOUT` (it was ignored), as a bad mode
/// or URL is, and `off` or blank means no remote.
#[test]
fn the_remote_settings_are_read_as_the_build_reads_them() {
    use archbuild_config::Env;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("jit");
    let dir = dir.to_str().unwrap();
    let open = |extra: &[(&str, &str)]| {
        let mut vars = vec![("ARCHBUILD_JIT_CACHE", dir)];
        vars.extend_from_slice(extra);
        JitCache::from_vars(&Env::from_vars(vars))
    };
    for (var, value) in [
        ("ARCHBUILD_REMOTE_CACHE_TIMEOUT", "10s"),
        ("ARCHBUILD_REMOTE_CACHE_MODE", "sometimes"),
    ] {
        let e = open(&[("ARCHBUILD_REMOTE_CACHE", "gha"), (var, value)]).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("invalid {var} `{value}`")) && text.contains("hint:"),
            "{text}"
        );
    }
    for off in ["off", " none ", " "] {
        let cache = open(&[
            ("ARCHBUILD_REMOTE_CACHE", off),
            ("ARCHBUILD_REMOTE_CACHE_TIMEOUT", "10s"),
        ])
        .unwrap()
        .unwrap();
        assert!(cache.remote_stats().is_none(), "{off:?}");
    }
    let cache = open(&[
        ("ARCHBUILD_REMOTE_CACHE", " gha "),
        ("ARCHBUILD_REMOTE_CACHE_TIMEOUT", " 3 "),
    ])
    .unwrap()
    .unwrap();
    assert_eq!(cache.remote_stats().unwrap().url, "gha");
    // The JIT cache and `cargo archbuild cache` see one directory through one interface.
    assert_eq!(cache.cache_dir().dir(), cache.dir());
    assert_eq!(cache.cache_dir().max_bytes(), cache.max_bytes());
}
