//! Kernel coverage is one rule: `build`, `compile`, `inspect` and `doctor` report the same gaps
//! for a module with a variant group, in their human output and their JSON. The module holds
//! the variants example's `gemm` group (its Hopper and tensor-core kernels are missing from
//! older images on purpose) and one guarded kernel outside any group (a real gap).

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::{cli, json_lines, run, scratch};

const ARCHS: &str = "7.5 8.6+PTX 9.0a";
const GROUP: &str = "gemm=gemm_hopper,gemm_mma,gemm_simt";
/// Ampere and newer only, in no group: missing from the sm_75 image.
const GUARDED: &str = "\n#if __CUDA_ARCH__ >= 800\n\
    extern \"C\" __global__ void only_ampere(float *x) { x[0] = 1.0f; }\n#endif\n";

/// `(kernel, images missing it)` of a JSON array of coverage gaps.
fn gaps(v: &serde_json::Value) -> BTreeSet<(String, Vec<String>)> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array of gaps: {v}"))
        .iter()
        .map(|g| {
            let missing = g["missing_from"].as_array().unwrap();
            (
                g["kernel"].as_str().unwrap().to_owned(),
                missing
                    .iter()
                    .map(|t| t.as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect()
}

/// The coverage lines of a human output, from their count on (the build's start with the
/// module's name).
fn lines(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| {
            // Not inspect's summary ("1 of 4 kernel(s) missing from some images").
            let at = l
                .find(" kernel(s) missing from ")
                .filter(|_| l.contains("(present in"))?;
            let start = l[..at]
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |p| p + 1);
            Some(l[start..].to_owned())
        })
        .collect()
}

fn package(dir: &Path) -> std::path::PathBuf {
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(pkg.join("kernels")).unwrap();
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    std::fs::write(pkg.join("src/lib.rs"), "").unwrap();
    let gemm = std::fs::read_to_string(
        archbuild_tests::repo_root().join("examples/variants/kernels/gemm.cu"),
    )
    .unwrap();
    std::fs::write(pkg.join("kernels/gemm.cu"), gemm + GUARDED).unwrap();
    std::fs::write(
        pkg.join("Cargo.toml"),
        format!(
            "[package]\nname = \"cov\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
             [package.metadata.archbuild]\nkernels = [\"kernels/gemm.cu\"]\narchs = \"{ARCHS}\"\n\n\
             [package.metadata.archbuild.variants]\n\
             gemm = [\"gemm_hopper\", \"gemm_mma\", \"gemm_simt\"]\n"
        ),
    )
    .unwrap();
    pkg
}

#[test]
fn build_compile_inspect_and_doctor_report_the_same_gaps_for_a_module_with_variants() {
    let dir = scratch();
    let pkg = package(dir.path());
    let want_gaps: BTreeSet<(String, Vec<String>)> =
        [("only_ampere".to_owned(), vec!["sm_75".to_owned()])].into();
    let build = || {
        let mut c = cli();
        c.env_remove("CARGO_TARGET_DIR")
            .env("ARCHBUILD_CACHE_DIR", dir.path().join("cache"))
            .arg("build")
            .arg("--manifest-path")
            .arg(pkg.join("Cargo.toml"));
        c
    };
    let mut human = Vec::new();
    let mut json = Vec::new();

    // build
    let (code, _, stderr) = run(&mut build());
    assert_eq!(code, 0, "{stderr}");
    human.push(("build", lines(&stderr)));
    let messages = json_lines(build().args(["--message-format", "json"]));
    let module = messages
        .iter()
        .find(|m| m["reason"] == "module-finished")
        .expect("a module-finished message");
    json.push(("build", gaps(&module["coverage_gaps"])));
    let warned: Vec<&serde_json::Value> = messages
        .last()
        .unwrap()
        .pointer("/packages/0/warnings")
        .and_then(|w| w.as_array())
        .expect("the build's warnings")
        .iter()
        .filter(|w| w["kind"] == "coverage-gap")
        .collect();
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert_eq!(warned[0]["kernels"], serde_json::json!(["only_ampere"]));
    assert_eq!(warned[0]["affected_gpus"], serde_json::json!(["7.5"]));
    let fatbin = std::path::PathBuf::from(module["fatbin"].as_str().unwrap());

    // compile, the group given on the command line
    let out = dir.path().join("compiled.fatbin");
    let compile = || {
        let mut c = cli();
        c.env("ARCHBUILD_CACHE_DIR", dir.path().join("cache"))
            .arg("compile")
            .arg(pkg.join("kernels/gemm.cu"))
            .args(["--archs", ARCHS, "--variants", GROUP, "-o"])
            .arg(&out);
        c
    };
    let (code, _, stderr) = run(&mut compile());
    assert_eq!(code, 0, "{stderr}");
    human.push(("compile", lines(&stderr)));
    let v = json_lines(compile().args(["--message-format", "json"]));
    let done = v.last().unwrap();
    json.push((
        "compile",
        gaps(&done["modules_checked"][0]["coverage_gaps"]),
    ));

    // inspect and doctor, on the build's file and on compile's (each has its record beside it)
    for file in [&fatbin, &out] {
        let (code, stdout, stderr) = run(cli().arg("inspect").arg(file));
        assert_eq!(code, 0, "{stderr}");
        human.push(("inspect", lines(&format!("{stdout}{stderr}"))));
        let v = json_lines(
            cli()
                .arg("inspect")
                .arg(file)
                .args(["--message-format", "json"]),
        );
        json.push(("inspect", gaps(&v[0]["coverage_gaps"])));
        let doctor = || {
            let mut c = cli();
            c.env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6,9.0@13.5")
                .env("ARCHBUILD_NVJITLINK", "off")
                .arg("doctor")
                .arg(file);
            c
        };
        let (_, stdout, stderr) = run(&mut doctor());
        human.push(("doctor", lines(&format!("{stdout}{stderr}"))));
        let v = json_lines(doctor().args(["--message-format", "json"]));
        json.push(("doctor", gaps(&v[0]["file"]["modules"][0]["coverage_gaps"])));
    }

    for (command, g) in &json {
        assert_eq!(g, &want_gaps, "{command}'s JSON: {json:?}");
    }
    let want_line = &human[0].1;
    assert_eq!(want_line.len(), 1, "one coverage line: {want_line:?}");
    assert!(
        want_line
            .iter()
            .all(|l| l.starts_with("1 kernel(s) missing from sm_75: `only_ampere`")),
        "{want_line:?}"
    );
    for (command, l) in &human {
        assert_eq!(l, want_line, "{command}'s human output: {human:?}");
    }
}

/// The record beside `compile`'s output follows the variant groups of the latest compile, also
/// when the fat binary itself is unchanged (`inspect` and `doctor` read their groups from it).
#[test]
fn a_changed_variant_group_reaches_the_record_beside_an_unchanged_output() {
    let dir = scratch();
    let pkg = package(dir.path());
    let out = dir.path().join("g.fatbin");
    let groups_after = |variants: Option<&str>| {
        let mut c = cli();
        c.env("ARCHBUILD_CACHE_DIR", dir.path().join("cache"))
            .arg("compile")
            .arg(pkg.join("kernels/gemm.cu"))
            .args(["--archs", "7.5 8.6", "-o"])
            .arg(&out);
        if let Some(v) = variants {
            c.args(["--variants", v]);
        }
        let (code, _, stderr) = run(&mut c);
        assert_eq!(code, 0, "{stderr}");
        let record = std::fs::read(archbuild::record::record_path(&out)).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&record).unwrap();
        v["variants"].clone()
    };
    assert_eq!(
        groups_after(Some("g=gemm_mma,gemm_simt")),
        serde_json::json!([["g", ["gemm_mma", "gemm_simt"]]])
    );
    assert_eq!(
        groups_after(Some("h=gemm_simt")),
        serde_json::json!([["h", ["gemm_simt"]]])
    );
    assert_eq!(groups_after(None), serde_json::json!([]));
}
