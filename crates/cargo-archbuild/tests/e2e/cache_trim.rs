//! `cache trim` applies the size caps now: least recently used entries go first, in both the
//! build cache and the JIT cache, and `stats` then shows what is left under the cap.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::support::{cli, run, scratch};

/// A 1,000-byte file at `path`, last used `hours_ago`.
fn entry(path: &Path, hours_ago: u64) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, [0u8; 1000]).unwrap();
    let when = SystemTime::now() - Duration::from_secs(hours_ago * 3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
    path.to_path_buf()
}

#[test]
fn trim_removes_the_least_recently_used_entries_of_both_caches() {
    let dir = scratch();
    let (build, jit) = (dir.path().join("cache"), dir.path().join("jit"));
    // Both caches are stores: entries are `<namespace>/<2 hex>/<62 hex>` (the JIT's namespace
    // is `jit`).
    let hex = |i: u8| format!("{i:02x}{}", "0".repeat(62));
    let build_entries: Vec<PathBuf> = (1..=4u8)
        .map(|i| {
            let h = hex(i);
            entry(
                &build.join("cubin").join(&h[..2]).join(&h[2..]),
                10 - u64::from(i),
            )
        })
        .collect();
    let jit_entries: Vec<PathBuf> = (1..=4u8)
        .map(|i| {
            let h = hex(i);
            entry(
                &jit.join("jit").join(&h[..2]).join(&h[2..]),
                10 - u64::from(i),
            )
        })
        .collect();
    let trim = |which: &[&str]| {
        let (code, stdout, stderr) = run(cli()
            .env("ARCHBUILD_CACHE_DIR", &build)
            .env("ARCHBUILD_JIT_CACHE", &jit)
            .env("ARCHBUILD_CACHE_MAX_BYTES", "2500")
            .env("ARCHBUILD_JIT_CACHE_MAX_BYTES", "1500")
            .args(["cache", "trim", "--message-format", "json"])
            .args(which));
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap()
    };

    // Only the build cache: its two oldest entries go (4,000 bytes → 2,000 ≤ 2,500).
    let v = trim(&["--build"]);
    let c = &v["caches"][0];
    assert_eq!(
        (c["name"].as_str(), c["removed_entries"].as_u64()),
        (Some("build"), Some(2))
    );
    assert_eq!(
        (c["entries"].as_u64(), c["bytes"].as_u64()),
        (Some(2), Some(2000))
    );
    let exists: Vec<bool> = build_entries.iter().map(|p| p.exists()).collect();
    assert_eq!(exists, [false, false, true, true], "oldest first");
    assert!(
        jit_entries.iter().all(|p| p.exists()),
        "--build leaves the JIT cache alone"
    );

    // Both: the build cache already fits; the JIT cache keeps only its newest entry.
    let v = trim(&[]);
    let removed: Vec<u64> = (0..2)
        .map(|i| v["caches"][i]["removed_entries"].as_u64().unwrap())
        .collect();
    assert_eq!(removed, [0, 3]);
    let exists: Vec<bool> = jit_entries.iter().map(|p| p.exists()).collect();
    assert_eq!(exists, [false, false, false, true]);
}

#[test]
fn clean_removes_entries_but_not_a_running_builds_temp_directory() {
    let dir = scratch();
    let build = dir.path().join("cache");
    let hex = format!("ab{}", "0".repeat(62));
    let e = entry(&build.join("ptx").join(&hex[..2]).join(&hex[2..]), 5);
    // What a build running now has in the cache: its temp directory with a job's files.
    let running = build.join("tmp/.tmp-build-AbCdEf");
    std::fs::create_dir_all(&running).unwrap();
    std::fs::write(running.join("3.ptx"), "partial").unwrap();
    let out = cli()
        .args(["cache", "clean", "--build"])
        .env("ARCHBUILD_CACHE_DIR", &build)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!e.exists(), "the entry is removed");
    assert!(
        running.join("3.ptx").exists(),
        "a running build's temp directory survives a clean"
    );
}
