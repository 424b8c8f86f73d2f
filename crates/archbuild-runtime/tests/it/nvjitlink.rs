//! nvJitLink, for real (it needs no GPU): PTX ISA 9.5 from CUDA 13.5 compiles to a cubin, its
//! logs are captured, and the loader routes PTX the 13.0 driver cannot JIT through it and caches
//! the result. Skips, saying why, when no libnvJitLink is found (ARCHBUILD_NVJITLINK, the
//! provisioned toolkit, pip, CUDA_HOME); fails instead in CI, whose provisioned toolkit has one.

use std::path::PathBuf;

use archbuild_arch::{Arch, CudaVersion};
use archbuild_fatbin::cubin::parse_cubin;
use archbuild_runtime::jit::{JitCache, JitPreference, NvJitLink};
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{CacheStatus, Compiler, Error, LoadPath, Loader, PlannedRoute};

use crate::common;

fn nvjitlink() -> Option<NvJitLink> {
    let paths: Vec<PathBuf> = std::env::var_os("ARCHBUILD_NVJITLINK")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    for p in paths.iter().filter(|p| p.exists()) {
        match NvJitLink::open(p) {
            Ok(l) if l.version() >= CudaVersion::new(13, 5) => return Some(l),
            Ok(l) => eprintln!(
                "skipping {}: version {} cannot compile PTX ISA 9.5",
                p.display(),
                l.version()
            ),
            Err(e) => eprintln!("skipping {}: {e}", p.display()),
        }
    }
    if let Ok(l) = archbuild_runtime::jit::discover_nvjitlink(|v| v >= CudaVersion::new(13, 5)) {
        return Some(l);
    }
    common::skip("no libnvJitLink 13.5+ found; set ARCHBUILD_NVJITLINK to run these tests");
    None
}

#[test]
fn compiles_ptx_isa_9_5_to_a_cubin() {
    let Some(lib) = nvjitlink() else { return };
    let ptx = common::ptx("90", "9.5");
    let out = lib.compile(&ptx, Arch::plain(9, 0), "compute_90").unwrap();
    let info = parse_cubin(&out.cubin).unwrap();
    assert_eq!(info.arch, Arch::plain(9, 0));
    assert_eq!(info.kernels, ["scale"]);
    // PTX for an older arch compiles for the device's arch, `a` PTX for its `a` target.
    let out = lib
        .compile(&common::ptx("80", "9.5"), Arch::plain(8, 6), "compute_80")
        .unwrap();
    assert_eq!(parse_cubin(&out.cubin).unwrap().arch, Arch::plain(8, 6));
    let a = Arch::new(
        archbuild_arch::ComputeCapability::new(9, 0),
        archbuild_arch::Variant::Arch,
    );
    let out = lib
        .compile(&common::ptx("90a", "9.5"), a, "compute_90a")
        .unwrap();
    assert_eq!(parse_cubin(&out.cubin).unwrap().arch, a);
}

#[test]
fn compile_errors_carry_the_log() {
    let Some(lib) = nvjitlink() else { return };
    let bad = b".version 9.5\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n";
    let err = lib
        .compile(bad, Arch::plain(9, 0), "compute_90")
        .unwrap_err();
    assert!(matches!(err, Error::NvJitLink { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("nvJitLinkComplete") || msg.contains("nvJitLinkAddData"),
        "{msg}"
    );
    assert!(
        msg.contains("bogus"),
        "the error log names the bad instruction: {msg}"
    );
}

#[test]
fn loader_routes_too_new_ptx_through_nvjitlink_and_caches_it() {
    let Some(lib) = nvjitlink() else { return };
    let version = lib.version();
    let dir = tempfile::tempdir().unwrap();
    let driver = SimDriver::new(CudaVersion::new(13, 0)).with_gpu(9, 0);
    let cache = JitCache::open(dir.path()).unwrap();
    let loader = Loader::with_driver(&driver)
        .cache(Some(cache))
        .nvjitlink(Some(lib));
    let fb = common::fatbin(&["sm_86", "compute_80@9.5"]);

    let pf = loader.preflight(&fb).unwrap();
    assert_eq!(
        pf.gpus[0].outcome.as_ref().unwrap().route,
        PlannedRoute::NvJitLink(version)
    );

    let first = loader.load(&fb, 0).unwrap();
    assert_eq!(first.report.path, LoadPath::NvJitLink(version));
    assert_eq!(first.report.cache, CacheStatus::Stored);
    // The driver got a real sm_90 cubin (it would have refused the PTX with 222).
    assert_eq!(first.module.machine_arch, Arch::plain(9, 0));
    assert_eq!(
        first.module.ptx_sha256, None,
        "a real cubin, not the driver's JIT"
    );
    assert_eq!(driver.jit_count(), 0);

    let second = loader.load(&fb, 0).unwrap().report;
    assert_eq!(
        second.path,
        LoadPath::CachedJit(Compiler::NvJitLink(version))
    );
    assert!(
        second
            .to_string()
            .contains("via cached JIT (compiled by nvJitLink 13.5)"),
        "{second}"
    );
}

#[test]
fn nvjitlink_preference_applies_to_ptx_the_driver_could_compile() {
    let Some(lib) = nvjitlink() else { return };
    let driver = SimDriver::new(CudaVersion::new(13, 0)).with_gpu(8, 6);
    let loader = Loader::with_driver(&driver)
        .nvjitlink(Some(lib))
        .jit_preference(JitPreference::NvJitLink);
    let r = loader
        .load(&common::fatbin(&["compute_80@9.0"]), 0)
        .unwrap();
    assert!(
        matches!(r.report.path, LoadPath::NvJitLink(_)),
        "{}",
        r.report
    );
    assert_eq!(r.module.machine_arch, Arch::plain(8, 6));
    assert_eq!(driver.jit_count(), 0);
}

#[test]
fn a_missing_library_is_an_error_naming_the_fix() {
    let err = NvJitLink::open(std::path::Path::new("/nonexistent/libnvJitLink.so.13")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with("nvJitLink at /nonexistent/libnvJitLink.so.13 cannot be used: "),
        "{msg}"
    );
    assert!(msg.ends_with("point ARCHBUILD_NVJITLINK at a libnvJitLink.so.13 (from `pip install nvidia-nvjitlink` or a CUDA toolkit), or unset it"), "{msg}");
}

#[test]
fn auto_takes_nvjitlink_of_the_drivers_major_version_only() {
    let Some(lib) = nvjitlink() else { return };
    let version = lib.version();
    let fb = common::fatbin(&["compute_80@8.5"]);
    // Same major as the driver: nvJitLink compiles (ptxas in parallel), the driver does not.
    let driver = SimDriver::new(CudaVersion::new(13, 0)).with_gpu(8, 6);
    let loader = Loader::with_driver(&driver)
        .nvjitlink(Some(lib))
        .jit_preference(JitPreference::Auto);
    let r = loader.load(&fb, 0).unwrap();
    assert_eq!(r.report.path, LoadPath::NvJitLink(version), "{}", r.report);
    assert_eq!(r.module.machine_arch, Arch::plain(8, 6));
    assert_eq!(driver.jit_count(), 0);

    // Another major than the driver's: its cubins are not the driver's to vouch for.
    let old = SimDriver::new(CudaVersion::new(12, 8)).with_gpu(8, 6);
    let Some(lib) = nvjitlink() else { return };
    let loader = Loader::with_driver(&old)
        .nvjitlink(Some(lib))
        .jit_preference(JitPreference::Auto);
    let r = loader.load(&fb, 0).unwrap();
    assert_eq!(r.report.path, LoadPath::DriverJit, "{}", r.report);
    assert_eq!(old.jit_count(), 1);

    // `with_driver` reads no environment and keeps the driver's JIT.
    let Some(lib) = nvjitlink() else { return };
    let loader = Loader::with_driver(&driver).nvjitlink(Some(lib));
    assert_eq!(loader.current_jit_preference(), JitPreference::Driver);
    assert_eq!(
        loader.load(&fb, 0).unwrap().report.path,
        LoadPath::DriverJit
    );
}

/// Real LTO-IR from the nvcc beside the nvJitLink found (the provisioned toolkit's), or `None`
/// (skipped, saying why).
fn ltoir(lib: &NvJitLink, arch: &str) -> Option<Vec<u8>> {
    let nvcc = lib.path().parent()?.join("../bin/nvcc");
    if !nvcc.exists() {
        common::skip("no nvcc beside the nvJitLink found; LTO-IR is made by nvcc -ltoir");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("scale.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void scale(float *x, float a, int n) {\n  int i = \
         blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= a;\n}\n",
    )
    .unwrap();
    let out = dir.path().join("scale.ltoir");
    let status = std::process::Command::new(&nvcc)
        .arg("-ltoir")
        .arg(format!("-gencode=arch=compute_{arch},code=lto_{arch}"))
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap();
    assert!(status.success(), "nvcc -ltoir failed");
    Some(std::fs::read(out).unwrap())
}

/// A fat binary of LTO-IR alone: linked for the GPU by nvJitLink (the report says so), the
/// cubin kept in the JIT cache for the next load; LTO-IR for 8.0 links for 9.0 and not for 7.5
/// (the rule `archbuild_arch::target_runs_on` states); without nvJitLink, the error names it.
#[test]
fn lto_ir_alone_is_linked_by_nvjitlink_then_served_from_the_jit_cache() {
    let Some(lib) = nvjitlink() else { return };
    let Some(ir) = ltoir(&lib, "80") else { return };
    let version = lib.version();
    // The compatibility rule, checked against the library itself.
    assert!(lib.link_lto(&ir, Arch::plain(9, 0), "lto_80").is_ok());
    assert!(lib.link_lto(&ir, Arch::plain(7, 5), "lto_80").is_err());

    let mut w = archbuild_fatbin::FatbinWriter::new();
    w.add_ltoir(&ir, Arch::plain(8, 0)).unwrap();
    let fb = archbuild_runtime::FatBinary::from_vec(w.write().unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let driver = SimDriver::new(CudaVersion::new(13, 0)).with_gpu(9, 0);
    let loader = Loader::with_driver(&driver)
        .cache(Some(JitCache::open(dir.path()).unwrap()))
        .nvjitlink(Some(lib));
    let pf = loader.preflight(&fb).unwrap();
    assert_eq!(
        pf.gpus[0].outcome.as_ref().unwrap().route,
        PlannedRoute::LinkLto(version)
    );
    let first = loader.load(&fb, 0).unwrap();
    assert_eq!(first.report.path, LoadPath::LinkedLto(version));
    assert_eq!(first.report.cache, CacheStatus::Stored);
    assert_eq!(first.module.machine_arch, Arch::plain(9, 0));
    let text = first.report.to_string();
    assert!(text.contains("LTO-IR linked by nvJitLink"), "{text}");
    assert_eq!(fb.image_kernels(0).unwrap(), ["scale"], "named once linked");
    let second = loader.load(&fb, 0).unwrap().report;
    assert_eq!(
        second.path,
        LoadPath::CachedJit(Compiler::NvJitLink(version))
    );
    assert_eq!(second.cache, CacheStatus::Hit);

    // No nvJitLink: the GPU gets no image, and the error says what to install.
    let none = Loader::with_driver(&driver).nvjitlink(None);
    let err = none.load(&fb, 0).unwrap_err().to_string();
    assert!(
        err.contains("lto_80")
            && err.contains("ARCHBUILD_NVJITLINK")
            && err.contains("nvjitlink-cu13"),
        "{err}"
    );
}
