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
