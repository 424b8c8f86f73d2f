//! Nothing stale ships: a fat binary made elsewhere — a package's (`prebuilt = "DIR"`) or a CI
//! run's (`ARCHBUILD_PREBUILT`) — is taken only while everything its compiles read *and looked
//! at* is as it was. Its record lists what the compiler was observed to probe (the set the cache
//! key has), not a prediction, so a header that appears where the preprocessor looked — through
//! a macro-named `__has_include`, or in a directory an `-I` flag names — refuses the file, and
//! the build makes the bytes a cache-off build makes.

use std::path::Path;

use archbuild::record::record_path;
use archbuild::BuildReport;

/// `__has_include` of a header named by a macro: no prediction from the text can name it.
const MACRO_NAMED: &str = r#"#define OPT_HDR "opt.cuh"
#if __has_include(OPT_HDR)
#include OPT_HDR
#else
#define OPT_VALUE 2
#endif
extern "C" __global__ void add(int* p) { p[threadIdx.x] += OPT_VALUE; }
"#;

/// The same through a directory an `-I` flag names, with `<>`.
const FLAG_DIR: &str = r#"#define OPT_HDR <cfg.cuh>
#if __has_include(OPT_HDR)
#include OPT_HDR
#else
#define OPT_VALUE 2
#endif
extern "C" __global__ void add(int* p) { p[threadIdx.x] += OPT_VALUE; }
"#;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A kernel package: `kernels/add.cu` with `source`, the table's extra lines, `archs = "8.6"`.
fn package(dir: &Path, source: &str, table: &str) {
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"k\"\nversion = \"0.1.0\"\n\n[package.metadata.archbuild]\n\
             kernels = [\"kernels/add.cu\"]\narchs = \"8.6\"\n{table}\n"
        ),
    );
    write(&dir.join("kernels/add.cu"), source);
}

/// A build of the package into `out`, taking fat binaries from `prebuilt` when given (a CI
/// run's), else from the package's own `prebuilt` directory when it names one.
fn build(pkg: &Path, out: &Path, prebuilt: Option<&Path>, cache: bool) -> BuildReport {
    let mut b = archbuild_tests::build();
    b.env(archbuild_tests::env_with([("ARCHBUILD_VERIFY", "off")]))
        .manifest_dir(pkg)
        .cache_dir(pkg.join("../cache"))
        .cache(cache)
        .out_dir(out)
        .quiet(true);
    if let Some(dir) = prebuilt {
        b.prebuilt(dir);
    }
    b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"))
}

/// Copies the build's fat binary and its record into `dir`, as `package` or a CI job does.
fn ship(r: &BuildReport, dir: &Path) {
    let fatbin = &r.module("add").unwrap().fatbin;
    let shipped = dir.join("add.fatbin");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(fatbin, &shipped).unwrap();
    std::fs::copy(record_path(fatbin), record_path(&shipped)).unwrap();
}

fn bytes(r: &BuildReport) -> Vec<u8> {
    std::fs::read(&r.module("add").unwrap().fatbin).unwrap()
}

fn warnings(r: &BuildReport) -> String {
    r.warnings.iter().map(|w| format!("{w}\n")).collect()
}

#[test]
fn a_header_appearing_where_a_macro_named_has_include_looked_refuses_the_shipped_file() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(
        &pkg,
        MACRO_NAMED,
        "include = [\"kernels/include\"]\nprebuilt = \"prebuilt\"",
    );
    std::fs::create_dir_all(pkg.join("kernels/include")).unwrap();
    let author = build(&pkg, &dir.path().join("author"), None, true);
    ship(&author, &pkg.join("prebuilt"));
    // Unchanged, the package's file is taken.
    let r = build(&pkg, &dir.path().join("a"), None, true);
    assert_eq!(r.prebuilt, ["add"], "{}", warnings(&r));

    // The header the macro names appears in the include directory: the shipped file (which
    // adds 2) is not what the sources make now (43).
    write(
        &pkg.join("kernels/include/opt.cuh"),
        "#define OPT_VALUE 43\n",
    );
    let r = build(&pkg, &dir.path().join("b"), None, true);
    assert!(r.prebuilt.is_empty(), "a stale shipped file was taken: {r}");
    assert!(
        warnings(&r).contains("kernels/include/opt.cuh"),
        "{}",
        warnings(&r)
    );
    // In the author's own build, the warning says how to renew the stale file.
    assert!(
        warnings(&r).contains("`cargo archbuild package` renews it"),
        "{}",
        warnings(&r)
    );
    let fresh = build(&pkg, &dir.path().join("fresh"), None, false);
    assert!(bytes(&r) == bytes(&fresh), "not a cache-off build's bytes");
    assert!(
        bytes(&r) != bytes(&author),
        "the header's value did not reach the fat binary"
    );
}

#[test]
fn a_header_appearing_in_an_include_flag_directory_refuses_ci_files() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, FLAG_DIR, "nvcc-flags = [\"-Ikernels/flagdir\"]");
    std::fs::create_dir_all(pkg.join("kernels/flagdir")).unwrap();
    let ci = build(&pkg, &dir.path().join("ci"), None, true);
    let prebuilt = dir.path().join("prebuilt");
    ship(&ci, &prebuilt);
    let r = build(&pkg, &dir.path().join("a"), Some(&prebuilt), true);
    assert_eq!(r.prebuilt, ["add"], "{}", warnings(&r));

    write(
        &pkg.join("kernels/flagdir/cfg.cuh"),
        "#define OPT_VALUE 43\n",
    );
    let r = build(&pkg, &dir.path().join("b"), Some(&prebuilt), true);
    assert!(r.prebuilt.is_empty(), "a stale CI file was taken: {r}");
    assert!(
        warnings(&r).contains("kernels/flagdir/cfg.cuh"),
        "{}",
        warnings(&r)
    );
    let fresh = build(&pkg, &dir.path().join("fresh"), None, false);
    assert!(bytes(&r) == bytes(&fresh), "not a cache-off build's bytes");
    assert!(
        bytes(&r) != bytes(&ci),
        "the header's value did not reach the fat binary"
    );
}

#[test]
fn a_record_that_claims_images_its_fat_binary_lacks_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, MACRO_NAMED, "prebuilt = \"prebuilt\"");
    let author = build(&pkg, &dir.path().join("author"), None, true);
    ship(&author, &pkg.join("prebuilt"));
    // Another list's fat binary under the shipped name, its record's hash made to match: the
    // record now says `sm_86` of a file that holds only `sm_75`.
    let mut other = archbuild_tests::build();
    other
        .env(archbuild_tests::env_with([("ARCHBUILD_VERIFY", "off")]))
        .manifest_dir(&pkg)
        .cache_dir(pkg.join("../cache"))
        .out_dir(dir.path().join("other"))
        .packaged(false)
        .archs("7.5")
        .quiet(true);
    let other = other.try_compile("kernels").unwrap();
    let shipped = pkg.join("prebuilt/add.fatbin");
    std::fs::write(&shipped, bytes(&other)).unwrap();
    let mut record = archbuild::record::Record::read(&record_path(&shipped)).unwrap();
    record.fatbin_blake3 = archbuild_store::Key::of(&bytes(&other)).hex();
    std::fs::write(record_path(&shipped), serde_json::to_vec(&record).unwrap()).unwrap();

    let r = build(&pkg, &dir.path().join("a"), None, true);
    assert!(
        r.prebuilt.is_empty(),
        "a file without its images was taken: {r}"
    );
    assert!(warnings(&r).contains("holds sm_75"), "{}", warnings(&r));
    assert_eq!(r.module("add").unwrap().targets, ["sm_86"]);
}

/// A dependent's build as the scaffold's build script makes it (`.provision(true)`), on a
/// machine with no toolkit, no `python3` and Cargo offline: the reason the package's files
/// were refused comes first, then what compiling instead ran into.
#[test]
fn a_refused_package_file_is_named_before_a_provisioning_failure() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("k");
    package(&pkg, MACRO_NAMED, "prebuilt = \"prebuilt\"");
    let author = build(&pkg, &dir.path().join("author"), None, true);
    ship(&author, &pkg.join("prebuilt"));
    let source = pkg.join("kernels/add.cu");
    let text = std::fs::read_to_string(&source).unwrap();
    write(&source, &text.replace("+= OPT_VALUE", "-= OPT_VALUE"));

    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = archbuild::Build::new()
        .provision(true)
        .env(archbuild::Env::from_vars([
            ("PATH", empty.to_str().unwrap()),
            ("ARCHBUILD_HOME", empty.to_str().unwrap()),
            ("CARGO_NET_OFFLINE", "true"),
        ]))
        .manifest_dir(&pkg)
        .out_dir(dir.path().join("dependent"))
        .quiet(true)
        .try_compile("kernels")
        .unwrap_err()
        .to_string();
    let refused = e.find("`kernels/add.cu` changed");
    let then = e.find("tried to compile instead");
    assert!(
        refused.is_some() && then.is_some() && refused < then,
        "the reason is lost: {e}"
    );
}
