//! An interrupted build stops its compiler processes and caches nothing. The test re-runs this
//! test binary as a "driver" child that starts a build with a slow fake nvcc, sends it SIGINT
//! once both compiles are running, and checks that the compiler processes are gone. The child
//! runs this test alone, so the signal reaches no other test of the binary.

// The driver child learns its role from the process environment.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::fake;

const ROLE: &str = "ARCHBUILD_TEST_ROLE";

/// Whether a process is still running (a zombie awaiting its reaper counts as gone).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/status")) {
        Ok(s) => !s
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z')),
        Err(_) => false,
    }
}

fn pids(log: &Path) -> Vec<u32> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["args"][0] == "-ptx")
        .filter_map(|v| v["pid"].as_u64().map(|p| p as u32))
        .collect()
}

#[test]
fn interrupt_kills_compiler_processes() {
    if let Some(dir) = std::env::var_os(ROLE) {
        // Driver role: build with a fake nvcc that sleeps; the parent interrupts us.
        let f = fake::Fake::new();
        f.kernel("kernels/add.cu", "add", &[]);
        let log = Path::new(&dir).join("calls.jsonl");
        let mut b = f.build(&[("ARCHBUILD_FAKE_SLEEP_MS", "60000")]);
        f.controls(&[
            ("ARCHBUILD_FAKE_LOG", log.to_str().unwrap()),
            ("ARCHBUILD_FAKE_SLEEP_MS", "60000"),
        ]);
        b.env(archbuild::Env::from_vars([
            ("ARCHBUILD_FAKE_LOG", log.as_os_str().to_owned()),
            ("ARCHBUILD_FAKE_SLEEP_MS", "60000".into()),
            ("PATH", "/usr/bin:/bin".into()),
        ]))
        .cache_dir(Path::new(&dir).join("cache"));
        let _ = b
            .file("kernels/add.cu")
            .archs("7.5 8.6")
            .jobs(2)
            .try_compile("k");
        // Reaching here means the signal did not stop us.
        std::process::exit(3);
    }

    let dir = tempfile::tempdir().unwrap();
    // This test's name in the binary: its module path without the crate, then the function.
    let name = format!(
        "{}::interrupt_kills_compiler_processes",
        module_path!().split_once("::").map_or("", |(_, m)| m)
    );
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, dir.path())
        .spawn()
        .unwrap();
    let log = dir.path().join("calls.jsonl");
    let start = Instant::now();
    while pids(&log).len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the driver never started two compiles"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let compilers = pids(&log);
    assert!(compilers.iter().all(|&p| alive(p)));
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_ne!(
        status.code(),
        Some(3),
        "the build ran to the end despite SIGINT"
    );
    let start = Instant::now();
    while compilers.iter().any(|&p| alive(p)) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "compilers {compilers:?} outlived the build"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Nothing was cached for the interrupted jobs.
    let ptx = dir.path().join("cache/ptx");
    assert!(!ptx.exists() || std::fs::read_dir(&ptx).unwrap().next().is_none());
}
