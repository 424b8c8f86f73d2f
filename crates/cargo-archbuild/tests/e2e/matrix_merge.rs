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
