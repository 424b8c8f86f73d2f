//! Shared-cache benchmark: what a second machine, a comment-only edit and a no-op rebuild cost
//! with a remote cache, against a cold build and `nvcc --fatbin --threads 2`; ratios from one run.
//!
//! ```text
//! cargo run --release -p archbuild --features remote --example shared_bench \
//!     [-- [path/to/kernels.cu] [--remote URL]]
//! ```
//!
//! Default source: `benches/inputs/bench_kernels.cu`; default remote: a fresh directory through
//! `file://` (any `ARCHBUILD_REMOTE_CACHE` URL works, e.g. `redis://127.0.0.1:6379/0`). Targets:
//! `7.5 8.0 8.6 8.9 9.0+PTX`. "Machine A" and "machine B" have their own empty homes and their
//! own copy of the source at different paths. Measures, in one run:
//!
//! 1. `nvcc --fatbin --threads 2` with the same targets;
//! 2. machine A, cold (empty local and remote cache);
//! 3. machine B, cold locally, with A's remote: compiler processes and time;
//! 4. machine B again (a no-op rebuild with the remote configured);
//! 5. machine A after a comment-only edit (a new comment line at the top).

// A benchmark program hands its own PATH to the builds it measures.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use archbuild::{config::Home, toolkit::Discovery, Build, BuildReport, Env, Toolkit};

const ARCHS: &str = "7.5 8.0 8.6 8.9 9.0+PTX";

fn build(tk: &Toolkit, home: &Path, src: &Path, remote: &str) -> (f64, BuildReport) {
    let start = Instant::now();
    let r = Build::new()
        .toolkit(tk.clone())
        .env(Env::from_vars([(
            "PATH",
            std::env::var_os("PATH").unwrap_or_default(),
        )]))
        .home(Home::at(home))
        .manifest_dir(src.parent().unwrap())
        .file(src.file_name().unwrap())
        .archs(ARCHS)
        .out_dir(home.join("out"))
        .remote_cache(remote)
        .rust_module(false)
        .quiet(true)
        .try_compile("bench")
        .unwrap_or_else(|e| panic!("{e}"));
    (start.elapsed().as_secs_f64(), r)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let tmp = tempfile::tempdir().expect("temp dir");
    let remote = match args.iter().position(|a| a == "--remote") {
        Some(i) => {
            let url = args.get(i + 1).cloned().expect("--remote URL");
            args.drain(i..i + 2);
            url
        }
        None => format!("file://{}", tmp.path().join("remote").display()),
    };
    let src: PathBuf = args.first().map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/inputs/bench_kernels.cu")
    });
    let text = std::fs::read_to_string(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    let env = Env::process().with_cargo_metadata(false);
    let tk = Discovery::new(Home::from_env(&env))
        .locate(&env, true, &mut archbuild::toolkit::stderr_progress)
        .unwrap_or_else(|e| panic!("{e}"));
    let checkout = |name: &str| {
        let p = tmp.path().join(name).join("src/kernels.cu");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &text).unwrap();
        p
    };
    let (src_a, src_b) = (checkout("a"), checkout("b/at/another/path"));
    let (home_a, home_b) = (tmp.path().join("home-a"), tmp.path().join("home-b"));
    println!("source: {} ({} lines)", src.display(), text.lines().count());
    println!(
        "toolkit: CUDA {}; targets {ARCHS}; remote {remote}\n",
        tk.release()
    );

    let mut nvcc_args: Vec<String> = [75, 80, 86, 89]
        .iter()
        .map(|sm| format!("-gencode=arch=compute_{sm},code=sm_{sm}"))
        .collect();
    nvcc_args.push("-gencode=arch=compute_90,code=[sm_90,compute_90]".into());
    let start = Instant::now();
    let st = Command::new(tk.nvcc())
        .arg("--fatbin")
        .args(&nvcc_args)
        .args(["--threads", "2", "-o"])
        .arg(tmp.path().join("nvcc.fatbin"))
        .arg(&src_a)
        .status()
        .expect("run nvcc");
    assert!(st.success());
    let nvcc = start.elapsed().as_secs_f64();
    println!("nvcc --fatbin --threads 2         {nvcc:8.2} s");

    let (cold, ra) = build(&tk, &home_a, &src_a, &remote);
    println!(
        "machine A cold                    {cold:8.2} s  ({} processes, {} remote writes)",
        ra.processes_started,
        ra.remote.as_ref().map_or(0, |s| s.writes)
    );
    let (second, rb) = build(&tk, &home_b, &src_b, &remote);
    println!(
        "machine B, shared cache           {second:8.3} s  ({} processes, {} remote hits)",
        rb.processes_started,
        rb.remote.as_ref().map_or(0, |s| s.hits)
    );
    let identical = std::fs::read(&ra.modules[0].fatbin).unwrap()
        == std::fs::read(&rb.modules[0].fatbin).unwrap();
    println!("  fat binaries byte-identical: {identical}");
    let (noop, rn) = build(&tk, &home_b, &src_b, &remote);
    let s = rn.remote.clone().unwrap_or_default();
    println!(
        "machine B no-op rebuild           {noop:8.3} s  ({} processes, {} remote requests)",
        rn.processes_started,
        s.hits + s.misses + s.writes
    );
    std::fs::write(&src_a, format!("// a comment-only edit\n{text}")).unwrap();
    let (edit, re) = build(&tk, &home_a, &src_a, &remote);
    let pre = re
        .jobs
        .iter()
        .filter(|j| j.served == archbuild::Served::Preprocessed)
        .count();
    println!(
        "machine A comment-only edit       {edit:8.2} s  ({} compiler jobs run, {pre} preprocessor runs)",
        re.jobs_run
    );

    println!("\nratios (targets in results/benchmarks.md):");
    println!(
        "  machine B / machine A cold        {:.3}  (target <= 0.05, 0 processes)",
        second / cold
    );
    println!(
        "  comment-only edit / cold          {:.3}  (target <= 0.10)",
        edit / cold
    );
    println!("  no-op rebuild with a remote       {noop:.3} s (target <= 0.05 s)");
    println!(
        "  cold / nvcc --threads 2           {:.3}  (target <= 0.90)",
        cold / nvcc
    );
}
