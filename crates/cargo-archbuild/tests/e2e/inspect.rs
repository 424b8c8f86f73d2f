//! `inspect` on files made by nvcc (fat binary, object, executable, cubin, PTX) checked against
//! `cuobjdump`, the JSON listing, and the kernel-coverage check.

use std::path::Path;

use crate::support::{built, cli, cuobjdump, json, run};

fn ours_cuobjdump(file: &Path) -> String {
    let (code, stdout, stderr) = run(cli()
        .arg("inspect")
        .arg("--format")
        .arg("cuobjdump")
        .arg(file));
    assert_eq!(code, 0, "{stderr}");
    stdout
}

#[test]
fn cuobjdump_format_matches_cuobjdump_on_nvcc_files() {
    let b = built();
    for file in [&b.fatbin, &b.object, &b.executable, &b.cubin] {
        let theirs = cuobjdump(&["--list-elf", "--list-ptx"], file);
        assert_eq!(
            ours_cuobjdump(file),
            theirs,
            "listing of {}",
            file.display()
        );
    }
}

/// A fat binary of PTX alone and one of LTO-IR alone: the same stdout as cuobjdump, and its
/// stderr notes on the kinds it found none of, word for word.
#[test]
fn cuobjdump_format_repeats_cuobjdumps_notes_on_stderr() {
    let dir = crate::support::scratch();
    let src = dir.path().join("k.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n",
    )
    .unwrap();
    for (name, code) in [("ptx", "compute_90"), ("lto", "lto_90")] {
        let out = dir.path().join(format!("{name}.fatbin"));
        let gencode = format!("-gencode=arch=compute_90,code={code}");
        crate::support::nvcc(&[
            Path::new("-fatbin"),
            Path::new(&gencode),
            Path::new("-o"),
            &out,
            &src,
        ]);
        let theirs = std::process::Command::new(archbuild_tests::tool("cuobjdump"))
            .args(["--list-elf", "--list-ptx"])
            .arg(&out)
            .output()
            .unwrap();
        let (code, stdout, stderr) = run(cli()
            .arg("inspect")
            .arg("--format")
            .arg("cuobjdump")
            .arg(&out));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout, String::from_utf8_lossy(&theirs.stdout), "{name}");
        assert_eq!(stderr, String::from_utf8_lossy(&theirs.stderr), "{name}");
    }
}

#[test]
fn json_lists_every_image_with_its_details() {
    let v = json(
        cli()
            .arg("inspect")
            .arg(&built().fatbin)
            .args(["--message-format", "json"]),
    );
    assert_eq!(v["file_kind"], "fatbin");
    let images = v["images"].as_array().unwrap();
    let summary: Vec<(String, String)> = images
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap().to_string(),
                i["target"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Same images, same order as cuobjdump lists them.
    let listed = cuobjdump(&["--list-elf", "--list-ptx"], &built().fatbin);
    assert_eq!(summary.len(), listed.lines().count());
    for ((kind, target), line) in summary.iter().zip(listed.lines()) {
        assert!(line.starts_with(kind.as_str()), "{line} vs {kind}");
        let sm = target
            .trim_start_matches("sm_")
            .trim_start_matches("compute_");
        assert!(line.contains(&format!(".sm_{sm}.")), "{line} vs {target}");
    }
    let ptx = images.iter().find(|i| i["kind"] == "PTX").unwrap();
    assert_eq!(ptx["ptx_isa"], "9.5", "CUDA 13.5 emits PTX ISA 9.5");
    assert_eq!(ptx["compression"], "zstd", "nvcc compresses PTX by default");
    assert!(ptx["stored_size"].as_u64().unwrap() < ptx["size"].as_u64().unwrap());
    let sm75 = images.iter().find(|i| i["target"] == "sm_75").unwrap();
    assert_eq!(sm75["kernels"], serde_json::json!(["vector_add"]));
    assert_eq!(sm75["compression"], "none");
}

#[test]
fn a_kernel_guarded_by_cuda_arch_is_flagged_with_the_gpus_it_breaks() {
    let v = json(
        cli()
            .arg("inspect")
            .arg(&built().fatbin)
            .args(["--message-format", "json"]),
    );
    let gaps = v["coverage_gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert_eq!(gaps[0]["kernel"], "fast_path");
    assert_eq!(gaps[0]["missing_from"], serde_json::json!(["sm_75"]));
    assert_eq!(gaps[0]["affected_gpus"], serde_json::json!(["7.5"]));
    // Human output: the same as a warning on stderr.
    let (code, _, stderr) = run(cli().arg("inspect").arg(&built().fatbin));
    assert_eq!(code, 0);
    assert!(
        stderr.contains("warning: 1 kernel(s) missing from sm_75: `fast_path`"),
        "{stderr}"
    );
}

#[test]
fn executables_list_one_container_per_translation_unit() {
    let v = json(
        cli()
            .arg("inspect")
            .arg(&built().executable)
            .args(["--message-format", "json"]),
    );
    assert_eq!(v["file_kind"], "host-elf");
    let images = v["images"].as_array().unwrap();
    let kernels_of = |k: &str| {
        images
            .iter()
            .filter(|i| i["kernels"].as_array().unwrap().iter().any(|n| n == k))
            .count()
    };
    // host_kernel and vector_add each live in their own translation unit's sm_75 + compute_89.
    assert_eq!(kernels_of("host_kernel"), 2);
    assert_eq!(kernels_of("vector_add"), 2);
    // Kernels of different translation units are not "missing" from each other.
    let gaps: Vec<&str> = v["coverage_gaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["kernel"].as_str().unwrap())
        .collect();
    assert_eq!(gaps, ["fast_path"]);
}

#[test]
fn cubin_and_ptx_files_are_single_images() {
    let v = json(
        cli()
            .arg("inspect")
            .arg(&built().cubin)
            .args(["--message-format", "json"]),
    );
    assert_eq!(v["file_kind"], "cubin");
    assert_eq!(v["images"][0]["target"], "sm_90");
    let v = json(
        cli()
            .arg("inspect")
            .arg(&built().ptx)
            .args(["--message-format", "json"]),
    );
    assert_eq!(v["file_kind"], "ptx");
    assert_eq!(v["images"][0]["target"], "compute_90");
    assert_eq!(
        v["images"][0]["kernels"],
        serde_json::json!(["vector_add", "fast_path"])
    );
}

#[test]
fn cuobjdump_format_names_entries_with_an_identifier_as_cuobjdump_does() {
    // nvcc -lineinfo records the source in each entry's identifier; cuobjdump then names the
    // images after it, without a number (`k.sm_75.cubin`).
    let dir = crate::support::scratch();
    let src = dir.path().join("k.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n",
    )
    .unwrap();
    let out = dir.path().join("lined.fatbin");
    let st = std::process::Command::new(archbuild_tests::tool("nvcc"))
        .current_dir(dir.path())
        .args([
            "--fatbin",
            "-lineinfo",
            "-gencode",
            "arch=compute_75,code=sm_75",
            "-gencode",
            "arch=compute_86,code=[sm_86,compute_86]",
            "k.cu",
            "-o",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let theirs = cuobjdump(&["--list-elf", "--list-ptx"], &out);
    assert!(theirs.contains("k.sm_75.cubin"), "{theirs}");
    assert_eq!(ours_cuobjdump(&out), theirs);
}
