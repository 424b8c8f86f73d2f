//! Snapshots (insta) of the help of every subcommand and of the error messages users meet:
//! each error must say what was wrong and name the fix. Review changes with `cargo insta review`
//! (or `INSTA_UPDATE=always cargo test` and `git diff`).

use crate::support::{cli, cli_without_toolkit, run, scratch};

fn help(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(cli().args(args).arg("--help"));
    assert_eq!(code, 0, "{stderr}");
    stdout
}

#[test]
fn help_of_every_subcommand() {
    insta::assert_snapshot!("help_top", help(&[]));
    for sub in [
        "build", "compile", "inspect", "doctor", "explain", "matrix", "merge", "toolkit", "cache",
        "new", "ci", "package",
    ] {
        insta::assert_snapshot!(format!("help_{sub}"), help(&[sub]));
    }
    insta::assert_snapshot!("help_toolkit_install", help(&["toolkit", "install"]));
    insta::assert_snapshot!("help_cache_clean", help(&["cache", "clean"]));
    insta::assert_snapshot!("help_cache_trim", help(&["cache", "trim"]));
}

#[test]
fn cargo_invokes_the_binary_with_its_subcommand_name_first() {
    // `cargo archbuild explain 8.6` runs `cargo-archbuild archbuild explain 8.6`.
    let (code, via_cargo, _) = run(cli().args(["archbuild", "explain", "8.6"]));
    let (_, direct, _) = run(cli().args(["explain", "8.6"]));
    assert_eq!(code, 0);
    assert_eq!(via_cargo, direct);
}

/// Runs a failing command and returns "exit N" + stderr, for a snapshot.
fn failure(cmd: &mut assert_cmd::Command) -> String {
    let (code, _, stderr) = run(cmd);
    assert_ne!(code, 0, "expected a failure; stderr:\n{stderr}");
    format!("exit {code}\n{stderr}")
}

#[test]
fn error_messages_name_the_fix() {
    let dir = scratch();
    let garbage = dir.path().join("garbage.bin");
    std::fs::write(&garbage, b"MZ\x90\x00 this is not CUDA").unwrap();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("err_explain_bad_arch", vec!["explain", "8.6x"]),
        ("err_explain_bad_variant", vec!["explain", "8.6a"]),
        (
            "err_matrix_zero_shards",
            vec!["matrix", "--shards", "0", "--archs", "8.6"],
        ),
        (
            "err_inspect_missing_file",
            vec!["inspect", "no-such-file.fatbin"],
        ),
        ("err_inspect_garbage", vec!["inspect", "garbage.bin"]),
        (
            "err_inspect_two_formats",
            vec![
                "inspect",
                "garbage.bin",
                "--format",
                "cuobjdump",
                "--message-format",
                "json",
            ],
        ),
        (
            "err_doctor_bad_policy",
            vec!["doctor", "garbage.bin", "--policy", "fastest"],
        ),
        (
            "err_merge_not_a_fatbin",
            vec!["merge", "garbage.bin", "-o", "out.fatbin"],
        ),
        ("err_unknown_subcommand", vec!["biuld"]),
        ("err_new_bad_name", vec!["new", "3d-kernels"]),
        ("err_new_bad_archs", vec!["new", "demo", "--archs", "8.6x"]),
        (
            "err_new_not_a_checkout",
            vec!["new", "demo", "--archbuild-path", "."],
        ),
        (
            "err_ci_bad_fleet",
            vec![
                "ci",
                "--kernel-crate",
                "k",
                "--fleet",
                "8.6,nine",
                "-o",
                "-",
            ],
        ),
        (
            "err_ci_quote_in_value",
            vec!["ci", "--kernel-crate", "k\"", "-o", "-"],
        ),
    ];
    for (name, args) in cases {
        insta::assert_snapshot!(name, failure(cli().current_dir(dir.path()).args(&args)));
    }
    insta::assert_snapshot!(
        "err_doctor_bad_simulated_gpus",
        failure(
            cli()
                .current_dir(dir.path())
                .env("ARCHBUILD_SIMULATED_GPUS", "8.6,nine@13000")
                .arg("doctor")
        )
    );
}

#[test]
fn errors_in_json_mode_are_a_json_document_with_the_exit_code() {
    let dir = scratch();
    let out = cli()
        .current_dir(dir.path())
        .args(["inspect", "no-such-file.fatbin", "--message-format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["reason"], "error");
    assert_eq!(v["kind"], "read");
    assert_eq!(v["exit_code"], 3);
    assert!(v["help"].as_str().unwrap().contains("check the path"));
}

/// Errors met before any toolkit is needed: they run without the test toolkit, so they never
/// provision one.
#[test]
fn toolkit_and_cargo_errors_name_the_fix() {
    let dir = scratch();
    let root = dir.path().display().to_string();
    let masked = |cmd: &mut assert_cmd::Command| failure(cmd).replace(&root, "[DIR]");
    let no_nvcc = dir.path().join("nowhere/nvcc");
    insta::assert_snapshot!(
        "err_toolkit_which_bad_nvcc",
        masked(
            cli_without_toolkit()
                .env("NVCC", &no_nvcc)
                .args(["toolkit", "which"])
        )
    );
    insta::assert_snapshot!(
        "err_compile_bad_nvcc",
        masked(
            cli_without_toolkit()
                .current_dir(dir.path())
                .env("NVCC", &no_nvcc)
                .arg("compile")
                .arg(crate::support::fixture_source("scale.cu"))
                .args(["--archs", "8.6", "-o", "x.fatbin"])
        )
        .replace(env!("CARGO_MANIFEST_DIR"), "[CRATE]")
    );
    insta::assert_snapshot!(
        "err_build_outside_a_workspace",
        masked(
            cli_without_toolkit()
                .current_dir(dir.path())
                .env_remove("CARGO_TARGET_DIR")
                .arg("build")
        )
    );
}

#[test]
fn an_arch_the_toolkit_cannot_build_names_the_fix() {
    let dir = scratch();
    let root = dir.path().display().to_string();
    insta::assert_snapshot!(
        "err_compile_arch_toolkit_cannot_build",
        failure(
            cli()
                .current_dir(dir.path())
                .arg("compile")
                .arg(crate::support::fixture_source("scale.cu"))
                .args(["--archs", "7.0 8.6", "-o", "x.fatbin"])
        )
        .replace(&root, "[DIR]")
    );
}

/// The build records' errors (`<file>.archbuild.json`, typed in the library) as `merge` shows
/// them: shards built differently are refused (exit 3, nothing written), and a shard whose
/// record cannot be taken merges with a warning that says why and that the result gets none.
#[test]
fn merge_errors_of_build_records_name_the_fix() {
    let dir = scratch();
    let k = crate::support::fixture_source("kernels.cu");
    for (archs, out, define) in [
        ("7.5", "a.fatbin", "FLAVOUR=1"),
        ("8.6", "b.fatbin", "FLAVOUR=2"),
        ("8.6", "c.fatbin", "FLAVOUR=1"),
    ] {
        let (code, _, stderr) = run(cli()
            .current_dir(dir.path())
            .arg("compile")
            .arg(&k)
            .args(["--archs", archs, "-o", out, "-D", define])
            .args(["--shard-of", "7.5 8.6"]));
        assert_eq!(code, 0, "{stderr}");
    }
    let merge = |files: &[&str], out: &str| {
        let mut cmd = cli();
        cmd.current_dir(dir.path())
            .arg("merge")
            .args(files)
            .args(["-o", out]);
        cmd
    };
    insta::assert_snapshot!(
        "err_merge_records_settings_differ",
        failure(&mut merge(&["a.fatbin", "b.fatbin"], "m.fatbin"))
    );
    assert!(!dir.path().join("m.fatbin").exists());
    let record = dir.path().join("c.fatbin.archbuild.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    json["format"] = 2.into();
    std::fs::write(&record, serde_json::to_vec(&json).unwrap()).unwrap();
    let (code, _, stderr) = run(&mut merge(&["a.fatbin", "c.fatbin"], "n.fatbin"));
    assert_eq!(code, 0, "{stderr}");
    let warning: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    insta::assert_snapshot!("warn_merge_record_format", warning.join("\n"));
    assert!(dir.path().join("n.fatbin").exists());
    assert!(!dir.path().join("n.fatbin.archbuild.json").exists());
}
