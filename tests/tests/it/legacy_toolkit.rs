//! `legacy-toolkit` names the toolkit for the archs the build's own toolkit cannot build (a
//! CUDA 12 for sm_50–72). It is looked for only when a target needs it: on a machine without
//! that toolkit every list the build's toolkit builds still builds, and a list that needs it
//! fails naming `legacy-toolkit`.

use std::path::Path;

use archbuild::{BuildReport, Result};
use archbuild_tests::fixture_kernels;

fn build(dir: &Path, archs: &str) -> Result<BuildReport> {
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"k\"\nversion = \"0.1.0\"\n\n[package.metadata.archbuild]\n\
         kernels = [\"kernels/add.cu\"]\nlegacy-toolkit = \"12.x\"\n",
    )
    .unwrap();
    let mut b = archbuild_tests::build();
    b.env(archbuild_tests::path_env())
        .manifest_dir(dir)
        .cache_dir(dir.join("cache"))
        .out_dir(dir.join("out"))
        .archs(archs)
        .quiet(true);
    b.try_compile("kernels")
}

#[test]
fn a_legacy_toolkit_no_target_needs_is_not_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    fixture_kernels(&dir.path().join("kernels"));
    // This machine's toolkits (the test toolkit, CUDA 13) build sm_86: no CUDA 12 is needed.
    let r = build(dir.path(), "8.6").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.module("add").unwrap().targets, ["sm_86"]);
    // sm_50 is only CUDA 12's: then the legacy toolkit is needed, and its absence is named.
    if let Err(e) = build(dir.path(), "5.0") {
        let e = e.to_string();
        assert!(e.contains("legacy-toolkit") || e.contains("12"), "{e}");
    }
}
