//! What the published crates carry: the library a build.rs depends on ships its sources, not
//! the fake nvcc its tests run, nor test fixtures or snapshots.

use std::process::Command;

#[test]
fn the_published_build_crate_holds_no_fake_nvcc_and_no_test_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&root)
        .args([
            "package",
            "-p",
            "archbuild",
            "--list",
            "--allow-dirty",
            "--offline",
        ])
        .output()
        .expect("cargo runs");
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{list}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(list.lines().any(|l| l == "src/lib.rs"), "{list}");
    let unwanted: Vec<&str> = list
        .lines()
        .filter(|l| {
            l.starts_with("src/bin/")
                || l.starts_with("tests/")
                || l.starts_with("examples/")
                || l.contains("snapshots/")
                || l.contains("fake_nvcc")
        })
        .collect();
    assert!(unwanted.is_empty(), "packaged test files: {unwanted:?}");
}
