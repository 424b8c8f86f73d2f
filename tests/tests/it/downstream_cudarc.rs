//! Applications pick cudarc's CUDA version feature themselves; archbuild-runtime must build
//! next to either a CUDA 12 or a CUDA 13 choice (cudarc's version features are exclusive: a
//! library that named one would break every application that names another). The fixture
//! (`tests/fixtures/cudarc-app`, once per version feature) opens GPU 0 through archbuild-runtime
//! and uses the context with cudarc's own API; it is built and run, and reports the bindings
//! cudarc was built with.

use std::path::PathBuf;

fn build_and_run(bindings: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = archbuild_tests::fixture("cudarc-app", tmp.path());
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("CUDA_FEATURE", &format!("cuda-{bindings}")),
    )
    .unwrap();
    // Outlives the test, and both fixtures share everything but cudarc.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("downstream-cudarc");
    let stdout = archbuild_tests::run(
        archbuild_tests::cargo(&dir, &["run", "--quiet"])
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("CUDARC_CUDA_VERSION"),
    );
    assert!(
        stdout.contains(&format!("cudarc bindings: CUDA {bindings}")),
        "cuda-{bindings}: {stdout}"
    );
    // No GPU here (CI) is fine; a GPU machine opens it. Either way the program ran to the end.
    assert!(
        stdout.contains("no GPU: ") || stdout.contains("GPU 0: compute capability"),
        "cuda-{bindings}: {stdout}"
    );
}

#[test]
fn cuda_12_application() {
    build_and_run("12080");
}

#[test]
fn cuda_13_application() {
    build_and_run("13000");
}
