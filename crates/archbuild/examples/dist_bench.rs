//! One cold build of one file, timed, for the sccache-dist benchmark (`results/benchmarks.md`,
//! "sccache-dist"): the script around it pins this client to two cores, starts the
//! cluster (scheduler and build servers on their own cores) and sets
//! `ARCHBUILD_COMPILER_LAUNCHER=sccache` for the distributed steps; every step of one script
//! run prints here, and the script prints the ratios of that run.
//!
//! ```text
//! cargo build --release -p archbuild --example dist_bench
//! dist_bench FILE.cu --archs LIST --label NAME
//! ```
//!
//! archbuild's cache is off (every job runs); the fat binary's hash is printed so steps can be
//! compared for identical output.

use std::path::PathBuf;
use std::time::Instant;

use archbuild::{config::Home, toolkit::Discovery, Build, Env};

mod support;

use support::fail;

fn main() {
    let mut file = None;
    let mut archs = "7.5 8.0 8.6 8.9 9.0+PTX".to_owned();
    let mut label = "build".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--archs" => archs = args.next().unwrap_or_else(|| fail("--archs needs a list")),
            "--label" => label = args.next().unwrap_or_else(|| fail("--label needs a name")),
            _ if file.is_none() => file = Some(PathBuf::from(a)),
            _ => fail(&format!("unexpected argument `{a}`")),
        }
    }
    let file =
        file.unwrap_or_else(|| fail("usage: dist_bench FILE.cu [--archs LIST] [--label NAME]"));
    let file = std::fs::canonicalize(&file).unwrap_or_else(|e| fail(&e.to_string()));
    let env = Env::process().with_cargo_metadata(false);
    let tk = Discovery::new(Home::from_env(&env))
        .locate(&env, true, &mut archbuild::toolkit::stderr_progress)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let out = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let start = Instant::now();
    let r = Build::new()
        .toolkit(tk)
        .env(env)
        .manifest_dir(file.parent().unwrap_or_else(|| fail("no parent directory")))
        .file(file.file_name().unwrap_or_default())
        .archs(&archs)
        .cache(false)
        .out_dir(out.path())
        .rust_module(false)
        .quiet(true)
        .try_compile("bench")
        .unwrap_or_else(|e| fail(&e.to_string()));
    let secs = start.elapsed().as_secs_f64();
    let fatbin = std::fs::read(&r.modules[0].fatbin).unwrap_or_else(|e| fail(&e.to_string()));
    let warnings: Vec<String> = r.warnings.iter().map(ToString::to_string).collect();
    println!(
        "{label}: {secs:.2} s ({} jobs, {} processes, {} workers, fat binary {:016x}){}",
        r.jobs_planned,
        r.processes_started,
        r.workers,
        fnv(&fatbin),
        if warnings.is_empty() {
            String::new()
        } else {
            format!(" warnings: {}", warnings.join("; "))
        }
    );
}

/// FNV-1a, to tell outputs apart in the log.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
