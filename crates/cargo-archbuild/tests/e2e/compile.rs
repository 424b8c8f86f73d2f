//! `compile` and `build`: real nvcc through the build driver; outputs checked with cuobjdump and
//! `inspect`, the cache checked through the build report, errors checked for their fix.

use crate::support::{cli, cuobjdump, fixture_source, json, run, scratch};

#[test]
fn compile_writes_a_fatbin_that_cuobjdump_lists_and_warns_about_coverage() {
    let dir = scratch();
    let out = dir.path().join("kernels.fatbin");
    let mut cmd = cli();
    cmd.arg("compile")
        .arg(fixture_source("kernels.cu"))
        .arg(fixture_source("scale.cu"))
        .args(["--archs", "7.5 8.6+PTX", "-o"])
        .arg(&out);
    let (code, _, stderr) = run(&mut cmd);
    assert_eq!(code, 0, "{stderr}");
    // The guarded kernel is flagged by the build (grouped by the images that lack kernels).
    assert!(
        stderr.contains("1 kernel(s) missing from sm_75: `fast_path`"),
        "{stderr}"
    );
    let listing = cuobjdump(&["--list-elf", "--list-ptx"], &out);
    assert_eq!(
        listing,
        "ELF file    1: kernels.1.sm_75.cubin\nELF file    2: kernels.2.sm_86.cubin\nPTX file    1: kernels.1.sm_86.ptx\n"
    );
    // archbuild-made file: inspect's cuobjdump-format listing equals cuobjdump's own.
    let (_, ours, _) = run(cli()
        .arg("inspect")
        .args(["--format", "cuobjdump"])
        .arg(&out));
    assert_eq!(ours, listing);
    // Both translation units' kernels are in every image but the guarded one.
    let v = json(
        cli()
            .arg("inspect")
            .arg(&out)
            .args(["--message-format", "json"]),
    );
    for img in v["images"].as_array().unwrap() {
        let k = img["kernels"].as_array().unwrap();
        assert!(
            k.iter().any(|n| n == "scale") && k.iter().any(|n| n == "vector_add"),
            "{img}"
        );
    }
}

#[test]
fn an_unchanged_compile_starts_no_compiler() {
    let dir = scratch();
    let out = dir.path().join("k.fatbin");
    let compile = || {
        let mut c = cli();
        c.env("ARCHBUILD_CACHE_DIR", dir.path().join("cache"))
            .arg("compile")
            .arg(fixture_source("kernels.cu"))
            .args(["--archs", "8.0", "--message-format", "json", "-o"])
            .arg(&out);
        c
    };
    let first = json(&mut compile());
    assert_eq!(first["reason"], "compile-finished");
    assert_eq!(first["jobs_planned"], 2, "cicc compute_80 + ptxas sm_80");
    assert_eq!(first["jobs_run"], 2);
    let bytes = std::fs::read(&out).unwrap();
    let written = std::fs::metadata(&out).unwrap().modified().unwrap();
    let second = json(&mut compile());
    assert_eq!(second["jobs_run"], 0);
    assert_eq!(second["processes_started"], 0, "not even `nvcc --version`");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        bytes,
        "same bytes from the cache"
    );
    assert_eq!(
        std::fs::metadata(&out).unwrap().modified().unwrap(),
        written,
        "an unchanged compile leaves the output alone"
    );
    assert_eq!(
        second["modules_checked"][0]["targets"],
        serde_json::json!(["sm_80"])
    );
    // The output changed behind archbuild's back: the next compile writes it again.
    std::fs::write(&out, b"not a fat binary").unwrap();
    let third = json(&mut compile());
    assert_eq!(third["jobs_run"], 0);
    assert_eq!(
        std::fs::read(&out).unwrap(),
        bytes,
        "the output is restored"
    );
}

#[test]
fn compile_errors_name_the_file_the_line_and_the_fix() {
    let dir = scratch();
    let out = dir.path().join("x.fatbin");
    // A compile error: exit 5, nvcc's diagnostic with file and line, and the target.
    let (code, _, stderr) = run(cli()
        .arg("compile")
        .arg(fixture_source("broken.cu"))
        .args(["--archs", "8.6", "-o"])
        .arg(&out));
    assert_eq!(code, 5, "{stderr}");
    assert!(
        stderr.contains("broken.cu(3)") && stderr.contains("undefined_symbol"),
        "{stderr}"
    );
    assert!(!out.exists(), "no output after a failed compile");
    // An arch CUDA 13 cannot build: exit 4, and which toolkits can.
    let (code, _, stderr) = run(cli()
        .arg("compile")
        .arg(fixture_source("kernels.cu"))
        .args(["--archs", "7.0", "-o"])
        .arg(&out));
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("cannot build `sm_70`"), "{stderr}");
    // No toolkit where NVCC points: exit 4, naming the variable.
    let (code, _, stderr) = run(cli()
        .env("NVCC", dir.path().join("no/nvcc"))
        .arg("compile")
        .arg(fixture_source("kernels.cu"))
        .args(["--archs", "8.6", "-o"])
        .arg(&out));
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("NVCC="), "{stderr}");
    // A missing source: exit 3.
    let (code, _, stderr) = run(cli().current_dir(dir.path()).args([
        "compile",
        "missing.cu",
        "--archs",
        "8.6",
        "-o",
        "x.fatbin",
    ]));
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("cannot read `missing.cu`"), "{stderr}");
}

/// A throwaway Cargo workspace with one kernel package.
fn workspace(dir: &std::path::Path) -> std::path::PathBuf {
    let pkg = dir.join("ws");
    std::fs::create_dir_all(pkg.join("kernels")).unwrap();
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    std::fs::write(pkg.join("src/lib.rs"), "").unwrap();
    std::fs::copy(fixture_source("scale.cu"), pkg.join("kernels/scale.cu")).unwrap();
    std::fs::write(
        pkg.join("Cargo.toml"),
        "[package]\nname = \"kpkg\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
         [package.metadata.archbuild]\nkernels = [\"kernels/scale.cu\"]\narchs = \"7.5\"\n",
    )
    .unwrap();
    pkg.join("Cargo.toml")
}

#[test]
fn build_compiles_the_workspace_packages_with_kernels_per_profile() {
    let dir = scratch();
    let manifest = workspace(dir.path());
    // The output goes under the target directory cargo reports (not an inherited one).
    let v = json(
        cli()
            .env_remove("CARGO_TARGET_DIR")
            .env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6@13000")
            .arg("build")
            .arg("--manifest-path")
            .arg(&manifest)
            .args(["--release", "--message-format", "json"]),
    );
    assert_eq!(v["reason"], "build-finished");
    assert_eq!(v["profile"], "release");
    let pkg = &v["packages"][0];
    assert_eq!(pkg["label"], "kpkg");
    assert_eq!(pkg["archs"], "7.5");
    assert!(
        pkg["arch_source"].as_str().unwrap().contains("Cargo.toml"),
        "{}",
        pkg["arch_source"]
    );
    let module = &pkg["modules_checked"][0];
    let fatbin = std::path::PathBuf::from(module["fatbin"].as_str().unwrap());
    assert_eq!(
        fatbin,
        dir.path()
            .join("ws/target/release/archbuild/kpkg/kernels/scale.fatbin")
    );
    assert!(fatbin.is_file());
    // The summary's GPU check: the 7.5 GPU loads the cubin, the 8.6 one has nothing to run.
    assert_eq!(module["gpus"][0]["image"], "sm_75");
    assert_eq!(module["gpus"][1]["ok"], false);
    assert!(
        module["gpus"][1]["error"]
            .as_str()
            .unwrap()
            .contains("add 8.6"),
        "{}",
        module["gpus"][1]
    );
    // A package that is not there.
    let (code, _, stderr) = run(cli()
        .arg("build")
        .arg("--manifest-path")
        .arg(&manifest)
        .args(["-p", "nope"]));
    assert_eq!(code, 6);
    assert!(stderr.contains("packages with kernels: kpkg"), "{stderr}");
}

#[test]
fn compiler_warnings_show_once_per_file_with_their_targets_and_all_of_it_with_verbose() {
    let dir = scratch();
    let out = dir.path().join("warn.fatbin");
    let compile = |verbose: bool| {
        let mut c = cli();
        c.env("ARCHBUILD_CACHE_DIR", dir.path().join("cache"))
            .arg("compile")
            .arg(fixture_source("warn.cu"))
            .args(["--archs", "7.5 8.6", "--nvcc-flag=-Xptxas=-v", "-o"])
            .arg(&out);
        if verbose {
            c.arg("-v");
        }
        let (code, _, stderr) = run(&mut c);
        assert_eq!(code, 0, "{stderr}");
        stderr
    };
    let stderr = compile(false);
    // One warning for the file, the unused variable once, with both targets and its caret.
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("#177-D").count(), 1, "{stderr}");
    assert!(
        stderr.contains("warn.cu: 1 compiler warning(s)")
            && stderr.contains("was declared but never referenced [compute_75, compute_86]")
            && stderr.contains("int unused = 3;"),
        "{stderr}"
    );
    assert!(
        stderr.contains("resource usage in module `warn` (ptxas -v)")
            && stderr.contains("_Z3addPfi: 8 registers")
            && stderr.contains("[sm_75, sm_86]"),
        "{stderr}"
    );
    // `-v` adds every compiler's own output: the warning once per cicc job, ptxas's raw lines.
    let verbose = compile(true);
    assert_eq!(verbose.matches("#177-D").count(), 3, "{verbose}");
    assert!(
        verbose.contains("ptxas info    : Compiling entry function"),
        "{verbose}"
    );
}

#[test]
fn native_means_the_simulated_gpus_for_compile_build_matrix_and_explain() {
    let dir = scratch();
    let sim = ("ARCHBUILD_SIMULATED_GPUS", "7.5:RTX 2080,8.9:RTX 4090@13.0");
    let explained =
        json(
            cli()
                .env(sim.0, sim.1)
                .args(["explain", "native", "--message-format", "json"]),
        );
    let out = dir.path().join("n.fatbin");
    let built = crate::support::json_lines(
        cli()
            .env(sim.0, sim.1)
            .arg("compile")
            .arg(fixture_source("kernels.cu"))
            .args(["--archs", "native", "--message-format", "json", "-o"])
            .arg(&out),
    );
    let report = built
        .iter()
        .find(|m| m["reason"] == "compile-finished")
        .expect("a final report");
    assert_eq!(report["archs"], explained["canonical"], "{report}");
    assert_eq!(report["archs"], "7.5 8.9+PTX");
    // `build` of a package, and `matrix`'s shards, resolve it the same way.
    let manifest = workspace(dir.path());
    let v = json(
        cli()
            .env(sim.0, sim.1)
            .env_remove("CARGO_TARGET_DIR")
            .arg("build")
            .arg("--manifest-path")
            .arg(&manifest)
            .args(["--archs", "native", "--message-format", "json"]),
    );
    assert_eq!(v["packages"][0]["archs"], "7.5 8.9+PTX", "{v}");
    let (code, stdout, stderr) = run(cli()
        .env(sim.0, sim.1)
        .current_dir(dir.path())
        .args(["matrix", "--archs", "native", "--shards", "2"]));
    assert_eq!(code, 0, "{stderr}");
    let m: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let shards: Vec<&str> = m["include"]
        .as_array()
        .unwrap_or_else(|| panic!("{m}"))
        .iter()
        .map(|s| s["archs"].as_str().unwrap())
        .collect();
    assert_eq!(shards.join(" "), "7.5 8.9+PTX", "{m}");
}

/// Cargo's flags reach `cargo metadata` as `cargo build` would get them, and the outputs land
/// where Cargo lays them out: `--target-dir D --target T` → `D/T/<profile>/archbuild/<pkg>`.
/// The `cargo` the CLI runs is a wrapper that logs its arguments.
#[test]
fn cargo_s_flags_reach_cargo_metadata_and_the_outputs_follow_target_dir_and_target() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    let manifest = workspace(dir.path());
    let log = dir.path().join("cargo-args.log");
    let real = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let wrapper = dir.path().join("cargo-wrapper");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            std::path::Path::new(&real).display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The lock file `--locked` asserts.
    archbuild_tests::run(&mut archbuild_tests::cargo(
        manifest.parent().unwrap(),
        &["generate-lockfile", "--offline"],
    ));
    let host = archbuild_tests::run(std::process::Command::new("rustc").arg("-vV"));
    let triple = host
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap()
        .to_owned();
    let target_dir = dir.path().join("elsewhere");
    let v = json(
        cli()
            .env("CARGO", &wrapper)
            .env("CARGO_TARGET_DIR", dir.path().join("not-here"))
            .arg("build")
            .arg("--manifest-path")
            .arg(&manifest)
            .args([
                "--locked",
                "--offline",
                "--all-features",
                "--no-default-features",
            ])
            .arg("--target-dir")
            .arg(&target_dir)
            .args(["--target", &triple, "--message-format", "json"]),
    );
    let fatbin = std::path::PathBuf::from(
        v["packages"][0]["modules_checked"][0]["fatbin"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(
        fatbin,
        target_dir
            .join(&triple)
            .join("debug/archbuild/kpkg/kernels/scale.fatbin")
    );
    assert!(fatbin.is_file());
    let args = std::fs::read_to_string(&log).unwrap();
    let metadata = args
        .lines()
        .find(|l| l.starts_with("metadata"))
        .unwrap_or_else(|| panic!("no `cargo metadata` in {args}"));
    for flag in [
        "--locked",
        "--offline",
        "--all-features",
        "--no-default-features",
        &format!("--filter-platform {triple}"),
    ] {
        assert!(metadata.contains(flag), "{flag} missing: {metadata}");
    }
    // A lock file that must change is refused, as `cargo build --locked` refuses it.
    std::fs::remove_file(manifest.parent().unwrap().join("Cargo.lock")).unwrap();
    let out = cli()
        .arg("build")
        .arg("--manifest-path")
        .arg(&manifest)
        .args(["--frozen"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("lock"), "{err}");
}
