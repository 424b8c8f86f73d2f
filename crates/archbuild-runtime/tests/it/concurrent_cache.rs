//! Sixteen processes cold-load the same module into one empty JIT cache at once (this test
//! binary re-runs itself as the children): all succeed, the cache ends with exactly one entry,
//! which verifies, and no temporary or torn file is left.

use std::process::Command;
use std::time::Duration;

use archbuild_arch::CudaVersion;
use archbuild_runtime::jit::JitCache;
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{LoadPath, Loader};

use crate::common;

const CHILD_ENV: &str = "ARCHBUILD_TEST_CHILD_CACHE_DIR";
const CHILDREN: usize = 16;

/// The child's work. Run by the parent test through `--exact`; does nothing when run directly.
#[test]
fn helper_child_cold_load() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    // A slow JIT keeps all sixteen compilations (and their cache writes) overlapping.
    let driver = SimDriver::new(CudaVersion::new(13, 0))
        .with_gpu(9, 0)
        .with_jit_delay(Duration::from_millis(100));
    let cache = JitCache::open(dir).unwrap();
    let loader = Loader::with_driver(&driver).cache(Some(cache));
    let loaded = loader
        .load(&common::fatbin(&["sm_80", "compute_80"]), 0)
        .unwrap();
    assert_eq!(loaded.module.kernels, ["scale"]);
    println!("CHILD-PATH {}", loaded.report.path);
}

#[test]
fn sixteen_processes_cold_load_into_one_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("jit");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..CHILDREN)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "concurrent_cache::helper_child_cold_load",
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, &cache_dir)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut paths = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = stdout
            .lines()
            .find_map(|l| l.split_once("CHILD-PATH "))
            .expect("child reported")
            .1
            .to_string();
        paths.push(path);
    }
    assert_eq!(paths.len(), CHILDREN);
    assert!(
        paths
            .iter()
            .all(|p| p == "driver JIT" || p.starts_with("cached JIT")),
        "{paths:?}"
    );

    // Every file under the cache: exactly the one entry, in the store's layout, and no
    // temporary file left behind by any of the sixteen writers.
    let mut files = Vec::new();
    let mut dirs = vec![cache_dir.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(Result::unwrap) {
            if e.path().is_dir() {
                dirs.push(e.path());
            } else {
                files.push(e.path());
            }
        }
    }
    assert_eq!(files.len(), 1, "one entry, no temporary files: {files:?}");
    let rel = files[0]
        .strip_prefix(&cache_dir)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        rel.starts_with("jit/") && rel.len() == "jit/".len() + 2 + 1 + 62,
        "{rel}"
    );

    // The entry verifies and serves a load without JIT.
    let driver = SimDriver::new(CudaVersion::new(13, 0)).with_gpu(9, 0);
    let cache = JitCache::open(&cache_dir).unwrap();
    let entry = &cache.entries()[0].0;
    assert!(std::fs::read(entry).unwrap().len() > 80);
    let loader = Loader::with_driver(&driver).cache(Some(cache.clone()));
    let r = loader
        .load(&common::fatbin(&["sm_80", "compute_80"]), 0)
        .unwrap()
        .report;
    assert!(matches!(r.path, LoadPath::CachedJit(_)), "{r}");
    assert_eq!(driver.jit_count(), 0);
}
