//! The runtime's acceptance on a real GPU (issue 5), over the fixtures `gpu_fixtures` writes:
//!
//! 1. a fat binary with an sm_90 cubin loads the cubin; a kernel runs and is checked on the CPU;
//! 2. sm_75/sm_86/sm_89 cubins + PTX load via JIT and run; a second process loads from the cache;
//! 3. PTX ISA 9.5 (CUDA 13.5) loads through nvJitLink (`ARCHBUILD_NVJITLINK`) on a 13.0 driver
//!    that refuses it (222); without nvJitLink the error names the fix;
//! 4. the image the loader reports equals the one the driver picks from the whole fat binary
//!    (each image's `marker` kernel writes its own constant), for every composition;
//! 5. with two or more GPUs, preflight covers all and a kernel runs on each;
//! 6. the simulated driver's error codes match the real driver's;
//! 7. LTO-IR packed by `FatbinWriter::add_ltoir` links through nvJitLink (`-lto`) into a cubin
//!    the driver loads and runs.
//!
//! ```text
//! gpu_acceptance FIXTURES_DIR
//! ```
//! Prints one PASS/FAIL/SKIP line per check and exits 1 if any failed. Without a driver or GPU
//! it prints "no GPU: skipped" and exits 0.

mod support;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use archbuild_runtime::driver::{CudaDriver, Driver};
use archbuild_runtime::jit::{JitCache, NvJitLink};
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{Error, FatBinary, LoadPath, Loader, PlannedRoute, Target};
use cudarc::driver::{CudaContext, CudaModule, DevicePtrMut, LaunchConfig, PushKernelArg};

type Res<T> = Result<T, String>;

struct Tally {
    pass: usize,
    fail: usize,
    skip: usize,
}

impl Tally {
    fn record(&mut self, id: &str, what: &str, r: Res<String>) {
        match r {
            Ok(detail) if detail.starts_with("SKIP") => {
                self.skip += 1;
                println!(
                    "SKIP ({id}) {what}: {}",
                    &detail[4..].trim_start_matches(':').trim()
                );
            }
            Ok(detail) => {
                self.pass += 1;
                println!("PASS ({id}) {what}: {detail}");
            }
            Err(e) => {
                self.fail += 1;
                println!("FAIL ({id}) {what}: {e}");
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child-cached") {
        std::process::exit(
            match child_cached(Path::new(&args[1]), Path::new(&args[2])) {
                Ok(()) => 0,
                Err(e) => {
                    println!("CHILD-ERROR {e}");
                    1
                }
            },
        );
    }
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: gpu_acceptance FIXTURES_DIR");
        std::process::exit(2);
    };
    let Some(driver) = support::driver_or_skip() else {
        return;
    };
    let mut t = Tally {
        pass: 0,
        fail: 0,
        skip: 0,
    };
    let count = driver.device_count().unwrap_or(0);
    let dev = driver.device(0).map_err(|e| e.to_string());
    println!(
        "driver CUDA {}, {count} GPU(s); GPU 0: {dev:?}",
        driver.version().map(|v| v.to_string()).unwrap_or_default()
    );
    let loader = Loader::with_driver(driver);
    t.record(
        "1",
        "sm_90 cubin loads as cubin and runs",
        check_cubin(&loader, &dir),
    );
    t.record(
        "1b",
        "the same cubin read in place (load_raw) runs",
        check_cubin_in_place(&loader, &dir),
    );
    t.record(
        "2",
        "JIT from PTX, then a second process hits the cache",
        check_jit_and_cache(&loader, &dir),
    );
    t.record(
        "3a",
        "driver refuses PTX ISA 9.5 with 222",
        check_isa95_refused(&loader, &dir),
    );
    t.record(
        "3b",
        "PTX ISA 9.5 loads through nvJitLink and runs",
        check_isa95_nvjitlink(&loader, &dir),
    );
    t.record(
        "3c",
        "without nvJitLink the error names the fix",
        check_isa95_without(&loader, &dir),
    );
    let mut agreed = 0;
    for comp in support::COMPARED {
        let r = compare_with_driver(&loader, &dir, comp.name);
        agreed += usize::from(r.is_ok());
        t.record(
            "4",
            &format!("{} {{{}}}", comp.name, comp.images.join(" ")),
            r,
        );
    }
    let enough = if agreed >= 10 {
        Ok(format!("{agreed} compositions agree"))
    } else {
        Err(format!("only {agreed} agree, need 10"))
    };
    t.record(
        "4",
        "loader and driver agree on at least 10 compositions",
        enough,
    );
    t.record(
        "5",
        "preflight and a kernel on every GPU",
        check_multi_gpu(&loader, &dir, count),
    );
    for (what, r) in sim_fidelity(&loader, &dir) {
        t.record("6", &what, r);
    }
    t.record(
        "7",
        "archbuild's LTO-IR fat binary links with nvJitLink and runs",
        check_lto(&loader, &dir),
    );
    println!(
        "acceptance: {} passed, {} failed, {} skipped",
        t.pass, t.fail, t.skip
    );
    if t.fail > 0 {
        std::process::exit(1);
    }
}

fn fatbin(dir: &Path, name: &str) -> Res<FatBinary> {
    let path = support::file(dir, name);
    let bytes = std::fs::read(&path)
        .map_err(|e| format!("reading {}: {e} (run gpu_fixtures)", path.display()))?;
    FatBinary::from_vec(bytes).map_err(|e| e.to_string())
}

fn ctx(loader: &Loader<CudaDriver>, ordinal: usize) -> Res<Arc<CudaContext>> {
    loader.driver().context(ordinal).map_err(|e| e.to_string())
}

/// Runs `marker` and returns the constant it wrote.
fn run_marker(ctx: &Arc<CudaContext>, m: &Arc<CudaModule>) -> Res<u32> {
    support::run_u32(ctx, m, "marker")
}

/// Runs `saxpy` on 1M elements and compares with the CPU.
fn run_saxpy(ctx: &Arc<CudaContext>, m: &Arc<CudaModule>) -> Res<String> {
    let n = 1usize << 20;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let f = m
        .load_function("saxpy")
        .map_err(|e| format!("saxpy: {e}"))?;
    let s = ctx.default_stream();
    let dx = s.clone_htod(&x).map_err(|e| e.to_string())?;
    let mut dy = s.clone_htod(&y).map_err(|e| e.to_string())?;
    let (a, n32) = (3.0f32, n as i32);
    let mut b = s.launch_builder(&f);
    b.arg(&a).arg(&dx).arg(&mut dy).arg(&n32);
    // SAFETY: saxpy(float, const float*, float*, int) over n elements.
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }.map_err(|e| e.to_string())?;
    let got = s.clone_dtoh(&dy).map_err(|e| e.to_string())?;
    let bad = (0..n).filter(|&i| got[i] != a * x[i] + y[i]).count();
    if bad > 0 {
        return Err(format!("saxpy: {bad} of {n} results wrong"));
    }
    Ok(format!("saxpy correct on {n} elements"))
}

fn check_cubin(loader: &Loader<CudaDriver>, dir: &Path) -> Res<String> {
    let fb = fatbin(dir, "c01_sm90")?;
    let l = loader.load(&fb, 0).map_err(|e| e.to_string())?;
    let r = &l.report;
    println!("{r}");
    if r.path != LoadPath::Cubin || r.image_target.to_string() != "sm_90" {
        return Err(format!("loaded {} via {}", r.image_target, r.path));
    }
    let c = ctx(loader, 0)?;
    let m = run_marker(&c, &l.module)?;
    if m != 900 {
        return Err(format!("marker {m}, expected 900"));
    }
    Ok(format!(
        "{} via {} in {:.3} ms; {}",
        r.image_target,
        r.path,
        r.elapsed.as_secs_f64() * 1e3,
        run_saxpy(&c, &l.module)?
    ))
}

fn check_cubin_in_place(loader: &Loader<CudaDriver>, dir: &Path) -> Res<String> {
    let fb = fatbin(dir, "c01_sm90")?;
    let l = loader.load_raw(&fb, 0).map_err(|e| e.to_string())?;
    let r = &l.report;
    if r.path != LoadPath::Cubin || r.image_target.to_string() != "sm_90" {
        return Err(format!("loaded {} via {}", r.image_target, r.path));
    }
    let f = l.module.function("marker").map_err(|e| e.to_string())?;
    let s = ctx(loader, 0)?.default_stream();
    let mut out = s.alloc_zeros::<u32>(1).map_err(|e| e.to_string())?;
    {
        let (mut p, _sync) = out.device_ptr_mut(&s);
        let mut params = [(&mut p as *mut u64).cast::<std::ffi::c_void>()];
        // SAFETY: marker(unsigned*) writes one u32 into `out`.
        unsafe { f.launch(&s, LaunchConfig::for_num_elems(1), &mut params) }
            .map_err(|e| e.to_string())?;
    }
    let m = s.clone_dtoh(&out).map_err(|e| e.to_string())?[0];
    if m != 900 {
        return Err(format!("marker {m}, expected 900"));
    }
    Ok(format!(
        "{} via {} in {:.3} ms, marker 900",
        r.image_target,
        r.path,
        r.elapsed.as_secs_f64() * 1e3
    ))
}

fn check_jit_and_cache(loader: &Loader<CudaDriver>, dir: &Path) -> Res<String> {
    let fb = fatbin(dir, "c06_jit")?;
    let cache_dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let cache = JitCache::open(cache_dir.path()).map_err(|e| e.to_string())?;
    let jl = Loader::with_driver(loader.driver()).cache(Some(cache));
    let l = jl.load(&fb, 0).map_err(|e| e.to_string())?;
    let r = &l.report;
    println!("{r}");
    println!(
        "JIT info log (first lines): {}",
        r.jit_log.lines().take(3).collect::<Vec<_>>().join(" | ")
    );
    if r.path != LoadPath::DriverJit || r.image_target.to_string() != "compute_89" {
        return Err(format!("first load: {} via {}", r.image_target, r.path));
    }
    let c = ctx(loader, 0)?;
    let saxpy = run_saxpy(&c, &l.module)?;
    let m = run_marker(&c, &l.module)?;
    if m != 100_890 {
        return Err(format!("marker {m}, expected 100890 (compute_89)"));
    }
    let first_ms = r.elapsed.as_secs_f64() * 1e3;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg("--child-cached")
        .arg(dir)
        .arg(cache_dir.path())
        .output()
        .map_err(|e| format!("spawning the second process: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    if !out.status.success() {
        return Err(format!(
            "second process failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let child = stdout
        .lines()
        .find_map(|l| l.strip_prefix("CHILD-OK "))
        .ok_or("second process reported nothing")?;
    Ok(format!(
        "first: driver JIT in {first_ms:.1} ms, {saxpy}; second process: {child}"
    ))
}

/// The second process of check 2: same fat binary, same cache directory.
fn child_cached(dir: &Path, cache_dir: &Path) -> Res<()> {
    let driver = CudaDriver::new().map_err(|e| e.to_string())?;
    let cache = JitCache::open(cache_dir).map_err(|e| e.to_string())?;
    let loader = Loader::with_driver(driver).cache(Some(cache));
    let l = loader
        .load(&fatbin(dir, "c06_jit")?, 0)
        .map_err(|e| e.to_string())?;
    println!("{}", l.report);
    if !matches!(l.report.path, LoadPath::CachedJit(_)) {
        return Err(format!("loaded via {}, expected cached JIT", l.report.path));
    }
    let c = ctx(&loader, 0)?;
    let saxpy = run_saxpy(&c, &l.module)?;
    println!(
        "CHILD-OK {} in {:.3} ms, {saxpy}",
        l.report.path,
        l.report.elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}

fn check_isa95_refused(loader: &Loader<CudaDriver>, dir: &Path) -> Res<String> {
    let fb = fatbin(dir, "isa95")?;
    match loader.driver().load(0, Cow::Borrowed(fb.bytes())) {
        Err(e) if e.driver_code() == Some(222) => Ok(format!("cuModuleLoadData: {e}")),
        Err(e) => Err(format!("expected 222, got {e}")),
        Ok(_) => Err("the driver loaded ISA 9.5 PTX (is the driver newer than CUDA 13.0?)".into()),
    }
}

fn check_isa95_nvjitlink(loader: &Loader<CudaDriver>, dir: &Path) -> Res<String> {
    let fb = fatbin(dir, "isa95")?;
    let l = Loader::with_driver(loader.driver());
    let pf = l.preflight(&fb).map_err(|e| e.to_string())?;
    if let Err(e) = &pf.gpus[0].outcome {
        return Err(format!(
            "{e} (set ARCHBUILD_NVJITLINK to the carried libnvJitLink.so.13)"
        ));
    }
    let loaded = l.load(&fb, 0).map_err(|e| e.to_string())?;
    let r = &loaded.report;
    println!("{r}");
    if !matches!(r.path, LoadPath::NvJitLink(_))
        || !matches!(
            pf.gpus[0].outcome.as_ref().unwrap().route,
            PlannedRoute::NvJitLink(_)
        )
    {
        return Err(format!("loaded via {}", r.path));
    }
    let c = ctx(loader, 0)?;
    let m = run_marker(&c, &loaded.module)?;
    if m != 100_900 {
        return Err(format!("marker {m}, expected 100900 (compute_90)"));
    }
    Ok(format!(
        "{} via {} in {:.1} ms; {}",
        r.image_target,
        r.path,
        r.elapsed.as_secs_f64() * 1e3,
        run_saxpy(&c, &loaded.module)?
    ))
}

fn check_isa95_without(loader: &Loader<CudaDriver>, dir: &Path) -> Res<String> {
    let fb = fatbin(dir, "isa95")?;
    let l = Loader::with_driver(loader.driver()).nvjitlink(None);
    match l.load(&fb, 0) {
        Err(e @ Error::PtxTooNew { .. }) => {
            let msg = e.to_string();
            let names_fixes = msg.contains("add 9.0 to ARCHBUILD_ARCHS")
                && msg.contains("nvJitLink")
                && msg.contains("update the NVIDIA driver");
            if names_fixes {
                Ok(msg)
            } else {
                Err(format!("message lacks a fix: {msg}"))
            }
        }
        Err(e) => Err(format!("unexpected error: {e}")),
        Ok(l) => Err(format!("loaded via {}", l.report.path)),
    }
}

/// Loader's choice vs the driver's own pick from the same whole fat binary.
fn compare_with_driver(loader: &Loader<CudaDriver>, dir: &Path, name: &str) -> Res<String> {
    let fb = fatbin(dir, name)?;
    let c = ctx(loader, 0)?;
    let driver_pick = match loader.driver().load(0, Cow::Borrowed(fb.bytes())) {
        Ok(m) => Ok(support::target_of_marker(run_marker(&c, &m)?)),
        Err(e) => Err(e.driver_code().unwrap_or(0)),
    };
    let ours = loader.load(&fb, 0);
    match (driver_pick, ours) {
        (Ok(d), Ok(l)) => {
            let ran = support::target_of_marker(run_marker(&c, &l.module)?);
            let reported = l.report.image_target.to_string();
            if ran != reported {
                return Err(format!(
                    "loader reported {reported} but its module is {ran}"
                ));
            }
            if d == reported {
                Ok(format!("driver {d}, loader {reported} ({})", l.report.path))
            } else {
                Err(format!(
                    "driver picked {d}, loader picked {reported}\n{}",
                    l.report
                ))
            }
        }
        (Err(code), Err(e)) => Ok(format!("both refuse: driver {code}, loader: {e}")),
        (Ok(d), Err(e)) => Err(format!("driver loads {d}, loader fails: {e}")),
        (Err(code), Ok(l)) => Err(format!(
            "driver fails with {code}, loader loads {} via {}",
            l.report.image_target, l.report.path
        )),
    }
}

fn check_multi_gpu(loader: &Loader<CudaDriver>, dir: &Path, count: usize) -> Res<String> {
    if count < 2 {
        return Ok(format!("SKIP: {count} GPU visible, needs 2 or more"));
    }
    let fb = fatbin(dir, "multi")?;
    let pf = loader.preflight(&fb).map_err(|e| e.to_string())?;
    print!("{pf}");
    if pf.gpus.len() != count {
        return Err(format!(
            "preflight covered {} of {count} GPUs",
            pf.gpus.len()
        ));
    }
    let pf = pf.ensure().map_err(|e| e.to_string())?;
    let mut done = Vec::new();
    for g in &pf.gpus {
        let c = CudaContext::new(g.ordinal).map_err(|e| e.to_string())?;
        let l = loader.load_in(&fb, &c).map_err(|e| e.to_string())?;
        run_saxpy(&c, &l.module)?;
        done.push(format!(
            "GPU {} {} {}",
            g.ordinal, l.report.image_target, l.report.path
        ));
    }
    Ok(format!("saxpy correct on {}", done.join(", ")))
}

/// The simulated driver's codes for the same inputs, against the real driver's.
fn sim_fidelity(loader: &Loader<CudaDriver>, dir: &Path) -> Vec<(String, Res<String>)> {
    let real = loader.driver();
    let (Ok(version), Ok(dev)) = (real.version(), real.device(0)) else {
        return Vec::new();
    };
    let sim = SimDriver::new(version).with_named_gpu(&dev.name, dev.cc);
    let src = dir.join("src");
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for f in [
        "sm_86.cubin",
        "sm_90.cubin",
        "compute_90.ptx",
        "compute_100.isa90.ptx",
        "compute_80.isa90.ptx",
    ] {
        if let Ok(mut b) = std::fs::read(src.join(f)) {
            if f.ends_with(".ptx") {
                b.push(0);
            }
            cases.push((f.to_string(), b));
        }
    }
    cases.push(("garbage".into(), b"definitely not a CUDA image\0".to_vec()));
    let code = |r: Result<(), Error>| r.map_or_else(|e| e.driver_code().unwrap_or(u32::MAX), |_| 0);
    cases
        .into_iter()
        .map(|(what, bytes)| {
            let r = code(real.load(0, Cow::Borrowed(&bytes)).map(drop));
            let s = code(sim.load(0, Cow::Borrowed(&bytes)).map(drop));
            let res = if r == s {
                Ok(format!("both {r}"))
            } else {
                Err(format!("real driver {r}, simulated {s}"))
            };
            (format!("simulated driver matches on {what}"), res)
        })
        .collect()
}

fn check_lto(loader: &Loader<CudaDriver>, dir: &Path) -> Res<String> {
    let Some(lib) = std::env::var_os("ARCHBUILD_NVJITLINK") else {
        return Ok("SKIP: set ARCHBUILD_NVJITLINK to the carried libnvJitLink.so.13".into());
    };
    let path = support::file(dir, "lto90");
    let bytes = std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let jit = NvJitLink::open(Path::new(&lib)).map_err(|e| e.to_string())?;
    let sm90 = Target::parse_nvcc_name("sm_90").ok_or("sm_90")?.arch;
    let started = std::time::Instant::now();
    let out = jit
        .link_lto_fatbin(&bytes, sm90, "lto90.fatbin")
        .map_err(|e| e.to_string())?;
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let c = ctx(loader, 0)?;
    let m = c
        .load_module(cudarc::nvrtc::Ptx::from_binary(out.cubin.clone()))
        .map_err(|e| format!("cuModuleLoadData on the linked cubin: {e}"))?;
    let marker = run_marker(&c, &m)?;
    if marker != support::LTO_MARKER {
        return Err(format!("marker {marker}, expected {}", support::LTO_MARKER));
    }
    Ok(format!(
        "nvJitLink {} linked {} bytes of fat binary into a {}-byte sm_90 cubin in {ms:.1} ms; marker {marker}; {}",
        jit.version(),
        bytes.len(),
        out.cubin.len(),
        run_saxpy(&c, &m)?
    ))
}
