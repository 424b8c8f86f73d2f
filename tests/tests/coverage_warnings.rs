//! The build.rs route: a fixture that compiles kernels out for some archs gets grouped
//! `cargo:warning` lines (one per set of images that lack kernels, not one per kernel). The
//! build runs in a child process of this test binary so its stdout — what Cargo reads from a
//! build script — can be captured.

use std::path::Path;
use std::process::Command;

const ROLE: &str = "ARCHBUILD_TEST_ROLE";

fn child_build(dir: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/variants/kernels/gemm.cu");
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::copy(src, dir.join("kernels/gemm.cu")).unwrap();
    archbuild::Build::new()
        .toolkit(archbuild_tests::toolkit().clone())
        .env(archbuild::Env::from_vars([(
            "PATH",
            std::env::var_os("PATH").unwrap_or_default(),
        )]))
        .cargo_metadata(true)
        .manifest_dir(dir)
        .cache(false)
        .out_dir(dir.join("out"))
        .file("kernels/gemm.cu")
        .archs("7.5 8.6+PTX 9.0a")
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_build_script_gets_grouped_coverage_warnings() {
    if let Some(dir) = std::env::var_os(ROLE) {
        child_build(Path::new(&dir));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_build_script_gets_grouped_coverage_warnings",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROLE, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let coverage: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("cargo:warning=archbuild: module `gemm`"))
        .collect();
    // gemm_hopper is only in sm_90a; gemm_mma is missing from sm_75 alone: two sets, two lines.
    assert_eq!(coverage.len(), 2, "{stdout}");
    assert!(
        coverage.iter().any(|l| l.contains(
            "1 kernel(s) missing from sm_75, sm_86, compute_86: `gemm_hopper`"
        )),
        "{coverage:?}"
    );
    assert!(
        coverage
            .iter()
            .any(|l| l.contains("1 kernel(s) missing from sm_75: `gemm_mma`")),
        "{coverage:?}"
    );
}
