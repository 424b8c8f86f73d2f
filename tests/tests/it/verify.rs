//! `ARCHBUILD_VERIFY` with the real toolkit: on a sound cache every hit compiles again to the
//! same bytes and the build says how many it checked; where the key misses an input — here a
//! host compiler that reads a file no key can know of — the stale hit is an error that names
//! the job and lists what its key holds.

use std::path::Path;

use archbuild::{BuildReport, Error};

fn build(dir: &Path, verify: &str, ccbin: Option<&Path>) -> Result<BuildReport, Error> {
    build_for(dir, "8.6+PTX", verify, ccbin)
}

fn build_for(
    dir: &Path,
    archs: &str,
    verify: &str,
    ccbin: Option<&Path>,
) -> Result<BuildReport, Error> {
    let mut b = archbuild_tests::build();
    b.manifest_dir(dir.join("pkg"))
        .cache_dir(dir.join("cache"))
        .out_dir(dir.join("out"))
        .file("k.cu")
        .archs(archs)
        .verify(verify)
        .quiet(true);
    if let Some(cc) = ccbin {
        b.flag("-ccbin").flag(cc.to_str().unwrap());
    }
    b.try_compile("kernels")
}

#[test]
fn every_hit_of_a_sound_cache_verifies() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/k.cu"), archbuild_tests::KERNEL).unwrap();
    let cold = build(dir.path(), "all", None).unwrap();
    assert_eq!(
        cold.verified, 0,
        "nothing was served from the cache: {cold}"
    );
    let warm = build(dir.path(), "all", None).unwrap();
    assert_eq!(warm.cache_hits, 2, "{warm}");
    assert_eq!(warm.verified, 2, "both hits verified: {warm}");
    // Verification is not the build's work: an unchanged rebuild still starts no compiler.
    assert_eq!(warm.jobs_run, 0, "{warm}");
    let off = build(dir.path(), "off", None).unwrap();
    assert_eq!(off.verified, 0);
}

/// An LTO-IR job's hit is compiled again (`nvcc -ltoir`) and compared like a cicc job's.
#[test]
fn lto_ir_hits_verify_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/k.cu"), archbuild_tests::KERNEL).unwrap();
    build_for(dir.path(), "8.6+LTO", "all", None).unwrap();
    let warm = build_for(dir.path(), "8.6+LTO", "all", None).unwrap();
    assert_eq!(warm.cache_hits, 3, "cicc, ptxas and LTO-IR jobs: {warm}");
    assert_eq!(warm.verified, 3, "{warm}");
    assert_eq!(warm.jobs_run, 0, "{warm}");
}

/// A host compiler that reads a file of its own: its content is keyed, the file is not. The
/// stale hit is served without verification, and caught with it.
#[test]
fn a_hit_that_differs_from_a_fresh_compile_is_an_error_naming_the_job_and_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("k.cu"),
        "extern \"C\" __global__ void k(float *x) { x[0] = EXTRA; }\n",
    )
    .unwrap();
    let gcc = which::which("gcc").unwrap();
    let extra = dir.path().join("extra.txt");
    let cc = dir.path().join("cc");
    std::fs::create_dir_all(&cc).unwrap();
    std::fs::write(
        cc.join("gcc"),
        format!(
            // Read through `/proc`, which the observer leaves out (the kernel's files are
            // no inputs): a path the key cannot see. A plain `cat` of the file is observed.
            "#!/bin/sh\nexec {} -DEXTRA=\"$(cat /proc/self/root{})\" \"$@\"\n",
            gcc.display(),
            extra.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(cc.join("gcc"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(&extra, "2.0f").unwrap();
    build(dir.path(), "off", Some(&cc)).unwrap();
    std::fs::write(&extra, "3.0f").unwrap();
    let stale = build(dir.path(), "off", Some(&cc)).unwrap();
    assert_eq!(
        stale.jobs_run, 0,
        "the hole is real: the stale PTX was served"
    );
    let err = build(dir.path(), "all", Some(&cc)).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::VerifyMismatch { .. }), "{msg}");
    assert!(msg.contains("compute_86"), "names the job: {msg}");
    assert!(
        msg.contains("host-compiler=content:"),
        "lists the key: {msg}"
    );
    assert!(msg.contains("nvcc-flag=-ccbin"), "lists the key: {msg}");
    assert!(msg.contains("b:k.cu"), "lists the inputs: {msg}");
    // The stale entry is gone: the next build compiles it.
    let next = build(dir.path(), "off", Some(&cc)).unwrap();
    assert!(next.jobs_run > 0, "{next}");
}
