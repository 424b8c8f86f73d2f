//! Kernel variants with the real toolkit and the simulated driver (CI has no GPU): the
//! `examples/variants` GEMM — a Hopper-only kernel (`sm_90a`), an `sm_80` tensor-core kernel and
//! a SIMT fallback in one group — resolves to SIMT, MMA and Hopper on a rig of 7.5, 8.6 and 9.0
//! GPUs through cubins, JIT and cached JIT; a group some arch cannot run fails the build naming
//! the arch and the group; a kernel compiled out for one arch gets an error naming the images
//! that have it.

use std::path::Path;

use archbuild::BuildReport;
use archbuild_arch::CudaVersion;
use archbuild_runtime::jit::JitCache;
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{FatBinary, LoadPath, Loader};

const GROUP: &[&str] = &["gemm_hopper", "gemm_mma", "gemm_simt"];

fn build(dir: &Path, archs: &str, group: &[&str]) -> Result<BuildReport, archbuild::Error> {
    let src = archbuild_tests::repo_root().join("examples/variants/kernels/gemm.cu");
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::copy(src, dir.join("kernels/gemm.cu")).unwrap();
    archbuild_tests::build()
        .manifest_dir(dir)
        .cache_dir(dir.join("cache"))
        .out_dir(dir.join("out"))
        .file("kernels/gemm.cu")
        .archs(archs)
        .variants("gemm", group)
        .quiet(true)
        .try_compile("kernels")
}

fn fatbin(r: &BuildReport) -> FatBinary {
    let bytes = std::fs::read(&r.modules[0].fatbin).unwrap();
    FatBinary::from_vec(bytes)
        .unwrap()
        .with_variants(&[("gemm", GROUP)])
}

/// A 7.5 + 8.6 + 9.0 rig whose driver JITs the CUDA 13.5 PTX.
fn rig() -> SimDriver {
    SimDriver::new(CudaVersion::new(13, 5))
        .with_gpu(7, 5)
        .with_gpu(8, 6)
        .with_gpu(9, 0)
}

#[test]
fn each_gpu_of_a_mixed_rig_runs_the_best_variant_its_image_holds() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX 9.0a", GROUP).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        r.variants[0].to_string(),
        "variants `gemm` (gemm): sm_75 -> gemm_simt, sm_86 -> gemm_mma, compute_86 -> gemm_mma, \
         sm_90a -> gemm_hopper"
    );
    let fb = fatbin(&r);
    let driver = rig();
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let pre = loader.preflight(&fb).unwrap();
    let text = pre.to_string();
    for want in [
        "gemm -> gemm_simt (in sm_75); gemm_hopper is not in sm_75, only in sm_90a; gemm_mma is \
         not in sm_75, only in sm_86, compute_86, sm_90a",
        "gemm -> gemm_mma (in sm_86); gemm_hopper is not in sm_86, only in sm_90a",
        "gemm -> gemm_hopper (in sm_90a)",
    ] {
        assert!(text.contains(want), "missing `{want}` in:\n{text}");
    }
    assert!(pre.all_ok());
    let chosen: Vec<(String, String)> = (0..3)
        .map(|gpu| {
            let l = loader.load(&fb, gpu).unwrap();
            assert!(l.report.to_string().contains("variant: gemm -> "));
            (
                l.report.image_target.to_string(),
                l.variant("gemm").unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        chosen,
        [
            ("sm_75".into(), "gemm_simt".into()),
            ("sm_86".into(), "gemm_mma".into()),
            ("sm_90a".into(), "gemm_hopper".into())
        ]
    );
}

#[test]
fn without_the_hopper_image_a_9_0_gpu_runs_mma_through_jit_and_cached_jit() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX", GROUP).unwrap_or_else(|e| panic!("{e}"));
    let fb = fatbin(&r);
    let driver = SimDriver::new(CudaVersion::new(13, 5)).with_gpu(9, 0);
    let cache = JitCache::open(dir.path().join("jit")).unwrap();
    let loader = Loader::with_driver(&driver)
        .nvjitlink(None)
        .cache(Some(cache));
    let first = loader.load(&fb, 0).unwrap();
    assert_eq!(first.report.path, LoadPath::DriverJit);
    assert_eq!(first.variant("gemm").unwrap(), "gemm_mma");
    let second = loader.load(&fb, 0).unwrap();
    assert!(matches!(second.report.path, LoadPath::CachedJit(_)));
    assert_eq!(second.variant("gemm").unwrap(), "gemm_mma");
    assert_eq!(driver.jit_count(), 1);
}

#[test]
fn a_group_with_no_variant_for_a_listed_arch_fails_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let e = build(dir.path(), "7.5 8.6 9.0a", &["gemm_hopper", "gemm_mma"])
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!(e);
}

#[test]
fn a_kernel_compiled_out_for_one_arch_gets_an_error_naming_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let r = build(dir.path(), "7.5 8.6+PTX 9.0a", GROUP).unwrap_or_else(|e| panic!("{e}"));
    let fb = fatbin(&r);
    let driver = rig();
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let on_86 = loader.load(&fb, 1).unwrap();
    on_86.ensure_kernel(&fb, "gemm_mma").unwrap();
    let e = on_86
        .ensure_kernel(&fb, "gemm_hopper")
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!(e);
    let e = loader
        .load(&fb, 0)
        .unwrap()
        .ensure_kernel(&fb, "no_such_kernel")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no image of this fat binary has it"), "{e}");
}
