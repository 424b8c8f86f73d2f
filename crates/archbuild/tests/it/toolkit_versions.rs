//! Toolkit versions (`docs/build.md`, "Toolkit versions"): a build asking for a version uses a
//! toolkit of that version and no other, switching versions never serves the other version's
//! cache entries, CUDA 12 builds what CUDA 13 dropped, and the report and the record say which
//! toolkit made each image. The toolkits are the fake nvcc reporting the release it is told
//! (`ARCHBUILD_FAKE_VERSION`, per toolkit directory through its `fake.env`).

use std::path::{Path, PathBuf};

use archbuild::config::Home;
use archbuild::record::{record_path, Record};
use archbuild::{Build, BuildReport, Env, Toolkit};

use crate::support::fake::Fake;

/// A second fake toolkit at `<tmp>/<dir>/bin`, reporting `release`, logging where `f` does.
fn toolkit(f: &Fake, dir: &str, release: &str) -> PathBuf {
    let bin = f.dir.path().join(dir).join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = env!("CARGO_BIN_EXE_archbuild-fake-nvcc");
    for name in ["nvcc", "ptxas"] {
        std::os::unix::fs::symlink(exe, bin.join(name)).unwrap();
    }
    std::fs::write(
        bin.join("fake.env"),
        format!(
            "ARCHBUILD_FAKE_VERSION={release}\nARCHBUILD_FAKE_LOG={}\n",
            f.log().display()
        ),
    )
    .unwrap();
    bin.parent().unwrap().to_path_buf()
}

/// The `.version` lines of the PTX in a fat binary written with no compression.
fn ptx_versions(fatbin: &Path) -> Vec<String> {
    let bytes = std::fs::read(fatbin).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    text.lines()
        .filter(|l| l.starts_with(".version "))
        .map(str::to_owned)
        .collect()
}

/// `(target, toolkit release)` of each image.
type MadeBy = Vec<(String, String)>;

/// `made_by` of the report's module and of its build record.
fn made_by(r: &BuildReport, module: &str) -> (MadeBy, MadeBy) {
    let m = r.module(module).unwrap();
    let record = Record::read(&record_path(&m.fatbin)).unwrap();
    (m.made_by.clone(), record.made_by)
}

/// `var=value` as a variable of [`build_with`], or none when there is no value.
fn set<'a>(var: &'a str, value: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    value.map(|v| (var, v)).into_iter().collect()
}

/// A build of `kernels/add.cu` for `archs`, uncompressed, with `first` at `CUDA_HOME` and
/// `second` first on `PATH`, the cache on or off, written under `out`, with `vars` besides.
fn build_with(
    f: &Fake,
    toolkits: (&Path, &Path),
    how: (&str, bool, &str),
    vars: &[(&str, &str)],
) -> archbuild::Result<BuildReport> {
    builder(f, toolkits, how, vars).try_compile("k")
}

/// [`build_with`]'s build, not yet run (to set more on it).
fn builder(
    f: &Fake,
    (first, second): (&Path, &Path),
    (archs, cache, out): (&str, bool, &str),
    vars: &[(&str, &str)],
) -> Build {
    let mut all = vec![
        ("CUDA_HOME", first.display().to_string()),
        (
            "PATH",
            format!("{}:/usr/bin:/bin", second.join("bin").display()),
        ),
        ("ARCHBUILD_ARCHS", archs.to_owned()),
        ("ARCHBUILD_COMPRESSION", "none".into()),
        ("ARCHBUILD_CACHE", if cache { "on" } else { "off" }.into()),
    ];
    all.extend(vars.iter().map(|(k, v)| (*k, (*v).to_owned())));
    let mut b = Build::new();
    b.env(Env::from_vars(all))
        .home(Home::at(f.dir.path().join("home")))
        .manifest_dir(f.pkg())
        .cache_dir(f.dir.path().join("cache"))
        .out_dir(f.dir.path().join(out))
        .quiet(true)
        .file("kernels/add.cu");
    b
}

/// With CUDA 13.5 at `CUDA_HOME` and 13.0 on `PATH`, asking for `13.0` builds with 13.0 — not
/// the first toolkit found — and starts every compile again: no entry of the 13.5 build is
/// served, and the output equals a cache-off 13.0 build's, PTX ISA 9.0 where 13.5 wrote 9.5.
/// Back to no version, 13.5's entries serve the whole build. The report and the record name the
/// toolkit of each image.
#[test]
fn switching_versions_never_serves_the_other_versions_entries() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let new = toolkit(&f, "cuda-13.5", "13.5.37");
    let old = toolkit(&f, "cuda-13.0", "13.0.88");
    let build = |version: Option<&str>, cache: bool, out: &str| {
        let mut b = builder(&f, (&new, &old), ("8.6 9.0+PTX", cache, out), &[]);
        if let Some(v) = version {
            b.toolkit_version(v);
        }
        b.try_compile("k").unwrap()
    };
    let first = build(None, true, "out");
    assert_eq!(first.toolkit, "13.5.37", "CUDA_HOME comes first");
    let fatbin = first.module("add").unwrap().fatbin.clone();
    assert_eq!(ptx_versions(&fatbin), [".version 9.5"]);
    let newest = std::fs::read(&fatbin).unwrap();

    let switched = build(Some("13.0"), true, "out");
    assert_eq!(
        switched.toolkit, "13.0.88",
        "the 13.0 on PATH, not CUDA_HOME's 13.5"
    );
    assert_eq!(switched.cache_hits, 0, "13.5's entries served a 13.0 build");
    assert_eq!(switched.jobs_run, switched.jobs_planned);
    assert_eq!(ptx_versions(&fatbin), [".version 9.0"]);
    let off = build(Some("13.0"), false, "out-nocache");
    assert_eq!(
        std::fs::read(&fatbin).unwrap(),
        std::fs::read(&off.module("add").unwrap().fatbin).unwrap(),
        "the cached 13.0 build's fat binary is the cache-off 13.0 build's"
    );
    let each = |release: &str| -> MadeBy {
        ["compute_90", "sm_86", "sm_90"]
            .iter()
            .map(|t| (t.to_string(), release.to_owned()))
            .collect()
    };
    let (report, record) = made_by(&switched, "add");
    let mut sorted = report.clone();
    sorted.sort();
    assert_eq!((sorted, record), (each("13.0.88"), each("13.0.88")));

    let back = build(None, true, "out");
    assert_eq!(
        back.cache_hits, back.jobs_planned,
        "13.5's own entries serve it"
    );
    assert_eq!(std::fs::read(&fatbin).unwrap(), newest);
    let (_, record) = made_by(&back, "add");
    assert_eq!(record, each("13.5.37"), "the record follows the toolkit");
}

/// P40 (6.1), V100 (7.0) and Jetson Xavier (7.2) with a stand-in CUDA 12 toolkit and
/// `toolkit = "12.x"`: built. With a CUDA 13 toolkit: refused, naming `toolkit = "12.x"` as the
/// fix. A toolkit given to the build of another version than Cargo.toml asks for is an error,
/// not used.
#[test]
fn sm_50_to_72_build_with_a_cuda_12_toolkit_and_are_refused_by_cuda_13_with_the_fix() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    f.write(
        "Cargo.toml",
        "[package]\nname = \"k\"\n[package.metadata.archbuild]\ntoolkit = \"12.x\"\n",
    );
    let root = toolkit(&f, "cuda-12.9", "12.9.86");
    let cuda12 = Toolkit::from_nvcc(root.join("bin/nvcc")).unwrap();
    assert_eq!(cuda12.release(), "12.9.86");
    let archs = ("ARCHBUILD_ARCHS", "5.0 6.1 7.0 7.2 8.6+PTX");
    let mut b = f.build(&[archs]);
    b.toolkit(cuda12).file("kernels/add.cu");
    let r = b.try_compile("k").unwrap();
    assert_eq!(r.toolkit, "12.9.86");
    let m = r.module("add").unwrap();
    for t in ["sm_50", "sm_61", "sm_70", "sm_72", "sm_86", "compute_86"] {
        assert!(m.targets.iter().any(|x| x == t), "{t} in {:?}", m.targets);
    }
    let (report, record) = made_by(&r, "add");
    assert!(report.iter().all(|(_, tk)| tk == "12.9.86"), "{report:?}");
    assert_eq!(record.len(), 6, "{record:?}");

    // The same list with the CUDA 13.5 toolkit, asking for it (or for nothing).
    f.write(
        "Cargo.toml",
        "[package]\nname = \"k\"\n[package.metadata.archbuild]\ntoolkit = \"13.x\"\n",
    );
    let mut b = f.build(&[archs]);
    b.file("kernels/add.cu");
    let err = b.try_compile("k").unwrap_err().to_string();
    insta::assert_snapshot!("cuda_13_refuses_sm_50_with_the_fix", err);
    for cc in ["6.1", "7.0", "7.2"] {
        let mut b = f.build(&[("ARCHBUILD_ARCHS", cc)]);
        b.file("kernels/add.cu");
        let err = b.try_compile("k").unwrap_err().to_string();
        assert!(err.contains("toolkit = \"12.x\""), "{cc}: {err}");
    }

    // Cargo.toml asks for 12.x; the build is handed 13.5: an error naming both.
    f.write(
        "Cargo.toml",
        "[package]\nname = \"k\"\n[package.metadata.archbuild]\ntoolkit = \"12.x\"\n",
    );
    let mut b = f.build(&[("ARCHBUILD_ARCHS", "8.6")]);
    b.file("kernels/add.cu");
    let err = b.try_compile("k").unwrap_err().to_string();
    assert!(
        err.starts_with("no CUDA 12.x toolkit found (asked for by Cargo.toml [package.metadata.archbuild] toolkit); the build's `.toolkit(...)` is CUDA 13.5.37"),
        "{err}"
    );
}

/// PTX from CUDA 13.0 beside cubins from 13.5 (`ptx-toolkit`, the fix for an R580 fleet whose
/// driver cannot JIT 13.5's PTX): the PTX image is 13.0's (ISA 9.0), the report and the record
/// say so per image, and the bytes equal a cache-off build's. The setting is keyed: without it
/// the PTX is 13.5's again (ISA 9.5) and equals a cache-off build's, served from the entries of
/// the mixed build's cubins; asked for in Cargo.toml, the mixed build is served whole.
#[test]
fn ptx_from_one_toolkit_beside_cubins_from_another_is_keyed_per_image() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let new = toolkit(&f, "cuda-13.5", "13.5.37");
    let old = toolkit(&f, "cuda-13.0", "13.0.88");
    let build = |ptx: Option<&str>, cache: bool, out: &str| {
        let vars = set("ARCHBUILD_PTX_TOOLKIT_VERSION", ptx);
        build_with(&f, (&new, &old), ("8.6 9.0+PTX", cache, out), &vars).unwrap()
    };
    let bytes = |r: &BuildReport| std::fs::read(&r.module("add").unwrap().fatbin).unwrap();
    let mixed_made_by: MadeBy = vec![
        ("compute_90".into(), "13.0.88".into()),
        ("sm_86".into(), "13.5.37".into()),
        ("sm_90".into(), "13.5.37".into()),
    ];

    let mixed = build(Some("13.0"), true, "out");
    assert_eq!(
        mixed.toolkit, "13.5.37",
        "the cubins' toolkit is the build's"
    );
    let fatbin = mixed.module("add").unwrap().fatbin.clone();
    assert_eq!(ptx_versions(&fatbin), [".version 9.0"], "13.0's PTX");
    let (mut report, record) = made_by(&mixed, "add");
    report.sort();
    assert_eq!(
        (report, record),
        (mixed_made_by.clone(), mixed_made_by.clone())
    );
    assert_eq!(
        mixed.jobs_planned, 5,
        "cicc 86, 90 and ptxas 86, 90 by 13.5, cicc 90 by 13.0"
    );
    let mixed_bytes = bytes(&mixed);
    let off = build(Some("13.0"), false, "out-off");
    assert_eq!(
        mixed_bytes,
        bytes(&off),
        "the cached mixed build is the cache-off one"
    );

    let plain = build(None, true, "out");
    assert_eq!(
        ptx_versions(&fatbin),
        [".version 9.5"],
        "13.5's PTX, not 13.0's served"
    );
    assert_eq!(plain.jobs_run, 0, "the mixed build's 13.5 entries serve it");
    let plain_off = build(None, false, "out-off");
    assert_eq!(
        bytes(&plain),
        bytes(&plain_off),
        "the cached build is the cache-off one"
    );
    let (_, record) = made_by(&plain, "add");
    assert!(record.iter().all(|(_, tk)| tk == "13.5.37"), "{record:?}");

    f.write(
        "Cargo.toml",
        "[package]\nname = \"k\"\n[package.metadata.archbuild]\nptx-toolkit = \"13.0\"\n",
    );
    let again = build(None, true, "out");
    assert_eq!(
        again.jobs_run, 0,
        "every entry of the mixed build serves it"
    );
    assert_eq!(bytes(&again), mixed_bytes);
    let (_, record) = made_by(&again, "add");
    assert_eq!(record, mixed_made_by);

    // The build's own version asked for: one toolkit, nothing apart.
    let same = build(Some("13.5"), true, "out");
    assert_eq!(same.jobs_planned, 4);
    assert_eq!(ptx_versions(&fatbin), [".version 9.5"]);
}

/// `ptx-toolkit = "fleet"`: the PTX toolkit is the release the fleet's oldest driver JITs. A
/// Blackwell member on an R580 driver (13.0) has no cubin in `8.6 9.0+PTX` and must JIT the
/// compute_90 PTX: 13.5's ISA 9.5 needs nvJitLink 13.5 there; with `fleet` the PTX is 13.0's,
/// which its driver JITs. A fleet of drivers as new as the build's toolkit keeps its PTX.
/// `fleet` with no fleet is an error naming what it needs.
#[test]
fn ptx_toolkit_fleet_takes_the_release_the_oldest_driver_jits() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let new = toolkit(&f, "cuda-13.5", "13.5.37");
    let old = toolkit(&f, "cuda-13.0", "13.0.88");
    let build = |ptx: Option<&str>, fleet: Option<&str>| {
        let mut vars = Vec::new();
        vars.extend(ptx.map(|v| ("ARCHBUILD_PTX_TOOLKIT_VERSION", v)));
        vars.extend(fleet.map(|v| ("ARCHBUILD_FLEET", v)));
        build_with(&f, (&new, &old), ("8.6 9.0+PTX", true, "out"), &vars)
    };
    let fleet = "8.6@13.5, 12.0@13.0";
    let r = build(None, Some(fleet)).unwrap();
    let fatbin = r.module("add").unwrap().fatbin.clone();
    assert_eq!(
        ptx_versions(&fatbin),
        [".version 9.5"],
        "without ptx-toolkit the 12.0 member needs nvJitLink 13.5"
    );
    let r = build(Some("fleet"), Some(fleet)).unwrap();
    let fatbin = r.module("add").unwrap().fatbin.clone();
    assert_eq!(ptx_versions(&fatbin), [".version 9.0"]);
    let (_, record) = made_by(&r, "add");
    assert_eq!(
        record,
        [
            ("compute_90".to_owned(), "13.0.88".to_owned()),
            ("sm_86".to_owned(), "13.5.37".to_owned()),
            ("sm_90".to_owned(), "13.5.37".to_owned()),
        ]
    );
    // Every driver as new as the build's toolkit: its own PTX.
    let r = build(Some("fleet"), Some("8.6@13.5, 12.0@13.5")).unwrap();
    let fatbin = r.module("add").unwrap().fatbin.clone();
    assert_eq!(ptx_versions(&fatbin), [".version 9.5"]);
    let err = build(Some("fleet"), None).unwrap_err().to_string();
    insta::assert_snapshot!("ptx_toolkit_fleet_without_a_fleet", err);
}

/// `legacy-toolkit = "12.x"`: one fat binary for a P40 (6.1) beside an RTX 3090 and an H100,
/// the sm_61 cubin (cicc and ptxas) from a CUDA 12 toolkit, the rest from 13.5. The record and
/// the report name each image's toolkit, the bytes equal a cache-off build's, and the setting is
/// keyed: without it the build is refused (CUDA 13 cannot build sm_61), never served the
/// legacy entries; asked for again, every entry serves it.
#[test]
fn legacy_toolkit_builds_what_cuda_13_dropped_in_the_same_fat_binary() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let new = toolkit(&f, "cuda-13.5", "13.5.37");
    let cuda12 = toolkit(&f, "cuda-12.9", "12.9.86");
    let build = |legacy: Option<&str>, cache: bool, out: &str| {
        let vars = set("ARCHBUILD_LEGACY_TOOLKIT_VERSION", legacy);
        build_with(&f, (&new, &cuda12), ("6.1 8.6 9.0+PTX", cache, out), &vars)
    };
    let r = build(Some("12.x"), true, "out").unwrap();
    assert_eq!(r.toolkit, "13.5.37");
    let m = r.module("add").unwrap();
    let mut targets = m.targets.clone();
    targets.sort();
    assert_eq!(targets, ["compute_90", "sm_61", "sm_86", "sm_90"]);
    let want: MadeBy = vec![
        ("compute_90".into(), "13.5.37".into()),
        ("sm_61".into(), "12.9.86".into()),
        ("sm_86".into(), "13.5.37".into()),
        ("sm_90".into(), "13.5.37".into()),
    ];
    let (mut report, record) = made_by(&r, "add");
    report.sort();
    assert_eq!((report, record), (want.clone(), want.clone()));
    let ran = |r: &BuildReport, tool: &str| -> Vec<String> {
        let mut v: Vec<String> = r
            .jobs
            .iter()
            .filter(|j| j.command.as_deref().is_some_and(|c| c.contains(tool)))
            .map(|j| j.target.clone())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        ran(&r, "cuda-12.9/bin/"),
        ["compute_61", "sm_61"],
        "CUDA 12 ran only sm_61's jobs"
    );
    let bytes = std::fs::read(&m.fatbin).unwrap();
    let off = build(Some("12.x"), false, "out-off").unwrap();
    assert_eq!(
        bytes,
        std::fs::read(&off.module("add").unwrap().fatbin).unwrap()
    );

    let err = build(None, true, "out").unwrap_err().to_string();
    assert!(
        err.contains("cannot build `sm_61`") && err.contains("legacy-toolkit = \"12.x\""),
        "{err}"
    );
    let again = build(Some("12.x"), true, "out").unwrap();
    assert_eq!(again.jobs_run, 0);
    assert_eq!(
        std::fs::read(&again.module("add").unwrap().fatbin).unwrap(),
        bytes
    );
}
