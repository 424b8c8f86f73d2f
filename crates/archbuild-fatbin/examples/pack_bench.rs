//! Benchmark (not a test): pack time and size of archbuild's fat binary writer against NVIDIA's
//! `fatbinary`, for the same images, measured in one run.
//!
//! ```text
//! cargo run --release -p archbuild-fatbin --example pack_bench [-- SOURCE.cu [WORKDIR]]
//! ```
//!
//! Compiles the source with nvcc into cubins for sm_75/80/86/89/90 and PTX for compute_90 (two
//! nvcc processes at a time; images are reused from WORKDIR when newer than the source, default
//! `$TMPDIR/archbuild-pack-bench`), then packs them with archbuild (stored, nvcc default, zstd,
//! LZ4, size) and with `fatbinary` (`--compress=false`, default, `--compress-all`,
//! `--compress-all --compress-mode=speed`, `--compress-all --compress-mode=size`), and prints
//! sizes, best-of-N times and ratios. SOURCE defaults to `benches/inputs/bench_kernels.cu`. nvcc
//! is found via `NVCC`, then `CUDA_HOME/bin/nvcc`, then `PATH`, then the toolkit archbuild
//! provisions (`$ARCHBUILD_HOME/toolkits`, default `~/.cache/archbuild/toolkits`); `fatbinary`
//! next to it. (nvcc.profile adds the toolkit's `include/cccl` itself.)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use archbuild_fatbin::{read_fatbin, CompressionChoice, FatbinWriter, Target, TargetKind};

const TARGETS: [&str; 6] = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "compute_90"];
const RUNS: usize = 5;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn find_nvcc() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("NVCC") {
        return Ok(PathBuf::from(p));
    }
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        return Ok(Path::new(&home).join("bin").join("nvcc"));
    }
    if let Some(nvcc) = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("nvcc"))
        .find(|p| p.is_file())
    {
        return Ok(nvcc);
    }
    // The toolkit archbuild installs from PyPI (pip's layout: cuda-R/nvidia/cu*/bin/nvcc).
    let toolkits = match std::env::var_os("ARCHBUILD_HOME") {
        Some(home) => PathBuf::from(home).join("toolkits"),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
            .unwrap_or_default()
            .join("archbuild/toolkits"),
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(&toolkits)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|release| std::fs::read_dir(release.path().join("nvidia")).into_iter())
        .flatten()
        .flatten()
        .map(|cu| cu.path().join("bin/nvcc"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.pop().ok_or_else(|| {
        format!(
            "nvcc not found: set NVCC or CUDA_HOME, put nvcc on PATH, or let archbuild install \
             its toolkit into {} (`cargo run -p cargo-archbuild -- toolkit install`)",
            toolkits.display()
        )
    })
}

fn check(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// Compiles every target not already in `work` (newer than `src`), two at a time.
fn compile(nvcc: &Path, src: &Path, work: &Path) -> Result<Vec<(Target, PathBuf)>, String> {
    let src_time = std::fs::metadata(src)
        .and_then(|m| m.modified())
        .map_err(|e| format!("{}: {e}", src.display()))?;
    let images: Vec<(Target, PathBuf)> = TARGETS
        .iter()
        .map(|t| {
            let target = Target::parse_nvcc_name(t).unwrap();
            let ext = if target.kind == TargetKind::Ptx {
                "ptx"
            } else {
                "cubin"
            };
            (target, work.join(format!("{t}.{ext}")))
        })
        .collect();
    let todo: Vec<&(Target, PathBuf)> = images
        .iter()
        .filter(|(_, p)| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .map_or(true, |t| t < src_time)
        })
        .collect();
    let start = Instant::now();
    for pair in todo.chunks(2) {
        let results: Vec<Result<(), String>> = std::thread::scope(|s| {
            let handles: Vec<_> = pair
                .iter()
                .map(|(t, p)| {
                    s.spawn(move || {
                        let flag = if t.kind == TargetKind::Ptx {
                            "-ptx"
                        } else {
                            "-cubin"
                        };
                        eprintln!("nvcc {flag} -arch={t} ...");
                        check(
                            Command::new(nvcc)
                                .args(["-O3", "-std=c++17", flag, &format!("-arch={t}"), "-o"])
                                .arg(p)
                                .arg(src),
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("nvcc thread panicked".into()))
                })
                .collect()
        });
        results.into_iter().collect::<Result<Vec<()>, String>>()?;
    }
    if !todo.is_empty() {
        eprintln!(
            "compiled {} target(s) in {:.1} s",
            todo.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(images)
}

/// Best of `RUNS` timings of `f`, which returns the output size.
fn time(mut f: impl FnMut() -> Result<usize, String>) -> Result<(usize, Duration), String> {
    let mut best = Duration::MAX;
    let mut size = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        size = f()?;
        best = best.min(t.elapsed());
    }
    Ok((size, best))
}

fn ours(
    images: &[(Target, PathBuf)],
    choice: CompressionChoice,
    out: &Path,
) -> Result<usize, String> {
    let mut w = FatbinWriter::new();
    w.compression(choice);
    for (t, p) in images {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        match t.kind {
            TargetKind::Cubin => w.add_cubin(&bytes, t.arch),
            TargetKind::Ptx => w.add_ptx(&bytes, t.arch),
            TargetKind::LtoIr => w.add_ltoir(&bytes, t.arch),
        }
        .map_err(|e| e.to_string())?;
    }
    let fatbin = w.write().map_err(|e| e.to_string())?;
    std::fs::write(out, &fatbin).map_err(|e| e.to_string())?;
    Ok(fatbin.len())
}

fn theirs(
    fatbinary: &Path,
    images: &[(Target, PathBuf)],
    flags: &[&str],
    out: &Path,
) -> Result<usize, String> {
    let mut c = Command::new(fatbinary);
    c.arg(format!("--create={}", out.display()))
        .arg("-64")
        .args(flags);
    for (t, p) in images {
        let kind = if t.kind == TargetKind::Ptx {
            "ptx"
        } else {
            "elf"
        };
        c.arg(format!(
            "--image3=kind={kind},sm={},file={}",
            t.arch.sm_name(),
            p.display()
        ));
    }
    check(&mut c)?;
    Ok(std::fs::metadata(out).map_err(|e| e.to_string())?.len() as usize)
}

fn run() -> Result<(), String> {
    let mut args = std::env::args_os().skip(1);
    let src = args.next().map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/inputs/bench_kernels.cu")
    });
    let work = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("archbuild-pack-bench"));
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let nvcc = find_nvcc()?;
    let fatbinary = nvcc.with_file_name("fatbinary");
    let images = compile(&nvcc, &src, &work)?;
    let raw: u64 = images
        .iter()
        .map(|(_, p)| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    println!(
        "images: {} ({raw} bytes raw), best of {RUNS} runs, {} cores",
        TARGETS.join(" "),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    let pairs: [(&str, CompressionChoice, &[&str], &str); 5] = [
        (
            "stored",
            CompressionChoice::stored(),
            &["--compress=false"],
            "--compress=false",
        ),
        (
            "default",
            CompressionChoice::nvcc_default(),
            &[],
            "(default: PTX zstd)",
        ),
        (
            "zstd",
            CompressionChoice::all_zstd(),
            &["--compress-all"],
            "--compress-all",
        ),
        (
            "lz4",
            CompressionChoice::all_lz4(),
            &["--compress-all", "--compress-mode=speed"],
            "--compress-all --compress-mode=speed",
        ),
        (
            "size",
            CompressionChoice::size(),
            &["--compress-all", "--compress-mode=size"],
            "--compress-all --compress-mode=size",
        ),
    ];
    println!(
        "{:<8} {:>11} {:>9} | {:<38} {:>11} {:>9} | {:>10} {:>10}",
        "archbuild",
        "bytes",
        "seconds",
        "fatbinary",
        "bytes",
        "seconds",
        "size ratio",
        "time ratio"
    );
    for (name, choice, flags, shown) in pairs {
        let our_out = work.join(format!("ours_{name}.fatbin"));
        let their_out = work.join(format!("theirs_{name}.fatbin"));
        let (our_size, our_time) = time(|| ours(&images, choice, &our_out))?;
        let (their_size, their_time) = time(|| theirs(&fatbinary, &images, flags, &their_out))?;
        // Sanity: our output reads back with every image.
        let bytes = std::fs::read(&our_out).map_err(|e| e.to_string())?;
        let n = read_fatbin(&bytes).map_err(|e| e.to_string())?[0]
            .entries
            .len();
        if n != images.len() {
            return Err(format!(
                "{name}: read back {n} entries, wrote {}",
                images.len()
            ));
        }
        println!(
            "{name:<8} {our_size:>11} {:>9.3} | {shown:<38} {their_size:>11} {:>9.3} | {:>10.3} {:>10.3}",
            our_time.as_secs_f64(),
            their_time.as_secs_f64(),
            our_size as f64 / their_size as f64,
            our_time.as_secs_f64() / their_time.as_secs_f64(),
        );
    }
    println!("ratios are archbuild / fatbinary (below 1 = archbuild smaller or faster)");
    Ok(())
}
