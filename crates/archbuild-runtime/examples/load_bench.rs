//! Load-time benchmark on a GPU (issue 5), ratios from one run, over the benchmark fat binaries
//! `gpu_fixtures --bench` writes (sm_90 cubin + compute_90 PTX of `benches/inputs/matmul_variants.cu`
//! and `bench_kernels.cu`):
//!
//! - cubin: our loader vs raw `cuModuleLoadData` on the same cubin (target ≤ 1.05× + 50 µs),
//!   for `load_raw` (in place) and for `load` (cudarc module, which costs one copy);
//! - cached JIT: our cache vs the driver's own JIT cache, warm, each in fresh processes (target
//!   ≤ 0.3×), and the same hit, in place (`load_raw`) and into a cudarc module (`load`), vs a
//!   raw load of the fat binary's cubin in the same process after warm-up (target ≤ 2×), with a
//!   raw load of the cached cubin itself, so that what the cache adds (open, read, verify) is
//!   seen apart from what the driver takes;
//! - cold JIT: our path (JIT, cache write, load) vs the driver's `cuModuleLoadData` on the PTX
//!   with an empty `CUDA_CACHE_PATH` (target ≤ 1.0×).
//!
//! Both JIT measures run with the default `ARCHBUILD_JIT=auto` (nvJitLink of the driver's major
//! version when one is found, e.g. at `ARCHBUILD_NVJITLINK`) and with `ARCHBUILD_JIT=driver`.
//!
//! ```text
//! load_bench FIXTURES_DIR [--samples N]
//! load_bench --child series FATBIN N   # diagnostics: each way of loading N times in a row
//! ```
//! The driver reads `CUDA_CACHE_*` at initialisation, so every cache measurement runs in a
//! fresh child process (this program with `--child`); cuInit and context creation are not timed.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use archbuild_runtime::driver::{CudaDriver, Driver};
use archbuild_runtime::{FatBinary, LoadPath, Loader, Policy};
use cudarc::driver::sys;

type Res<T> = Result<T, String>;

const BENCH: &[(&str, &str)] = &[
    ("matmul", "matmul_variants.cu"),
    ("kernels", "bench_kernels.cu"),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        match child(&args[1], Path::new(&args[2]), args[3].parse().unwrap_or(1)) {
            Ok(line) => println!("RESULT {line}"),
            Err(e) => {
                println!("CHILD-ERROR {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: load_bench FIXTURES_DIR [--samples N]");
        std::process::exit(2);
    };
    let samples: usize = args
        .iter()
        .position(|a| a == "--samples")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(3);
    if let Err(e) = CudaDriver::new() {
        println!("no GPU: skipped ({e})");
        return;
    }
    for (stem, source) in BENCH {
        let path = dir.join(format!("bench_{stem}.fatbin"));
        if let Err(e) = bench_one(&path, source, samples) {
            println!("error in {}: {e}", path.display());
            std::process::exit(1);
        }
    }
}

fn bench_one(path: &Path, source: &str, samples: usize) -> Res<()> {
    let fb = FatBinary::from_vec(
        std::fs::read(path).map_err(|e| format!("{e} (run gpu_fixtures --bench)"))?,
    )
    .map_err(|e| e.to_string())?;
    let sizes: Vec<String> = fb
        .images()
        .iter()
        .map(|i| format!("{} {} KB", i.target, i.size / 1024))
        .collect();
    println!("== {source} ({}: {})", path.display(), sizes.join(", "));
    let ms = |us: f64| us / 1e3;

    // Cubin: in this process, interleaved, after warm-up.
    let cubin_kb = fb
        .images()
        .iter()
        .find(|i| i.target.to_string().starts_with("sm_"))
        .map_or(0, |i| i.size / 1024);
    let cub = child("cubin", path, 30)?;
    let v: Vec<f64> = cub
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    let (raw, cudarc, ours, in_place) = (v[0], v[1], v[2], v[3]);
    let limit = 1.05 * raw + 50.0;
    println!(
        "cubin load: ours in place (load_raw) {:.3} ms vs raw cuModuleLoadData {:.3} ms: {:.2}x, +{:.0} us; \
         target <= 1.05x + 50 us ({:.3} ms): {}",
        ms(in_place), ms(raw), in_place / raw, in_place - raw, ms(limit), met(in_place <= limit)
    );
    println!(
        "cubin load, cudarc module: ours (load) {:.3} ms, cudarc load_module {:.3} ms: {:.2}x and {:.2}x raw \
         (cudarc takes the image as an owned Vec, one copy of {} KB)",
        ms(ours), ms(cudarc), ours / raw, cudarc / raw, cubin_kb
    );

    // Warm caches: fill once, then measure in a fresh process.
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let drv_cache = tmp.path().join("nv");
    spawn("raw-ptx", path, 1, &[("CUDA_CACHE_PATH", &drv_cache)])?;
    let drv_warm = first_and_median(&spawn(
        "raw-ptx",
        path,
        10,
        &[("CUDA_CACHE_PATH", &drv_cache)],
    )?);
    // Ours with the default JIT preference (auto: nvJitLink of the driver's major version when
    // one is found, ptxas in parallel) and with the driver's JIT (ARCHBUILD_JIT=driver).
    for jit in ["auto", "driver"] {
        let (ours, scratch) = (tmp.path().join(format!("ab-{jit}")), tmp.path().join("nv2"));
        let env: [(&str, &Path); 3] = [
            ("ARCHBUILD_JIT_CACHE", &ours),
            ("CUDA_CACHE_PATH", &scratch),
            ("ARCHBUILD_JIT", Path::new(jit)),
        ];
        spawn("ours-ptx", path, 1, &env)?;
        let out = spawn("ours-ptx", path, 10, &env)?;
        if !out.contains("cached JIT") {
            return Err(format!("second run did not hit archbuild's cache: {out}"));
        }
        let w = first_and_median(&out);
        println!(
            "cached JIT (ARCHBUILD_JIT={jit}: {}): ours {:.3} ms (first in process {:.3}) vs driver JIT cache warm {:.3} ms (first {:.3}): {:.3}x; target <= 0.3x: {}",
            note(&out), ms(w.1), ms(w.0), ms(drv_warm.1), ms(drv_warm.0), w.1 / drv_warm.1, met(w.1 <= 0.3 * drv_warm.1)
        );
        // The warm hit against raw loads, in one process after warm-up rounds (a fresh
        // process's first loads are slower for every way of loading, raw ones included).
        let r: Vec<f64> = spawn("hit", path, 20, &env)?
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let (first, in_place, module, fat, cached) = (r[0], r[1], r[2], r[3], r[4]);
        println!(
            "cached JIT vs a raw load (ARCHBUILD_JIT={jit}): in place (load_raw) {:.3} ms (first in process {:.3}), into a cudarc module (load) {:.3} ms, vs raw cuModuleLoadData of the fat binary's cubin {:.3} ms in the same process: {:.2}x and {:.2}x; target <= 2x: {}",
            ms(in_place), ms(first), ms(module), ms(fat), in_place / fat, module / fat,
            met(in_place <= 2.0 * fat && module <= 2.0 * fat)
        );
        println!(
            "  where it goes: a raw load of the cached cubin itself ({:.0} KB; the fat binary's is {:.0} KB) {:.3} ms ({:.2}x the fat binary's); the cache's lookup (open, read, verify) and the loader {:.3} ms",
            r[6] / 1024.0, r[5] / 1024.0, ms(cached), cached / fat, ms(in_place - cached)
        );
    }

    // Cold JIT: every sample a fresh process with empty caches.
    let cold = |mode: &str, jit: &str| -> Res<(f64, String)> {
        let (mut v, mut last) = (Vec::new(), String::new());
        for i in 0..samples {
            let d = tmp.path().join(format!("cold-{mode}-{jit}-{i}"));
            let (nv, ab) = (d.join("nv"), d.join("ab"));
            let env: [(&str, &Path); 3] = [
                ("CUDA_CACHE_PATH", &nv),
                ("ARCHBUILD_JIT_CACHE", &ab),
                ("ARCHBUILD_JIT", Path::new(jit)),
            ];
            last = spawn(mode, path, 1, &env)?;
            v.push(first_and_median(&last).0);
        }
        Ok((median(&mut v), note(&last)))
    };
    let (drv_cold, _) = cold("raw-ptx", "driver")?;
    for jit in ["auto", "driver"] {
        let (ours, how) = cold("ours-ptx", jit)?;
        println!(
            "cold JIT (ARCHBUILD_JIT={jit}: {how}): ours {:.1} ms vs driver {:.1} ms (medians of {samples}, library load included): {:.3}x; target <= 1.0x: {}",
            ms(ours), ms(drv_cold), ours / drv_cold, met(ours <= drv_cold)
        );
    }
    Ok(())
}

/// The route a child reported ("nvJitLink 13.5", "cached JIT (compiled by …)").
fn note(line: &str) -> String {
    line.split_whitespace()
        .skip(2)
        .collect::<Vec<_>>()
        .join(" ")
}

fn met(ok: bool) -> &'static str {
    if ok {
        "MET"
    } else {
        "NOT MET"
    }
}

/// Microseconds `f` took; what it returned is dropped after the clock stops.
fn timed<T>(f: impl FnOnce() -> Res<T>) -> Res<f64> {
    let t = Instant::now();
    let out = f()?;
    let us = t.elapsed().as_secs_f64() * 1e6;
    drop(out);
    Ok(us)
}

/// The loaded module, insisting that it was loaded as a cubin.
fn cubin_path<M>(l: archbuild_runtime::Result<archbuild_runtime::Loaded<M>>) -> Res<M> {
    let l = l.map_err(|e| e.to_string())?;
    match l.report.path {
        LoadPath::Cubin => Ok(l.module),
        p => Err(format!("loader took {p}")),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// "first median path…" from a child's result line.
fn first_and_median(line: &str) -> (f64, f64) {
    let mut it = line
        .split_whitespace()
        .filter_map(|x| x.parse::<f64>().ok());
    (it.next().unwrap_or(f64::NAN), it.next().unwrap_or(f64::NAN))
}

fn spawn(mode: &str, path: &Path, reps: usize, env: &[(&str, &Path)]) -> Res<String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(exe);
    cmd.args(["--child", mode]).arg(path).arg(reps.to_string());
    for var in [
        "CUDA_CACHE_DISABLE",
        "CUDA_CACHE_PATH",
        "ARCHBUILD_JIT_CACHE",
        "ARCHBUILD_JIT",
        "ARCHBUILD_LOAD_POLICY",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        // The driver may not create a missing CUDA_CACHE_PATH (and would then not cache).
        if k.starts_with("CUDA_CACHE") {
            std::fs::create_dir_all(v).map_err(|e| format!("creating {}: {e}", v.display()))?;
        }
        cmd.env(k, v);
    }
    let out = cmd.output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT ").map(str::to_string))
        .ok_or_else(|| {
            format!(
                "child {mode} failed: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
}

/// One measurement in this process; returns "first_us median_us [extra]" (cubin: "raw cudarc ours").
fn child(mode: &str, path: &Path, reps: usize) -> Res<String> {
    let driver = CudaDriver::new().map_err(|e| e.to_string())?;
    let ctx = driver.context(0).map_err(|e| e.to_string())?;
    ctx.bind_to_thread().map_err(|e| e.to_string())?;
    let fb = FatBinary::from_vec(std::fs::read(path).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let find = |prefix: &str| {
        fb.images()
            .iter()
            .position(|i| i.target.to_string().starts_with(prefix))
    };
    let cubin_i = find("sm_").ok_or("no cubin")?;
    let ptx_i = find("compute_").ok_or("no PTX")?;
    let raw_load = |bytes: &[u8]| -> Res<f64> {
        let t = Instant::now();
        let mut m: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: a complete cubin or NUL-terminated PTX; unloaded right after.
        unsafe { sys::cuModuleLoadData(&mut m, bytes.as_ptr().cast()) }
            .result()
            .map_err(|e| format!("{e:?}"))?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        unsafe { sys::cuModuleUnload(m) };
        Ok(us)
    };
    let mut times = Vec::new();
    let mut note = String::new();
    match mode {
        "cubin" => {
            let cubin = fb
                .image_data(cubin_i)
                .map_err(|e| e.to_string())?
                .into_owned();
            let loader = Loader::with_driver(driver);
            // raw, cudarc's load_module, ours (cudarc module), ours (in place); the order
            // rotates each round so none always follows the same unload.
            let mut t: [Vec<f64>; 4] = Default::default();
            for i in 0..reps + 4 {
                for k in 0..4 {
                    let which = (i + k) % 4;
                    // Only the load is timed; every module is unloaded after the clock
                    // stops, as raw_load does.
                    let us = match which {
                        0 => raw_load(&cubin)?,
                        1 => timed(|| {
                            let m = loader.driver().load(0, Cow::Borrowed(&cubin));
                            m.map_err(|e| e.to_string())
                        })?,
                        2 => timed(|| cubin_path(loader.load(&fb, 0)))?,
                        _ => timed(|| cubin_path(loader.load_raw(&fb, 0)))?,
                    };
                    if i >= 4 {
                        t[which].push(us);
                    }
                }
            }
            let [a, b, c, d] = &mut t;
            return Ok(format!(
                "{} {} {} {}",
                median(a),
                median(b),
                median(c),
                median(d)
            ));
        }
        "raw-ptx" => {
            let mut ptx = fb
                .image_data(ptx_i)
                .map_err(|e| e.to_string())?
                .into_owned();
            ptx.push(0);
            for _ in 0..reps {
                times.push(raw_load(&ptx)?);
            }
        }
        "hit" => {
            // A warm hit loaded in place (`load_raw`) and into a cudarc module (`load`),
            // interleaved after warm-up rounds, as the cubin measure is, with raw loads of the
            // fat binary's cubin and of the cached cubin itself (read from its entry
            // beforehand): what is left over the latter is the cache's own cost (open, read,
            // verify) and the loader's.
            let (loader, cached, fat_cubin) = hit_setup(driver, &fb, cubin_i)?;
            let cached = &cached[..];
            let mut t: [Vec<f64>; 4] = Default::default();
            for i in 0..reps + 4 {
                for k in 0..4 {
                    let which = (i + k) % 4;
                    let us = match which {
                        0 => {
                            let t = Instant::now();
                            let l = loader.load_raw(&fb, 0).map_err(|e| e.to_string())?;
                            let us = t.elapsed().as_secs_f64() * 1e6;
                            note = l.report.path.to_string();
                            us
                        }
                        1 => timed(|| loader.load(&fb, 0).map_err(|e| e.to_string()))?,
                        2 => raw_load(&fat_cubin)?,
                        _ => raw_load(cached)?,
                    };
                    if i == 0 && which == 0 {
                        times.push(us);
                    }
                    if i >= 4 {
                        t[which].push(us);
                    }
                }
            }
            let [in_place, module, fat, cached_t] = &mut t;
            return Ok(format!(
                "{} {} {} {} {} {} {} {note}",
                times[0],
                median(in_place),
                median(module),
                median(fat),
                median(cached_t),
                fat_cubin.len(),
                cached.len()
            ));
        }
        "series" => {
            // Diagnostics: each way of loading `reps` times in a row (not interleaved), every
            // time printed, to see whether one way's cost depends on what ran before it.
            let (loader, cached, fat_cubin) = hit_setup(driver, &fb, cubin_i)?;
            let cached = &cached[..];
            let mut out = String::new();
            for way in [
                "load",
                "load_raw",
                "raw-cached",
                "raw-fat",
                "load",
                "load_raw",
            ] {
                let mut v = Vec::new();
                for _ in 0..reps {
                    v.push(match way {
                        "load" => timed(|| loader.load(&fb, 0).map_err(|e| e.to_string()))?,
                        "load_raw" => timed(|| loader.load_raw(&fb, 0).map_err(|e| e.to_string()))?,
                        "raw-cached" => raw_load(cached)?,
                        _ => raw_load(&fat_cubin)?,
                    });
                }
                let list: Vec<String> = v.iter().map(|us| format!("{:.0}", us)).collect();
                out += &format!(
                    "{way} median {:.0} us: {}; ",
                    median(&mut v),
                    list.join(" ")
                );
            }
            return Ok(out);
        }
        "ours-ptx" => {
            // As a program would: configured by the environment (ARCHBUILD_JIT, _JIT_CACHE,
            // ARCHBUILD_NVJITLINK), PTX forced so the fat binary's cubin is not taken.
            let loader = Loader::from_env(&driver)
                .map_err(|e| e.to_string())?
                .policy(Policy::ForcePtx);
            for _ in 0..reps {
                let t = Instant::now();
                let l = loader.load(&fb, 0).map_err(|e| e.to_string())?;
                times.push(t.elapsed().as_secs_f64() * 1e6);
                note = l.report.path.to_string();
            }
        }
        _ => return Err(format!("unknown mode {mode}")),
    }
    let first = times[0];
    Ok(format!("{first} {} {note}", median(&mut times)))
}

/// For the hit measures: a loader configured by the environment with PTX forced, the cubin of
/// its JIT cache's largest entry (read beforehand, header dropped) and the fat binary's cubin.
fn hit_setup(
    driver: CudaDriver,
    fb: &FatBinary,
    cubin_i: usize,
) -> Res<(Loader<CudaDriver>, Vec<u8>, Vec<u8>)> {
    let loader = Loader::from_env(driver)
        .map_err(|e| e.to_string())?
        .policy(Policy::ForcePtx);
    let cache = loader.jit_cache().ok_or("no JIT cache")?;
    let entry = cache
        .entries()
        .into_iter()
        .max_by_key(|e| e.1)
        .ok_or("empty JIT cache")?;
    let bytes = std::fs::read(&entry.0).map_err(|e| e.to_string())?;
    let cached = bytes
        .get(archbuild_store::entry::HEADER..)
        .ok_or("entry shorter than its header")?
        .to_vec();
    let fat_cubin = fb
        .image_data(cubin_i)
        .map_err(|e| e.to_string())?
        .into_owned();
    Ok((loader, cached, fat_cubin))
}
