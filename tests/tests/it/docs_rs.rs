//! docs.rs builds every kernel crate (`DOCS_RS`, no toolkit, no network): with nothing
//! shipped or a damaged shipped file the build succeeds, the generated module has the items a
//! real build's has — the kernel constants included, from the sources — and documentation that
//! names them compiles; every warning it prints is true.

use std::path::{Path, PathBuf};
use std::process::Command;

use archbuild::{BuildReport, Warning};

/// The kernel of the `cargo archbuild new` scaffold.
const OPS: &str = r#"// build.rs exposes each kernel as a constant (`kernels::ops::SCALE`).
extern "C" __global__ void scale(float* data, float factor, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] *= factor;
    }
}
"#;

/// A kernel crate as `cargo archbuild new` makes it, with `table` added.
fn kernel_crate(dir: &Path, table: &str) {
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"k\"\nversion = \"0.1.0\"\n\n[package.metadata.archbuild]\n\
             kernels = [\"kernels/ops.cu\"]\n{table}\n"
        ),
    )
    .unwrap();
    std::fs::write(dir.join("kernels/ops.cu"), OPS).unwrap();
}

/// docs.rs's build: no toolkit given or found (an empty `PATH` and home), `DOCS_RS=1`.
fn docs_build(pkg: &Path, out: &Path) -> BuildReport {
    let empty = pkg.join("../empty");
    std::fs::create_dir_all(&empty).unwrap();
    let mut b = archbuild::Build::new();
    b.env(archbuild::Env::from_vars([
        ("DOCS_RS", "1"),
        ("PATH", empty.to_str().unwrap()),
        ("ARCHBUILD_HOME", empty.to_str().unwrap()),
    ]))
    .manifest_dir(pkg)
    .out_dir(out)
    .quiet(true);
    b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"))
}

/// Compiles a crate whose code names `kernels::ops::SCALE` from the generated module.
fn rustc_accepts(module: &Path, dir: &Path) -> Result<(), String> {
    let lib = dir.join("doc_lib.rs");
    std::fs::write(
        &lib,
        format!(
            "mod kernels {{ include!({:?}); }}\npub fn scale() -> (&'static str, usize) {{\n    \
             (kernels::ops::SCALE, kernels::ops::KERNELS.len() + kernels::MODULES.len())\n}}\n",
            module.display().to_string()
        ),
    )
    .unwrap();
    let out = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .args([
            "--crate-type=lib",
            "--edition=2021",
            "--emit=metadata",
            "-o",
        ])
        .arg(dir.join("libdoc_lib.rmeta"))
        .arg(&lib)
        .output()
        .unwrap();
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

fn check(r: &BuildReport, out: &Path, dir: &Path) -> Vec<String> {
    let ops = r.module("ops").unwrap();
    assert_eq!(ops.kernels, ["scale"], "{r}");
    assert_eq!(ops.bytes, 0);
    let module: PathBuf = out.join("kernels.rs");
    let text = std::fs::read_to_string(&module).unwrap();
    assert!(
        text.contains("pub const SCALE: &str = \"scale\";"),
        "{text}"
    );
    rustc_accepts(&module, dir).unwrap();
    assert!(
        !r.warnings
            .iter()
            .any(|w| matches!(w, Warning::NoKernels { .. } | Warning::CoverageGap { .. })),
        "a false warning: {:?}",
        r.warnings
    );
    assert!(
        r.prebuilt.is_empty(),
        "nothing shipped was used: {:?}",
        r.prebuilt
    );
    r.warnings.iter().map(ToString::to_string).collect()
}

#[test]
fn docs_rs_builds_a_crate_that_ships_nothing_with_its_kernel_constants() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    kernel_crate(&pkg, "");
    let out = dir.path().join("out");
    let r = docs_build(&pkg, &out);
    let warnings = check(&r, &out, dir.path());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("ships no prebuilt fat binary")
            && warnings[0].contains("from its sources"),
        "{warnings:?}"
    );
}

#[test]
fn docs_rs_builds_past_a_damaged_shipped_file_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    kernel_crate(&pkg, "prebuilt = \"prebuilt\"");
    std::fs::create_dir_all(pkg.join("prebuilt")).unwrap();
    std::fs::write(pkg.join("prebuilt/ops.fatbin"), b"not a fat binary").unwrap();
    std::fs::write(pkg.join("prebuilt/ops.fatbin.archbuild.json"), b"{").unwrap();
    let out = dir.path().join("out");
    let r = docs_build(&pkg, &out);
    let warnings = check(&r, &out, dir.path());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("no usable prebuilt fat binary") && warnings[0].contains("ops.fatbin"),
        "{warnings:?}"
    );
}

/// Kernels of the signatures the launchers map, written as people write them.
const TYPED: &str = r#"#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stddef.h>
extern "C" __global__ void axpy(float a, const float* __restrict__ x, float *y, unsigned n) {}
extern "C" __global__ void widths(const signed char* a, unsigned char b, short c,
    unsigned short* d, long long e, size_t f, bool g, double* h) {}
extern "C" __global__ void halves(const __half* x, __nv_bfloat16 v, __nv_bfloat16* y, int n) {}
struct Pair { int a; float b; };
extern "C" __global__ void by_value(Pair p, float* y) {}
extern "C" {
__global__ void __launch_bounds__(128) in_block(float const* x, unsigned int* y, long n) {}
}
"#;

/// The typed launchers' lines of a generated module: the items a crate's code names.
fn launcher_items(module: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(module).unwrap();
    text.lines()
        .filter(|l| {
            l.contains("pub struct ")
                || l.contains("pub unsafe fn launch")
                || l.contains("No typed launcher")
        })
        .map(|l| l.trim().to_owned())
        .collect()
}

/// A docs.rs build of a crate that ships nothing generates the typed launchers a real build
/// generates (read from the `extern "C"` declarations of the sources), and a dependent's build
/// from shipped files the ones of the build that made them (from the record).
#[test]
fn docs_rs_and_shipped_builds_generate_the_typed_launchers_of_a_real_build() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    kernel_crate(&pkg, "archs = \"8.0 9.0\"\nprebuilt = \"prebuilt\"");
    // The launchers name archbuild-runtime: only a package that depends on it gets them.
    let manifest = std::fs::read_to_string(pkg.join("Cargo.toml")).unwrap();
    std::fs::write(
        pkg.join("Cargo.toml"),
        manifest.replace(
            "\n\n[package.metadata.archbuild]",
            "\n\n[dependencies]\narchbuild-runtime = \"0.1\"\n\n[package.metadata.archbuild]",
        ),
    )
    .unwrap();
    std::fs::write(pkg.join("kernels/ops.cu"), TYPED).unwrap();
    let build = |out: &Path, cache: bool| {
        let mut b = archbuild_tests::build();
        b.manifest_dir(&pkg)
            .out_dir(out)
            .cache_dir(dir.path().join("cache"))
            .cache(cache)
            .quiet(true);
        b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"))
    };
    // The same launchers from a cache-off build, a build that fills the cache and one served
    // from it (its fat binary's pack stamp holding the declarations).
    let real_out = dir.path().join("real");
    build(&dir.path().join("off"), false);
    build(&real_out, true);
    let hit = build(&real_out, true);
    assert!(hit.jobs.iter().all(|j| j.served.cached()), "{hit}");
    let real = launcher_items(&real_out.join("kernels.rs"));
    assert_eq!(launcher_items(&dir.path().join("off/kernels.rs")), real);
    // cicc writes its C output beside the PTX, never into the package (its working directory).
    let files: Vec<String> = walk(&pkg);
    assert_eq!(files, ["Cargo.toml", "kernels/ops.cu"]);
    assert_eq!(
        real.iter().filter(|l| l.starts_with("pub struct ")).count(),
        4,
        "{real:#?}"
    );
    assert!(
        real.iter()
            .any(|l| l.contains("No typed launcher for `by_value(Pair, float*)`")),
        "{real:#?}"
    );
    let docs_out = dir.path().join("docs");
    docs_build(&pkg, &docs_out);
    assert_eq!(launcher_items(&docs_out.join("kernels.rs")), real);

    // Shipped: the record written beside the real build's fat binary carries the declarations.
    std::fs::create_dir_all(pkg.join("prebuilt")).unwrap();
    for f in ["ops.fatbin", "ops.fatbin.archbuild.json"] {
        std::fs::copy(
            real_out.join("kernels").join(f),
            pkg.join("prebuilt").join(f),
        )
        .unwrap();
    }
    let shipped_out = dir.path().join("shipped");
    let r = docs_build(&pkg, &shipped_out);
    assert_eq!(r.prebuilt.len(), 1, "the shipped file was taken: {r}");
    assert_eq!(launcher_items(&shipped_out.join("kernels.rs")), real);
}

/// The files under `dir`, relative, sorted.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}
