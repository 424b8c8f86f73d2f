//! The downstream fixture crate (`tests/fixtures/downstream`) uses the build.rs API: it is
//! copied to a temp dir (path dependencies pointed at this checkout, this workspace's
//! Cargo.lock reused) and `cargo test` is run on it — its own tests check the generated module
//! (embedded, aligned fat binaries; kernel-name constants; the arch list). Then a second
//! `cargo build` must not rerun the build script, nor one where only PATH differs, and editing a
//! kernel header must.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use archbuild_tests::output;

fn cargo(dir: &Path, target: &Path, cache: &Path, args: &[&str]) -> Output {
    output(&mut command(dir, target, cache, args))
}

fn command(dir: &Path, target: &Path, cache: &Path, args: &[&str]) -> Command {
    let nvcc = archbuild_tests::tool("nvcc");
    let mut cmd = archbuild_tests::cargo(dir, args);
    cmd.env("CARGO_TARGET_DIR", target)
        .env("NVCC", &nvcc)
        .env("ARCHBUILD_CACHE_DIR", cache)
        .env_remove("ARCHBUILD_ARCHS")
        .env_remove("TORCH_CUDA_ARCH_LIST")
        .env_remove("CUDAARCHS");
    cmd
}

#[test]
fn downstream_crate_builds_and_uses_the_generated_module() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = archbuild_tests::fixture("downstream", tmp.path());
    // A target dir that outlives the test, so reruns only rebuild the fixture.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("downstream-fixture");
    let cache = tmp.path().join("cache");

    let out = cargo(&dir, &target, &cache, &["test", "--quiet"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("2 passed"),
        "the fixture's own tests ran: {stdout}"
    );
    let report = find_report(&target);
    assert!(
        report.contains("12 jobs for `7.5 8.6 8.9+PTX` (from Cargo.toml"),
        "{report}"
    );

    // Nothing changed: Cargo does not even rerun the build script.
    cargo(&dir, &target, &cache, &["build"]);
    let out = cargo(&dir, &target, &cache, &["build", "-v"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Fresh archbuild-fixture-downstream"),
        "build script reran:\n{stderr}"
    );

    // Only PATH differs (an IDE's environment against a terminal's): the build script tracks
    // the toolkit it resolved, not PATH, so Cargo does not rerun it.
    let old_path = std::env::var_os("PATH").unwrap_or_default();
    let new_path = std::env::join_paths(
        std::iter::once(tmp.path().join("elsewhere/bin")).chain(std::env::split_paths(&old_path)),
    )
    .unwrap();
    let out = output(command(&dir, &target, &cache, &["build", "-v"]).env("PATH", new_path));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Fresh archbuild-fixture-downstream")
            && !runs_fixture_build_script(&stderr),
        "a PATH change alone reran the build script:\n{stderr}"
    );

    // A header is a rerun-if-changed dependency: editing it reruns the build script, which
    // recompiles only the file that includes it.
    std::fs::write(
        dir.join("kernels/scale_params.cuh"),
        "#pragma once\n#define SCALE_FACTOR 4.0f\n",
    )
    .unwrap();
    let out = cargo(&dir, &target, &cache, &["build", "-v"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        runs_fixture_build_script(&stderr),
        "build script did not rerun:\n{stderr}"
    );
    let report = find_report(&target);
    assert!(report.contains(": 6 run, 6 cached"), "{report}");
    assert!(
        report.contains("(Cargo jobserver)"),
        "compiles ran under Cargo's jobserver: {report}"
    );
    assert!(
        !report.lines().any(|l| l.trim_start().starts_with("add ")),
        "add.cu did not recompile: {report}"
    );
}

/// Whether `cargo -v` output shows the fixture's build script being run.
fn runs_fixture_build_script(stderr: &str) -> bool {
    stderr.lines().any(|l| {
        l.contains("Running `")
            && l.contains("archbuild-fixture-downstream-")
            && l.contains("/build-script-build`")
    })
}

/// The newest `archbuild-report.txt` the fixture's build script wrote.
fn find_report(target: &Path) -> String {
    let build = target.join("debug/build");
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    for e in std::fs::read_dir(build).unwrap().flatten() {
        let p = e.path().join("out/archbuild-report.txt");
        if let Ok(md) = std::fs::metadata(&p) {
            let t = md.modified().unwrap();
            if newest.as_ref().is_none_or(|(n, _)| t > *n) {
                newest = Some((t, p));
            }
        }
    }
    std::fs::read_to_string(newest.expect("the build script wrote a report").1).unwrap()
}
