//! What observing the preprocessor costs: archbuild with its file-system observer
//! off ("before", the predicted probes) and on ("after"), next to `nvcc --fatbin --threads 2`,
//! ratios from one run.
//!
//! ```text
//! cargo run --release -p archbuild --example observe_bench [-- path/to/kernels.cu [--reps N]
//!     [--archs LIST] [--include DIR]... [--flag NVCC_FLAG]... [--no-nvcc]]
//! ```
//!
//! Targets `7.5 8.0 8.6 8.9 9.0+PTX` unless `--archs` names others (a CUTLASS file: `8.0
//! 9.0`, its include directory and flags). Each repetition alternates `nvcc --threads 2` (left
//! out with `--no-nvcc`), a cold
//! build with observation off and one with it on (empty caches), then per side: a no-op
//! rebuild and a comment-only edit of the source (direct mode misses, preprocessor mode
//! serves: no cicc, no ptxas). The fat binaries of both sides must be byte-identical.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use archbuild::{config::Home, toolkit::Discovery, Build, BuildReport, Env, Toolkit};

mod support;

use support::{fail, take, take_all};

const ARCHS: &str = "7.5 8.0 8.6 8.9 9.0+PTX";

/// What each side builds: the list, and the include directories and flags of both sides.
struct Input {
    archs: String,
    includes: Vec<PathBuf>,
    flags: Vec<String>,
}

impl Input {
    /// nvcc's arguments for the same build: `-I`, flags, and one `-gencode` per virtual
    /// arch with its cubin and PTX (`code=[sm_90,compute_90]`), as a user writes them.
    fn nvcc_args(&self) -> Vec<String> {
        let list: archbuild_arch::ArchList = self.archs.parse().unwrap_or_else(|e| {
            fail(&format!("--archs {}: {e}", self.archs));
        });
        let mut codes: Vec<(String, Vec<String>)> = Vec::new();
        for t in list.targets() {
            let arch = format!("compute_{}", t.arch.sm_name());
            match codes.iter_mut().find(|(a, _)| *a == arch) {
                Some((_, c)) => c.push(t.to_string()),
                None => codes.push((arch, vec![t.to_string()])),
            }
        }
        let gencode = codes
            .into_iter()
            .map(|(a, c)| format!("-gencode=arch={a},code=[{}]", c.join(",")));
        let includes = self.includes.iter().map(|d| format!("-I{}", d.display()));
        includes
            .chain(self.flags.iter().cloned())
            .chain(gencode)
            .collect()
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "each side runs with this process's variables and its own ARCHBUILD_OBSERVE"
)]
fn env(observe: &str) -> Env {
    Env::from_vars(
        std::env::vars_os()
            .filter(|(k, _)| k != "ARCHBUILD_OBSERVE")
            .chain([("ARCHBUILD_OBSERVE".into(), observe.into())]),
    )
    .with_cargo_metadata(false)
}

fn build(
    tk: &Toolkit,
    input: &Input,
    dir: &Path,
    observe: &str,
    home: &Path,
) -> (f64, BuildReport) {
    let start = Instant::now();
    let mut b = Build::new();
    for d in &input.includes {
        b.include(d);
    }
    for f in &input.flags {
        b.flag(f);
    }
    let r = b
        .toolkit(tk.clone())
        .env(env(observe))
        .home(Home::at(home))
        .manifest_dir(dir)
        .file("k.cu")
        .archs(&input.archs)
        .out_dir(dir.join("out"))
        .rust_module(false)
        .quiet(true)
        .try_compile("bench")
        .unwrap_or_else(|e| fail(&e.to_string()));
    (start.elapsed().as_secs_f64(), r)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let reps = support::take_reps(&mut args);
    let input = Input {
        archs: take(&mut args, "--archs", "an arch list").unwrap_or_else(|| ARCHS.into()),
        includes: take_all(&mut args, "--include", "a directory")
            .into_iter()
            .map(|d| {
                std::fs::canonicalize(&d).unwrap_or_else(|e| fail(&format!("--include {d}: {e}")))
            })
            .collect(),
        flags: take_all(&mut args, "--flag", "an nvcc flag"),
    };
    let with_nvcc = match args.iter().position(|a| a == "--no-nvcc") {
        Some(i) => {
            args.remove(i);
            false
        }
        None => true,
    };
    let src = support::source(&args);
    let text = std::fs::read_to_string(&src).unwrap_or_else(|e| {
        fail(&format!(
            "cannot read {}: {e}; pass a .cu file",
            src.display()
        ))
    });
    let process = Env::process().with_cargo_metadata(false);
    let tk = Discovery::new(Home::from_env(&process))
        .locate(&process, true, &mut archbuild::toolkit::stderr_progress)
        .unwrap_or_else(|e| fail(&e.to_string()));
    let tmp = tempfile::tempdir().unwrap_or_else(|e| fail(&format!("no temp directory: {e}")));
    println!("source: {}; targets {}", src.display(), input.archs);
    println!("toolkit: CUDA {} ({})\n", tk.release(), tk.nvcc().display());
    let mut rows = Vec::new();
    for rep in 0..reps {
        let nv = tmp.path().join("nvcc");
        std::fs::create_dir_all(&nv).unwrap_or_else(|e| fail(&e.to_string()));
        let start = Instant::now();
        if with_nvcc {
            let st = Command::new(tk.nvcc())
                .args(["--fatbin", "--threads", "2"])
                .args(input.nvcc_args())
                .arg("-o")
                .arg(nv.join("k.fatbin"))
                .arg(&src)
                .status()
                .unwrap_or_else(|e| fail(&format!("cannot run nvcc: {e}")));
            if !st.success() {
                fail("nvcc failed");
            }
        }
        let nvcc = start.elapsed().as_secs_f64();
        let mut sides = Vec::new();
        for observe in ["off", "on"] {
            let dir = tmp.path().join(format!("{observe}-{rep}"));
            let home = dir.join("home");
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&e.to_string()));
            std::fs::write(dir.join("k.cu"), &text).unwrap_or_else(|e| fail(&e.to_string()));
            let (cold, r) = build(&tk, &input, &dir, observe, &home);
            let bytes = std::fs::read(&r.modules[0].fatbin).unwrap_or_default();
            let (noop, rn) = build(&tk, &input, &dir, observe, &home);
            std::fs::write(dir.join("k.cu"), format!("// edited\n{text}"))
                .unwrap_or_else(|e| fail(&e.to_string()));
            let (edit, re) = build(&tk, &input, &dir, observe, &home);
            let against = if with_nvcc {
                format!("{:.2}× nvcc --threads 2 {nvcc:.2} s", cold / nvcc)
            } else {
                "nvcc not run".to_owned()
            };
            println!(
                "rep {rep} observe={observe:3}: cold {cold:6.2} s ({against}), no-op {noop:.3} s \
                 ({} processes), comment edit {edit:.2} s ({:.3}× cold, {} jobs compiled)",
                rn.processes_started,
                edit / cold,
                re.jobs_run
            );
            sides.push((cold, noop, edit, bytes));
        }
        if sides[0].3 != sides[1].3 {
            fail("the fat binaries with observation off and on differ");
        }
        rows.push((nvcc, sides));
    }
    println!("\nratios (goals: cold <= 0.85, no-op <= 0.05 s, comment edit <= 0.10 x cold):");
    for (i, side) in ["off (before)", "on (after)"].iter().enumerate() {
        let cold: Vec<String> = rows
            .iter()
            .map(|(n, s)| match with_nvcc {
                true => format!("{:.2}", s[i].0 / n),
                false => "-".to_owned(),
            })
            .collect();
        let noop: Vec<String> = rows.iter().map(|(_, s)| format!("{:.3}", s[i].1)).collect();
        let edit: Vec<String> = rows
            .iter()
            .map(|(_, s)| format!("{:.3}", s[i].2 / s[i].0))
            .collect();
        println!(
            "  observe {side:13} cold/nvcc {}  no-op s {}  edit/cold {}",
            cold.join(" "),
            noop.join(" "),
            edit.join(" ")
        );
    }
    println!("  fat binaries with observation off and on: identical");
}
