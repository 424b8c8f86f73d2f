//! Writes the fixtures the GPU programs (`gpu_acceptance`, `load_bench`) read: real cubins and
//! PTX compiled by nvcc, packed by archbuild-fatbin's writer into the fat binaries of
//! `support::all()` (and, with `--bench`, the benchmark fat binaries). Runs where the CUDA
//! toolkit is (no GPU needed):
//!
//! ```text
//! cargo run --release -p archbuild-runtime --example gpu_fixtures -- OUT_DIR [--bench]
//!     [--nvcc PATH] [--bench-dir DIR]
//! ```
//!
//! nvcc is taken from `--nvcc`, `NVCC`, `CUDA_HOME/bin`, archbuild's provisioned toolkit, `PATH`.
//! CUDA 13.5 writes PTX ISA 9.5, which the CUDA 13.0 driver refuses; the fixtures therefore
//! also carry the PTX with `.version 9.0`, checked by ptxas to be valid at that ISA.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use archbuild_arch::{Arch, Target, TargetKind};
use archbuild_fatbin::{CompressionChoice, FatbinWriter};

type Res<T> = Result<T, String>;

fn main() {
    if let Err(e) = run() {
        eprintln!("gpu_fixtures: error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(
        args.first()
            .filter(|a| !a.starts_with("--"))
            .ok_or("usage: gpu_fixtures OUT_DIR [--bench] [--nvcc PATH] [--bench-dir DIR]")?,
    );
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let nvcc = find_nvcc(opt("--nvcc"))?;
    let bin = nvcc.parent().ok_or("nvcc has no directory")?.to_path_buf();
    let src = out.join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("creating {}: {e}", src.display()))?;
    println!("nvcc: {}", nvcc.display());

    // One compile per image, each with its own marker, two at a time (nvcc is single-threaded).
    let cu = src.join("kernel.cu");
    std::fs::write(&cu, support::KERNEL_CU).map_err(|e| e.to_string())?;
    let mut jobs: Vec<(Target, PathBuf)> = Vec::new();
    for a in support::CUBINS {
        jobs.push((
            target(&format!("sm_{a}"))?,
            src.join(format!("sm_{a}.cubin")),
        ));
    }
    for a in support::PTXS {
        jobs.push((
            target(&format!("compute_{a}"))?,
            src.join(format!("compute_{a}.ptx")),
        ));
    }
    parallel(&jobs, 2, |(t, path)| {
        let flag = if t.kind == TargetKind::Cubin {
            "-cubin"
        } else {
            "-ptx"
        };
        let arch = format!("-arch={}", t);
        let def = format!("-DMARKER={}u", support::marker(*t));
        nvcc_run(
            &nvcc,
            &[
                flag,
                &arch,
                &def,
                "-o",
                path.to_str().unwrap(),
                cu.to_str().unwrap(),
            ],
        )
    })?;
    for a in support::PTXS {
        downgrade_ptx(
            &bin,
            &src.join(format!("compute_{a}.ptx")),
            &target(&format!("sm_{a}"))?.arch,
        )?;
    }

    for comp in support::all() {
        let bytes = pack(&src, comp.images, comp.compression, "")?;
        let path = support::file(&out, comp.name);
        std::fs::write(&path, &bytes).map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!(
            "wrote {} ({} bytes): {}",
            path.display(),
            bytes.len(),
            comp.images.join(" ")
        );
    }

    lto_fixture(&nvcc, &src, &out)?;

    if args.iter().any(|a| a == "--bench") {
        let dir = opt("--bench-dir").map(PathBuf::from).unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../benches/inputs")
        });
        bench_fixtures(&nvcc, &bin, &dir, &out)?;
    }
    Ok(())
}

/// `lto90.fatbin`: the kernels as NVVM LTO-IR for sm_90 (`nvcc -dlto -ltoir`, marker
/// [`support::LTO_MARKER`]), packed by `FatbinWriter::add_ltoir`, for gpu_acceptance check 7.
fn lto_fixture(nvcc: &Path, src: &Path, out: &Path) -> Res<()> {
    let ir_path = src.join("lto_90.ltoir");
    let def = format!("-DMARKER={}u", support::LTO_MARKER);
    let cu = src.join("kernel.cu");
    nvcc_run(
        nvcc,
        &[
            "-dlto",
            "-ltoir",
            "-arch=lto_90",
            &def,
            "-o",
            ir_path.to_str().unwrap(),
            cu.to_str().unwrap(),
        ],
    )?;
    let ir = std::fs::read(&ir_path).map_err(|e| format!("reading {}: {e}", ir_path.display()))?;
    let bytes = FatbinWriter::new()
        .add_ltoir(&ir, target("sm_90")?.arch)
        .and_then(|w| w.write())
        .map_err(|e| e.to_string())?;
    let path = support::file(out, "lto90");
    std::fs::write(&path, &bytes).map_err(|e| format!("writing {}: {e}", path.display()))?;
    println!("wrote {} ({} bytes): lto_90", path.display(), bytes.len());
    Ok(())
}

/// `sm_90` / `compute_90a` → Target.
fn target(name: &str) -> Res<Target> {
    Target::parse_nvcc_name(name).ok_or_else(|| format!("bad target {name}"))
}

/// Packs images from `src` (file stem prefix `prefix`) into a fat binary.
fn pack(src: &Path, images: &[&str], compression: &str, prefix: &str) -> Res<Vec<u8>> {
    let mut w = FatbinWriter::new();
    w.compression(
        compression
            .parse::<CompressionChoice>()
            .map_err(|e| e.to_string())?,
    );
    for spec in images {
        let (name, isa) = spec.split_once('@').unwrap_or((spec, "9.0"));
        let t = target(name)?;
        let read =
            |p: PathBuf| std::fs::read(&p).map_err(|e| format!("reading {}: {e}", p.display()));
        let r = match t.kind {
            TargetKind::Cubin => {
                w.add_cubin(&read(src.join(format!("{prefix}{t}.cubin")))?, t.arch)
            }
            TargetKind::Ptx => {
                let suffix = if isa == "9.0" { ".isa90" } else { "" };
                let ptx = read(src.join(format!("{prefix}{t}{suffix}.ptx")))?;
                if !String::from_utf8_lossy(&ptx).contains(&format!(".version {isa}\n")) {
                    return Err(format!("{spec}: the PTX is not ISA {isa}"));
                }
                w.add_ptx(&ptx, t.arch)
            }
            TargetKind::LtoIr => {
                w.add_ltoir(&read(src.join(format!("{prefix}{t}.ltoir")))?, t.arch)
            }
        };
        r.map_err(|e| format!("{spec}: {e}"))?;
    }
    w.write().map_err(|e| e.to_string())
}

/// Writes `<file>.isa90.ptx`: the PTX with `.version 9.0`, verified by ptxas at that ISA.
fn downgrade_ptx(bin: &Path, ptx: &Path, arch: &Arch) -> Res<()> {
    let text = std::fs::read_to_string(ptx).map_err(|e| e.to_string())?;
    let Some(line) = text.lines().find(|l| l.starts_with(".version ")) else {
        return Err(format!("{}: no .version", ptx.display()));
    };
    let out = ptx.with_extension("isa90.ptx");
    std::fs::write(&out, text.replacen(line, ".version 9.0", 1)).map_err(|e| e.to_string())?;
    let cubin = out.with_extension("check.cubin");
    let sm = format!("-arch=sm_{}", arch.sm_name());
    let status = Command::new(bin.join("ptxas"))
        .args([
            sm.as_str(),
            out.to_str().unwrap(),
            "-o",
            cubin.to_str().unwrap(),
        ])
        .status()
        .map_err(|e| format!("running ptxas: {e}"))?;
    let _ = std::fs::remove_file(&cubin);
    if !status.success() {
        return Err(format!(
            "{} is not valid PTX ISA 9.0 (ptxas failed)",
            out.display()
        ));
    }
    Ok(())
}

/// The benchmark fat binaries: an sm_90 cubin and compute_90 PTX (ISA 9.0) of each source.
fn bench_fixtures(nvcc: &Path, bin: &Path, dir: &Path, out: &Path) -> Res<()> {
    let include = bin.join("../include/cccl");
    let src = out.join("src");
    for (stem, file) in support::BENCH {
        let cu = dir.join(file);
        if !cu.exists() {
            return Err(format!("{} not found: pass --bench-dir", cu.display()));
        }
        let cubin = src.join(format!("bench_{stem}_sm_90.cubin"));
        let ptx = src.join(format!("bench_{stem}_compute_90.ptx"));
        let inc = format!("-I{}", include.display());
        let jobs = [
            ("-cubin", "-arch=sm_90", &cubin),
            ("-ptx", "-arch=compute_90", &ptx),
        ];
        parallel(&jobs, 2, |(flag, arch, o)| {
            nvcc_run(
                nvcc,
                &[
                    "-O3",
                    "-std=c++17",
                    &inc,
                    flag,
                    arch,
                    "-o",
                    o.to_str().unwrap(),
                    cu.to_str().unwrap(),
                ],
            )
        })?;
        downgrade_ptx(bin, &ptx, &Arch::plain(9, 0))?;
        let bytes = pack(
            &src,
            &["sm_90", "compute_90"],
            "default",
            &format!("bench_{stem}_"),
        )?;
        let path = out.join(format!("bench_{stem}.fatbin"));
        std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
        println!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    Ok(())
}

fn nvcc_run(nvcc: &Path, args: &[&str]) -> Res<()> {
    let out = Command::new(nvcc)
        .args(args)
        .output()
        .map_err(|e| format!("running {}: {e}", nvcc.display()))?;
    if !out.status.success() {
        return Err(format!(
            "nvcc {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

fn find_nvcc(explicit: Option<String>) -> Res<PathBuf> {
    let mut c: Vec<PathBuf> = explicit.into_iter().map(PathBuf::from).collect();
    c.extend(std::env::var_os("NVCC").map(PathBuf::from));
    c.extend(std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin/nvcc")));
    // The toolkit archbuild provisions (`cargo archbuild toolkit install`).
    let home = archbuild_config::home_dir(|k| std::env::var(k).ok());
    c.extend(home.map(|h| h.join("toolkits/cuda-13.5.37/nvidia/cu13/bin/nvcc")));
    if let Some(path) = std::env::var_os("PATH") {
        c.extend(std::env::split_paths(&path).map(|d| d.join("nvcc")));
    }
    c.into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| "nvcc not found: pass --nvcc or set NVCC/CUDA_HOME".into())
}

/// Runs `f` on every job with at most `n` at a time; the first error wins.
fn parallel<T: Sync>(jobs: &[T], n: usize, f: impl Fn(&T) -> Res<()> + Sync) -> Res<()> {
    let next = Mutex::new(0usize);
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| loop {
                let i = {
                    let mut g = next.lock().unwrap();
                    *g += 1;
                    *g - 1
                };
                let Some(job) = jobs.get(i) else { break };
                if let Err(e) = f(job) {
                    errors.lock().unwrap().push(e);
                }
            });
        }
    });
    errors
        .into_inner()
        .unwrap()
        .into_iter()
        .next()
        .map_or(Ok(()), Err)
}
