//! Host-library benchmark: `archbuild::Library` against cudaforge's pattern (one `nvcc -c` per
//! file with every `-gencode`, files in parallel on the machine's cores), ratios from one run.
//!
//! ```text
//! cargo run --release -p archbuild --features remote --example library_bench -- \
//!     [FILE.cu …] [--archs LIST] [-I DIR …] [--flag F …] [--jobs N]
//! ```
//!
//! Default input: `examples/host_cuda/src/vector_add.cu` for `7.5 8.0 8.6 8.9 9.0+PTX`. The
//! files are copied into a temp package with a shared header `bench_common.h` included by each,
//! so the edit step is "a comment-only edit of a shared header". Measures, in one run:
//!
//! 1. cudaforge's pattern: `nvcc -c` per file with every `-gencode`, `--jobs` files at once;
//! 2. archbuild cold (empty home and an empty `file://` remote, which it fills);
//! 3. a comment-only edit of the shared header (a new first line: every line below moves);
//! 4. a second home (another checkout path) with the shared remote: nothing compiled;
//! 5. an unchanged rebuild.
//!
//! `--nvcc-cpus LIST` runs steps 1 and 2 at the same time, nvcc under `taskset -c LIST` (run the
//! benchmark itself under `taskset` on the other cores): for inputs where one build takes most
//! of a device call's time limit, each side gets half the machine, in one run.
//!
//! For a crate's own header tree (candle-flash-attn's `kernels/`, reached through `-I`):
//! `--edit-header FILE` makes step 3 a comment-only edit of FILE instead of `bench_common.h`
//! (FILE stays edited, so step 4 sees the same text); `--work DIR` keeps the packages, homes,
//! remote and outputs in DIR (`pkg/nvcc-N.o`, `pkg/out/libbench.a`, `pkg/out/bench/*.fatbin`)
//! for `cargo archbuild inspect` afterwards; `--archbuild-first` runs step 1 after steps 2–5.
//! Each step prints `mark: NAME start|end EPOCH` (Unix seconds) to line it up with a sampler of
//! the machine's load; `--verbose` also prints each `nvcc -c` as it finishes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use archbuild::{config::Home, toolkit::Discovery, BuildReport, Env, Library, Toolkit};

mod support;

use support::fail;

struct Args {
    files: Vec<PathBuf>,
    archs: String,
    includes: Vec<PathBuf>,
    flags: Vec<String>,
    jobs: usize,
    nvcc_cpus: Option<String>,
    /// Print each archbuild step's jobs and host objects (`--verbose`).
    verbose: bool,
    /// Only the archbuild steps (`--skip-nvcc`).
    skip_nvcc: bool,
    /// The header that the edit step edits (`--edit-header`); default: `bench_common.h`.
    edit_header: Option<PathBuf>,
    /// Where everything is kept (`--work`); default: a temporary directory, removed at the end.
    work: Option<PathBuf>,
    /// The archbuild steps before cudaforge's pattern (`--archbuild-first`).
    archbuild_first: bool,
}

fn parse() -> Args {
    let mut it = std::env::args().skip(1);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut a = Args {
        files: Vec::new(),
        archs: "7.5 8.0 8.6 8.9 9.0+PTX".into(),
        includes: Vec::new(),
        flags: Vec::new(),
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        nvcc_cpus: None,
        verbose: false,
        skip_nvcc: false,
        edit_header: None,
        work: None,
        archbuild_first: false,
    };
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .unwrap_or_else(|| fail(&format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--archs" => a.archs = value("--archs"),
            "-I" => a.includes.push(PathBuf::from(value("-I"))),
            "--flag" => a.flags.push(value("--flag")),
            "--nvcc-cpus" => a.nvcc_cpus = Some(value("--nvcc-cpus")),
            "--verbose" => a.verbose = true,
            "--skip-nvcc" => a.skip_nvcc = true,
            "--archbuild-first" => a.archbuild_first = true,
            "--edit-header" => a.edit_header = Some(PathBuf::from(value("--edit-header"))),
            "--work" => a.work = Some(PathBuf::from(value("--work"))),
            "--jobs" => {
                a.jobs = value("--jobs")
                    .parse()
                    .unwrap_or_else(|_| fail("--jobs takes a number"))
            }
            _ => a.files.push(PathBuf::from(arg)),
        }
    }
    if a.files.is_empty() {
        a.files
            .push(repo.join("examples/host_cuda/src/vector_add.cu"));
    }
    a
}

/// Copies the sources into `root/pkg/src`, each including `bench_common.h` first.
fn package(root: &Path, files: &[PathBuf]) -> (PathBuf, Vec<PathBuf>) {
    let pkg = root.join("pkg");
    std::fs::create_dir_all(pkg.join("src")).unwrap_or_else(|e| fail(&e.to_string()));
    std::fs::write(
        pkg.join("src/bench_common.h"),
        "#pragma once\n#define BENCH_COMMON 1\n",
    )
    .unwrap_or_else(|e| fail(&e.to_string()));
    let mut rel = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .unwrap_or_else(|e| fail(&format!("read {}: {e}", f.display())));
        let name = f.file_name().unwrap_or_default();
        std::fs::write(
            pkg.join("src").join(name),
            format!("#include \"bench_common.h\"\n{text}"),
        )
        .unwrap_or_else(|e| fail(&e.to_string()));
        rel.push(Path::new("src").join(name));
    }
    (pkg, rel)
}

/// `mark: NAME start|end EPOCH`: a step's edges in Unix seconds, for lining up with a load sampler.
fn mark(name: &str, edge: &str) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    println!("mark: {name} {edge} {now:.3}");
}

/// How many jobs of `phase` ran (were not served from a cache).
fn ran(r: &BuildReport, phase: archbuild::JobPhase) -> usize {
    r.jobs
        .iter()
        .filter(|j| j.phase == phase && !j.served.cached())
        .count()
}

fn library(
    tk: &Toolkit,
    a: &Args,
    pkg: &Path,
    files: &[PathBuf],
    home: &Path,
    remote: &str,
) -> f64 {
    time_library(tk, a, pkg, files, home, remote).0
}

fn time_library(
    tk: &Toolkit,
    a: &Args,
    pkg: &Path,
    files: &[PathBuf],
    home: &Path,
    remote: &str,
) -> (f64, BuildReport) {
    let mut l = Library::new();
    l.toolkit(tk.clone())
        .env(Env::process().with_cargo_metadata(false))
        .home(Home::at(home))
        .manifest_dir(pkg)
        .out_dir(pkg.join("out"))
        .archs(&a.archs)
        .files(files)
        .remote_cache(remote)
        .jobs(a.jobs)
        .quiet(true);
    for i in &a.includes {
        l.include(i);
    }
    for f in &a.flags {
        l.flag(f);
    }
    if a.verbose {
        let start = Instant::now();
        l.on_job(move |j| {
            let how = match (
                j.served.cached(),
                (j.served == archbuild::Served::Preprocessed),
            ) {
                (false, _) => "ran",
                (true, true) => "cached (preprocessor mode)",
                (true, false) => "cached",
            };
            println!(
                "    [{:7.2} s] {} {} {}: {how}, {:.2} s",
                start.elapsed().as_secs_f64(),
                j.module,
                j.phase,
                j.target,
                j.seconds
            );
            if let Some(miss) = j.served.miss() {
                println!("        {miss}");
            }
            if let Some(note) = j.served.note() {
                println!("        {note}");
            }
        });
    }
    let start = Instant::now();
    let r = l
        .try_compile("bench")
        .unwrap_or_else(|e| fail(&e.to_string()));
    let secs = start.elapsed().as_secs_f64();
    for o in r
        .library
        .iter()
        .flat_map(|l| &l.objects)
        .filter(|_| a.verbose)
    {
        let how = match (
            o.served.cached(),
            (o.served == archbuild::Served::Preprocessed),
        ) {
            (false, _) => "compiled",
            (true, true) => "cached (preprocessor mode)",
            (true, false) => "cached",
        };
        println!("    {} host object: {how}, {:.2} s", o.module, o.seconds);
    }
    (secs, r)
}

/// cudaforge's pattern: one `nvcc -c` per file with every `-gencode`, `jobs` at once.
fn per_file_nvcc(tk: &Toolkit, a: &Args, pkg: &Path, files: &[PathBuf]) -> f64 {
    let list: archbuild::ArchList = a
        .archs
        .parse()
        .unwrap_or_else(|e| fail(&format!("--archs: {e}")));
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(files.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(f) = files.get(i) else { break };
                let mut cmd = match &a.nvcc_cpus {
                    Some(cpus) => {
                        let mut c = Command::new("taskset");
                        c.args(["-c", cpus]).arg(tk.nvcc());
                        c
                    }
                    None => Command::new(tk.nvcc()),
                };
                cmd.current_dir(pkg).arg("-c").args(list.gencode_flags());
                for inc in &a.includes {
                    cmd.arg(format!("-I{}", inc.display()));
                }
                cmd.args(&a.flags)
                    .arg(f)
                    .arg("-o")
                    .arg(pkg.join(format!("nvcc-{i}.o")));
                let began = start.elapsed().as_secs_f64();
                let st = cmd.status().unwrap_or_else(|e| fail(&e.to_string()));
                if !st.success() {
                    fail(&format!("nvcc -c {} failed ({st})", f.display()));
                }
                if a.verbose {
                    let now = start.elapsed().as_secs_f64();
                    println!(
                        "    [{now:7.2} s] nvcc -c {} -> nvcc-{i}.o: {:.2} s",
                        f.display(),
                        now - began
                    );
                }
            });
        }
    });
    start.elapsed().as_secs_f64()
}

fn main() {
    let a = parse();
    let env = Env::process().with_cargo_metadata(false);
    let tk = Discovery::new(Home::from_env(&env))
        .locate(&env, true, &mut archbuild::toolkit::stderr_progress)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let temp = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let root = match &a.work {
        Some(dir) => {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(&e.to_string()));
            std::fs::canonicalize(dir).unwrap_or_else(|e| fail(&e.to_string()))
        }
        None => temp.path().to_path_buf(),
    };
    let root = root.as_path();
    let remote = format!("file://{}", root.join("remote").display());
    let (pkg, files) = package(&root.join("a"), &a.files);
    println!(
        "{} file(s), archs `{}`, {} job(s), CUDA {}",
        files.len(),
        a.archs,
        a.jobs,
        tk.release()
    );
    let home_a = root.join("home-a");
    // The archbuild side's steps, each printed as it finishes (so a run cut short by a time
    // limit still reports them); ratios follow once nvcc's time is known.
    let archbuild_side = || {
        let mut steps: Vec<(&str, f64, String)> = Vec::new();
        let mut step = |name: &'static str, secs: f64, detail: String| {
            println!("{name:<40}{secs:>9.2} s  {detail}");
            steps.push((name, secs, detail));
        };
        use archbuild::JobPhase::{Cicc, Ptxas};
        mark("archbuild-cold", "start");
        let (cold, r) = time_library(&tk, &a, &pkg, &files, &home_a, &remote);
        mark("archbuild-cold", "end");
        step(
            "archbuild cold:",
            cold,
            format!(
                "({} jobs, {} cicc and {} ptxas runs, {} processes)",
                r.jobs_planned,
                ran(&r, Cicc),
                ran(&r, Ptxas),
                r.processes_started
            ),
        );
        let header = a
            .edit_header
            .clone()
            .unwrap_or_else(|| pkg.join("src/bench_common.h"));
        let text = std::fs::read_to_string(&header)
            .unwrap_or_else(|e| fail(&format!("read {}: {e}", header.display())));
        let edited = format!("// a comment-only edit\n{text}");
        std::fs::write(&header, &edited).unwrap_or_else(|e| fail(&e.to_string()));
        println!(
            "edited {} (a comment as its new first line)",
            header.display()
        );
        mark("archbuild-edit", "start");
        let (edit, r) = time_library(&tk, &a, &pkg, &files, &home_a, &remote);
        mark("archbuild-edit", "end");
        step(
            "comment-only header edit:",
            edit,
            format!(
                "({} cicc and {} ptxas runs, {} processes)",
                ran(&r, Cicc),
                ran(&r, Ptxas),
                r.processes_started
            ),
        );
        let (pkg_b, files_b) = package(&root.join("b/another/path"), &a.files);
        if a.edit_header.is_none() {
            std::fs::write(pkg_b.join("src/bench_common.h"), &edited)
                .unwrap_or_else(|e| fail(&e.to_string()));
        }
        mark("archbuild-second-home", "start");
        let (second, r) = time_library(&tk, &a, &pkg_b, &files_b, &root.join("home-b"), &remote);
        mark("archbuild-second-home", "end");
        step(
            "second home, shared remote:",
            second,
            format!(
                "({} cicc and {} ptxas runs, {} processes)",
                ran(&r, Cicc),
                ran(&r, Ptxas),
                r.processes_started
            ),
        );
        mark("archbuild-noop", "start");
        let noop = library(&tk, &a, &pkg, &files, &home_a, &remote);
        mark("archbuild-noop", "end");
        step("unchanged rebuild:", noop, String::new());
        steps
    };
    let nvcc_side = || {
        mark("nvcc", "start");
        let t = per_file_nvcc(&tk, &a, &pkg, &files);
        mark("nvcc", "end");
        println!(
            "{:<40}{t:>9.2} s",
            "cudaforge's pattern (nvcc -c per file):"
        );
        t
    };
    if a.skip_nvcc {
        archbuild_side();
        return;
    }
    let (nvcc, steps) = if a.nvcc_cpus.is_some() {
        std::thread::scope(|s| {
            let n = s.spawn(nvcc_side);
            let steps = archbuild_side();
            (
                n.join().unwrap_or_else(|_| fail("the nvcc side panicked")),
                steps,
            )
        })
    } else if a.archbuild_first {
        let steps = archbuild_side();
        (nvcc_side(), steps)
    } else {
        let t = nvcc_side();
        (t, archbuild_side())
    };
    println!("ratios to cudaforge's pattern ({nvcc:.2} s):");
    for (name, secs, _) in steps {
        println!("  {name:<38}{:>8.3}x", secs / nvcc);
    }
}
