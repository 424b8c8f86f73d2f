//! The build driver with the real CUDA toolkit (provisioned by archbuild on a bare machine):
//! the fixture's kernel set for `7.5 8.6 8.9+PTX` checked with cuobjdump, no-op rebuilds,
//! adding an arch, header changes, per-arch header tracking, and cubins byte-identical to
//! `nvcc -cubin`.

use std::path::{Path, PathBuf};
use std::process::Command;

use archbuild::BuildReport;

/// A copy of the fixture's kernels in a temp dir, with its own cache and output directory.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        archbuild_tests::fixture_kernels(&dir.path().join("pkg/kernels"));
        Self { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join("pkg").join(rel)
    }

    fn build(&self, archs: &str, files: &[&str]) -> BuildReport {
        archbuild_tests::build()
            .manifest_dir(self.dir.path().join("pkg"))
            .cache_dir(self.dir.path().join("cache"))
            .out_dir(self.dir.path().join("out"))
            .files(files)
            .archs(archs)
            .quiet(true)
            .try_compile("kernels")
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

fn cuobjdump_list(fatbin: &Path) -> Vec<String> {
    let out = Command::new(archbuild_tests::tool("cuobjdump"))
        .args(["--list-elf", "--list-ptx"])
        .arg(fatbin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            l.split_whitespace()
                .last()
                .unwrap_or("")
                .rsplit('.')
                .nth(1)
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    lines.sort();
    lines
}

const FILES: &[&str] = &["kernels/add.cu", "kernels/scale.cu"];

#[test]
fn builds_checks_with_cuobjdump_and_rebuilds_only_what_changed() {
    let p = Project::new();
    let first = p.build("7.5 8.6 8.9+PTX", FILES);
    assert_eq!((first.jobs_planned, first.jobs_run), (12, 12));
    for m in &first.modules {
        // `cuobjdump --list-elf --list-ptx` names images `<file>.<n>.sm_XY.cubin|ptx`.
        assert_eq!(
            cuobjdump_list(&m.fatbin),
            ["sm_75", "sm_86", "sm_89", "sm_89"],
            "{}",
            m.name
        );
        let out = Command::new(archbuild_tests::tool("cuobjdump"))
            .arg("--list-ptx")
            .arg(&m.fatbin)
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("sm_89.ptx"),
            "PTX for compute_89 in {}",
            m.name
        );
    }
    assert_eq!(first.module("scale").unwrap().kernels.len(), 3);

    // Unchanged: nothing runs, not even `nvcc --version`.
    let again = p.build("7.5 8.6 8.9+PTX", FILES);
    assert_eq!(
        (again.jobs_run, again.cache_hits, again.processes_started),
        (0, 12, 0)
    );

    // Adding 9.0 runs exactly the 9.0 jobs of each file.
    let more = p.build("7.5 8.6 8.9+PTX 9.0", FILES);
    let ran: Vec<(String, String)> = more.ran();
    let want: Vec<(String, String)> = ["add", "scale"]
        .iter()
        .flat_map(|m| {
            [
                (m.to_string(), "compute_90".to_string()),
                (m.to_string(), "sm_90".into()),
            ]
        })
        .collect();
    assert_eq!(ran, want);

    // A header only scale.cu includes: only scale rebuilds.
    std::fs::write(
        p.path("kernels/scale_params.cuh"),
        "#pragma once\n#define SCALE_FACTOR 3.0f\n",
    )
    .unwrap();
    let touched = p.build("7.5 8.6 8.9+PTX 9.0", FILES);
    let modules: std::collections::BTreeSet<String> =
        touched.ran().into_iter().map(|(m, _)| m).collect();
    assert_eq!(modules.into_iter().collect::<Vec<_>>(), ["scale"]);
    assert_eq!(touched.jobs_run, 8, "scale's four cicc and four ptxas jobs");
}

#[test]
fn headers_are_tracked_per_arch() {
    let p = Project::new();
    std::fs::write(
        p.path("kernels/ampere.cuh"),
        "#pragma once\n#define TILE 64\n",
    )
    .unwrap();
    std::fs::write(
        p.path("kernels/host_only.h"),
        "#pragma once\n#define HOST_SETTING 1\n",
    )
    .unwrap();
    std::fs::write(
        p.path("kernels/arch.cu"),
        "#include \"common.cuh\"\n\
         #ifndef __CUDA_ARCH__\n#include \"host_only.h\"\n#endif\n\
         #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#include \"ampere.cuh\"\n#else\n#define TILE 32\n#endif\n\
         extern \"C\" __global__ void tile(int* out) { out[global_index()] = TILE; }\n",
    )
    .unwrap();
    let archs = "7.5 8.0 8.6";
    p.build(archs, &["kernels/arch.cu"]);

    // The Ampere-only header is a dependency of compute_80/86, not of compute_75: changing it
    // rebuilds exactly those targets — a per-source scan would either miss it or rebuild 7.5.
    std::fs::write(
        p.path("kernels/ampere.cuh"),
        "#pragma once\n#define TILE 128\n",
    )
    .unwrap();
    let r = p.build(archs, &["kernels/arch.cu"]);
    let targets: Vec<String> = r.ran().into_iter().map(|(_, t)| t).collect();
    assert_eq!(targets, ["compute_80", "compute_86", "sm_80", "sm_86"]);

    // A host-only header (`#ifndef __CUDA_ARCH__`) is not an input of any PTX: nvcc's device
    // pass never reads it, so it is in no dependency list and changing it rebuilds nothing.
    assert!(
        !r.dependencies.iter().any(|d| d.ends_with("host_only.h")),
        "{:?}",
        r.dependencies
    );
    std::fs::write(
        p.path("kernels/host_only.h"),
        "#pragma once\n#define HOST_SETTING 2\n",
    )
    .unwrap();
    let r = p.build(archs, &["kernels/arch.cu"]);
    assert_eq!(r.ran(), Vec::<(String, String)>::new());
}

#[test]
fn two_phase_cubins_are_byte_identical_to_nvcc_cubin() {
    let p = Project::new();
    let flags = [
        "-O3",
        "-lineinfo",
        "-Xptxas",
        "-warn-spills",
        "--maxrregcount=64",
    ];
    let report = archbuild_tests::build()
        .manifest_dir(p.dir.path().join("pkg"))
        .cache(false)
        .out_dir(p.dir.path().join("out"))
        .file("kernels/scale.cu")
        .flags(flags)
        .archs("7.5 8.9+PTX")
        .quiet(true)
        .try_compile("kernels")
        .unwrap();
    let fatbin = std::fs::read(&report.modules[0].fatbin).unwrap();
    let containers = archbuild_fatbin::read_fatbin(&fatbin).unwrap();
    for sm in ["75", "89"] {
        let reference = p.dir.path().join(format!("ref{sm}.cubin"));
        let st = Command::new(archbuild_tests::tool("nvcc"))
            .current_dir(p.dir.path().join("pkg"))
            .args(["-cubin", &format!("-arch=sm_{sm}")])
            .args(flags)
            .arg("-o")
            .arg(&reference)
            .arg("kernels/scale.cu")
            .status()
            .unwrap();
        assert!(st.success());
        let entry = containers
            .iter()
            .flat_map(|c| c.entries.iter())
            .find(|e| e.target().to_string() == format!("sm_{sm}"))
            .unwrap();
        assert_eq!(
            entry.data().unwrap().as_ref(),
            std::fs::read(&reference).unwrap().as_slice(),
            "sm_{sm}"
        );
    }
}

#[test]
fn arch_and_family_specific_targets_build_and_pack() {
    let p = Project::new();
    let r = p.build("9.0a 10.0f+PTX", &["kernels/add.cu"]);
    let m = &r.modules[0];
    assert_eq!(m.targets, ["sm_90a", "sm_100f", "compute_100f"]);
    let out = Command::new(archbuild_tests::tool("cuobjdump"))
        .args(["--list-elf", "--list-ptx"])
        .arg(&m.fatbin)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("sm_90a") && text.contains("sm_100f"),
        "{text}"
    );
}

/// LTO-IR targets with the real toolkit: `9.0+LTO` packs the sm_90 cubin and lto_90 LTO-IR
/// byte-identical to `nvcc -ltoir -gencode=arch=compute_90,code=lto_90`; a second build serves
/// every job from the cache with no process, and equals a cache-off build byte for byte.
#[test]
fn lto_ir_equals_nvcc_ltoir_and_a_cached_build_equals_a_cache_off_one() {
    let p = Project::new();
    let first = p.build("8.0 9.0+LTO", &["kernels/scale.cu"]);
    let m = &first.modules[0];
    assert_eq!(m.targets, ["sm_80", "sm_90", "lto_90"]);
    let bytes = std::fs::read(&m.fatbin).unwrap();
    let containers = archbuild_fatbin::read_fatbin(&bytes).unwrap();
    let lto = containers
        .iter()
        .flat_map(|c| c.entries.iter())
        .find(|e| e.target().to_string() == "lto_90")
        .expect("an lto_90 entry");
    assert_eq!(lto.kind, archbuild_fatbin::EntryKind::LtoIr);
    let reference = p.dir.path().join("ref90.ltoir");
    let st = Command::new(archbuild_tests::tool("nvcc"))
        .current_dir(p.dir.path().join("pkg"))
        .args(["-ltoir", "-gencode=arch=compute_90,code=lto_90", "-o"])
        .arg(&reference)
        .arg("kernels/scale.cu")
        .status()
        .unwrap();
    assert!(st.success());
    // The entry holds the LTO-IR padded to the container's 8-byte alignment (nvJitLink reads
    // it as is: the IR is 32-bit words, the padding one zero word at most).
    let ours = lto.data().unwrap();
    let nvcc = std::fs::read(&reference).unwrap();
    assert_eq!(
        &ours[..nvcc.len()],
        nvcc.as_slice(),
        "lto_90 as nvcc -ltoir makes it"
    );
    assert!(ours.len() - nvcc.len() < 8 && ours[nvcc.len()..].iter().all(|&b| b == 0));

    let second = p.build("8.0 9.0+LTO", &["kernels/scale.cu"]);
    assert_eq!(second.processes_started, 0, "{second:#?}");
    assert_eq!(std::fs::read(&second.modules[0].fatbin).unwrap(), bytes);
    let off = archbuild_tests::build()
        .manifest_dir(p.dir.path().join("pkg"))
        .cache(false)
        .out_dir(p.dir.path().join("out-off"))
        .file("kernels/scale.cu")
        .archs("8.0 9.0+LTO")
        .quiet(true)
        .try_compile("kernels")
        .unwrap();
    assert_eq!(std::fs::read(&off.modules[0].fatbin).unwrap(), bytes);
}
