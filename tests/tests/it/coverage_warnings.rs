//! The build.rs route: a fixture that compiles kernels out for some archs gets grouped
//! `cargo:warning` lines (one per set of images that lack kernels, not one per kernel), and the
//! compilers' own warnings and `-Xptxas -v` reports arrive once per file, not once per arch,
//! and again on a rebuild served from the cache. The build runs in a child process of this test
//! binary so its stdout — what Cargo reads from a build script — can be captured.

use std::path::Path;
use std::process::Command;

use archbuild_tests::{fixtures_dir, repo_root};

const ROLE: &str = "ARCHBUILD_TEST_ROLE";

fn child_build(dir: &Path) {
    let src = repo_root().join("examples/variants/kernels/gemm.cu");
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::copy(src, dir.join("kernels/gemm.cu")).unwrap();
    if dir.join("warn").exists() {
        return child_build_warnings(dir);
    }
    archbuild_tests::build()
        .cargo_metadata(true)
        .manifest_dir(dir)
        .cache(false)
        .out_dir(dir.join("out"))
        .file("kernels/gemm.cu")
        .archs("7.5 8.6+PTX 9.0a")
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Runs the build in a child process of this test binary (role `ARCHBUILD_TEST_ROLE=dir`) and
/// returns what it printed on stdout, as Cargo would read a build script's.
fn child_stdout(dir: &Path) -> String {
    let name = format!(
        "{}::a_build_script_gets_grouped_coverage_warnings",
        module_path!().split_once("::").map_or("", |(_, m)| m)
    );
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn a_build_script_gets_grouped_coverage_warnings() {
    if let Some(dir) = std::env::var_os(ROLE) {
        child_build(Path::new(&dir));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stdout = child_stdout(dir.path());
    let coverage: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("cargo::warning=archbuild: module `gemm`"))
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

/// Builds a kernel with an unused variable for three targets with `-Xptxas -v`, twice (the
/// second from the cache); prints a separator between the builds.
fn child_build_warnings(dir: &Path) {
    let src = fixtures_dir().join("compiler_output/warn.cu");
    std::fs::copy(src, dir.join("kernels/warn.cu")).unwrap();
    let mut reports = Vec::new();
    for round in 0..2 {
        if round == 1 {
            println!("--- rebuild ---");
        }
        let report = archbuild_tests::build()
            .cargo_metadata(true)
            .manifest_dir(dir)
            .cache_dir(dir.join("cache"))
            .out_dir(dir.join(format!("out{round}")))
            .file("kernels/warn.cu")
            .ptxas_flag("-v")
            .archs("7.5 8.0 8.6")
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"));
        reports.push(report);
    }
    assert_eq!(
        reports[1].jobs_run, 0,
        "the rebuild is served from the cache"
    );
    assert_eq!(
        reports[0].compiler_output, reports[1].compiler_output,
        "a rebuild from the cache shows what the compile showed"
    );
}

#[test]
fn compiler_warnings_and_resource_reports_come_once_per_file_and_again_from_the_cache() {
    if std::env::var_os(ROLE).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("warn")).unwrap();
    let stdout = child_stdout(dir.path());
    let (first, second) = stdout.split_once("--- rebuild ---").expect("two builds");
    for build in [first, second] {
        let lines: Vec<&str> = build
            .lines()
            .filter(|l| l.starts_with("cargo::warning=archbuild: "))
            .collect();
        let unused: Vec<&&str> = lines.iter().filter(|l| l.contains("#177-D")).collect();
        assert_eq!(unused.len(), 1, "one line for three targets: {lines:#?}");
        assert!(
            unused[0].contains("warn.cu(2): warning #177-D: variable \"unused\"")
                && unused[0].ends_with("[compute_75, compute_80, compute_86]"),
            "{unused:?}"
        );
        // `add` needs the same registers everywhere: one line; `big` differs per target.
        let add: Vec<&&str> = lines
            .iter()
            .filter(|l| l.contains("resources: _Z3addPfi: "))
            .collect();
        assert_eq!(add.len(), 1, "{lines:#?}");
        assert!(add[0].ends_with("[sm_75, sm_80, sm_86]"), "{add:?}");
        assert!(
            lines.iter().any(|l| l.contains("resources: _Z3bigPf: ")
                && l.contains("registers")
                && l.contains("spill stores")),
            "{lines:#?}"
        );
    }
}
