//! The real driver. Without libcuda or a GPU (CI), the driver tests check that the absence is an
//! error naming the fix, never a panic, and the GPU tests print why they are skipped; on a GPU
//! machine they load fixtures from `tests/fixtures`, run the kernel and check its results.

use archbuild_arch::{max_ptx_isa_for_cuda, PtxIsa};
use archbuild_runtime::driver::{CudaDriver, Driver};
use archbuild_runtime::jit::JitCache;
use archbuild_runtime::{Error, LoadPath, Loader, Policy};
use cudarc::driver::{CudaContext, DevicePtrMut, LaunchConfig, PushKernelArg};

use crate::common;

/// The real driver, or `None` after printing why the test is skipped.
fn gpu() -> Option<CudaDriver> {
    match CudaDriver::new() {
        Ok(d) if d.device_count().unwrap_or(0) > 0 => Some(d),
        Ok(_) => {
            eprintln!("SKIPPED: the CUDA driver sees no GPU");
            None
        }
        Err(e) => {
            eprintln!("SKIPPED: {e}");
            None
        }
    }
}

#[test]
fn missing_driver_is_an_error_not_a_panic() {
    match CudaDriver::new() {
        Ok(d) => eprintln!(
            "SKIPPED: a driver is present (CUDA {})",
            d.version().unwrap()
        ),
        Err(e @ Error::NoDriver { .. }) => {
            let msg = e.to_string();
            assert!(msg.starts_with("no CUDA driver: "), "{msg}");
            assert!(msg.contains("install the NVIDIA driver"), "{msg}");
            // Asking again is just as safe (cudarc's loader panics on a second use too).
            assert!(matches!(CudaDriver::new(), Err(Error::NoDriver { .. })));
            assert!(matches!(Loader::new(), Err(Error::NoDriver { .. })));
        }
        Err(e @ Error::NoDevice { .. }) => assert!(e.to_string().contains("nvidia-smi")),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// A fat binary with cubins for common GPUs and PTX the driver can JIT.
fn fixture_fatbin(driver: &CudaDriver) -> archbuild_runtime::FatBinary {
    // The fixtures are ISA 9.5; give the PTX the newest ISA this driver JITs, at most that.
    let newest = PtxIsa::new(9, 5);
    let isa = max_ptx_isa_for_cuda(driver.version().unwrap()).map_or(newest, |i| i.min(newest));
    let ptx = format!("compute_80@{isa}");
    common::fatbin(&["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", &ptx])
}

/// Runs `scale(x, 2.5, n)` from `module` on `ctx` and checks every element.
fn run_scale(
    ctx: &std::sync::Arc<CudaContext>,
    module: &std::sync::Arc<cudarc::driver::CudaModule>,
) {
    let n = 4096usize;
    let host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let f = module.load_function("scale").unwrap();
    let s = ctx.default_stream();
    let mut x = s.clone_htod(&host).unwrap();
    let (a, n32) = (2.5f32, n as i32);
    let mut b = s.launch_builder(&f);
    b.arg(&mut x).arg(&a).arg(&n32);
    // SAFETY: scale(float*, float, int) over n elements.
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }.unwrap();
    let out = s.clone_dtoh(&x).unwrap();
    for i in 0..n {
        assert_eq!(out[i], host[i] * a, "element {i}");
    }
}

#[test]
fn loads_the_best_image_and_runs() {
    let Some(driver) = gpu() else { return };
    let fb = fixture_fatbin(&driver);
    let loader = Loader::with_driver(driver);
    let ctx = CudaContext::new(0).unwrap();
    let l = loader.load_in(&fb, &ctx).unwrap();
    eprintln!("{}", l.report);
    let cc = ctx.compute_capability().unwrap();
    let expect_cubin = matches!(cc, (7, 5) | (8, _) | (9, 0));
    assert_eq!(
        l.report.path == LoadPath::Cubin,
        expect_cubin,
        "{}",
        l.report
    );
    run_scale(&ctx, &l.module);
}

#[test]
fn jit_then_cache_hit_on_the_gpu() {
    let Some(driver) = gpu() else { return };
    let fb = fixture_fatbin(&driver);
    let dir = tempfile::tempdir().unwrap();
    let loader = Loader::with_driver(driver)
        .policy(Policy::ForcePtx)
        .cache(Some(JitCache::open(dir.path()).unwrap()));
    let ctx = CudaContext::new(0).unwrap();
    let first = loader.load_in(&fb, &ctx).unwrap();
    assert_eq!(first.report.path, LoadPath::DriverJit, "{}", first.report);
    run_scale(&ctx, &first.module);
    let second = loader.load_in(&fb, &ctx).unwrap();
    assert!(
        matches!(second.report.path, LoadPath::CachedJit(_)),
        "{}",
        second.report
    );
    run_scale(&ctx, &second.module);
}

#[test]
fn preflight_covers_every_gpu() {
    let Some(driver) = gpu() else { return };
    let count = driver.device_count().unwrap();
    let fb = fixture_fatbin(&driver);
    let loader = Loader::with_driver(driver);
    let pf = loader.preflight(&fb).unwrap();
    eprintln!("{pf}");
    assert_eq!(pf.gpus.len(), count);
    for g in &pf.gpus {
        if g.outcome.is_ok() {
            let ctx = CudaContext::new(g.ordinal).unwrap();
            run_scale(&ctx, &loader.load_in(&fb, &ctx).unwrap().module);
        }
    }
}

#[test]
fn wrong_cubin_is_refused_with_209() {
    let Some(driver) = gpu() else { return };
    let (major, _) = CudaContext::new(0).unwrap().compute_capability().unwrap();
    let other = if major == 7 { "90" } else { "75" };
    let err = driver.load(0, common::cubin(other).into()).unwrap_err();
    assert_eq!(err.driver_code(), Some(209), "{err}");
    assert!(err.to_string().contains("ARCHBUILD_ARCHS"), "{err}");
}

#[test]
fn raw_module_is_read_in_place_and_runs() {
    let Some(driver) = gpu() else { return };
    let count = driver.device_count().unwrap();
    let fb = fixture_fatbin(&driver);
    let loader = Loader::with_driver(driver);
    let ctx = CudaContext::new(0).unwrap();
    let raw = loader.load_raw_in(&fb, &ctx).unwrap();
    let typed = loader.load_in(&fb, &ctx).unwrap();
    // Both APIs choose the same image by the same route.
    assert_eq!(raw.report.image_index, typed.report.image_index);
    assert_eq!(raw.report.path, typed.report.path);

    let n = 4096usize;
    let host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let s = ctx.default_stream();
    let mut x = s.clone_htod(&host).unwrap();
    let (a, n32) = (2.5f32, n as i32);
    let f = raw.module.function("scale").unwrap();
    {
        let (mut ptr, _sync) = x.device_ptr_mut(&s);
        let mut params: [*mut std::ffi::c_void; 3] = [
            (&mut ptr as *mut u64).cast(),
            (&a as *const f32 as *mut f32).cast(),
            (&n32 as *const i32 as *mut i32).cast(),
        ];
        // SAFETY: scale(float*, float, int) over n elements; x outlives the synchronize below.
        unsafe { f.launch(&s, LaunchConfig::for_num_elems(n as u32), &mut params) }.unwrap();
    }
    let out = s.clone_dtoh(&x).unwrap();
    for i in 0..n {
        assert_eq!(out[i], host[i] * a, "element {i}");
    }

    let err = raw.module.function("no_such_kernel").unwrap_err();
    assert_eq!(err.driver_code(), Some(500), "{err}");
    assert!(err.to_string().contains("`no_such_kernel`"), "{err}");
    assert!(err.to_string().contains("extern \"C\""), "{err}");
    assert!(raw.module.function("sc\0ale").is_err());

    if count > 1 {
        let other = CudaContext::new(1).unwrap().default_stream();
        let mut none: [*mut std::ffi::c_void; 0] = [];
        // SAFETY: refused before the launch (the stream is another GPU's).
        let err =
            unsafe { f.launch(&other, LaunchConfig::for_num_elems(1), &mut none) }.unwrap_err();
        assert_eq!(err.driver_code(), Some(201), "{err}");
    } else {
        eprintln!("SKIPPED the cross-context check: one GPU");
    }
}
