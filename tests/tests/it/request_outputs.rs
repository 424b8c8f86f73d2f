//! The output is a function of the request: whatever the cache holds, the fat binary a build
//! leaves is the one a cache-off build of the same request writes, and what the report says
//! about it (its targets) is what the file holds, read back as `inspect` reads it.

use std::path::Path;

use archbuild::BuildReport;

/// The targets a fat binary holds, as `cargo archbuild inspect` lists them.
pub(crate) fn written_targets(fatbin: &Path) -> Vec<String> {
    let bytes = std::fs::read(fatbin).unwrap_or_else(|e| panic!("{}: {e}", fatbin.display()));
    let mut t: Vec<String> = archbuild_fatbin::read_any(&bytes)
        .unwrap()
        .iter()
        .map(|r| match r.kind {
            archbuild_fatbin::EntryKind::Ptx => format!("compute_{}", r.arch.sm_name()),
            _ => format!("sm_{}", r.arch.sm_name()),
        })
        .collect();
    t.sort();
    t
}

fn build(dir: &Path, archs: &str, compression: &str, cache: bool) -> BuildReport {
    let out = if cache { "out" } else { "out-nocache" };
    archbuild_tests::build()
        .manifest_dir(dir.join("pkg"))
        .cache_dir(dir.join("cache"))
        .cache(cache)
        .out_dir(dir.join(out))
        .file("k.cu")
        .archs(archs)
        .compression(compression)
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"))
}

fn report_targets(r: &BuildReport) -> Vec<String> {
    let mut t = r.modules[0].targets.clone();
    t.sort();
    t
}

/// `--archs 8.6` then `8.6+PTX` into the same output: the PTX must be written (it was not: the
/// pack stamp named the job outputs, which are the same, and not the targets they are packed
/// as), and the other way round it must go; every step equals a cache-off build, and the
/// report's targets are the file's.
#[test]
fn an_arch_list_change_rewrites_the_output_to_match() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/k.cu"), archbuild_tests::KERNEL).unwrap();
    for (archs, want) in [
        ("8.6", vec!["sm_86"]),
        ("8.6+PTX", vec!["compute_86", "sm_86"]),
        ("8.6", vec!["sm_86"]),
        ("compute_86", vec!["compute_86"]),
        ("8.6+PTX", vec!["compute_86", "sm_86"]),
    ] {
        let cached = build(dir.path(), archs, "none", true);
        let file = &cached.modules[0].fatbin;
        assert_eq!(written_targets(file), want, "{archs}: {cached}");
        assert_eq!(
            report_targets(&cached),
            want,
            "{archs}: the report says otherwise"
        );
        let fresh = build(dir.path(), archs, "none", false);
        assert!(
            std::fs::read(file).unwrap() == std::fs::read(&fresh.modules[0].fatbin).unwrap(),
            "{archs}: the cached build's fat binary differs from a cache-off build"
        );
    }
}

/// Compression is part of the request too: switching it back and forth rewrites the file.
#[test]
fn a_compression_change_rewrites_the_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/k.cu"), archbuild_tests::KERNEL).unwrap();
    let mut sizes = Vec::new();
    for c in ["none", "zstd", "none"] {
        let cached = build(dir.path(), "8.6", c, true);
        let fresh = build(dir.path(), "8.6", c, false);
        let a = std::fs::read(&cached.modules[0].fatbin).unwrap();
        assert!(a == std::fs::read(&fresh.modules[0].fatbin).unwrap(), "{c}");
        assert_eq!(cached.modules[0].bytes, a.len(), "{c}: the report's size");
        sizes.push(a.len());
    }
    assert_eq!(sizes[0], sizes[2]);
    assert_ne!(sizes[0], sizes[1]);
}
