//! A kernel crate with `links` hands its dependents what they need (`docs/cargo.md`,
//! "Metadata for dependents"): the dependent's build script reads `DEP_<LINKS>_<KEY>` —
//! the resolved arch list, the fat binary's path, a header library's include directories and
//! version — and compiles its own host C++ against the kernel crate's header library with the
//! `cc` crate. The fat binary it is pointed at equals a build of the kernel crate without cache.

use std::path::Path;
use std::process::Command;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const KERNEL: &str = "#include \"mathlib.h\"\n\
    extern \"C\" __global__ void add(int *x) { x[0] += mathlib_scale(); }\n";

const MATHLIB: &str = "#pragma once\n#define MATHLIB_SCALE 3\n\
    #ifdef __CUDACC__\n__host__ __device__\n#endif\n\
    static inline int mathlib_scale(void) { return MATHLIB_SCALE; }\n";

const DEPENDENT_BUILD_RS: &str = r#"fn main() {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is not set"));
    let include = var("DEP_VADDK_INCLUDE");
    let mut b = cc::Build::new();
    for dir in std::env::split_paths(&include) {
        b.include(dir);
    }
    b.cpp(true).file("host/scale.cpp").compile("scale");
    for k in ["ARCHS", "TARGETS", "FATBIN_ADD", "VERSION_MATHLIB", "HEADERS", "TOOLKIT"] {
        println!("cargo::rustc-env=KERNELS_{k}={}", var(&format!("DEP_VADDK_{k}")));
    }
}
"#;

const DEPENDENT_MAIN: &str = r#"extern "C" {
    fn host_scale() -> i32;
}
fn main() {
    println!("scale={}", unsafe { host_scale() });
    println!("archs={}", env!("KERNELS_ARCHS"));
    println!("targets={}", env!("KERNELS_TARGETS"));
    println!("fatbin={}", env!("KERNELS_FATBIN_ADD"));
    println!("version={}", env!("KERNELS_VERSION_MATHLIB"));
    println!("headers={}", env!("KERNELS_HEADERS"));
}
"#;

fn kernel_crate(dir: &Path) {
    let archbuild = archbuild_tests::repo_root().join("crates/archbuild");
    write(
        &dir.join("Cargo.toml"),
        &format!(
            r#"[package]
name = "vadd-kernels"
version = "0.1.0"
edition = "2021"
links = "vaddk"

[package.metadata.archbuild]
kernels = ["kernels/add.cu"]
archs = "8.6"

[package.metadata.archbuild.headers]
mathlib = {{ path = "vendor/include" }}

[build-dependencies]
archbuild = {{ path = {:?} }}
"#,
            archbuild.display().to_string()
        ),
    );
    write(
        &dir.join("build.rs"),
        "fn main() {\n    archbuild::Build::new().compile(\"kernels\");\n}\n",
    );
    write(&dir.join("src/lib.rs"), "//! Kernels.\n");
    write(&dir.join("kernels/add.cu"), KERNEL);
    write(&dir.join("vendor/include/mathlib.h"), MATHLIB);
}

fn dependent(dir: &Path) {
    write(
        &dir.join("Cargo.toml"),
        "[workspace]\nmembers = [\"app\", \"vadd-kernels\"]\nresolver = \"2\"\n",
    );
    write(
        &dir.join("app/Cargo.toml"),
        r#"[package]
name = "app"
version = "0.1.0"
edition = "2021"

[dependencies]
vadd-kernels = { path = "../vadd-kernels" }

[build-dependencies]
cc = "1"
"#,
    );
    write(&dir.join("app/build.rs"), DEPENDENT_BUILD_RS);
    write(&dir.join("app/src/main.rs"), DEPENDENT_MAIN);
    write(
        &dir.join("app/host/scale.cpp"),
        "#include \"mathlib.h\"\nextern \"C\" int host_scale() { return mathlib_scale(); }\n",
    );
    kernel_crate(&dir.join("vadd-kernels"));
    std::fs::copy(
        archbuild_tests::repo_root().join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
}

fn cargo(dir: &Path, home: &Path, args: &[&str], vars: &[(&str, &str)]) -> String {
    let mut cmd: Command = archbuild_tests::cargo(dir, args);
    cmd.env("ARCHBUILD_HOME", home)
        .env("NVCC", archbuild_tests::tool("nvcc"))
        .env("CARGO_NET_OFFLINE", "true")
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("dependents"),
        )
        .envs(vars.iter().copied());
    archbuild_tests::run(&mut cmd)
}

#[test]
fn a_dependent_s_build_script_gets_the_arch_list_fat_binary_and_headers_through_links() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    dependent(dir.path());
    let out = cargo(dir.path(), &home, &["run", "--quiet", "-p", "app"], &[]);
    let get = |k: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("no {k} in {out}"))
            .to_owned()
    };
    assert_eq!(
        get("scale"),
        "3",
        "host code built against the kernel crate's header"
    );
    assert_eq!(get("archs"), "8.6");
    assert_eq!(get("targets"), "sm_86");
    assert_eq!(get("version"), "path", "a directory's pin");
    assert_eq!(get("headers"), "mathlib");
    let fatbin = std::fs::read(get("fatbin")).expect("the fat binary DEP_VADDK_FATBIN_ADD names");
    // The same kernel crate built without cache gives the same bytes.
    let fresh_dir = dir.path().join("fresh");
    kernel_crate(&fresh_dir);
    let nocache = crate::support::cli()
        .current_dir(&fresh_dir)
        .env("ARCHBUILD_HOME", dir.path().join("home2"))
        .env("NVCC", archbuild_tests::tool("nvcc"))
        .env("ARCHBUILD_CACHE", "off")
        .args(["compile", "kernels/add.cu", "-o"])
        .arg(dir.path().join("fresh.fatbin"))
        .args(["--archs", "8.6", "--include", "vendor/include"])
        .output()
        .unwrap();
    assert!(
        nocache.status.success(),
        "{}",
        String::from_utf8_lossy(&nocache.stderr)
    );
    let fresh = std::fs::read(dir.path().join("fresh.fatbin")).unwrap();
    assert!(
        fatbin == fresh,
        "the fat binary differs from a build without cache"
    );
}

/// The kernel crate alone in a workspace at `dir`, with this repository's lock file;
/// `edit` changes its files first.
fn alone(dir: &Path, edit: impl FnOnce(&Path)) {
    kernel_crate(&dir.join("k"));
    edit(&dir.join("k"));
    write(
        &dir.join("Cargo.toml"),
        "[workspace]\nmembers = [\"k\"]\nresolver = \"2\"\n",
    );
    std::fs::copy(
        archbuild_tests::repo_root().join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
}

/// `cargo ARGS` on it, with the test toolkit and a target directory of `target`'s name (kept
/// between local runs, removed at the end under CI).
fn cargo_alone(dir: &Path, args: &[&str], target: &str) -> std::process::Output {
    let target =
        archbuild_tests::TestTarget::new(Path::new(env!("CARGO_TARGET_TMPDIR")).join(target));
    archbuild_tests::cargo(dir, args)
        .env("ARCHBUILD_HOME", dir.join("home"))
        .env("NVCC", archbuild_tests::tool("nvcc"))
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_TARGET_DIR", target.path())
        .output()
        .unwrap()
}

/// A build script streams one line per finished job to stderr and ends with a summary; Cargo
/// shows them with `-vv` (`docs/cargo.md`, "Feedback during long builds").
#[test]
fn a_build_script_streams_a_line_per_job_and_a_summary_under_vv() {
    let dir = tempfile::tempdir().unwrap();
    alone(dir.path(), |_| {});
    let out = cargo_alone(dir.path(), &["build", "-vv"], "dependents-vv");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // `[vadd-kernels 0.1.0] archbuild: [1/2] add compute_86 (cicc): …`
    let jobs: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("archbuild: [") && l.contains("/2] add "))
        .collect();
    assert_eq!(jobs.len(), 2, "{err}");
    assert!(
        err.lines()
            .any(|l| l.contains("archbuild: kernels: 2 jobs, ") && l.contains(" compiled, ")),
        "{err}"
    );
}

/// A failed build ends with Cargo's error directive, so Cargo's own summary names it.
#[test]
fn a_failed_build_is_reported_through_cargo_s_error_directive() {
    let dir = tempfile::tempdir().unwrap();
    alone(dir.path(), |k| {
        write(
            &k.join("kernels/add.cu"),
            "extern \"C\" __global__ void add(int *x) { x[0] += undeclared_name; }\n",
        );
    });
    let out = cargo_alone(dir.path(), &["build"], "dependents-error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("error: vadd-kernels@0.1.0: archbuild: ")),
        "{err}"
    );
}
