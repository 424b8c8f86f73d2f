//! The output is a function of the request, through the CLI: an arch-list change in `compile`
//! and in `build` (Cargo.toml's `archs`) rewrites the file; the printed and JSON targets of
//! `compile`, `build` and `merge` equal what `inspect` reads from the written file; source
//! paths with spaces, commas and non-ASCII characters build; a multi-file `compile` writes the
//! same bytes from any archbuild home and any checkout path.

use std::path::{Path, PathBuf};

use crate::support::{cli, json, run, scratch};

const KERNEL: &str = "static __device__ __noinline__ float twice(float v) { return 2.0f * v; }\n\
    extern \"C\" __global__ void k(float *x) { x[0] = twice(x[0]); }\n";

/// What `inspect` lists for a fat binary: its targets, sorted.
fn inspected(file: &Path) -> Vec<String> {
    let v = json(
        cli()
            .arg("inspect")
            .arg(file)
            .args(["--message-format", "json"]),
    );
    let mut t: Vec<String> = v["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["target"].as_str().unwrap().to_owned())
        .collect();
    t.sort();
    t
}

/// The `targets` line of the human summary, sorted.
fn printed_targets(stdout: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("targets"))
        .unwrap_or_else(|| panic!("no targets line: {stdout}"));
    let mut t: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
    t.sort();
    t
}

fn targets(v: &serde_json::Value) -> Vec<String> {
    let mut t: Vec<String> = v
        .as_array()
        .unwrap_or_else(|| panic!("no targets: {v}"))
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    t.sort();
    t
}

fn compile_json(cache: &Path, files: &[PathBuf], archs: &str, out: &Path) -> serde_json::Value {
    json(
        cli()
            .env("ARCHBUILD_CACHE_DIR", cache)
            .arg("compile")
            .args(files)
            .args(["--archs", archs, "--message-format", "json", "-o"])
            .arg(out),
    )
}

#[test]
fn compile_follows_an_arch_list_change_and_reports_what_it_wrote() {
    let dir = scratch();
    let src = dir.path().join("k.cu");
    std::fs::write(&src, KERNEL).unwrap();
    let out = dir.path().join("p.fatbin");
    let cache = dir.path().join("cache");
    for (archs, want) in [
        ("8.6", vec!["sm_86"]),
        ("8.6+PTX", vec!["compute_86", "sm_86"]),
        ("8.6", vec!["sm_86"]),
    ] {
        let v = compile_json(&cache, std::slice::from_ref(&src), archs, &out);
        assert_eq!(inspected(&out), want, "{archs}: {v}");
        let module = &v["modules_checked"][0];
        assert_eq!(
            targets(&module["targets"]),
            want,
            "{archs}: the JSON says otherwise"
        );
        // The human summary names the list it wrote.
        let (code, stdout, stderr) = run(cli()
            .env("ARCHBUILD_CACHE_DIR", &cache)
            .arg("compile")
            .arg(&src)
            .args(["--archs", archs, "-o"])
            .arg(&out));
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains(&format!(", {archs})")), "{archs}: {stderr}");
        assert_eq!(
            printed_targets(&stdout),
            want,
            "{archs}: the summary says otherwise"
        );
        assert_eq!(inspected(&out), want, "{archs}");
    }
}

fn package(dir: &Path, archs: &str, kernel: &str) -> PathBuf {
    let pkg = dir.join("ws");
    std::fs::create_dir_all(pkg.join(Path::new(kernel).parent().unwrap())).unwrap();
    std::fs::write(pkg.join(kernel), KERNEL).unwrap();
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    std::fs::write(pkg.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        pkg.join("Cargo.toml"),
        format!(
            "[package]\nname = \"kpkg\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
             [package.metadata.archbuild]\nkernels = [{kernel:?}]\narchs = {archs:?}\n"
        ),
    )
    .unwrap();
    pkg.join("Cargo.toml")
}

fn build_json(manifest: &Path, cache: &Path) -> serde_json::Value {
    json(
        cli()
            .env_remove("CARGO_TARGET_DIR")
            .env("ARCHBUILD_CACHE_DIR", cache)
            .arg("build")
            .arg("--manifest-path")
            .arg(manifest)
            .args(["--message-format", "json"]),
    )
}

#[test]
fn build_follows_cargo_toml_archs_and_builds_a_kernel_path_with_a_space() {
    let dir = scratch();
    let cache = dir.path().join("cache");
    for (archs, want) in [
        ("8.6", vec!["sm_86"]),
        ("8.6+PTX", vec!["compute_86", "sm_86"]),
        ("8.6", vec!["sm_86"]),
    ] {
        let manifest = package(dir.path(), archs, "my kernels/k é.cu");
        let v = build_json(&manifest, &cache);
        let (code, stdout, stderr) = run(cli()
            .env_remove("CARGO_TARGET_DIR")
            .env("ARCHBUILD_CACHE_DIR", &cache)
            .arg("build")
            .arg("--manifest-path")
            .arg(&manifest));
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(
            printed_targets(&stdout),
            want,
            "{archs}: the summary says otherwise"
        );
        let module = &v["packages"][0]["modules_checked"][0];
        let fatbin = PathBuf::from(module["fatbin"].as_str().unwrap_or_else(|| panic!("{v}")));
        assert_eq!(inspected(&fatbin), want, "{archs}: {v}");
        assert_eq!(targets(&module["targets"]), want, "{archs}");
    }
}

#[test]
fn sources_with_spaces_commas_and_non_ascii_names_compile() {
    let dir = scratch();
    for name in ["a b.cu", "a,b.cu", "dir with space/k é.cu"] {
        let src = dir.path().join(name);
        std::fs::create_dir_all(src.parent().unwrap()).unwrap();
        std::fs::write(&src, KERNEL).unwrap();
        let out = dir.path().join("out.fatbin");
        let (code, _, stderr) = run(cli()
            .arg("compile")
            .arg(&src)
            .args(["--archs", "8.6+PTX", "-o"])
            .arg(&out));
        assert_eq!(code, 0, "{name}: {stderr}");
        assert_eq!(inspected(&out), ["compute_86", "sm_86"], "{name}");
    }
}

/// Two files compiled as one translation unit: the same bytes from two homes and two checkout
/// paths (the internal symbol of the `static` function is named from the relative path).
#[test]
fn a_multi_file_compile_is_the_same_from_any_home_and_checkout() {
    let dir = scratch();
    let mut outputs = Vec::new();
    for (checkout, home) in [("one", "home-a"), ("two/deeper", "home-b")] {
        let root = dir.path().join(checkout);
        std::fs::create_dir_all(root.join("src dir")).unwrap();
        std::fs::write(root.join("a.cu"), KERNEL).unwrap();
        std::fs::write(
            root.join("src dir/b.cu"),
            "static __device__ __noinline__ float half(float v) { return v / 2.0f; }\n\
             extern \"C\" __global__ void h(float *x) { x[0] = half(x[0]); }\n",
        )
        .unwrap();
        let out = dir.path().join(format!("{home}.fatbin"));
        let (code, _, stderr) = run(cli()
            .current_dir(&root)
            .env("ARCHBUILD_HOME", dir.path().join(home))
            .env("ARCHBUILD_CACHE_DIR", dir.path().join(home).join("cache"))
            .args([
                "compile",
                "a.cu",
                "src dir/b.cu",
                "--archs",
                "8.6+PTX",
                "-o",
            ])
            .arg(&out));
        assert_eq!(code, 0, "{stderr}");
        outputs.push(std::fs::read(&out).unwrap());
    }
    assert!(
        outputs[0] == outputs[1],
        "the multi-file output depends on the home or the checkout path"
    );
}

#[test]
fn merge_reports_the_targets_it_wrote() {
    let dir = scratch();
    let src = dir.path().join("k.cu");
    std::fs::write(&src, KERNEL).unwrap();
    let cache = dir.path().join("cache");
    let a = dir.path().join("a/k.fatbin");
    let b = dir.path().join("b/k.fatbin");
    std::fs::create_dir_all(a.parent().unwrap()).unwrap();
    std::fs::create_dir_all(b.parent().unwrap()).unwrap();
    // Two shards of one list, as `matrix` makes them.
    for (archs, out) in [("7.5", &a), ("8.6+PTX", &b)] {
        json(
            cli()
                .env("ARCHBUILD_CACHE_DIR", &cache)
                .env("ARCHBUILD_SHARD_OF", "7.5 8.6+PTX")
                .arg("compile")
                .arg(&src)
                .args(["--archs", archs, "--message-format", "json", "-o"])
                .arg(out),
        );
    }
    let out = dir.path().join("k.fatbin");
    let v = json(
        cli()
            .arg("merge")
            .arg(&a)
            .arg(&b)
            .args(["--message-format", "json", "-o"])
            .arg(&out),
    );
    assert_eq!(targets(&v["targets"]), inspected(&out));
    assert_eq!(inspected(&out), ["compute_86", "sm_75", "sm_86"]);
}
