//! `doctor` on an executable linked from a host library (`archbuild::Library`): the images of
//! every source's embedded fat binary are listed, and each GPU's verdict names the one it runs.

use std::path::Path;
use std::process::Command;

use crate::support::{cli, run, scratch};

#[test]
fn doctor_lists_the_images_a_host_library_embeds_in_an_executable() {
    let dir = scratch();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    let repo = archbuild_tests::repo_root();
    std::fs::copy(
        repo.join("examples/host_cuda/src/vector_add.cu"),
        pkg.join("src/vector_add.cu"),
    )
    .unwrap();
    let report = archbuild::Library::new()
        .toolkit(archbuild_tests::toolkit().clone())
        .env(archbuild_tests::path_env())
        .home(archbuild::config::Home::at(dir.path().join("home")))
        .manifest_dir(&pkg)
        .out_dir(pkg.join("out"))
        .archs("8.6 8.9+PTX")
        .file("src/vector_add.cu")
        .cargo_metadata(false)
        .quiet(true)
        .try_compile("vadd")
        .unwrap_or_else(|e| panic!("{e}"));
    let lib = report.library.as_ref().unwrap();
    // A C++ program that calls into the library, linked as the library's link lines say.
    std::fs::write(
        dir.path().join("main.cpp"),
        "#include <cstddef>\n\
         extern \"C\" int host_cuda_device(char*, size_t, int*, int*, char*, size_t);\n\
         int main() { char n[64], e[64]; int a, b; return host_cuda_device(n, 64, &a, &b, e, 64) == 0 ? 0 : 2; }\n",
    )
    .unwrap();
    let exe = dir.path().join("app");
    let mut link = Command::new("g++");
    link.arg(dir.path().join("main.cpp")).arg("-o").arg(&exe);
    for line in &lib.link {
        if let Some(d) = line.strip_prefix("cargo::rustc-link-search=native=") {
            link.arg(format!("-L{d}"));
        } else if let Some(l) = line.strip_prefix("cargo::rustc-link-lib=") {
            let name = l.rsplit('=').next().unwrap();
            link.arg(format!("-l{name}"));
        }
    }
    archbuild_tests::output(&mut link);
    assert!(Path::new(&exe).is_file());
    let (code, stdout, stderr) = run(cli()
        .env("ARCHBUILD_SIMULATED_GPUS", "8.6,8.9@13000")
        .arg("doctor")
        .arg(&exe)
        .args(["--message-format", "json"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let modules = v["file"]["modules"].as_array().unwrap();
    assert_eq!(modules.len(), 1, "{stdout}");
    let images: Vec<String> = modules[0]["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap_or_default().to_owned())
        .collect();
    let mut images = images;
    images.sort();
    assert_eq!(images, ["compute_89", "sm_86", "sm_89"], "{stdout}");
    for (ordinal, image) in [(0, "sm_86"), (1, "sm_89")] {
        let g = modules[0]["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["ordinal"] == ordinal)
            .unwrap();
        assert_eq!(g["image"], image, "{g}");
    }
}

/// `cargo archbuild build` on a package whose `[package.metadata.archbuild]` names a `library`:
/// the kernels are host code, built into `lib<name>.a` beside their fat binaries, with
/// Cargo.toml's `host-flags` and `cudart`; the human output names the archive, the JSON has it.
#[test]
fn build_makes_the_archive_a_package_declares() {
    let dir = scratch();
    let pkg = dir.path().join("ws");
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    std::fs::write(pkg.join("src/lib.rs"), "").unwrap();
    std::fs::copy(
        archbuild_tests::repo_root().join("examples/host_cuda/src/vector_add.cu"),
        pkg.join("src/vector_add.cu"),
    )
    .unwrap();
    std::fs::write(
        pkg.join("Cargo.toml"),
        "[package]\nname = \"hpkg\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
         [package.metadata.archbuild]\nkernels = [\"src/vector_add.cu\"]\narchs = \"8.6\"\n\
         library = \"vadd\"\nhost-flags = [\"-O2\"]\ncudart = \"shared\"\n",
    )
    .unwrap();
    let v = crate::support::json(
        cli()
            .env_remove("CARGO_TARGET_DIR")
            .env("ARCHBUILD_SIMULATED_GPUS", "8.6@13000")
            .arg("build")
            .arg("--manifest-path")
            .arg(pkg.join("Cargo.toml"))
            .args(["--message-format", "json"]),
    );
    let lib = &v["packages"][0]["library"];
    let archive = std::path::PathBuf::from(lib["archive"].as_str().unwrap());
    assert_eq!(archive, pkg.join("target/debug/archbuild/hpkg/libvadd.a"));
    assert!(archive.is_file());
    assert_eq!(lib["cudart"], "shared");
    assert!(
        lib["link"].as_array().unwrap().iter().any(
            |l| l.as_str().unwrap().contains("dylib") && l.as_str().unwrap().contains("cudart")
        ),
        "{lib}"
    );
    assert_eq!(lib["objects"][0]["module"], "vector_add");
    let (code, _, stderr) = run(cli()
        .env_remove("CARGO_TARGET_DIR")
        .env("ARCHBUILD_SIMULATED_GPUS", "8.6@13000")
        .arg("build")
        .arg("--manifest-path")
        .arg(pkg.join("Cargo.toml")));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("Archived")
            && stderr.contains("libvadd.a")
            && stderr.contains("1 from cache"),
        "{stderr}"
    );
}
