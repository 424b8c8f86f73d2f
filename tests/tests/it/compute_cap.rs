//! `CUDA_COMPUTE_CAP`, the variable candle, mistral.rs and every bindgen_cuda or cudaforge user
//! sets: read as those tools read it (`90` is nvcc's `-arch=sm_90`, the sm_90 cubin and
//! compute_90 PTX), below `ARCHBUILD_ARCHS` and above Cargo.toml's `archs`; and, for a package
//! that ships fat binaries whose own list runs on the GPUs it names, served by those files with
//! no toolkit.

use std::path::Path;

use archbuild::record::record_path;
use archbuild::{BuildReport, Result};
use archbuild_tests::fixture_kernels;

/// A package with the fixture kernels and `archs = "8.0 9.0+PTX"`, `prebuilt` when `ships`.
fn package(dir: &Path, ships: bool) {
    let prebuilt = if ships {
        "prebuilt = \"prebuilt\"\n"
    } else {
        ""
    };
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"k\"\nversion = \"0.1.0\"\n\n[package.metadata.archbuild]\n\
             kernels = [\"kernels/add.cu\"]\narchs = \"8.0 9.0+PTX\"\n{prebuilt}"
        ),
    )
    .unwrap();
    fixture_kernels(&dir.join("kernels"));
}

fn build(pkg: &Path, out: &Path, vars: &[(&str, &str)], cache: bool) -> Result<BuildReport> {
    let mut b = archbuild_tests::build();
    b.env(archbuild_tests::env_with(vars.iter().copied()))
        .manifest_dir(pkg)
        .cache_dir(pkg.join("../cache"))
        .cache(cache)
        .out_dir(out)
        .quiet(true);
    b.try_compile("kernels")
}

fn targets(r: &BuildReport) -> Vec<String> {
    let mut t = r.module("add").unwrap().targets.clone();
    t.sort();
    t
}

fn bytes(r: &BuildReport) -> Vec<u8> {
    std::fs::read(&r.module("add").unwrap().fatbin).unwrap()
}

#[test]
fn compute_cap_is_nvcc_s_arch_flag_and_sits_below_archbuild_archs() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, false);
    let out = |n: &str| dir.path().join(n);

    // `90` as bindgen_cuda reads it: sm_90 and compute_90, over Cargo.toml's `archs`; the
    // bytes of a cache-off build of that list.
    let r = build(&pkg, &out("a"), &[("CUDA_COMPUTE_CAP", "90")], true).unwrap();
    assert_eq!(targets(&r), ["compute_90", "sm_90"], "{r}");
    assert!(
        r.source.to_string().contains("CUDA_COMPUTE_CAP"),
        "{}",
        r.source
    );
    let mut explicit = archbuild_tests::build();
    explicit
        .env(archbuild_tests::path_env())
        .manifest_dir(&pkg)
        .cache(false)
        .out_dir(out("b"))
        .archs("9.0+PTX")
        .quiet(true);
    let reference = explicit.try_compile("kernels").unwrap();
    assert!(
        bytes(&r) == bytes(&reference),
        "not a cache-off build's bytes"
    );

    // `nvidia-smi`'s `8.6` and several values.
    let r = build(&pkg, &out("c"), &[("CUDA_COMPUTE_CAP", "8.6")], true).unwrap();
    assert_eq!(targets(&r), ["compute_86", "sm_86"]);
    let r = build(&pkg, &out("d"), &[("CUDA_COMPUTE_CAP", "75,86")], true).unwrap();
    assert_eq!(targets(&r), ["compute_75", "compute_86", "sm_75", "sm_86"]);

    // ARCHBUILD_ARCHS wins over it.
    let both = [("CUDA_COMPUTE_CAP", "90"), ("ARCHBUILD_ARCHS", "7.5")];
    let r = build(&pkg, &out("e"), &both, true).unwrap();
    assert_eq!(targets(&r), ["sm_75"]);

    // What it cannot mean is an error that names it.
    let e = build(&pkg, &out("f"), &[("CUDA_COMPUTE_CAP", "eighty")], true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("CUDA_COMPUTE_CAP") && e.contains("eighty"),
        "{e}"
    );
}

#[test]
fn a_shipped_list_that_runs_on_the_compute_cap_serves_it_with_no_toolkit() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, true);
    // The author ships `8.0 9.0+PTX`.
    let author = build(&pkg, &dir.path().join("author"), &[], true).unwrap();
    let fatbin = &author.module("add").unwrap().fatbin;
    std::fs::create_dir_all(pkg.join("prebuilt")).unwrap();
    std::fs::copy(fatbin, pkg.join("prebuilt/add.fatbin")).unwrap();
    std::fs::copy(
        record_path(fatbin),
        record_path(&pkg.join("prebuilt/add.fatbin")),
    )
    .unwrap();

    // A user's `CUDA_COMPUTE_CAP=90`, no toolkit, no python3, no network: the shipped file.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let dependent = |cap: &str, out: &str| {
        archbuild::Build::new()
            .env(archbuild::Env::from_vars([
                ("CUDA_COMPUTE_CAP", cap),
                ("PATH", empty.to_str().unwrap()),
                ("ARCHBUILD_HOME", empty.to_str().unwrap()),
                ("CARGO_NET_OFFLINE", "true"),
            ]))
            .manifest_dir(&pkg)
            .out_dir(dir.path().join(out))
            .quiet(true)
            .try_compile("kernels")
    };
    let r = dependent("90", "a").unwrap();
    assert_eq!(r.prebuilt, ["add"], "{r}");
    assert_eq!(r.processes_started, 0);
    assert!(bytes(&r) == bytes(&author), "not the author's bytes");
    let said = r.source.to_string();
    assert!(
        said.contains("CUDA_COMPUTE_CAP=90") && said.contains("ships"),
        "the report does not say why the package's list was built: {said}"
    );
    // 8.6 GPUs run the sm_80 cubin: covered too.
    assert_eq!(dependent("86", "b").unwrap().prebuilt, ["add"]);
    // 7.5 GPUs run nothing of it: compiling is needed, and without a toolkit that is an error.
    let e = dependent("75", "c").unwrap_err().to_string();
    assert!(e.contains("toolkit"), "{e}");
}
