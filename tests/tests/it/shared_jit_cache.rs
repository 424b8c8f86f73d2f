//! The JIT cache's remote tier against a real Redis on 127.0.0.1: a PTX-only fat binary built
//! by the real toolkit is JIT-compiled once on "machine A" (its own home); "machine B" (another
//! home, the same remote and the same driver) loads it as a cached JIT without compiling. The
//! driver is archbuild's simulated one (CI has no GPU); `results/gpu.md` has the same on
//! an H100/H200.

use archbuild_arch::CudaVersion;
use archbuild_config::RemoteConfig;
use archbuild_runtime::jit::JitCache;
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{CacheStatus, FatBinary, LoadPath, Loader};
use archbuild_store::Remote;
use archbuild_tests::servers::{start_or_skip, Server};

#[test]
fn a_second_home_loads_ptx_as_cached_jit_from_the_remote() {
    let Some(redis) = start_or_skip(Server::redis) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fb = FatBinary::from_vec(archbuild_tests::ptx_only_fatbin(dir.path())).unwrap();

    let remote = || {
        let config = RemoteConfig::new(&redis.url(), "test").unwrap();
        Some(Remote::open(config))
    };
    let driver = SimDriver::new(CudaVersion::new(13, 5)).with_gpu(9, 0);
    let home_a = JitCache::open(dir.path().join("a/jit"))
        .unwrap()
        .with_remote(remote());
    // The driver's own JIT (not an nvJitLink found on this machine), so its count is the proof.
    let a = Loader::with_driver(&driver)
        .nvjitlink(None)
        .cache(Some(home_a.clone()));
    let first = a.load(&fb, 0).unwrap().report;
    assert_eq!(
        (first.path, first.cache),
        (LoadPath::DriverJit, CacheStatus::Stored)
    );
    assert_eq!(driver.jit_count(), 1);
    assert_eq!(home_a.remote_stats().unwrap().writes, 1);

    let home_b = JitCache::open(dir.path().join("b/jit"))
        .unwrap()
        .with_remote(remote());
    let b = Loader::with_driver(&driver)
        .nvjitlink(None)
        .cache(Some(home_b.clone()));
    let second = b.load(&fb, 0).unwrap().report;
    assert!(
        matches!(second.path, LoadPath::CachedJit(_)) && second.cache == CacheStatus::Hit,
        "{second:?}"
    );
    assert_eq!(driver.jit_count(), 1, "machine B compiled the PTX again");
    let stats = home_b.remote_stats().unwrap();
    assert_eq!((stats.hits, stats.rejected), (1, 0), "{stats:?}");
    // Kept locally: B's next start makes no network round trip.
    assert_eq!(home_b.entries().len(), 1);
}

/// The JIT cache honours `ARCHBUILD_REMOTE_CACHE_TIMEOUT` as the build does (it read the other
/// remote variables but not this one, so a fleet that set 1 s still waited the default 10 s per
/// load): against a server on 127.0.0.1 that accepts connections and never answers, a lookup
/// with the timeout set to 1 s gives up within a bound well under the default, warns once
/// naming the bound, and the cache carries on locally.
#[test]
fn the_jit_cache_gives_up_on_a_silent_remote_after_its_timeout() {
    use std::time::{Duration, Instant};

    use archbuild_config::Env;
    use archbuild_runtime::jit::{CacheKey, Lookup};

    // Never accepted: the kernel completes the handshakes, and nobody ever reads a request.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "webdav://127.0.0.1:{}/c",
        silent.local_addr().unwrap().port()
    );
    let dir = tempfile::tempdir().unwrap();
    let vars = Env::from_vars([
        ("ARCHBUILD_JIT_CACHE", dir.path().to_str().unwrap()),
        ("ARCHBUILD_REMOTE_CACHE", url.as_str()),
        ("ARCHBUILD_REMOTE_CACHE_TIMEOUT", "1"),
    ]);
    let cache = JitCache::from_vars(&vars).unwrap().unwrap();
    let key = CacheKey::new(b".version 8.0\n", "sm_90", "driver CUDA 13.0");
    let start = Instant::now();
    assert_eq!(cache.get(&key), Lookup::Miss);
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(6),
        "a 1 s timeout waited {took:?} (the default is 10 s)"
    );
    let stats = cache.remote_stats().unwrap();
    assert!(stats.disabled, "{stats:?}");
    assert_eq!(stats.warnings.len(), 1, "{stats:?}");
    assert!(stats.warnings[0].contains("longer than 1s"), "{stats:?}");
    cache.put(&key, b"cubin").unwrap();
    assert_eq!(cache.get(&key), Lookup::Hit(b"cubin".to_vec()));
    drop(silent);
}
