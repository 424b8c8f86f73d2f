//! `nvcc -ptx` for compute_90 and newer checks the PTX it wrote with a ptxas run of its own
//! (`ptxas -arch=compute_90`, about a second on `bench_kernels.cu`), which `nvcc --fatbin`
//! does not. Where a ptxas job of the build reads that PTX anyway, archbuild runs nvcc's own
//! preprocessing and cicc lines instead (`jobs/cicc.rs`, `skips_ptx_check`); PTX that no ptxas
//! job reads keeps the check. Either way every image is the one `nvcc --fatbin` makes.

use std::collections::BTreeMap;
use std::path::Path;

use archbuild::{BuildReport, JobPhase};
use archbuild_fatbin::read_fatbin;
use archbuild_tests::KERNEL;

fn build(dir: &Path, archs: &str, out: &str) -> BuildReport {
    archbuild_tests::build()
        .manifest_dir(dir)
        .cache_dir(dir.join(format!("cache-{out}")))
        .out_dir(dir.join(out))
        .file("k.cu")
        .archs(archs)
        .quiet(true)
        .try_compile("k")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The program a cicc job's recorded command started: `nvcc` or `cicc`.
fn program(r: &BuildReport, target: &str) -> String {
    let job = r
        .jobs
        .iter()
        .find(|j| j.phase == JobPhase::Cicc && j.target == target)
        .unwrap_or_else(|| panic!("no cicc job for {target}: {:?}", r.jobs));
    let command = job.command.as_deref().unwrap_or_default();
    let first = command.split_whitespace().next().unwrap_or_default();
    Path::new(first.trim_matches('"'))
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every image of a fat binary, decompressed, by `kind arch`.
fn images(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let containers = read_fatbin(bytes).unwrap();
    containers
        .iter()
        .flat_map(|c| &c.entries)
        .map(|e| {
            let data = e.data().unwrap().into_owned();
            (format!("{:?} {}", e.kind, e.arch), data)
        })
        .collect()
}

#[test]
fn ptx_a_ptxas_job_reads_is_not_checked_twice_and_every_image_is_nvcc_s() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("k.cu"), KERNEL).unwrap();

    let r = build(d, "8.0 9.0+PTX", "both");
    // compute_90's PTX feeds sm_90's ptxas job: nvcc's two lines, not `nvcc -ptx`.
    assert_eq!(program(&r, "compute_90"), "cicc");
    // Below compute_90 `nvcc -ptx` runs no check: nothing to leave out.
    assert_eq!(program(&r, "compute_80"), "nvcc");

    // The cubins are `nvcc --fatbin`'s; the PTX is `nvcc -ptx`'s (`fatbinary` minifies the
    // PTX it embeds, archbuild embeds cicc's text: docs/fatbin.md).
    let nvcc = |args: &[&str]| {
        let o = archbuild_tests::nvcc(d).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    nvcc(&[
        "--fatbin",
        "-o",
        "nvcc.fatbin",
        "k.cu",
        "-gencode=arch=compute_80,code=sm_80",
        "-gencode=arch=compute_90,code=[sm_90,compute_90]",
    ]);
    nvcc(&["-ptx", "-arch=compute_90", "-o", "nvcc.ptx", "k.cu"]);
    let mut want = images(&std::fs::read(d.join("nvcc.fatbin")).unwrap());
    let ptx = std::fs::read(d.join("nvcc.ptx")).unwrap();
    want.insert("Ptx 9.0".into(), ptx.clone());
    let got = images(&std::fs::read(&r.modules[0].fatbin).unwrap());
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (image, bytes) in &want {
        assert!(got[image] == *bytes, "{image} differs from nvcc's");
    }

    // PTX alone, read by no ptxas job: `nvcc -ptx` with its check, the same PTX.
    let alone = build(d, "8.0 compute_90", "alone");
    assert_eq!(program(&alone, "compute_90"), "nvcc");
    let alone = images(&std::fs::read(&alone.modules[0].fatbin).unwrap());
    assert!(
        alone["Ptx 9.0"] == ptx,
        "the checked PTX differs from nvcc's"
    );
}
