//! `doctor` against the runtime's simulated driver: mixed rigs, per-GPU verdicts, exit codes.

use crate::support::{built, cli, json, run};

fn gpu(module: &serde_json::Value, ordinal: u64) -> &serde_json::Value {
    module["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["ordinal"] == ordinal)
        .unwrap()
}

#[test]
fn a_gpu_the_fatbin_cannot_serve_fails_the_check_and_names_the_fix() {
    // The fixture has sm_75, sm_86 and compute_86: an A100 (8.0) gets nothing.
    let mut cmd = cli();
    cmd.env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.0,8.6@13000")
        .arg("doctor")
        .arg(&built().fatbin)
        .args(["--message-format", "json"]);
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "exit 1 when a GPU cannot run the file"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["driver"]["cuda_version"], "13.0");
    assert_eq!(v["gpus"].as_array().unwrap().len(), 3);
    let m = &v["file"]["modules"][0];
    // A one-container fat binary is named as the file, not `container 0`.
    assert_eq!(m["location"], "file");
    assert_eq!(v["file"]["ok"], false);
    assert_eq!(gpu(m, 0)["image"], "sm_75");
    assert_eq!(gpu(m, 0)["route"], "cubin");
    assert_eq!(gpu(m, 2)["image"], "sm_86");
    let a100 = gpu(m, 1);
    assert_eq!(a100["ok"], false);
    assert!(
        a100["error"]
            .as_str()
            .unwrap()
            .contains("add 8.0 to ARCHBUILD_ARCHS"),
        "{a100}"
    );
    // The human form says the same, and the error line counts the failing GPUs.
    let (code, stdout, stderr) = run(cli()
        .env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.0,8.6@13000")
        .arg("doctor")
        .arg(&built().fatbin));
    assert_eq!(code, 1);
    assert!(
        stdout.contains("GPU 1 A100 (8.0): cannot run it"),
        "{stdout}"
    );
    assert!(
        stderr.contains("error: 1 of 3 GPU(s) cannot run"),
        "{stderr}"
    );
}

#[test]
fn every_gpu_covered_exits_zero_and_later_minors_use_the_older_cubin() {
    let v = json(
        cli()
            .env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6,8.9@13000")
            .arg("doctor")
            .arg(&built().fatbin)
            .args(["--message-format", "json"]),
    );
    assert_eq!(v["file"]["ok"], true);
    let m = &v["file"]["modules"][0];
    assert_eq!(
        gpu(m, 2)["image"],
        "sm_86",
        "an RTX 4090 (8.9) runs the sm_86 cubin"
    );
    assert_eq!(gpu(m, 2)["route"], "cubin");
}

#[test]
fn ptx_newer_than_the_driver_needs_nvjitlink_or_fails_with_both_fixes() {
    // An H100 (9.0) only has the compute_86 PTX (ISA 9.5 from CUDA 13.5); a 12.4 driver cannot JIT it.
    let mut cmd = cli();
    cmd.env("ARCHBUILD_SIMULATED_GPUS", "9.0@12.4")
        .env("ARCHBUILD_NVJITLINK", "off")
        .arg("doctor")
        .arg(&built().fatbin)
        .args(["--message-format", "json"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let h100 = gpu(&v["file"]["modules"][0], 0);
    let err = h100["error"].as_str().unwrap();
    assert!(
        err.contains("PTX ISA 9.5") && err.contains("nvJitLink") && err.contains("update"),
        "{err}"
    );
    // With a driver new enough for the PTX, who compiles it follows ARCHBUILD_JIT: the driver
    // when asked for, and under the default `auto` too when no nvJitLink is at hand.
    for jit in [Some("driver"), None] {
        let mut cmd = cli();
        cmd.env("ARCHBUILD_SIMULATED_GPUS", "9.0@13.5")
            .env("ARCHBUILD_NVJITLINK", "off");
        if let Some(jit) = jit {
            cmd.env("ARCHBUILD_JIT", jit);
        }
        let v = json(
            cmd.arg("doctor")
                .arg(&built().fatbin)
                .args(["--message-format", "json"]),
        );
        let h100 = gpu(&v["file"]["modules"][0], 0);
        assert_eq!(h100["image"], "compute_86");
        assert_eq!(h100["route"], "JIT by the driver", "ARCHBUILD_JIT={jit:?}");
    }
    // `auto` prefers an nvJitLink of the driver's major version (13) when one is found.
    let Some(lib) = toolkit_nvjitlink() else {
        return archbuild_tests::servers::skip(
            "the nvJitLink half: the test toolkit has no libnvJitLink.so.13",
        );
    };
    let v = json(
        cli()
            .env("ARCHBUILD_SIMULATED_GPUS", "9.0@13.5")
            .env("ARCHBUILD_NVJITLINK", &lib)
            .arg("doctor")
            .arg(&built().fatbin)
            .args(["--message-format", "json"]),
    );
    let h100 = gpu(&v["file"]["modules"][0], 0);
    assert_eq!(h100["image"], "compute_86");
    let route = h100["route"].as_str().unwrap();
    assert!(route.starts_with("JIT by nvJitLink 13."), "{route}");
}

/// The toolkit's own `libnvJitLink.so.13` (the provisioned wheels ship it in `lib/`).
fn toolkit_nvjitlink() -> Option<std::path::PathBuf> {
    let nvcc = archbuild_tests::tool("nvcc");
    let root = nvcc.parent()?.parent()?;
    ["lib", "lib64"]
        .iter()
        .map(|d| root.join(d).join("libnvJitLink.so.13"))
        .find(|p| p.is_file())
}

#[test]
fn an_executable_is_checked_per_translation_unit() {
    let v = json(
        cli()
            .env("ARCHBUILD_SIMULATED_GPUS", "7.5,9.0@13.5")
            .arg("doctor")
            .arg(&built().executable)
            .args(["--message-format", "json"]),
    );
    let modules = v["file"]["modules"].as_array().unwrap();
    let checked: Vec<&serde_json::Value> =
        modules.iter().filter(|m| m["checked"] == true).collect();
    assert_eq!(
        checked.len(),
        2,
        "two translation units with kernels: {modules:?}"
    );
    for m in checked {
        assert_eq!(gpu(m, 0)["image"], "sm_75");
        assert_eq!(gpu(m, 1)["image"], "compute_89");
    }
    assert_eq!(v["file"]["ok"], true);
}

#[test]
fn doctor_without_a_file_lists_the_driver_and_gpus() {
    let (code, stdout, _) = run(cli()
        .env("ARCHBUILD_SIMULATED_GPUS", "7.5:RTX 2080,8.6:RTX 3090@12.8")
        .arg("doctor"));
    assert_eq!(code, 0);
    assert!(stdout.contains("CUDA 12.8"), "{stdout}");
    assert!(
        stdout.contains("GPU 0      RTX 2080, compute capability 7.5 (Turing)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("GPU 1      RTX 3090, compute capability 8.6 (Ampere)"),
        "{stdout}"
    );
}

#[test]
fn policy_cubin_only_refuses_jit() {
    let (code, stdout, _) = run(cli()
        .env("ARCHBUILD_SIMULATED_GPUS", "9.0@13.5")
        .arg("doctor")
        .arg(&built().fatbin)
        .args(["--policy", "cubin-only"]));
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("cubin-only"), "{stdout}");
}

#[test]
fn a_fat_binary_of_only_lto_ir_fails_each_gpu_with_the_way_out() {
    // `nvcc -dlto -fatbin -arch=lto_90` output: nothing a driver loads, and with no nvJitLink
    // to link it, nothing any GPU gets.
    let dir = crate::support::scratch();
    let path = dir.path().join("lto.fatbin");
    let sm90 = archbuild_fatbin::Target::parse_nvcc_name("sm_90")
        .unwrap()
        .arch;
    let bytes = archbuild_fatbin::FatbinWriter::new()
        .add_ltoir(b"NVVM IR stand-in", sm90)
        .unwrap()
        .write()
        .unwrap();
    std::fs::write(&path, bytes).unwrap();
    let out = cli()
        .env("ARCHBUILD_SIMULATED_GPUS", "9.0,8.6@13.0")
        .env("ARCHBUILD_NVJITLINK", "off")
        .arg("doctor")
        .arg(&path)
        .args(["--message-format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed check, not an unreadable file"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v["file"]["modules"][0];
    assert_eq!(m["images"], serde_json::json!(["lto_90"]));
    for ordinal in 0..2 {
        let g = gpu(m, ordinal);
        assert_eq!(g["ok"], false);
        let err = g["error"].as_str().unwrap();
        // The 9.0 GPU could link lto_90 with an nvJitLink; the 8.6 one needs its own image.
        let fix = match ordinal {
            0 => "ARCHBUILD_NVJITLINK to its path; or add 9.0",
            _ => "add 8.6 to ARCHBUILD_ARCHS",
        };
        assert!(err.contains("lto_90") && err.contains(fix), "{err}");
    }
    // `inspect` lists it and says its kernels cannot be known from LTO-IR.
    let (code, stdout, _) = run(cli().arg("inspect").arg(&path));
    assert_eq!(code, 0);
    assert!(
        stdout.contains("LTO-IR  lto_90")
            && stdout.contains("kernel coverage: not known (LTO-IR only"),
        "{stdout}"
    );
}
