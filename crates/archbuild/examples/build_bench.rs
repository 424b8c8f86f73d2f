//! Build-time benchmark: archbuild against nvcc on one translation unit, ratios from one run.
//!
//! ```text
//! cargo run --release -p archbuild --example build_bench [-- [path/to/kernels.cu] [--reps N]]
//! ```
//!
//! Default source: `benches/inputs/bench_kernels.cu` in this repository. Targets: sm_75, sm_80,
//! sm_86, sm_89, sm_90 + compute_90 (the 5-SM + PTX set of `results/benchmarks.md`). Measures, on the
//! same machine in one run:
//!
//! 1. `nvcc --fatbin` with all targets (serial inside nvcc);
//! 2. N times (`--reps`, default 1), alternating: `nvcc --fatbin --threads 2`, archbuild cold
//!    (empty cache) and archbuild cold with every target compiled on its own
//!    (`share_cicc(false)`), whose fat binary must be byte-identical; then a no-op rebuild,
//!    then the same list plus sm_120;
//! 3. a single-arch `nvcc -cubin -arch=sm_120`, the reference for "add one arch";
//! 4. the default arch list (`all-major`): `nvcc --fatbin --threads 2`, then archbuild cold with
//!    and without cicc sharing.
//!
//! Takes several minutes on 2 cores. Prints the figures and the ratios `results/benchmarks.md` records.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use archbuild::{config::Home, toolkit::Discovery, Build, Env, Toolkit};

mod support;

use support::fail;

const ARCHS: &str = "sm_75 sm_80 sm_86 sm_89 sm_90 compute_90";
const ADDED: &str = "sm_120";

fn nvcc_time(tk: &Toolkit, args: &[String], src: &Path, out: &Path) -> f64 {
    let start = Instant::now();
    let st = Command::new(tk.nvcc())
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(src)
        .status()
        .unwrap_or_else(|e| fail(&format!("cannot run {}: {e}", tk.nvcc().display())));
    if !st.success() {
        fail(&format!("nvcc {args:?} failed ({st})"));
    }
    start.elapsed().as_secs_f64()
}

fn archbuild_time(
    tk: &Toolkit,
    src: &Path,
    archs: &str,
    cache: &Path,
    out: &Path,
    share: bool,
) -> (f64, archbuild::BuildReport) {
    let start = Instant::now();
    let report = Build::new()
        .toolkit(tk.clone())
        .env(Env::process().with_cargo_metadata(false))
        .manifest_dir(src.parent().unwrap())
        .file(src.file_name().unwrap())
        .archs(archs)
        .cache_dir(cache)
        .out_dir(out)
        .share_cicc(share)
        .rust_module(false)
        .quiet(true)
        .try_compile("bench")
        .unwrap_or_else(|e| fail(&e.to_string()));
    (start.elapsed().as_secs_f64(), report)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let reps = support::take_reps(&mut args);
    let src = support::source(&args);
    let src = std::fs::canonicalize(&src).unwrap_or_else(|e| {
        fail(&format!(
            "cannot read the benchmark source {}: {e}; pass a .cu file (default: \
             benches/inputs/bench_kernels.cu)",
            src.display()
        ))
    });
    let env = Env::process().with_cargo_metadata(false);
    let tk = Discovery::new(Home::from_env(&env))
        .locate(&env, true, &mut archbuild::toolkit::stderr_progress)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let tmp = tempfile::tempdir()
        .unwrap_or_else(|e| fail(&format!("cannot create a temp directory: {e}")));
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    println!("source: {}", src.display());
    println!(
        "toolkit: CUDA {} ({}), {cores} CPUs",
        tk.release(),
        tk.nvcc().display()
    );
    println!("targets: {ARCHS}; added arch: {ADDED}\n");

    let gencode: Vec<String> = [75, 80, 86, 89]
        .iter()
        .map(|sm| format!("-gencode=arch=compute_{sm},code=sm_{sm}"))
        .chain(["-gencode=arch=compute_90,code=[sm_90,compute_90]".to_string()])
        .collect();
    let mut fatbin_args = vec!["--fatbin".to_string()];
    fatbin_args.extend(gencode.iter().cloned());
    let serial = nvcc_time(&tk, &fatbin_args, &src, &tmp.path().join("serial.fatbin"));
    println!("nvcc --fatbin (serial)        {serial:8.2} s");
    let mut threaded = fatbin_args.clone();
    threaded.extend(["--threads".to_string(), "2".to_string()]);
    // `--threads 2` and the cold build alternate, so drift on the machine hits both alike.
    let mut pairs = Vec::new();
    let mut separates = Vec::new();
    let mut cold_report = None;
    let out = tmp.path().join("out");
    let mut cache = PathBuf::new();
    for rep in 0..reps {
        let threads2 = nvcc_time(&tk, &threaded, &src, &tmp.path().join("t2.fatbin"));
        println!("nvcc --fatbin --threads 2     {threads2:8.2} s");
        cache = tmp.path().join(format!("cache{rep}"));
        let (cold, r) = archbuild_time(&tk, &src, ARCHS, &cache, &out, true);
        let shared: Vec<&str> = r
            .jobs
            .iter()
            .filter(|j| j.served.shared_from().is_some())
            .map(|j| j.target.as_str())
            .collect();
        println!(
            "archbuild cold                {cold:8.2} s  ({} jobs, {} processes, {} workers; \
             cicc shared: {shared:?})",
            r.jobs_planned, r.processes_started, r.workers
        );
        let sep_out = tmp.path().join(format!("separate{rep}"));
        let sep_cache = tmp.path().join(format!("separate-cache{rep}"));
        let (separate, rs) = archbuild_time(&tk, &src, ARCHS, &sep_cache, &sep_out, false);
        println!(
            "archbuild cold, no sharing    {separate:8.2} s  ({} processes)",
            rs.processes_started
        );
        let read = |r: &archbuild::BuildReport| {
            std::fs::read(&r.modules[0].fatbin)
                .unwrap_or_else(|e| fail(&format!("cannot read the fat binary: {e}")))
        };
        if read(&r) != read(&rs) {
            fail("the fat binaries with and without cicc sharing differ");
        }
        pairs.push((threads2, cold));
        separates.push(separate);
        cold_report = Some(r);
    }
    let cold_report = cold_report.expect("--reps is at least 1");
    let mut ratios: Vec<f64> = pairs.iter().map(|(t, c)| c / t).collect();
    ratios.sort_by(f64::total_cmp);
    let (_, cold) = pairs[pairs.len() - 1];
    let (noop, r) = archbuild_time(&tk, &src, ARCHS, &cache, &out, true);
    println!(
        "archbuild no-op rebuild       {noop:8.3} s  ({} jobs run, {} processes)",
        r.jobs_run, r.processes_started
    );
    assert_eq!(r.processes_started, 0, "a no-op rebuild must start nothing");
    let (add, r) = archbuild_time(&tk, &src, &format!("{ARCHS} {ADDED}"), &cache, &out, true);
    println!(
        "archbuild add {ADDED}          {add:8.2} s  (ran {:?})",
        r.ran().iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>()
    );
    let single = nvcc_time(
        &tk,
        &["-cubin".into(), format!("-arch={ADDED}")],
        &src,
        &tmp.path().join("single.cubin"),
    );
    println!("nvcc -cubin -arch={ADDED}       {single:8.2} s");
    let default = |share: bool| {
        let dir = tmp.path().join(format!("default-{share}"));
        archbuild_time(&tk, &src, "all-major", &dir.join("cache"), &dir, share)
    };
    // The default list next to nvcc on the same targets; sharing on and off are the same jobs
    // when no arch of the list follows another (8.0 is alone in its class there).
    let all_major_gencode: Vec<String> = [75, 80, 90, 100, 110]
        .iter()
        .map(|sm| format!("-gencode=arch=compute_{sm},code=sm_{sm}"))
        .chain(["-gencode=arch=compute_120,code=[sm_120,compute_120]".to_string()])
        .chain([
            "--fatbin".to_string(),
            "--threads".to_string(),
            "2".to_string(),
        ])
        .collect();
    let default_nvcc = nvcc_time(
        &tk,
        &all_major_gencode,
        &src,
        &tmp.path().join("all-major.fatbin"),
    );
    let (default_shared, rd) = default(true);
    let (default_separate, _) = default(false);
    let followers = rd
        .jobs
        .iter()
        .filter(|j| j.served.shared_from().is_some())
        .count();
    println!("nvcc all-major --threads 2    {default_nvcc:8.2} s");
    println!(
        "archbuild all-major cold      {default_shared:8.2} s  ({}; {} processes, {followers} \
         shared)",
        rd.archs, rd.processes_started
    );
    println!("archbuild all-major, no share {default_separate:8.2} s\n");

    println!("ratios (targets in results/benchmarks.md):");
    let each: Vec<String> = pairs.iter().map(|(t, c)| format!("{:.2}", c / t)).collect();
    println!(
        "  cold / nvcc --threads 2      {:.2}  (target <= 0.70; median of {reps}: {})",
        ratios[ratios.len() / 2],
        each.join(", ")
    );
    println!("  cold / nvcc serial           {:.2}", cold / serial);
    let each: Vec<String> = pairs
        .iter()
        .zip(&separates)
        .map(|((t, c), s)| format!("{:.2}/{:.2}", c / s, s / t))
        .collect();
    println!(
        "  shared / separate cold, separate / nvcc --threads 2: {} (fat binaries \
         byte-identical)",
        each.join(", ")
    );
    println!(
        "  all-major / nvcc --threads 2 {:.2} shared, {:.2} separate (no slower than 0.95)",
        default_shared / default_nvcc,
        default_separate / default_nvcc
    );
    println!("  no-op rebuild                {noop:.3} s (target <= 0.05 s)");
    println!(
        "  add one arch / single arch   {:.2}  (target <= 1.20)",
        add / single
    );
    println!("\ncold build, per job (wall time of each process):");
    for j in &cold_report.jobs {
        println!("  {:<6} {:<12} {:7.2} s", j.phase, j.target, j.seconds);
    }
    let busy: f64 = cold_report.jobs.iter().map(|j| j.seconds).sum();
    println!(
        "  sum {busy:.2} s of process time in {cold:.2} s wall on {} workers",
        cold_report.workers
    );
}
