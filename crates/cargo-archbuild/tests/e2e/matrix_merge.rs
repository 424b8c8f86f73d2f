//! `matrix` + per-shard `compile` + `merge` gives the same bytes as one `compile` of all the
//! targets — for a source that reads `__CUDA_ARCH_LIST__` and calls CUB too, when each shard is
//! built `--shard-of` the whole list (and `merge` refuses shards built without it); `merge`
//! refuses two different images for one target.

use std::path::Path;

use crate::support::{cli, fixture_source, run, scratch};

fn compile(cache: &Path, archs: &str, out: &Path) {
    compile_source("kernels.cu", cache, archs, None, out);
}

fn compile_source(source: &str, cache: &Path, archs: &str, whole: Option<&str>, out: &Path) {
    let mut cmd = cli();
    cmd.env("ARCHBUILD_CACHE_DIR", cache)
        .arg("compile")
        .arg(fixture_source(source))
        .args(["--archs", archs, "-o"])
        .arg(out);
    if let Some(w) = whole {
        cmd.args(["--shard-of", w]);
    }
    let (code, _, stderr) = run(&mut cmd);
    assert_eq!(code, 0, "compile --archs {archs}: {stderr}");
}

/// The shards of `list` (`matrix`), each built on its own "machine" (cache), `--shard-of` the
/// matrix's `whole` when `whole` is set: their files.
fn shard_builds(
    dir: &Path,
    source: &str,
    list: &str,
    shards: &str,
    whole: bool,
) -> Vec<std::path::PathBuf> {
    let (code, stdout, stderr) = run(cli().args(["matrix", "--shards", shards, "--archs", list]));
    assert_eq!(code, 0, "{stderr}");
    let matrix: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut parts = Vec::new();
    for s in matrix["include"].as_array().unwrap() {
        let n = s["shard"].as_u64().unwrap();
        assert_eq!(s["whole"].as_str(), Some(list), "{s}");
        let tag = if whole { "whole" } else { "own" };
        let out = dir.join(format!("{tag}{n}")).join("k.fatbin");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let cache = dir.join(format!("cache-{tag}{n}"));
        let w = whole.then(|| s["whole"].as_str().unwrap());
        compile_source(source, &cache, s["archs"].as_str().unwrap(), w, &out);
        parts.push(out);
    }
    parts
}

#[test]
fn shards_of_a_cub_source_built_shard_of_the_whole_list_merge_into_the_one_shot_bytes() {
    let dir = scratch();
    let list = "7.5 8.6 9.0+PTX";
    let parts = shard_builds(dir.path(), "cub_reduce.cu", list, "2", true);
    let merged = dir.path().join("merged.fatbin");
    let (code, _, stderr) = run(cli().arg("merge").args(&parts).arg("-o").arg(&merged));
    assert_eq!(code, 0, "{stderr}");
    let one_shot = dir.path().join("one.fatbin");
    compile_source(
        "cub_reduce.cu",
        &dir.path().join("cache-one"),
        list,
        None,
        &one_shot,
    );
    assert!(
        std::fs::read(&merged).unwrap() == std::fs::read(&one_shot).unwrap(),
        "the merged shards differ from the one-shot build"
    );
    // Built with their own lists' __CUDA_ARCH_LIST__, the shards differ from the one-shot build
    // and from each other's settings: merge refuses them.
    let own = shard_builds(dir.path(), "cub_reduce.cu", list, "2", false);
    let (code, _, stderr) = run(cli()
        .arg("merge")
        .args(&own)
        .arg("-o")
        .arg(dir.path().join("bad.fatbin")));
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("settings"), "{stderr}");
}

#[test]
fn sharded_compile_then_merge_equals_a_one_shot_compile_byte_for_byte() {
    let dir = scratch();
    let list = "7.5 8.0 8.6 9.0+PTX";
    let (code, stdout, stderr) = run(cli().args(["matrix", "--shards", "3", "--archs", list]));
    let whole = list;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "one line, for $GITHUB_OUTPUT");
    let matrix: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let shards = matrix["include"].as_array().unwrap();
    assert_eq!(shards.len(), 3);
    // Each shard builds on its own "machine" (its own cache), as CI jobs do.
    let mut parts = Vec::new();
    for s in shards {
        let n = s["shard"].as_u64().unwrap();
        // Same file name in every shard, as CI jobs write it: the name is the module's.
        let out = dir.path().join(format!("shard{n}")).join("kernels.fatbin");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        compile_source(
            "kernels.cu",
            &dir.path().join(format!("cache{n}")),
            s["archs"].as_str().unwrap(),
            Some(whole),
            &out,
        );
        parts.push(out);
    }
    let merged = dir.path().join("merged.fatbin");
    let (code, _, stderr) = run(cli().arg("merge").args(&parts).arg("-o").arg(&merged));
    assert_eq!(code, 0, "{stderr}");
    let one_shot = dir.path().join("one.fatbin");
    compile(&dir.path().join("cache-one"), list, &one_shot);
    let (a, b) = (
        std::fs::read(&merged).unwrap(),
        std::fs::read(&one_shot).unwrap(),
    );
    assert!(
        a == b,
        "merged ({} bytes) differs from the one-shot build ({} bytes)",
        a.len(),
        b.len()
    );
}

#[test]
fn merge_refuses_two_different_images_for_one_target_naming_both_files() {
    let dir = scratch();
    let cache = dir.path().join("cache");
    let a = dir.path().join("a.fatbin");
    let b = dir.path().join("b.fatbin");
    compile(&cache, "7.5", &a);
    let (code, _, stderr) = run(cli()
        .env("ARCHBUILD_CACHE_DIR", &cache)
        .arg("compile")
        .arg(fixture_source("scale.cu"))
        .args(["--archs", "7.5", "-o"])
        .arg(&b));
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(cli()
        .current_dir(dir.path())
        .args(["merge", "a.fatbin", "b.fatbin", "-o", "m.fatbin"]));
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("`a.fatbin`") && stderr.contains("`b.fatbin`") && stderr.contains("sm_75"),
        "{stderr}"
    );
    assert!(!dir.path().join("m.fatbin").exists());
}

#[test]
fn matrix_json_is_the_same_document() {
    let (_, human, _) = run(cli().args(["matrix", "--shards", "2", "--archs", "8.6 8.9+PTX"]));
    let (_, json, _) = run(cli().args([
        "matrix",
        "--shards",
        "2",
        "--archs",
        "8.6 8.9+PTX",
        "--message-format",
        "json",
    ]));
    assert_eq!(human, json);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["include"][1]["archs"], "8.9+PTX");
    assert_eq!(v["include"][1]["targets"], "sm_89 compute_89");
}

/// The `run:` commands of a workflow file, in order (one-line and `|` blocks).
fn run_steps(yaml: &str) -> Vec<String> {
    let mut steps = Vec::new();
    let mut lines = yaml.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((indent, rest)) = line.split_once("run: ") else {
            continue;
        };
        if indent.trim_start_matches([' ', '-']).is_empty() && rest.trim() == "|" {
            let mut block = String::new();
            while let Some(next) = lines.peek() {
                if !next.starts_with(&" ".repeat(indent.len() + 2)) {
                    break;
                }
                block.push_str(next.trim_start());
                block.push('\n');
                lines.next();
            }
            steps.push(block);
        } else if indent.trim_start_matches([' ', '-']).is_empty() {
            steps.push(rest.to_owned());
        }
    }
    steps
}

/// The workflow `cargo archbuild ci` writes, run step by step for a kernel crate whose kernel
/// calls CUB (and so reads `__CUDA_ARCH_LIST__`): the plan's matrix, each shard's build on a
/// machine of its own, the merge with `inspect` and the fleet check, and the release build's
/// `ARCHBUILD_PREBUILT` — whose fat binary is the one-shot build's, byte for byte, taken with
/// no compile. (The release step's `cargo build --release` runs the same build driver through
/// the crate's build script; here `cargo archbuild build` runs it, without a release build of
/// the crate's Rust.)
#[test]
fn the_generated_workflow_gives_a_cub_crate_the_one_shot_bytes() {
    let dir = scratch();
    let list = "7.5 8.6 9.0+PTX";
    // By git, as a repository's CI can have it (`cargo archbuild` reads the manifest without
    // fetching its dependencies; `ci` refuses archbuild by an absolute path).
    let (code, _, stderr) = run(cli().current_dir(dir.path()).args([
        "new",
        "cubk",
        "--archbuild-git",
        "https://example.invalid/archbuild",
        "--archbuild-rev",
        "0123abc",
    ]));
    assert_eq!(code, 0, "{stderr}");
    let krate = dir.path().join("cubk");
    std::fs::copy(
        fixture_source("cub_reduce.cu"),
        krate.join("kernels/cub_reduce.cu"),
    )
    .unwrap();
    let manifest = krate.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace(
        "kernels = [\"kernels/ops.cu\"]",
        "kernels = [\"kernels/cub_reduce.cu\"]",
    );
    std::fs::write(&manifest, text).unwrap();
    let (code, _, stderr) = run(cli()
        .current_dir(&krate)
        .args([
            "ci",
            "--kernel-crate",
            "cubk",
            "--archs",
            list,
            "--shards",
            "2",
        ])
        .args(["-o", "archbuild.yml"]));
    assert_eq!(code, 0, "{stderr}");
    let steps = run_steps(&std::fs::read_to_string(krate.join("archbuild.yml")).unwrap());
    let step = |needle: &str| {
        steps
            .iter()
            .find(|s| s.contains(needle))
            .unwrap_or_else(|| panic!("no step runs `{needle}`: {steps:#?}"))
            .clone()
    };
    // `cargo archbuild` from this build, as the workflow's jobs put theirs on PATH.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_cargo-archbuild"),
        bin.join("cargo-archbuild"),
    )
    .unwrap();
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let output = dir.path().join("github_output");
    let bash = |script: &str, machine: &str, vars: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new("bash");
        cmd.args(["-eo", "pipefail", "-c", script])
            .current_dir(&krate)
            .env("PATH", &path)
            .env("NVCC", archbuild_tests::tool("nvcc"))
            .env("ARCHBUILD_CACHE_DIR", dir.path().join(machine))
            .env(
                "CARGO_TARGET_DIR",
                dir.path().join(format!("target-{machine}")),
            )
            .env("ARCHBUILD_ARCHS", list)
            .env("KERNEL_CRATE", "cubk")
            .env("SHARDS", "2")
            .env("FLEET", "7.5,8.6,9.0@13.0")
            .env("GITHUB_OUTPUT", &output)
            .envs(vars.iter().copied());
        for (key, _) in std::env::vars_os() {
            let k = key.to_string_lossy();
            if k.starts_with("ARCHBUILD_") && k != "ARCHBUILD_VERIFY" {
                cmd.env_remove(&key);
            }
        }
        let out = cmd.output().unwrap();
        let text = format!(
            "{script}\n--- stdout\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{text}");
        text
    };
    bash(&step("cargo archbuild matrix"), "plan", &[]);
    let line = std::fs::read_to_string(&output).unwrap();
    let matrix: serde_json::Value =
        serde_json::from_str(line.trim().strip_prefix("matrix=").unwrap()).unwrap();
    let shards = matrix["include"].as_array().unwrap();
    assert_eq!(shards.len(), 2, "{matrix}");
    for s in shards {
        let name = s["name"].as_str().unwrap();
        bash(
            &step("cargo archbuild build"),
            name,
            &[
                ("SHARD_ARCHS", s["archs"].as_str().unwrap()),
                ("SHARD_OF", s["whole"].as_str().unwrap()),
                ("SHARD_NAME", name),
            ],
        );
    }
    let merged = bash(&step("cargo archbuild merge"), "merge", &[]);
    assert!(
        merged.contains("sm_75") && merged.contains("sm_90"),
        "{merged}"
    );
    // The one-shot build on a machine of its own.
    bash(
        "cargo archbuild build -p cubk --out-dir one",
        "one-shot",
        &[],
    );
    let one = std::fs::read(krate.join("one/cubk/kernels/cub_reduce.fatbin")).unwrap();
    let prebuilt = krate.join("prebuilt/cub_reduce.fatbin");
    assert!(
        std::fs::read(&prebuilt).unwrap() == one,
        "the workflow's merged fat binary differs from the one-shot build"
    );
    // The release step's build driver takes the merged file and compiles nothing.
    let release = step("ARCHBUILD_PREBUILT");
    assert!(release.contains("cargo build --release"), "{release}");
    let taken = bash(
        "ARCHBUILD_PREBUILT=\"$PWD/prebuilt\" cargo archbuild --message-format json build -p cubk --out-dir release",
        "release",
        &[],
    );
    assert!(taken.contains("\"processes_started\":0"), "{taken}");
    assert!(
        std::fs::read(krate.join("release/cubk/kernels/cub_reduce.fatbin")).unwrap() == one,
        "the release build's fat binary is not the merged one"
    );
}
