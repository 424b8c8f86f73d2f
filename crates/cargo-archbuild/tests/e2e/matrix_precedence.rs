//! `matrix` splits the list a build would use: the same precedence as the build script
//! (`--archs`, `ARCHBUILD_ARCHS`, Cargo.toml `archs`, `TORCH_CUDA_ARCH_LIST`, `CUDAARCHS`), so a
//! CI matrix never shards a different list than the one the package compiles.

use std::path::Path;

use crate::support::{cli, run, scratch};

/// A package `name` in `dir` whose `[package.metadata.archbuild]` sets `archs`.
fn package(dir: &Path, name: &str, archs: &str) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [package.metadata.archbuild]\narchs = {archs}\n"
        ),
    )
    .unwrap();
}

/// The `archs` of each shard of `matrix --shards 2` run with `extra` arguments in `cwd`.
fn shards(cwd: &Path, env: &[(&str, &str)], extra: &[&str]) -> (Vec<String>, String) {
    let mut cmd = cli();
    cmd.current_dir(cwd)
        .args(["matrix", "--shards", "2"])
        .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, stdout, stderr) = run(&mut cmd);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let archs = v["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["archs"].as_str().unwrap().to_owned())
        .collect();
    (archs, stderr)
}

#[test]
fn the_manifest_list_is_split_unless_the_environment_overrides_it() {
    let dir = scratch();
    package(dir.path(), "kernels", "[\"7.5\", \"8.6+PTX\"]");
    let (archs, stderr) = shards(dir.path(), &[("CUDAARCHS", "90")], &[]);
    assert_eq!(archs, ["7.5", "8.6+PTX"]);
    assert!(
        stderr.contains("from Cargo.toml [package.metadata.archbuild] archs"),
        "{stderr}"
    );
    // The same from elsewhere with --manifest-path.
    let manifest = dir.path().join("Cargo.toml");
    let (archs, _) = shards(
        crate::support::home(),
        &[],
        &["--manifest-path", manifest.to_str().unwrap()],
    );
    assert_eq!(archs, ["7.5", "8.6+PTX"]);
    // ARCHBUILD_ARCHS outranks the manifest, as in a build script; --archs outranks both.
    let (archs, stderr) = shards(dir.path(), &[("ARCHBUILD_ARCHS", "8.0 9.0")], &[]);
    assert_eq!(archs, ["8.0", "9.0"]);
    assert!(stderr.contains("from ARCHBUILD_ARCHS"), "{stderr}");
    let (archs, _) = shards(
        dir.path(),
        &[("ARCHBUILD_ARCHS", "8.0 9.0")],
        &["--archs", "8.9 12.0"],
    );
    assert_eq!(archs, ["8.9", "12.0"]);
}

#[test]
fn outside_cargo_cudaarchs_is_read_with_cmakes_meaning() {
    let dir = scratch();
    // A bare CMake number means cubin and PTX; `-real` a cubin only.
    let (archs, stderr) = shards(dir.path(), &[("CUDAARCHS", "75-real;86")], &[]);
    assert_eq!(archs, ["7.5", "8.6+PTX"]);
    assert!(stderr.contains("from CUDAARCHS"), "{stderr}");
    // TORCH_CUDA_ARCH_LIST comes before CUDAARCHS.
    let (archs, _) = shards(
        dir.path(),
        &[("CUDAARCHS", "90"), ("TORCH_CUDA_ARCH_LIST", "8.0;8.6")],
        &[],
    );
    assert_eq!(archs, ["8.0", "8.6"]);
}

#[test]
fn members_that_disagree_need_a_package_named() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    package(&dir.path().join("a"), "pkg-a", "\"7.5 8.0\"");
    package(&dir.path().join("b"), "pkg-b", "\"8.9 9.0+PTX\"");
    let (code, _, stderr) = run(cli().current_dir(dir.path()).args(["matrix"]));
    assert_eq!(code, 6, "a Cargo problem: {stderr}");
    insta::assert_snapshot!("err_matrix_members_disagree", stderr);
    let (archs, _) = shards(dir.path(), &[], &["-p", "pkg-b"]);
    assert_eq!(archs, ["8.9", "9.0+PTX"]);
    // Inside a member, that member's list is the one its build uses.
    let (archs, _) = shards(&dir.path().join("a"), &[], &[]);
    assert_eq!(archs, ["7.5", "8.0"]);
    let (code, _, stderr) = run(cli()
        .current_dir(dir.path())
        .args(["matrix", "-p", "pkg-c"]));
    assert_eq!(code, 6);
    assert!(
        stderr.contains("package `pkg-c` is not a member") && stderr.contains("pkg-a, pkg-b"),
        "{stderr}"
    );
}
