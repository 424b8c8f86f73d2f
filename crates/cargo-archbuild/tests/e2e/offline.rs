//! `cargo archbuild build --offline` works wherever `cargo build --offline` does: its
//! `cargo metadata` resolves for the platform a build is for (the host, or `--target`), as
//! `cargo build` resolves, so a dependency of another platform that no build ever downloaded is
//! not needed.

use std::path::Path;

use crate::support::{cli, run, scratch};

/// A Cargo home whose registry (a `local-registry` replacing crates.io) lists `winonly` in its
/// index but holds no package file for it: what a Linux machine has after `cargo build`, which
/// never downloads a Windows-only dependency.
fn home_without_the_windows_package(home: &Path) {
    let registry = home.join("mirror");
    let index = registry.join("index/wi/no");
    std::fs::create_dir_all(&index).unwrap();
    std::fs::write(
        index.join("winonly"),
        format!(
            "{{\"name\":\"winonly\",\"vers\":\"0.1.0\",\"deps\":[],\"cksum\":\"{}\",\
             \"features\":{{}},\"yanked\":false}}\n",
            "0".repeat(64)
        ),
    )
    .unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[source.crates-io]\nreplace-with = \"mirror\"\n\n[source.mirror]\nlocal-registry = {:?}\n",
            registry.display().to_string()
        ),
    )
    .unwrap();
}

#[test]
fn offline_and_frozen_builds_need_no_package_of_another_platform() {
    let dir = scratch();
    let home = dir.path().join("cargo-home");
    home_without_the_windows_package(&home);
    let krate = dir.path().join("winkernels");
    std::fs::create_dir_all(krate.join("kernels")).unwrap();
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"winkernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [target.'cfg(windows)'.dependencies]\nwinonly = \"0.1\"\n\n\
         [package.metadata.archbuild]\nkernels = [\"kernels/k.cu\"]\narchs = \"8.6\"\n",
    )
    .unwrap();
    std::fs::write(krate.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        krate.join("kernels/k.cu"),
        "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n",
    )
    .unwrap();
    let target = dir.path().join("target");
    let cargo = |args: &[&str]| {
        let mut cmd = archbuild_tests::cargo(&krate, args);
        cmd.env("CARGO_HOME", &home)
            .env("CARGO_TARGET_DIR", &target);
        archbuild_tests::output(&mut cmd)
    };
    cargo(&["generate-lockfile", "--offline"]);
    // Cargo itself builds offline: `winonly` is for Windows only.
    cargo(&["build", "--offline", "--locked"]);

    let archbuild = |flags: &[&str]| {
        run(cli()
            .current_dir(&krate)
            .env("CARGO_HOME", &home)
            .env("CARGO_TARGET_DIR", &target)
            .arg("build")
            .args(flags))
    };
    for flags in [&["--offline", "--locked"][..], &["--frozen"]] {
        let (code, _, stderr) = archbuild(flags);
        assert_eq!(code, 0, "cargo archbuild build {flags:?}:\n{stderr}");
        assert!(!stderr.contains("winonly"), "{stderr}");
        assert!(
            target
                .join("debug/archbuild/winkernels/kernels/k.fatbin")
                .is_file(),
            "{stderr}"
        );
    }
    // The platform is the one built for: for Windows, the package is needed (and missing).
    let (code, _, stderr) = archbuild(&["--frozen", "--target", "x86_64-pc-windows-gnu"]);
    assert_eq!(code, 6, "{stderr}");
    assert!(stderr.contains("winonly"), "{stderr}");
}
