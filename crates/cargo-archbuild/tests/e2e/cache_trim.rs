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

/// `clean` runs one code path for both caches: in each, every entry goes, a killed writer's
/// temp file (over an hour old) goes, and a running writer's young temp file stays. (The JIT
/// cache's own path removed entries only, leaving a killed loader's temp files for ever.)
#[test]
fn clean_treats_both_caches_alike() {
    let dir = scratch();
    let (build, jit) = (dir.path().join("cache"), dir.path().join("jit"));
    let hex = format!("cd{}", "0".repeat(62));
    let mut entries = Vec::new();
    let (mut stale, mut young) = (Vec::new(), Vec::new());
    for (root, ns) in [(&build, "cubin"), (&jit, "jit")] {
        let shard = root.join(ns).join(&hex[..2]);
        entries.push(entry(&shard.join(&hex[2..]), 3));
        stale.push(entry(&shard.join(".tmp-killed"), 2));
        young.push(entry(&shard.join(".tmp-running"), 0));
    }
    let (code, stdout, stderr) = run(cli()
        .env("ARCHBUILD_CACHE_DIR", &build)
        .env("ARCHBUILD_JIT_CACHE", &jit)
        .args(["cache", "clean", "--message-format", "json"]));
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for (i, name) in ["build", "jit"].iter().enumerate() {
        let c = &v["caches"][i];
        assert_eq!(c["name"].as_str(), Some(*name), "{v}");
        let counts = ["removed_entries", "removed_bytes", "entries", "bytes"]
            .map(|k| c[k].as_u64().unwrap());
        assert_eq!(counts, [1, 1000, 0, 0], "{name}: {v}");
    }
    let gone = |paths: &[PathBuf]| paths.iter().map(|p| !p.exists()).collect::<Vec<_>>();
    assert_eq!(gone(&entries), [true, true]);
    assert_eq!(gone(&stale), [true, true], "a killed writer's temp file");
    assert_eq!(gone(&young), [false, false], "a running writer's temp file");
}
