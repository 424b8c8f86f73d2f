//! `explain`: expansion, nvcc flags and per-generation coverage, in JSON and as text.

use crate::support::{cli, fixture_source, json, json_lines, run, scratch};

#[test]
fn explain_expands_a_list_into_targets_flags_and_coverage() {
    let v = json(cli().args(["explain", "7.5 8.6 8.9+PTX", "--message-format", "json"]));
    assert_eq!(v["reason"], "explain");
    assert_eq!(v["canonical"], "7.5 8.6 8.9+PTX");
    let targets: Vec<&str> = v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["sm_75", "sm_86", "sm_89", "compute_89"]);
    assert_eq!(
        v["nvcc_flags"],
        serde_json::json!([
            "-gencode=arch=compute_75,code=sm_75",
            "-gencode=arch=compute_86,code=sm_86",
            "-gencode=arch=compute_89,code=sm_89",
            "-gencode=arch=compute_89,code=compute_89"
        ])
    );
    // sm_86 runs on the later 8.x GPUs; PTX runs on everything newer.
    let sm86 = &v["targets"][1];
    assert_eq!(
        sm86["runs_on"],
        serde_json::json!(["8.6", "8.7", "8.8", "8.9"])
    );
    assert_eq!(v["targets"][3]["runs_on_future_gpus"], true);
    let cov = |cc: &str| {
        v["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["cc"] == cc)
            .unwrap()
            .clone()
    };
    assert_eq!(cov("8.7")["image"], "sm_86");
    assert_eq!(cov("8.7")["route"], "cubin");
    assert_eq!(cov("9.0")["image"], "compute_89");
    assert_eq!(cov("9.0")["route"], "jit");
    // An A100 (8.0) gets nothing from this list, and the report says what to add.
    assert!(cov("8.0")["image"].is_null());
    assert!(
        cov("8.0")["fix"].as_str().unwrap().contains("add 8.0"),
        "{}",
        cov("8.0")
    );
}

#[test]
fn explain_accepts_generation_names_and_other_dialects() {
    let canonical = |list: &str| {
        let v = json(cli().args(["explain", list, "--message-format", "json"]));
        v["canonical"].as_str().unwrap().to_string()
    };
    // PyTorch's generation names, nvcc's names and CMake-style -real/-virtual all land on the same set.
    assert_eq!(canonical("Ampere"), "8.0 8.6+PTX");
    assert_eq!(canonical("sm_80,compute_86;sm_86"), "8.0 8.6+PTX");
    assert_eq!(canonical("80-real 86-real 86-virtual"), "8.0 8.6+PTX");
}

#[test]
fn explain_human_output_lists_what_each_gpu_loads() {
    let (code, stdout, _) = run(cli().args(["explain", "8.6 9.0a"]));
    assert_eq!(code, 0);
    assert!(
        stdout.contains("-gencode=arch=compute_90a,code=sm_90a"),
        "{stdout}"
    );
    // sm_90a runs on exactly 9.0; a Blackwell GPU gets nothing.
    let line = |cc: &str| {
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{cc} ")))
            .unwrap()
            .to_string()
    };
    assert!(line("9.0").contains("sm_90a (cubin)"), "{}", line("9.0"));
    assert!(line("10.0").contains("none: add 10.0"), "{}", line("10.0"));
    assert!(line("8.9").contains("sm_86 (cubin)"), "{}", line("8.9"));
}

#[test]
fn explain_native_uses_the_simulated_gpus() {
    let v = json(
        cli()
            .env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6,8.6@13000")
            .args(["explain", "native", "--message-format", "json"]),
    );
    assert_eq!(v["canonical"], "7.5 8.6+PTX");
}

/// `explain native` and a build of `native` mean the same simulated GPUs: the build reads
/// ARCHBUILD_SIMULATED_GPUS itself, through the parser the runtime's simulated driver uses.
#[test]
fn explain_and_a_build_resolve_native_to_the_same_simulated_gpus() {
    let sim = ("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6@13000");
    let explained =
        json(
            cli()
                .env(sim.0, sim.1)
                .args(["explain", "native", "--message-format", "json"]),
        );
    assert_eq!(explained["canonical"], "7.5 8.6+PTX");
    let dir = scratch();
    let out = dir.path().join("native.fatbin");
    let built = json_lines(
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
        .unwrap_or_else(|| panic!("no final report: {built:?}"));
    assert_eq!(report["archs"], explained["canonical"], "{report}");
}

/// The targets of an `explain` JSON report.
fn targets_of(v: &serde_json::Value) -> Vec<String> {
    v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_source_of_a_list_decides_its_dialect_and_explain_shows_it() {
    let outside = tempfile::tempdir().unwrap();
    let explain = |env: &[(&str, &str)], args: &[&str]| {
        let mut c = cli();
        c.current_dir(outside.path()).arg("explain").args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        json(c.args(["--message-format", "json"]))
    };
    // CMake's bare number is cubin and PTX; `-real` is the cubin alone.
    let v = explain(&[("CUDAARCHS", "75;86-real")], &[]);
    assert_eq!(v["source"], "CUDAARCHS");
    assert_eq!(v["dialect"], "cmake");
    assert_eq!(v["input"], "75;86-real");
    assert_eq!(targets_of(&v), ["sm_75", "compute_75", "sm_86"]);
    // The same text as an argument is archbuild's dialect unless told otherwise.
    let v = explain(&[], &["75 86"]);
    assert_eq!(v["dialect"], "archbuild");
    assert_eq!(targets_of(&v), ["sm_75", "sm_86"]);
    let v = explain(&[], &["--dialect", "cmake", "75 86"]);
    assert_eq!(v["dialect"], "cmake");
    assert_eq!(
        targets_of(&v),
        ["sm_75", "compute_75", "sm_86", "compute_86"]
    );
    // A PyTorch list PyTorch itself rejects: read, and warned about.
    let v = explain(&[("TORCH_CUDA_ARCH_LIST", "7.5,8.6")], &[]);
    assert_eq!(v["dialect"], "pytorch");
    assert_eq!(targets_of(&v), ["sm_75", "sm_86"]);
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("PyTorch rejects `7.5,8.6`"),
        "{v}"
    );
    // Nothing set: the default, in archbuild's dialect; the human form names source and rule.
    let (code, stdout, stderr) = run(cli().current_dir(outside.path()).arg("explain"));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(
            "from        the default (`all-major` of the toolkit) (`all-major`), archbuild dialect"
        ),
        "{stdout}"
    );
}
