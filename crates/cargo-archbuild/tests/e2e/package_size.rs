//! What ships is small by default: `package` packs the smallest compression the fleet reads
//! when none is set, a dependent that sets none takes it and one that sets another does not,
//! and the budget is checked before compiling when an earlier `package` left files to estimate
//! from.

use std::path::Path;

use archbuild_fatbin::{read_any, Compression};

use crate::package_safety::{package, write, ADD};
use crate::support::{cli_without_toolkit, run, scratch};

/// A kernel crate for `archs` with `more` in its `[package.metadata.archbuild]`.
fn kernel_crate(dir: &Path, archs: &str, more: &str) {
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [package.metadata.archbuild]\nkernels = [\"kernels/add.cu\"]\narchs = \"{archs}\"\n\
             prebuilt = \"prebuilt\"\n{more}\n[workspace]\n"
        ),
    );
    write(&dir.join("src/lib.rs"), "//! Kernels.\n");
    write(&dir.join("kernels/add.cu"), ADD);
}

/// A dependent's build with no toolkit: the shipped files or an error.
fn take(dir: &Path, home: &Path, compression: Option<&str>) -> (i32, String) {
    let mut cmd = cli_without_toolkit();
    for var in [
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "NVCC",
        "ARCHBUILD_COMPRESSION",
    ] {
        cmd.env_remove(var);
    }
    if let Some(c) = compression {
        cmd.env("ARCHBUILD_COMPRESSION", c);
    }
    let (code, _, stderr) = run(cmd
        .env("ARCHBUILD_HOME", home)
        .env("CARGO_NET_OFFLINE", "true")
        .args(["build", "--manifest-path"])
        .arg(dir.join("Cargo.toml")));
    (code, stderr)
}

#[test]
fn package_ships_zstd_19_and_a_dependent_that_sets_no_compression_takes_it() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    kernel_crate(&k, "8.6+PTX", "");
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(k.join("prebuilt/add.fatbin")).unwrap();
    let images = read_any(&bytes).unwrap();
    assert_eq!(images.len(), 2);
    for i in &images {
        assert_eq!(i.compression.name(), "zstd", "{i:?}");
    }
    assert!(stderr.contains("cubins zstd-19, PTX zstd-19"), "{stderr}");
    let home = tmp.path().join("empty-home");
    std::fs::create_dir_all(&home).unwrap();
    let (code, stderr) = take(&k, &home, None);
    assert_eq!(code, 0, "the shipped files were not taken:\n{stderr}");
    assert!(stderr.contains("shipped fat binaries"), "{stderr}");
    // One that asks for another compression does not take them, and says why.
    let (code, stderr) = take(&k, &home, Some("none"));
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("compression"), "{stderr}");
}

#[test]
fn a_set_compression_stands_in_package() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    kernel_crate(&k, "8.6", "compression = \"none\"\n");
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(k.join("prebuilt/add.fatbin")).unwrap();
    let images = read_any(&bytes).unwrap();
    assert!(images.iter().all(|i| i.compression == Compression::None));
}

#[test]
fn the_budget_is_checked_before_compiling_when_an_earlier_package_gives_an_estimate() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    kernel_crate(&k, "8.6", "");
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    let one = std::fs::metadata(k.join("prebuilt/add.fatbin"))
        .unwrap()
        .len();
    // Eight cubins where there was one, under a budget of about two.
    let budget = format!("prebuilt-budget = \"{}\"\n", one * 2);
    kernel_crate(&k, "7.5 8.0 8.6 8.9 9.0 10.0 11.0 12.0", &budget);
    let (code, stderr) = package(&k);
    assert_ne!(code, 0, "{stderr}");
    assert!(
        stderr.contains("estimated before compiling")
            && stderr.contains("over the package's budget"),
        "{stderr}"
    );
    // Nothing was compiled or written: the earlier file is still the only one.
    assert_eq!(
        std::fs::metadata(k.join("prebuilt/add.fatbin"))
            .unwrap()
            .len(),
        one
    );
    // Within the margin it compiles and measures as before.
    let budget = format!("prebuilt-budget = \"{}\"\n", one * 100);
    kernel_crate(&k, "7.5 8.0 8.6 8.9 9.0 10.0 11.0 12.0", &budget);
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
}
