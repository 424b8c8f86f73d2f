//! A kernel crate ships its fat binaries (`docs/publishing.md`): `cargo archbuild package` writes
//! them into the package, `cargo package` packs it, and a crate that depends on the *packaged*
//! contents builds with no toolkit anywhere, no `python3`, an empty `ARCHBUILD_HOME` and
//! `CARGO_NET_OFFLINE=true`: 0 processes started, the author's bytes. `DOCS_RS=1 cargo doc`
//! succeeds there too. An edited source is refused by name, then compiled (toolkit present) or
//! an error with the fix (absent); `ARCHBUILD_VERIFY=all` recompiles a taken file and fails on
//! one whose bytes were altered.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{cli, run, scratch};

const KERNEL: &str = r#"#include "common.cuh"
extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = twice(a[i]) + b[i];
}
"#;

const BUILD_RS: &str = r#"fn main() {
    let report = archbuild::Build::new().compile("kernels");
    let out = std::env::var("OUT_DIR").unwrap();
    let line = format!(
        "processes_started={} prebuilt={} toolkit={}\n",
        report.processes_started,
        report.prebuilt.join(","),
        report.toolkit
    );
    std::fs::write(format!("{out}/archbuild-report.txt"), line).unwrap();
}
"#;

const LIB_RS: &str = r#"//! Kernels shipped prebuilt.
mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}
/// The `add` module's fat binary.
pub fn fatbin() -> &'static [u8] {
    kernels::add::FATBIN
}
/// Its kernels.
pub fn kernels() -> &'static [&'static str] {
    kernels::add::KERNELS
}
"#;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The author's crate: one kernel and a header, `prebuilt = "prebuilt"`.
fn kernel_crate(dir: &Path) {
    let archbuild = archbuild_tests::repo_root().join("crates/archbuild");
    write(
        &dir.join("Cargo.toml"),
        &format!(
            r#"[package]
name = "shipped-kernels"
version = "0.1.0"
edition = "2021"
license = "MIT"
description = "kernels shipped prebuilt"

[package.metadata.archbuild]
kernels = ["kernels/add.cu"]
archs = "7.5 8.6+PTX"
prebuilt = "prebuilt"

[build-dependencies]
archbuild = {{ path = {:?}, version = "0.1.0" }}

[workspace]
"#,
            archbuild.display().to_string()
        ),
    );
    write(&dir.join("build.rs"), BUILD_RS);
    write(&dir.join("src/lib.rs"), LIB_RS);
    write(&dir.join("kernels/add.cu"), KERNEL);
    write(
        &dir.join("kernels/common.cuh"),
        "__device__ inline float twice(float x) { return 2.0f * x; }\n",
    );
}

/// The dependent: uses the unpacked package by path (archbuild, not on crates.io yet, patched
/// to this checkout), with this workspace's lock file so that an offline build resolves.
fn dependent(dir: &Path, unpacked: &Path) {
    let repo = archbuild_tests::repo_root();
    write(
        &dir.join("Cargo.toml"),
        &format!(
            r#"[package]
name = "app"
version = "0.1.0"
edition = "2021"

[dependencies]
shipped-kernels = {{ path = {:?} }}

[patch.crates-io]
archbuild = {{ path = {:?} }}

[workspace]
"#,
            unpacked.display().to_string(),
            repo.join("crates/archbuild").display().to_string()
        ),
    );
    write(
        &dir.join("src/main.rs"),
        "//! Prints the kernels it got.\nfn main() {\n    println!(\"{} bytes, kernels {:?}\", \
         shipped_kernels::fatbin().len(), shipped_kernels::kernels());\n}\n",
    );
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// A `PATH` with cargo, rustc and the linker's tools only: no nvcc, no python3.
fn bare_path(dir: &Path) -> PathBuf {
    let bin = dir.join("bare-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for tool in [
        "cargo", "rustc", "rustdoc", "cc", "gcc", "ld", "as", "ar", "rustup",
    ] {
        if let Some(found) = std::env::split_paths(&path)
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
        {
            let _ = std::os::unix::fs::symlink(found, bin.join(tool));
        }
    }
    bin
}

/// `cargo ARGS` in `dir` with the dependent's environment: nothing of CUDA, no python3 on
/// `PATH`, an empty archbuild home, offline, and (unless `with_toolkit`) no toolkit at all and
/// no C compiler for build scripts (`CC` names none; rustc still links with `cc`). `CXX` stays
/// unset: it is the host compiler nvcc would use, an input of the shipped files' settings.
fn cargo(dir: &Path, env_dir: &Path, args: &[&str], with_toolkit: bool) -> (bool, String) {
    cargo_with(dir, env_dir, args, with_toolkit, &[])
}

fn cargo_with(
    dir: &Path,
    env_dir: &Path,
    args: &[&str],
    with_toolkit: bool,
    vars: &[(&str, &str)],
) -> (bool, String) {
    let mut cmd = archbuild_tests::cargo(dir, args);
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("ARCHBUILD_")
            || k.starts_with("CUDA")
            || k == "NVCC"
            || k.starts_with("NVCC_")
            || k == "DOCS_RS"
        {
            cmd.env_remove(&key);
        }
    }
    let home = env_dir.join("empty-home");
    let _ = std::fs::remove_dir_all(&home);
    cmd.env("ARCHBUILD_HOME", &home)
        .env("CARGO_NET_OFFLINE", "true")
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("published"),
        )
        .env("PATH", bare_path(env_dir));
    if with_toolkit {
        cmd.env("NVCC", archbuild_tests::tool("nvcc"));
    } else {
        let none = env_dir.join("no-c-compiler/cc");
        cmd.env("CC", &none);
    }
    cmd.envs(vars.iter().copied());
    let out = cmd.output().expect("run cargo");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The newest `archbuild-report.txt` and fat binary the kernel crate's build script wrote.
fn built(name: &str) -> (String, Vec<u8>) {
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("published/debug/build");
    let out = std::fs::read_dir(&build)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("shipped-kernels-")
        })
        .map(|e| e.path().join("out"))
        .filter(|o| o.join("archbuild-report.txt").is_file())
        .max_by_key(|o| {
            std::fs::metadata(o.join("archbuild-report.txt"))
                .and_then(|m| m.modified())
                .unwrap()
        })
        .expect("the kernel crate's build script ran");
    (
        std::fs::read_to_string(out.join("archbuild-report.txt")).unwrap(),
        std::fs::read(out.join("kernels").join(name)).unwrap_or_default(),
    )
}

#[test]
fn a_dependent_takes_the_packaged_fat_binary_with_no_toolkit_and_refuses_an_edit() {
    let tmp = scratch();
    let author = tmp.path().join("author");
    kernel_crate(&author);

    // The author: fat binaries into the package, then `cargo package`.
    let (code, _, stderr) = run(cli()
        .arg("package")
        .arg("--manifest-path")
        .arg(author.join("Cargo.toml")));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Packaged"), "{stderr}");
    assert!(stderr.contains("10 MiB"), "{stderr}");
    let shipped = std::fs::read(author.join("prebuilt/add.fatbin")).unwrap();
    assert!(author.join("prebuilt/add.fatbin.archbuild.json").is_file());
    let packed = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["package", "--no-verify", "--allow-dirty", "--offline"])
        .arg("--exclude-lockfile")
        .arg("--manifest-path")
        .arg(author.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", author.join("target"))
        .output()
        .unwrap();
    assert!(
        packed.status.success(),
        "{}",
        String::from_utf8_lossy(&packed.stderr)
    );
    let unpacked_root = tmp.path().join("registry");
    std::fs::create_dir_all(&unpacked_root).unwrap();
    archbuild_tests::output(
        Command::new("tar")
            .arg("xzf")
            .arg(author.join("target/package/shipped-kernels-0.1.0.crate"))
            .arg("-C")
            .arg(&unpacked_root),
    );
    let unpacked = unpacked_root.join("shipped-kernels-0.1.0");
    assert!(unpacked.join("prebuilt/add.fatbin").is_file());

    // The dependent, with nothing of CUDA, no python3, offline: the author's bytes, 0 processes.
    let app = tmp.path().join("app");
    dependent(&app, &unpacked);
    let (ok, stderr) = cargo(&app, tmp.path(), &["build", "-vv"], false);
    assert!(ok, "the dependent's build:\n{stderr}");
    // No crate of the graph needs a C compiler: blake3 looked for one, found none and took its
    // Rust SIMD code instead of assembling its own.
    assert!(
        stderr.contains("No C compiler") && stderr.contains("no-c-compiler"),
        "blake3 did not look for the C compiler this build names:\n{stderr}"
    );
    let (report, fatbin) = built("add.fatbin");
    assert!(
        report.starts_with("processes_started=0 prebuilt=add "),
        "{report}"
    );
    assert!(
        fatbin == shipped,
        "the dependent's fat binary is not the author's"
    );
    // docs.rs: no toolkit, no network; the build succeeds.
    let doc = ["doc", "--no-deps"];
    let docs_rs = [("DOCS_RS", "1")];
    let (ok, stderr) = cargo_with(&app, tmp.path(), &doc, false, &docs_rs);
    assert!(ok, "DOCS_RS=1 cargo doc:\n{stderr}");

    // An edited header: refused by name; no toolkit, an error with the fix.
    let header = unpacked.join("kernels/common.cuh");
    let text = std::fs::read_to_string(&header).unwrap();
    std::fs::write(&header, text.replace("2.0f", "3.0f")).unwrap();
    let (ok, stderr) = cargo(&app, tmp.path(), &["build"], false);
    assert!(!ok, "an edited package built without a toolkit:\n{stderr}");
    assert!(stderr.contains("kernels/common.cuh"), "{stderr}");
    assert!(
        stderr.contains("cargo archbuild toolkit install"),
        "{stderr}"
    );
    // docs.rs still builds (documentation runs no kernel).
    let (ok, stderr) = cargo_with(&app, tmp.path(), &doc, false, &docs_rs);
    assert!(ok, "DOCS_RS=1 cargo doc of an edited package:\n{stderr}");
    // With a toolkit, it compiles, and says why the shipped file was not used.
    let (ok, stderr) = cargo(&app, tmp.path(), &["build", "-vv"], true);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("not used") && stderr.contains("kernels/common.cuh"),
        "{stderr}"
    );
    let (report, fatbin) = built("add.fatbin");
    assert!(report.contains("prebuilt= "), "{report}");
    assert!(!report.starts_with("processes_started=0 "), "{report}");
    assert!(fatbin != shipped, "the edit did not reach the fat binary");
}

/// A wheel holding `demo_headers/include/demo/params.h`, made with Python's zipfile in `dir`;
/// `None` without python3.
fn demo_wheel(dir: &Path) -> Option<()> {
    const SCRIPT: &str = r##"
import sys, zipfile
out = sys.argv[1]
info = "demo_headers-1.0.0.dist-info"
names = ["demo_headers/include/demo/params.h", f"{info}/METADATA", f"{info}/WHEEL", f"{info}/RECORD"]
with zipfile.ZipFile(f"{out}/demo_headers-1.0.0-py3-none-any.whl", "w") as z:
    z.writestr(names[0], "#define DEMO_VALUE 4242\n")
    z.writestr(names[1], "Metadata-Version: 2.1\nName: demo-headers\nVersion: 1.0.0\n")
    z.writestr(names[2], "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(names[3], "".join(f"{n},,\n" for n in names))
"##;
    std::fs::create_dir_all(dir).unwrap();
    let status = Command::new("python3")
        .args(["-c", SCRIPT])
        .arg(dir)
        .status()
        .ok()?;
    assert!(status.success());
    Some(())
}

/// `cargo archbuild build` of a package with a PyPI header library on an empty archbuild home:
/// its plan must not need what only the build installs (the header library is installed, from
/// a local wheel directory, by the command itself).
#[test]
fn build_installs_a_header_library_on_an_empty_home() {
    let tmp = scratch();
    let wheels = tmp.path().join("wheels");
    if demo_wheel(&wheels).is_none() {
        return archbuild_tests::servers::skip("no python3 to build a wheel with");
    }
    let pkg = tmp.path().join("pkg");
    write(
        &pkg.join("Cargo.toml"),
        "[package]\nname = \"with-headers\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [package.metadata.archbuild]\nkernels = [\"k.cu\"]\narchs = \"8.6\"\n\n\
         [package.metadata.archbuild.headers]\n\
         demo = { pypi = \"demo-headers\", version = \"1.0.0\", include = \"demo_headers/include\" }\n\n\
         [workspace]\n",
    );
    write(&pkg.join("src/lib.rs"), "");
    write(
        &pkg.join("k.cu"),
        "#include <demo/params.h>\nextern \"C\" __global__ void k(int *x) { x[0] = DEMO_VALUE; }\n",
    );
    let home = tmp.path().join("empty-home");
    let (code, _, stderr) = run(cli()
        .env("ARCHBUILD_HOME", &home)
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", &wheels)
        .arg("build")
        .arg("--manifest-path")
        .arg(pkg.join("Cargo.toml")));
    assert_eq!(code, 0, "{stderr}");
    assert!(home.join("headers/demo-headers-1.0.0").is_dir(), "{stderr}");
    assert!(stderr.contains("Finished"), "{stderr}");
}
