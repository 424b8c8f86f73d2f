//! CI outputs flow back into cargo: shards built for part of the arch list each, merged with
//! their records, are taken by a build given `ARCHBUILD_PREBUILT` without compiling anything —
//! and refused, with the reason, as soon as a source, a flag or the target list differs.

use std::path::{Path, PathBuf};

use archbuild::record::{merge_records, record_path, Record};
use archbuild::BuildReport;
use archbuild_tests::fixture_kernels;

fn build(
    pkg: &Path,
    out: &Path,
    archs: &str,
    env: &[(&str, &str)],
    flag: Option<&str>,
) -> BuildReport {
    let mut b = archbuild_tests::build();
    b.env(archbuild_tests::env_with(env.iter().copied()))
        .manifest_dir(pkg)
        .cache_dir(pkg.join("../cache"))
        .out_dir(out)
        .files(["kernels/add.cu", "kernels/scale.cu"])
        .archs(archs)
        .quiet(true);
    if let Some(f) = flag {
        b.flag(f);
    }
    b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"))
}

/// A CI run on another machine: two shards, merged per module with their records.
fn ci(prebuilt: &Path) {
    let runner = tempfile::tempdir().unwrap();
    let pkg = runner.path().join("checkout");
    fixture_kernels(&pkg.join("kernels"));
    let shards = [("7.5", "s1"), ("8.6+PTX", "s2")];
    let reports: Vec<BuildReport> = shards
        .iter()
        .map(|(archs, dir)| {
            let whole = [("ARCHBUILD_SHARD_OF", "7.5 8.6+PTX")];
            build(&pkg, &runner.path().join(dir), archs, &whole, None)
        })
        .collect();
    std::fs::create_dir_all(prebuilt).unwrap();
    for module in ["add", "scale"] {
        let fatbins: Vec<PathBuf> = reports
            .iter()
            .map(|r| r.module(module).unwrap().fatbin.clone())
            .collect();
        let bytes: Vec<Vec<u8>> = fatbins.iter().map(|f| std::fs::read(f).unwrap()).collect();
        let slices: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
        let merged = archbuild_fatbin::merge(&slices).unwrap();
        let records: Vec<Record> = fatbins
            .iter()
            .map(|f| Record::read(&record_path(f)).unwrap())
            .collect();
        let record = merge_records(&records, &merged, module).unwrap();
        let out = prebuilt.join(format!("{module}.fatbin"));
        std::fs::write(&out, &merged).unwrap();
        std::fs::write(record_path(&out), serde_json::to_vec(&record).unwrap()).unwrap();
    }
}

#[test]
fn a_release_build_takes_ci_fat_binaries_and_compiles_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let prebuilt = dir.path().join("prebuilt");
    ci(&prebuilt);
    let pkg = dir.path().join("release/checkout");
    fixture_kernels(&pkg.join("kernels"));
    let env = [("ARCHBUILD_PREBUILT", prebuilt.to_str().unwrap())];
    let out = dir.path().join("out");

    let r = build(&pkg, &out, "7.5 8.6+PTX", &env, None);
    assert_eq!(r.prebuilt, ["add", "scale"], "{:?}", r.warnings);
    assert_eq!((r.jobs_planned, r.processes_started), (0, 0), "{r}");
    for m in ["add", "scale"] {
        let got = std::fs::read(&r.module(m).unwrap().fatbin).unwrap();
        let want = std::fs::read(prebuilt.join(format!("{m}.fatbin"))).unwrap();
        assert!(got == want, "{m}: not the prebuilt bytes");
        // What the report says is what the file holds.
        let mut said = r.module(m).unwrap().targets.clone();
        said.sort();
        assert_eq!(
            said,
            crate::request_outputs::written_targets(&r.module(m).unwrap().fatbin),
            "{m}"
        );
        assert!(!r.module(m).unwrap().kernels.is_empty());
    }
    // The same as compiling here: the merge is byte-identical to one build of every target.
    let local = build(&pkg, &dir.path().join("local"), "7.5 8.6+PTX", &[], None);
    for m in ["add", "scale"] {
        let a = std::fs::read(&local.module(m).unwrap().fatbin).unwrap();
        let b = std::fs::read(&r.module(m).unwrap().fatbin).unwrap();
        assert!(a == b, "{m}: prebuilt differs from a local build");
    }

    // Never silently stale: a changed header, another flag, another target list.
    let common = pkg.join("kernels/common.cuh");
    let text = std::fs::read_to_string(&common).unwrap();
    std::fs::write(&common, format!("{text}\n#define CHANGED 1\n")).unwrap();
    let r = build(&pkg, &out, "7.5 8.6+PTX", &env, None);
    assert!(r.prebuilt.is_empty(), "{r}");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.to_string().contains("kernels/common.cuh` changed")),
        "{:?}",
        r.warnings
    );
    std::fs::write(&common, text).unwrap();
    let r = build(&pkg, &out, "7.5 8.6+PTX", &env, Some("-O2"));
    assert!(r.prebuilt.is_empty(), "{r}");
    assert!(
        r.warnings[0].to_string().contains("other flags"),
        "{:?}",
        r.warnings
    );
    let r = build(&pkg, &out, "7.5 8.6 8.9+PTX", &env, None);
    assert!(r.prebuilt.is_empty(), "{r}");
    assert!(
        matches!(&r.warnings[0], archbuild::Warning::PrebuiltRejected { reason, .. }
            if reason.contains("this build needs")),
        "{:?}",
        r.warnings
    );
    // nvcc's flag variables shape the output as flags do: a CI build without them is not this
    // build's (it was taken before they were keyed).
    let mut with_env = env.to_vec();
    with_env.push(("NVCC_APPEND_FLAGS", "-Xptxas -O0"));
    let r = build(&pkg, &out, "7.5 8.6+PTX", &with_env, None);
    assert!(r.prebuilt.is_empty(), "{r}");
    assert!(
        r.warnings[0].to_string().contains("other flags"),
        "{:?}",
        r.warnings
    );
    let local = build(
        &pkg,
        &dir.path().join("local-o0"),
        "7.5 8.6+PTX",
        &with_env[1..],
        None,
    );
    for m in ["add", "scale"] {
        let a = std::fs::read(&local.module(m).unwrap().fatbin).unwrap();
        let b = std::fs::read(&r.module(m).unwrap().fatbin).unwrap();
        assert!(
            a == b,
            "{m}: the refused prebuilt build differs from a local one"
        );
    }
    // Back to the CI's state: taken again.
    let r = build(&pkg, &out, "7.5 8.6+PTX", &env, None);
    assert_eq!(r.prebuilt, ["add", "scale"], "{:?}", r.warnings);
}
