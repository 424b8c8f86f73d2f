//! Per-file lists narrowed to the requested list (`docs/arch-lists.md`, "Narrowing a per-file
//! list") and fleets checked at build time (`docs/build.md`, "Fleets"), against the fake nvcc
//! with simulated GPUs.

use archbuild::Toolkit;
use archbuild_fatbin::{read_fatbin, Compression, EntryKind};

use crate::support::fake::Fake;

/// The `-arch=` of every compile the fake ran, sorted (`compute_90a`, `sm_90a`).
fn compiled_archs(f: &Fake) -> Vec<String> {
    let mut archs: Vec<String> = f
        .compiles()
        .iter()
        .filter_map(|c| {
            c.args
                .iter()
                .find_map(|a| a.strip_prefix("-arch=").map(str::to_owned))
        })
        .collect();
    archs.sort();
    archs
}

fn kernels(f: &Fake) {
    f.kernel("kernels/add.cu", "add", &[]);
    f.kernel("kernels/hopper.cu", "hopper", &[]);
    f.kernel("kernels/mixed.cu", "mixed", &[]);
    f.kernel("kernels/g1.cu", "g1", &[]);
    f.kernel("kernels/g2.cu", "g2", &[]);
}

#[test]
fn native_narrows_per_file_and_per_group_lists_to_the_simulated_gpus() {
    let f = Fake::new();
    kernels(&f);
    f.write(
        "Cargo.toml",
        "[package]\nname = \"k\"\n[package.metadata.archbuild.file-archs]\n\
         \"kernels/g1.cu\" = \"8.0 9.0 10.0\"\n",
    );
    let env = [
        ("ARCHBUILD_ARCHS", "native"),
        ("ARCHBUILD_SIMULATED_GPUS", "9.0:H100@13.0"),
    ];
    let r = f
        .build(&env)
        .files(["kernels/add.cu", "kernels/hopper.cu", "kernels/mixed.cu"])
        .module("group", ["kernels/g1.cu", "kernels/g2.cu"])
        .file_archs("kernels/hopper.cu", "9.0a")
        .file_archs("kernels/mixed.cu", "8.0 8.6+PTX 9.0a")
        .try_compile("k")
        .unwrap();
    let targets = |m: &str| r.module(m).unwrap().targets.clone();
    assert_eq!(targets("add"), ["sm_90", "compute_90"]);
    assert_eq!(targets("hopper"), ["sm_90a"]);
    // The cubin that runs on 9.0 and the PTX that JITs there; not sm_80 or sm_86.
    assert_eq!(targets("mixed"), ["compute_86", "sm_90a"]);
    assert_eq!(r.module("mixed").unwrap().archs, "compute_86 9.0a");
    // A group's list (Cargo.toml's, for its first member) narrows too.
    assert_eq!(targets("group"), ["sm_90"]);
    // Only the intersection was compiled.
    assert_eq!(
        compiled_archs(&f),
        [
            "compute_86",
            "compute_90",
            "compute_90",
            "compute_90a",
            "compute_90a",
            "sm_90",
            "sm_90",
            "sm_90a",
            "sm_90a"
        ]
    );
}

#[test]
fn a_per_file_list_for_none_of_the_requested_gpus_is_an_error_naming_both_lists() {
    let f = Fake::new();
    kernels(&f);
    let env = [
        ("ARCHBUILD_ARCHS", "native"),
        ("ARCHBUILD_SIMULATED_GPUS", "8.6@13.0"),
    ];
    let err = f
        .build(&env)
        .files(["kernels/add.cu", "kernels/hopper.cu"])
        .file_archs("kernels/hopper.cu", "9.0a")
        .try_compile("k")
        .unwrap_err();
    assert_eq!(err.kind(), archbuild::ErrorKind::Config);
    insta::assert_snapshot!(err.to_string());
    assert!(f.compiles().is_empty(), "refused before compiling");
    // The same build in override mode builds the file for its own list, as before.
    let r = f
        .build(&[env[0], env[1], ("ARCHBUILD_ARCH_LIST_MODE", "override")])
        .files(["kernels/add.cu", "kernels/hopper.cu"])
        .file_archs("kernels/hopper.cu", "9.0a")
        .try_compile("k")
        .unwrap();
    assert_eq!(r.module("hopper").unwrap().targets, ["sm_90a"]);
    assert_eq!(r.module("add").unwrap().targets, ["sm_86", "compute_86"]);
}

#[test]
fn the_package_s_own_list_still_yields_to_a_per_file_list_unless_told_to_narrow() {
    let f = Fake::new();
    kernels(&f);
    let build = |mode: Option<&str>| {
        let mut b = f.build(&[]);
        b.files(["kernels/add.cu", "kernels/mixed.cu"])
            .archs("8.6")
            .file_archs("kernels/mixed.cu", "8.0 8.6+PTX 9.0a");
        if let Some(m) = mode {
            b.arch_list_mode(m);
        }
        b.try_compile("k")
    };
    // `auto`: the build's own list (`Build::archs`) is the author's; the file's list stands.
    let r = build(None).unwrap();
    assert_eq!(
        r.module("mixed").unwrap().targets,
        ["sm_80", "sm_86", "compute_86", "sm_90a"]
    );
    let r = build(Some("narrow")).unwrap();
    assert_eq!(r.module("mixed").unwrap().targets, ["sm_86", "compute_86"]);
    let e = build(Some("narrowest")).unwrap_err().to_string();
    assert!(
        e.contains("invalid arch list mode in the build's `.arch_list_mode(...)`: `narrowest`"),
        "{e}"
    );
}

#[test]
fn a_fleet_with_a_r550_member_and_the_default_toolkit_fails_at_build_time_with_the_fix() {
    let f = Fake::new();
    kernels(&f);
    let err = f
        .build(&[
            ("ARCHBUILD_ARCHS", "7.5 8.6+PTX"),
            ("ARCHBUILD_FLEET", "7.5@12.4, 8.6@13.0"),
        ])
        .file("kernels/add.cu")
        .try_compile("k")
        .unwrap_err();
    assert_eq!(err.kind(), archbuild::ErrorKind::Config);
    insta::assert_snapshot!(err.to_string());
    assert!(f.compiles().is_empty(), "refused before compiling");
    // Without the old driver the same build runs.
    f.build(&[
        ("ARCHBUILD_ARCHS", "7.5 8.6+PTX"),
        ("ARCHBUILD_FLEET", "7.5@13.0, 8.6@13.0"),
    ])
    .file("kernels/add.cu")
    .try_compile("k")
    .unwrap();
}

#[test]
fn a_fleet_gpu_the_list_does_not_cover_and_native_with_its_driver() {
    let f = Fake::new();
    kernels(&f);
    // Cargo.toml's fleet with `native`: the simulated 9.0 on a CUDA 12.8 driver.
    f.write(
        "Cargo.toml",
        "[package]\nname = \"k\"\n[package.metadata.archbuild]\nfleet = [\"8.6@13.0\", \"native\"]\n",
    );
    let err = f
        .build(&[
            ("ARCHBUILD_ARCHS", "8.6 9.0"),
            ("ARCHBUILD_SIMULATED_GPUS", "9.0@12.8"),
        ])
        .file("kernels/add.cu")
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "the fleet `8.6@13.0 9.0@12.8` (Cargo.toml [package.metadata.archbuild] fleet) \
             cannot use what this build makes with CUDA 13.5.37: with the build's list `8.6 \
             9.0`, the fleet's 9.0@12.8 can load nothing: its driver is CUDA 12.8 (R570), and \
             `sm_90`: cubin made by CUDA 13"
        ),
        "{err}"
    );
    let err = f
        .build(&[
            ("ARCHBUILD_ARCHS", "8.6"),
            ("ARCHBUILD_FLEET", "8.6@13.0, 7.5@13.0"),
        ])
        .file("kernels/add.cu")
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the fleet's 7.5@13.0 can load nothing: no image of the build runs on a 7.5 GPU; add `7.5`"),
        "{err}"
    );
}

/// The PTX entries' compression in a fat binary.
fn ptx_compression(path: &std::path::Path) -> Vec<Compression> {
    let bytes = std::fs::read(path).unwrap();
    read_fatbin(&bytes)
        .unwrap()
        .iter()
        .flat_map(|c| c.entries.iter())
        .filter(|e| e.kind == EntryKind::Ptx)
        .map(|e| e.compression)
        .collect()
}

#[test]
fn a_fleet_below_12_4_gets_no_zstd_and_the_cache_serves_what_a_cache_off_build_makes() {
    let f = Fake::new();
    kernels(&f);
    // A CUDA 12.8 toolkit (the fake reports the version it is told), whose images R535 loads.
    let version = ("ARCHBUILD_FAKE_VERSION", "12.8.93");
    f.controls(&[version]);
    let tk = Toolkit::from_nvcc(f.dir.path().join("cuda/bin/nvcc")).unwrap();
    assert_eq!(tk.release(), "12.8.93");
    let build = |extra: &[(&str, &str)], out: &str| {
        let mut env = vec![version, ("ARCHBUILD_ARCHS", "8.6+PTX")];
        env.extend_from_slice(extra);
        let mut b = f.build(&env);
        b.toolkit(tk.clone())
            .out_dir(f.dir.path().join(out))
            .file("kernels/add.cu");
        b.try_compile("k").unwrap()
    };
    let fleet = ("ARCHBUILD_FLEET", "8.6@12.2");
    // Without a fleet: nvcc's default, PTX as zstd; the cache now holds that fat binary's
    // stamp and job outputs.
    let plain = build(&[], "out");
    let path = plain.module("add").unwrap().fatbin.clone();
    assert!(matches!(
        ptx_compression(&path)[..],
        [Compression::Zstd { .. }]
    ));
    // With a fleet on R535 (12.2): LZ4, from the same cache, into the same file.
    let cached = build(&[fleet], "out");
    assert_eq!(cached.jobs_run, 0, "the compiles are the same");
    assert_eq!(ptx_compression(&path), [Compression::Lz4]);
    let off = build(&[fleet, ("ARCHBUILD_CACHE", "off")], "out-nocache");
    let off_path = off.module("add").unwrap().fatbin.clone();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&off_path).unwrap(),
        "the cached build's fat binary is the cache-off build's"
    );
    // A compression that is set stands, and the check names the member it fails.
    let err = f
        .build(&[
            version,
            ("ARCHBUILD_ARCHS", "8.6+PTX"),
            fleet,
            ("ARCHBUILD_COMPRESSION", "balance"),
        ])
        .toolkit(tk.clone())
        .file("kernels/add.cu")
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the fleet's 8.6@12.2 can load nothing: its driver is CUDA 12.2 (R535), and `sm_86`: zstd-compressed image needs a driver for CUDA 12.4 (R550)"),
        "{err}"
    );
    assert!(
        err.contains("build with compression `speed` (LZ4) or `none`"),
        "{err}"
    );
}
