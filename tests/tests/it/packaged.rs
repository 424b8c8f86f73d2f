//! A package's shipped fat binaries (`prebuilt = "DIR"`, `docs/publishing.md`) as a
//! dependent's build sees them, through the build-script API with the real toolkit: taken when
//! the record matches, compiled again and compared under `ARCHBUILD_VERIFY`, and refused — with
//! the field named — when a setting or the arch list differs.

use std::path::Path;

use archbuild::record::{record_path, Record};
use archbuild::{BuildReport, Result};
use archbuild_tests::fixture_kernels;

/// A kernel package with `prebuilt = "prebuilt"` and the fixture kernels.
fn package(dir: &Path, flags: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"k\"\nversion = \"0.1.0\"\n\n[package.metadata.archbuild]\n\
             kernels = [\"kernels/add.cu\"]\narchs = \"8.6\"\nprebuilt = \"prebuilt\"\n\
             nvcc-flags = [{flags}]\n"
        ),
    )
    .unwrap();
    fixture_kernels(&dir.join("kernels"));
}

fn build(pkg: &Path, out: &Path, verify: &str, archs: Option<&str>) -> Result<BuildReport> {
    build_shard(pkg, out, verify, archs, None)
}

/// [`build`], as a CI shard of `whole` when given.
fn build_shard(
    pkg: &Path,
    out: &Path,
    verify: &str,
    archs: Option<&str>,
    whole: Option<&str>,
) -> Result<BuildReport> {
    let mut b = archbuild_tests::build();
    if let Some(w) = whole {
        b.shard_of(w);
    }
    b.env(archbuild_tests::env_with([("ARCHBUILD_VERIFY", verify)]))
        .manifest_dir(pkg)
        .cache_dir(pkg.join("../cache"))
        .out_dir(out)
        .quiet(true);
    if let Some(a) = archs {
        b.archs(a);
    }
    b.try_compile("kernels")
}

/// The author's build, shipped into `prebuilt/`.
fn ship(pkg: &Path, out: &Path) -> Vec<u8> {
    let r = build(pkg, out, "off", None).unwrap();
    let fatbin = &r.module("add").unwrap().fatbin;
    let shipped = pkg.join("prebuilt/add.fatbin");
    std::fs::create_dir_all(shipped.parent().unwrap()).unwrap();
    std::fs::copy(fatbin, &shipped).unwrap();
    std::fs::copy(record_path(fatbin), record_path(&shipped)).unwrap();
    std::fs::read(shipped).unwrap()
}

#[test]
fn verify_compiles_a_taken_packaged_fat_binary_again_and_refuses_altered_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, "\"-O3\"");
    let shipped = ship(&pkg, &dir.path().join("author"));

    // Taken as it is: nothing compiled.
    let r = build(&pkg, &dir.path().join("a"), "off", None).unwrap();
    assert_eq!(r.prebuilt, ["add"], "{:?}", r.warnings);
    assert_eq!((r.jobs_planned, r.processes_started), (0, 0), "{r}");
    // Verified: compiled again, the same bytes, and still the shipped file.
    let r = build(&pkg, &dir.path().join("b"), "all", None).unwrap();
    assert_eq!(r.prebuilt, ["add"], "{:?}", r.warnings);
    assert!(r.jobs_planned > 0 && r.verified >= 1, "{r}");
    assert!(std::fs::read(&r.module("add").unwrap().fatbin).unwrap() == shipped);

    // Altered bytes with a record rewritten to match them (what a careless or hostile author
    // could ship): taken unverified, refused by verification.
    let path = pkg.join("prebuilt/add.fatbin");
    let mut altered = shipped.clone();
    let at = altered.len() - 1;
    altered[at] ^= 0x5a;
    std::fs::write(&path, &altered).unwrap();
    let mut record = Record::read(&record_path(&path)).unwrap();
    record.fatbin_blake3 = archbuild_store::Key::of(&altered).hex();
    std::fs::write(record_path(&path), serde_json::to_vec(&record).unwrap()).unwrap();
    let r = build(&pkg, &dir.path().join("c"), "off", None).unwrap();
    assert_eq!(r.prebuilt, ["add"], "{:?}", r.warnings);
    let e = build(&pkg, &dir.path().join("d"), "all", None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("prebuilt/add.fatbin") && e.contains("not what its sources make"),
        "{e}"
    );
}

#[test]
fn another_list_or_flag_compiles_and_names_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, "\"-O3\"");
    ship(&pkg, &dir.path().join("author"));

    // Another arch list gets what it asked for.
    let r = build(&pkg, &dir.path().join("a"), "off", Some("8.9")).unwrap();
    assert!(r.prebuilt.is_empty(), "{r}");
    let why = r.warnings.iter().map(|w| w.to_string()).collect::<String>();
    assert!(why.contains("sm_86") && why.contains("sm_89"), "{why}");
    assert_eq!(r.module("add").unwrap().targets, ["sm_89"]);

    // Another flag: the field is named, with both values.
    package(&pkg, "\"-O2\"");
    let r = build(&pkg, &dir.path().join("b"), "off", None).unwrap();
    assert!(r.prebuilt.is_empty(), "{r}");
    let why = r.warnings.iter().map(|w| w.to_string()).collect::<String>();
    assert!(
        why.contains("nvcc-flag") && why.contains("-O3") && why.contains("-O2"),
        "{why}"
    );
}

/// The CI flow fills the package's directory too: shards built with their own lists, merged
/// with their records (`cargo archbuild merge`'s `merge_records`), are taken by a dependent's
/// build of the whole list, byte for byte a one-shot build.
#[test]
fn merged_ci_shards_are_taken_as_the_package_ships_them() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, "\"-O3\"");
    let manifest = pkg.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("archs = \"8.6\"", "archs = \"7.5 8.6+PTX\""),
    )
    .unwrap();
    let shards: Vec<_> = [("7.5", "s1"), ("8.6+PTX", "s2")]
        .iter()
        .map(|(archs, out)| {
            let whole = Some("7.5 8.6+PTX");
            let r = build_shard(&pkg, &dir.path().join(out), "off", Some(archs), whole).unwrap();
            r.module("add").unwrap().fatbin.clone()
        })
        .collect();
    let bytes: Vec<Vec<u8>> = shards.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let slices: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    let merged = archbuild_fatbin::merge(&slices).unwrap();
    let records: Vec<Record> = shards
        .iter()
        .map(|f| Record::read(&record_path(f)).unwrap())
        .collect();
    let record = archbuild::record::merge_records(&records, &merged, "add").unwrap();
    assert!(
        record.packaged.is_some(),
        "the shards' package settings agree"
    );
    let shipped = pkg.join("prebuilt/add.fatbin");
    std::fs::create_dir_all(shipped.parent().unwrap()).unwrap();
    std::fs::write(&shipped, &merged).unwrap();
    std::fs::write(record_path(&shipped), serde_json::to_vec(&record).unwrap()).unwrap();

    let r = build(&pkg, &dir.path().join("dependent"), "off", None).unwrap();
    assert_eq!(r.prebuilt, ["add"], "{:?}", r.warnings);
    assert_eq!(r.processes_started, 0, "{r}");
    // A one-shot build (the package's files not taken) makes the same bytes.
    let mut b = archbuild_tests::build();
    b.env(archbuild_tests::path_env())
        .manifest_dir(&pkg)
        .cache(false)
        .out_dir(dir.path().join("one-shot"))
        .packaged(false)
        .quiet(true);
    let one = b.try_compile("kernels").unwrap();
    assert!(one.prebuilt.is_empty());
    assert!(std::fs::read(&one.module("add").unwrap().fatbin).unwrap() == merged);
}
