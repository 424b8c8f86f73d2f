//! What the build benchmarks share: their few options, read without a parser (each takes
//! `--name VALUE`), and how they stop on bad input (a message and exit 1, never a panic).
#![allow(dead_code, reason = "each benchmark uses what it needs")]

use std::path::{Path, PathBuf};

/// Reports a problem with the benchmark's input or toolkit and exits 1 (no panic).
pub fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}

/// Every value of `--name VALUE` in `args`, in order, removed from them; `what` says what the
/// option takes when a value is missing.
pub fn take_all(args: &mut Vec<String>, name: &str, what: &str) -> Vec<String> {
    let mut values = Vec::new();
    while let Some(i) = args.iter().position(|a| a == name) {
        let Some(v) = args.get(i + 1).cloned() else {
            fail(&format!("{name} takes {what}"));
        };
        args.drain(i..i + 2);
        values.push(v);
    }
    values
}

/// The last value of `--name VALUE`, removed from `args`.
pub fn take(args: &mut Vec<String>, name: &str, what: &str) -> Option<String> {
    take_all(args, name, what).pop()
}

/// `--reps N` (default 1), removed from `args`.
pub fn take_reps(args: &mut Vec<String>) -> usize {
    const WHAT: &str = "a number of repetitions, 1 or more";
    match take(args, "--reps", WHAT) {
        Some(n) => n
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .unwrap_or_else(|| fail(&format!("--reps takes {WHAT}, not `{n}`"))),
        None => 1,
    }
}

/// The source the benchmark builds: the first argument left, else `bench_kernels.cu`.
pub fn source(args: &[String]) -> PathBuf {
    args.first().map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/inputs/bench_kernels.cu")
    })
}
