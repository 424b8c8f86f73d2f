//! Relocatable device code with the real toolkit: a module of two files (a `__device__`
//! function and an `extern __device__` variable in one, the kernels in the other) built for
//! `7.5 8.6 9.0+PTX` with `relocatable-device-code`, each cubin equal to what `nvcc -rdc=true -c`
//! and `nvcc -dlink -cubin` make, the PTX linked whole; then the cache: a rebuild starts no
//! process, a header edit recompiles only the file that read it and links again, and every
//! build equals a cache-off one.

use std::path::{Path, PathBuf};
use std::process::Command;

use archbuild::{BuildReport, JobPhase};

const ARCHS: &str = "7.5 8.6 9.0+PTX";
const FILES: [&str; 2] = ["kernels/dev.cu", "kernels/kernels.cu"];

/// The two files and their headers: `common.h` both read, `tuning.h` the kernels' file alone.
fn write_sources(pkg: &Path, bias: &str) {
    let k = pkg.join("kernels");
    std::fs::create_dir_all(&k).unwrap();
    let files = [
        (
            "common.h",
            "#pragma once\nextern __device__ float scale_factor;\n__device__ float scale(float x);\n",
        ),
        (
            "dev.cu",
            "#include \"common.h\"\n__device__ float scale_factor = 2.0f;\n\
             __device__ float scale(float x) { return x * scale_factor; }\n",
        ),
        ("tuning.h", &format!("#pragma once\n#define BIAS {bias}\n")),
        (
            "kernels.cu",
            "#include \"common.h\"\n#include \"tuning.h\"\n\
             extern \"C\" __global__ void scaled(const float* a, float* out, int n) {\n\
             \x20 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
             \x20 if (i < n) out[i] = scale(a[i]) + BIAS;\n}\n\
             extern \"C\" __global__ void set_factor(float f) { scale_factor = f; }\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(k.join(name), text).unwrap();
    }
}

fn build(pkg: &Path, cache: Option<&Path>, out: &Path) -> BuildReport {
    let mut b = archbuild_tests::build();
    b.manifest_dir(pkg)
        .out_dir(out)
        .module("rdc", FILES)
        .relocatable_device_code(true)
        .archs(ARCHS)
        .quiet(true);
    match cache {
        Some(c) => b.cache_dir(c),
        None => b.cache(false),
    };
    b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"))
}

fn entry(fatbin: &[u8], target: &str) -> Vec<u8> {
    archbuild_fatbin::read_fatbin(fatbin)
        .unwrap()
        .iter()
        .flat_map(|c| c.entries.iter())
        .find(|e| e.target().to_string() == target)
        .unwrap_or_else(|| panic!("no {target} entry"))
        .data()
        .unwrap()
        .into_owned()
}

/// `nvcc -rdc=true -c` of each file and `nvcc -dlink -cubin` of both, for `sm_XY`.
fn nvcc_linked_cubin(pkg: &Path, tmp: &Path, sm: &str) -> Vec<u8> {
    let nvcc = archbuild_tests::tool("nvcc");
    let mut objects: Vec<PathBuf> = Vec::new();
    for f in FILES {
        let o = tmp.join(format!(
            "{}.{sm}.o",
            Path::new(f).file_stem().unwrap().to_str().unwrap()
        ));
        archbuild_tests::run(
            Command::new(&nvcc)
                .current_dir(pkg)
                .args(["-rdc=true", "-c"])
                .arg(format!("-gencode=arch=compute_{sm},code=sm_{sm}"))
                .arg("-o")
                .arg(&o)
                .arg(f),
        );
        objects.push(o);
    }
    let linked = tmp.join(format!("linked.{sm}.cubin"));
    archbuild_tests::run(
        Command::new(&nvcc)
            .current_dir(pkg)
            .args(["-dlink", "-cubin", &format!("-arch=sm_{sm}")])
            .args(&objects)
            .arg("-o")
            .arg(&linked),
    );
    std::fs::read(linked).unwrap()
}

fn ran(r: &BuildReport, phase: JobPhase) -> Vec<String> {
    let mut v: Vec<String> = r
        .jobs
        .iter()
        .filter(|j| j.phase == phase && !j.served.cached())
        .map(|j| j.target.clone())
        .collect();
    v.sort();
    v
}

#[test]
fn relocatable_code_across_files_equals_nvcc_rdc_and_dlink_and_a_header_edit_relinks() {
    let dir = tempfile::tempdir().unwrap();
    let (pkg, cache) = (dir.path().join("pkg"), dir.path().join("cache"));
    write_sources(&pkg, "1.0f");
    let first = build(&pkg, Some(&cache), &dir.path().join("out"));
    let m = &first.modules[0];
    assert_eq!(m.targets, ["sm_75", "sm_86", "sm_90", "compute_90"]);
    assert_eq!(m.kernels, ["scaled", "set_factor"]);
    // Per file and cubin arch a cicc and a ptxas job, per file an LTO-IR job for compute_90,
    // and one device link per target.
    assert_eq!(ran(&first, JobPhase::Nvlink).len(), 4, "{:#?}", first.jobs);
    assert_eq!(first.jobs_planned, 2 * (3 + 3 + 1) + 4);
    let fatbin = std::fs::read(&m.fatbin).unwrap();
    for sm in ["75", "86", "90"] {
        assert!(
            entry(&fatbin, &format!("sm_{sm}")) == nvcc_linked_cubin(&pkg, dir.path(), sm),
            "sm_{sm} is not what nvcc -rdc=true -c and nvcc -dlink -cubin make"
        );
    }
    // The PTX is the program linked whole: both kernels, the variable defined, nothing
    // left to resolve.
    let ptx = String::from_utf8(entry(&fatbin, "compute_90")).unwrap();
    assert!(
        ptx.contains(".entry scaled") && ptx.contains(".entry set_factor"),
        "{ptx}"
    );
    assert!(ptx.contains(".global .align 4 .f32 scale_factor"), "{ptx}");
    assert!(
        !ptx.contains(".extern"),
        "unresolved symbols in linked PTX:\n{ptx}"
    );

    let again = build(&pkg, Some(&cache), &dir.path().join("out"));
    assert_eq!(again.processes_started, 0, "{:#?}", again.jobs);
    assert_eq!(std::fs::read(&again.modules[0].fatbin).unwrap(), fatbin);
    let off = build(&pkg, None, &dir.path().join("out-off"));
    assert_eq!(std::fs::read(&off.modules[0].fatbin).unwrap(), fatbin);

    // A header only kernels.cu reads: its jobs run again, dev.cu's do not, every target links.
    write_sources(&pkg, "3.0f");
    let edited = build(&pkg, Some(&cache), &dir.path().join("out"));
    let compiled: Vec<(String, String)> = edited
        .jobs
        .iter()
        .filter(|j| j.phase == JobPhase::Cicc && !j.served.cached())
        .map(|j| (j.target.clone(), j.command.clone().unwrap_or_default()))
        .collect();
    assert_eq!(compiled.len(), 4, "{compiled:#?}");
    assert!(
        compiled
            .iter()
            .all(|(_, c)| c.contains("kernels/kernels.cu")),
        "{compiled:#?}"
    );
    assert_eq!(ran(&edited, JobPhase::Ptxas), ["sm_75", "sm_86", "sm_90"]);
    assert_eq!(
        ran(&edited, JobPhase::Nvlink),
        [
            "dlink compute_90",
            "dlink sm_75",
            "dlink sm_86",
            "dlink sm_90"
        ]
    );
    let edited_bin = std::fs::read(&edited.modules[0].fatbin).unwrap();
    assert_ne!(edited_bin, fatbin);
    let off = build(&pkg, None, &dir.path().join("out-off2"));
    assert_eq!(std::fs::read(&off.modules[0].fatbin).unwrap(), edited_bin);
}

/// The setting is in every key: a relocatable build after a whole-program one of the same file
/// and cache serves nothing of it (its cicc output is `--device-c`'s, its cubin linked), and
/// equals a cache-off relocatable build; switching back serves the whole-program one again.
#[test]
fn the_setting_is_keyed_against_whole_program_builds_of_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let (pkg, cache) = (dir.path().join("pkg"), dir.path().join("cache"));
    std::fs::create_dir_all(pkg.join("kernels")).unwrap();
    std::fs::write(
        pkg.join("kernels/solo.cu"),
        "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n",
    )
    .unwrap();
    let solo = |rdc: bool, cache: Option<&Path>, out: &str| {
        let mut b = archbuild_tests::build();
        b.manifest_dir(&pkg)
            .out_dir(dir.path().join(out))
            .file("kernels/solo.cu")
            .relocatable_device_code(rdc)
            .archs("8.6")
            .quiet(true);
        match cache {
            Some(c) => b.cache_dir(c),
            None => b.cache(false),
        };
        let r = b.try_compile("kernels").unwrap_or_else(|e| panic!("{e}"));
        let bytes = std::fs::read(&r.modules[0].fatbin).unwrap();
        (r, bytes)
    };
    let (_, whole) = solo(false, Some(&cache), "out");
    let (rdc, linked) = solo(true, Some(&cache), "out");
    assert_eq!(rdc.cache_hits, 0, "{:#?}", rdc.jobs);
    assert_eq!(
        (ran(&rdc, JobPhase::Cicc), ran(&rdc, JobPhase::Nvlink)),
        (
            vec!["compute_86".to_owned()],
            vec!["dlink sm_86".to_owned()]
        )
    );
    assert_ne!(entry(&linked, "sm_86"), entry(&whole, "sm_86"));
    assert_eq!(solo(true, None, "out-off").1, linked);
    let (back, again) = solo(false, Some(&cache), "out");
    assert_eq!((back.processes_started, again), (0, whole));
}
