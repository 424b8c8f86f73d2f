//! `matrix` + per-shard `compile` + `merge` gives the same bytes as one `compile` of all the
//! targets; `merge` refuses two different images for one target.

use std::path::Path;

use crate::support::{cli, fixture_source, run, scratch};

fn compile(cache: &Path, archs: &str, out: &Path) {
    let (code, _, stderr) = run(cli()
        .env("ARCHBUILD_CACHE_DIR", cache)
        .arg("compile")
        .arg(fixture_source("kernels.cu"))
        .args(["--archs", archs, "-o"])
        .arg(out));
    assert_eq!(code, 0, "compile --archs {archs}: {stderr}");
}

#[test]
fn sharded_compile_then_merge_equals_a_one_shot_compile_byte_for_byte() {
    let dir = scratch();
    let list = "7.5 8.0 8.6 9.0+PTX";
    let (code, stdout, stderr) = run(cli().args(["matrix", "--shards", "3", "--archs", list]));
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
        compile(
            &dir.path().join(format!("cache{n}")),
            s["archs"].as_str().unwrap(),
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
