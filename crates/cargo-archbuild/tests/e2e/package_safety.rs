//! `cargo archbuild package` writes and removes only its own files: a fat binary it did not
//! write survives in the directory it fills, a `prebuilt` that names the package's root, a
//! directory outside the package or a symbolic link is refused before anything is built, and
//! a symbolic link where a fat binary goes is never written through.

use std::path::Path;

use crate::support::{cli, run, scratch};

pub(crate) const ADD: &str = r#"extern "C" __global__ void add(float* a) { a[threadIdx.x] += 1.0f; }
"#;
const OLD: &str = r#"extern "C" __global__ void old(float* a) { a[threadIdx.x] -= 1.0f; }
"#;

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A kernel crate with `kernels` and `prebuilt = "{prebuilt}"`.
fn kernel_crate(dir: &Path, kernels: &[&str], prebuilt: &str) {
    let list: Vec<String> = kernels.iter().map(|k| format!("\"{k}\"")).collect();
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [package.metadata.archbuild]\nkernels = [{}]\narchs = \"8.6\"\n\
             prebuilt = \"{prebuilt}\"\n\n[workspace]\n",
            list.join(", ")
        ),
    );
    write(&dir.join("src/lib.rs"), "//! Kernels.\n");
    write(&dir.join("kernels/add.cu"), ADD);
    write(&dir.join("kernels/old.cu"), OLD);
}

pub(crate) fn package(dir: &Path) -> (i32, String) {
    let (code, _, stderr) = run(cli()
        .arg("package")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml")));
    (code, stderr)
}

#[test]
fn package_removes_only_the_fat_binaries_it_wrote() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    // `prebuilt` is the kernels' own directory, where an author keeps a vendor's fat binary.
    kernel_crate(&k, &["kernels/add.cu", "kernels/old.cu"], "kernels");
    write(&k.join("kernels/vendor.fatbin"), "the vendor's bytes");
    write(&k.join("kernels/notes.fatbin.archbuild.json"), "{}");
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    assert!(k.join("kernels/old.fatbin").is_file());

    // `old` leaves the build: its files go, what `package` never wrote stays.
    kernel_crate(&k, &["kernels/add.cu"], "kernels");
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    assert!(k.join("kernels/add.fatbin").is_file());
    assert!(
        !k.join("kernels/old.fatbin").exists(),
        "a stale module of ours stayed"
    );
    assert!(!k.join("kernels/old.fatbin.archbuild.json").exists());
    assert_eq!(
        std::fs::read_to_string(k.join("kernels/vendor.fatbin")).unwrap(),
        "the vendor's bytes"
    );
    assert!(k.join("kernels/notes.fatbin.archbuild.json").is_file());
    assert!(k.join("kernels/old.cu").is_file());
}

#[test]
fn package_refuses_the_root_a_directory_outside_and_a_linked_directory() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    let other = tmp.path().join("other/prebuilt");
    write(&other.join("theirs.fatbin"), "another crate's bytes");
    for (prebuilt, says) in [
        ("", "root"),
        (".", "root"),
        ("./", "root"),
        ("../other/prebuilt", "outside the package"),
        ("/tmp/prebuilt", "outside the package"),
        ("linked", "symbolic link"),
    ] {
        let _ = std::fs::remove_dir_all(&k);
        kernel_crate(&k, &["kernels/add.cu"], prebuilt);
        write(&k.join("root.fatbin"), "the author's own file");
        std::os::unix::fs::symlink(&other, k.join("linked")).unwrap();
        let (code, stderr) = package(&k);
        assert_ne!(
            code, 0,
            "`prebuilt = \"{prebuilt}\"` was accepted:\n{stderr}"
        );
        assert!(stderr.contains(says), "`{prebuilt}`: {stderr}");
        assert!(stderr.contains("prebuilt = \"prebuilt\""), "{stderr}");
        assert_eq!(
            std::fs::read_to_string(k.join("root.fatbin")).unwrap(),
            "the author's own file"
        );
        assert_eq!(
            std::fs::read_to_string(other.join("theirs.fatbin")).unwrap(),
            "another crate's bytes"
        );
        assert!(
            !other.join("add.fatbin").exists(),
            "written into another crate"
        );
    }
}

#[test]
fn package_never_writes_through_a_link_where_a_fat_binary_goes() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    kernel_crate(&k, &["kernels/add.cu"], "prebuilt");
    let elsewhere = tmp.path().join("elsewhere.fatbin");
    write(&elsewhere, "not archbuild's");
    std::fs::create_dir_all(k.join("prebuilt")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, k.join("prebuilt/add.fatbin")).unwrap();
    let (code, stderr) = package(&k);
    assert_ne!(code, 0, "{stderr}");
    assert!(
        stderr.contains("symbolic link") && stderr.contains("add.fatbin"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&elsewhere).unwrap(),
        "not archbuild's"
    );
    assert!(!k.join("prebuilt/add.fatbin.archbuild.json").exists());
}

fn check(dir: &Path) -> (i32, String) {
    let (code, _, stderr) = run(cli()
        .args(["package", "--check"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml")));
    (code, stderr)
}

#[test]
fn package_check_fails_on_a_stale_directory_and_passes_after_package() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    kernel_crate(&k, &["kernels/add.cu"], "prebuilt");
    let (code, stderr) = check(&k);
    assert_ne!(code, 0, "nothing shipped passed the check:\n{stderr}");
    assert!(stderr.contains("ships no fat binary"), "{stderr}");

    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    // The shipped record names the package's own files only, none of the author's machine.
    let record = std::fs::read_to_string(k.join("prebuilt/add.fatbin.archbuild.json")).unwrap();
    assert!(record.contains("\"b:kernels/add.cu\""), "{record}");
    assert!(
        !record.contains("\"a:") && !record.contains("\"t:"),
        "a path outside the package ships: {record}"
    );
    let (code, stderr) = check(&k);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Checked") && stderr.contains("0 processes, nothing compiled"),
        "{stderr}"
    );
    assert!(!k.join("prebuilt/add.fatbin.tmp").exists());

    // An edited kernel: the shipped file is stale, and the check names the source.
    write(
        &k.join("kernels/add.cu"),
        &ADD.replace("+= 1.0f", "+= 2.0f"),
    );
    let (code, stderr) = check(&k);
    assert_ne!(code, 0, "a stale directory passed the check:\n{stderr}");
    assert!(
        stderr.contains("kernels/add.cu") && stderr.contains("cargo archbuild package"),
        "{stderr}"
    );
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr) = check(&k);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn package_refuses_an_arch_list_from_the_author_s_shell() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    kernel_crate(&k, &["kernels/add.cu"], "prebuilt");
    let (code, _, stderr) = run(cli()
        .env("ARCHBUILD_ARCHS", "7.5")
        .arg("package")
        .arg("--manifest-path")
        .arg(k.join("Cargo.toml")));
    assert_ne!(code, 0, "a list from the shell was shipped:\n{stderr}");
    assert!(
        stderr.contains("ARCHBUILD_ARCHS") && stderr.contains("unset ARCHBUILD_ARCHS"),
        "{stderr}"
    );
    assert!(!k.join("prebuilt/add.fatbin").exists());
}

/// `cargo archbuild build` of a crate that ships its fat binaries, on a machine with no toolkit
/// (and none to provision, offline), takes them as `cargo build` does.
#[test]
fn build_takes_shipped_fat_binaries_with_no_toolkit() {
    let tmp = scratch();
    let k = tmp.path().join("k");
    kernel_crate(&k, &["kernels/add.cu"], "prebuilt");
    let (code, stderr) = package(&k);
    assert_eq!(code, 0, "{stderr}");
    let empty = tmp.path().join("empty-home");
    std::fs::create_dir_all(&empty).unwrap();
    let mut cmd = crate::support::cli_without_toolkit();
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "NVCC"] {
        cmd.env_remove(var);
    }
    let (code, _, stderr) = run(cmd
        .env("ARCHBUILD_HOME", &empty)
        .env("CARGO_NET_OFFLINE", "true")
        .args(["build", "--manifest-path"])
        .arg(k.join("Cargo.toml")));
    assert_eq!(code, 0, "the shipped files were not taken:\n{stderr}");
    assert!(stderr.contains("shipped fat binaries"), "{stderr}");
}
