//! Planning and execution against the fake nvcc (`archbuild-fake-nvcc`, which records its
//! arguments): targets → commands, phase sharing, the cache (no-op rebuild, adding an arch,
//! header changes), overrides, flags, and compile errors reported once.

use archbuild_fatbin::read_fatbin;

use crate::support::fake::{Call, Fake};

fn ptxas(args: &[&str]) -> Call {
    Call {
        tool: "ptxas".into(),
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

/// `-frandom-seed` of `kernels/add.cu`: `0x` and the first 8 hex digits of its path's BLAKE3.
const SEED: &str = "-frandom-seed=0xd4079aab";

#[test]
fn targets_become_cicc_and_ptxas_commands_sharing_the_ptx() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let report = f
        .build(&[])
        .file("kernels/add.cu")
        .archs("7.5 8.6 8.9+PTX")
        // Each arch's own cicc command; a family sharing one run is
        // `tests/tests/it/cicc_sharing.rs`'s.
        .share_cicc(false)
        .try_compile("k")
        .unwrap();

    // 4 targets, 6 jobs: compute_89 PTX is the cicc output that sm_89 is assembled from.
    assert_eq!(report.jobs_planned, 6);
    let mut calls = f.compiles();
    calls.sort_by(|a, b| (&a.tool, &a.args).cmp(&(&b.tool, &b.args)));
    let cicc: Vec<&Call> = calls.iter().filter(|c| c.tool == "nvcc").collect();
    assert_eq!(cicc.len(), 3, "one cicc job per virtual arch: {calls:#?}");
    let mut expected = Vec::new();
    for (j, sm) in ["75", "86", "89"].iter().enumerate() {
        // Paths relative to the package, cicc told the relative source path (no checkout
        // path reaches an output), and the preprocessed source kept for preprocessor mode.
        expected.push(vec![
            "-ptx".to_string(),
            format!("-arch=compute_{sm}"),
            // The source's seed for internal symbol names, the same for every arch.
            SEED.into(),
            // Every pass sees the whole list, as in a multi-arch nvcc compile.
            "-Xcompiler".into(),
            "-U__CUDA_ARCH_LIST__,-D__CUDA_ARCH_LIST__=750\\,860\\,890".into(),
            "-Xcicc".into(),
            "--orig_src_path_name".into(),
            "-Xcicc".into(),
            "kernels/add.cu".into(),
            // The launch stub (the typed launchers' declarations) and cicc's C output go
            // beside the PTX, never into the package.
            "-Xcicc".into(),
            format!("--stub_file_name,<tmp>/{j}.ptx.stub.c"),
            "-Xcicc".into(),
            format!("--gen_c_file_name,<tmp>/{j}.ptx.cudafe1.c"),
            "-Xcompiler".into(),
            // Quoted for the shell nvcc runs the host compiler through.
            format!("-MD,-MF,'<tmp>/{j}.d'"),
            "--keep".into(),
            "--keep-dir".into(),
            format!("<tmp>/{j}.keep"),
            "-o".into(),
            format!("<tmp>/{j}.ptx"),
            "kernels/add.cu".into(),
        ]);
    }
    let got: Vec<Vec<String>> = cicc.iter().map(|c| c.args.clone()).collect();
    assert_eq!(got, expected);
    let ptxas_calls: Vec<&Call> = calls.iter().filter(|c| c.tool == "ptxas").collect();
    assert_eq!(
        ptxas_calls,
        [
            &ptxas(&["-arch=sm_75", "-m64", "in.ptx", "-o", "out.cubin"]),
            &ptxas(&["-arch=sm_86", "-m64", "in.ptx", "-o", "out.cubin"]),
            &ptxas(&["-arch=sm_89", "-m64", "in.ptx", "-o", "out.cubin"]),
        ]
    );

    // The fat binary holds exactly the four targets; the generated module names the kernel.
    let m = report.module("add").unwrap();
    assert_eq!(m.targets, ["sm_75", "sm_86", "sm_89", "compute_89"]);
    assert_eq!(m.kernels, ["add"]);
    let bytes = std::fs::read(&m.fatbin).unwrap();
    let containers = read_fatbin(&bytes).unwrap();
    let mut targets: Vec<String> = containers
        .iter()
        .flat_map(|c| c.entries.iter().map(|e| e.target().to_string()))
        .collect();
    targets.sort();
    assert_eq!(targets, ["compute_89", "sm_75", "sm_86", "sm_89"]);
    let code = std::fs::read_to_string(report.rust_module.as_ref().unwrap()).unwrap();
    assert!(code.contains("pub const ADD: &str = \"add\";"), "{code}");
    assert!(
        code.contains("pub const ARCHS: &str = \"7.5 8.6 8.9+PTX\";"),
        "{code}"
    );
}

#[test]
fn unchanged_rebuild_starts_no_process() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &["common.cuh"]);
    f.write("kernels/common.cuh", "#pragma once\n");
    let first = f
        .build(&[])
        .file("kernels/add.cu")
        .archs("7.5 8.6+PTX")
        .try_compile("k")
        .unwrap();
    assert_eq!((first.jobs_run, first.cache_hits), (4, 0));
    let calls_before = f.calls().len();
    let fatbin_before = std::fs::read(&first.modules[0].fatbin).unwrap();

    let second = f
        .build(&[])
        .file("kernels/add.cu")
        .archs("7.5 8.6+PTX")
        .try_compile("k")
        .unwrap();
    assert_eq!(
        (second.jobs_run, second.cache_hits, second.processes_started),
        (0, 4, 0)
    );
    assert_eq!(
        f.calls().len(),
        calls_before,
        "the fake nvcc was not started"
    );
    assert_eq!(
        std::fs::read(&second.modules[0].fatbin).unwrap(),
        fatbin_before
    );
    assert!(second
        .dependencies
        .iter()
        .any(|d| d.ends_with("kernels/common.cuh")));
}

#[test]
fn ptx_cleaned_from_the_cache_while_the_build_runs_is_compiled_again() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let build = |on_cicc: Option<Box<dyn Fn() + Send + Sync>>| {
        let mut b = f.build(&[]);
        b.file("kernels/add.cu").archs("8.6");
        if let Some(hook) = on_cicc {
            b.on_job(move |j| {
                if j.phase == archbuild::JobPhase::Cicc {
                    hook();
                }
            });
        }
        b.try_compile("k")
    };
    let first = build(None).unwrap();
    let fatbin = std::fs::read(&first.modules[0].fatbin).unwrap();
    // The cubin is gone, so ptxas must read the PTX; `cache clean` removes the PTX between the
    // cicc job's hit and the ptxas job (once).
    let cache = f.dir.path().join("cache");
    for ns in ["cubin", "cubin-alias"] {
        std::fs::remove_dir_all(cache.join(ns)).unwrap();
    }
    let cleaned = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let once = cleaned.clone();
    let ptx = cache.join("ptx");
    let second = build(Some(Box::new(move || {
        if !once.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::fs::remove_dir_all(&ptx).unwrap();
        }
    })))
    .unwrap_or_else(|e| panic!("a clean during the build failed it: {e}"));
    assert!(cleaned.load(std::sync::atomic::Ordering::SeqCst));
    assert_eq!(
        second.jobs_run,
        2,
        "both jobs ran again: {:?}",
        second.ran()
    );
    assert_eq!(std::fs::read(&second.modules[0].fatbin).unwrap(), fatbin);
}

#[test]
fn adding_an_arch_runs_only_that_arch_and_dropping_one_runs_nothing() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    f.build(&[])
        .file("kernels/add.cu")
        .archs("7.5 8.6")
        .try_compile("k")
        .unwrap();
    let r = f
        .build(&[])
        .file("kernels/add.cu")
        .archs("7.5 8.6 9.0")
        .try_compile("k")
        .unwrap();
    let ran = r.ran();
    assert_eq!(
        ran,
        [
            ("add".to_string(), "compute_90".to_string()),
            ("add".into(), "sm_90".into())
        ]
    );
    let r = f
        .build(&[])
        .file("kernels/add.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap();
    assert_eq!(r.jobs_run, 0);
    assert_eq!(r.modules[0].targets, ["sm_86"]);
}

#[test]
fn header_change_rebuilds_only_the_file_that_includes_it() {
    let f = Fake::new();
    f.kernel("kernels/a.cu", "a", &["shared.cuh"]);
    f.kernel("kernels/b.cu", "b", &[]);
    f.write("kernels/shared.cuh", "#define SCALE 1\n");
    let build = || {
        f.build(&[])
            .files(["kernels/a.cu", "kernels/b.cu"])
            .archs("7.5 8.6")
            .try_compile("k")
            .unwrap()
    };
    build();
    // Same content, new mtime: still nothing to do (keys hash content, not times).
    f.write("kernels/shared.cuh", "#define SCALE 1\n");
    assert_eq!(build().jobs_run, 0);
    f.write("kernels/shared.cuh", "#define SCALE 2\n");
    let r = build();
    let modules: std::collections::BTreeSet<String> = r.ran().into_iter().map(|(m, _)| m).collect();
    assert_eq!(modules.into_iter().collect::<Vec<_>>(), ["a"]);
    assert_eq!(r.jobs_run, 4, "a's two cicc and two ptxas jobs");
}

#[test]
fn per_file_override_and_groups() {
    let f = Fake::new();
    f.kernel("kernels/a.cu", "a", &[]);
    f.kernel("kernels/special.cu", "special", &[]);
    f.kernel("kernels/g1.cu", "g1", &[]);
    f.kernel("kernels/g2.cu", "g2", &[]);
    let r = f
        .build(&[("ARCHBUILD_ARCHS", "8.6")])
        .files(["kernels/a.cu", "kernels/special.cu"])
        .module("both", ["kernels/g1.cu", "kernels/g2.cu"])
        .file_archs("kernels/special.cu", "8.0+PTX")
        .try_compile("k")
        .unwrap();
    assert_eq!(r.module("a").unwrap().targets, ["sm_86"]);
    assert_eq!(
        r.module("special").unwrap().targets,
        ["sm_80", "compute_80"]
    );
    assert_eq!(r.module("special").unwrap().archs, "8.0+PTX");
    let both = r.module("both").unwrap();
    assert_eq!(
        both.kernels,
        ["g1", "g2"],
        "a group is one translation unit"
    );
    // No generated file: the members are one translation unit by `-include`.
    assert!(!f.out().join("k/both.group.cu").exists());
}

#[test]
fn a_plan_writes_nothing_with_or_without_an_output_directory() {
    let f = Fake::new();
    f.kernel("kernels/g1.cu", "g1", &[]);
    f.kernel("kernels/g2.cu", "g2", &[]);
    let cwd_litter = std::path::Path::new("<out>");
    let before = cwd_litter.exists();
    // No `.out_dir(...)` and no OUT_DIR: what `cargo archbuild build --plan` does outside Cargo.
    let plan = archbuild::Build::new()
        .toolkit(f.toolkit.clone())
        .env(f.env(&[]))
        .manifest_dir(f.pkg())
        .cache_dir(f.dir.path().join("cache"))
        .module("both", ["kernels/g1.cu", "kernels/g2.cu"])
        .archs("8.6")
        .try_plan("k")
        .unwrap();
    assert_eq!(plan.jobs.len(), 2, "{:?}", plan.jobs);
    let wrote_litter = !before && cwd_litter.exists();
    if wrote_litter {
        let _ = std::fs::remove_dir_all(cwd_litter);
    }
    assert!(
        !wrote_litter,
        "try_plan wrote ./<out>/ into the current directory"
    );
    assert!(
        !f.dir.path().join("cache").exists(),
        "a plan touches no cache either"
    );
    // With an output directory (OUT_DIR in a build script) it writes nothing either, and the
    // group's command names its members relative to the package.
    let out = f.dir.path().join("planned-out");
    let plan = archbuild::Build::new()
        .toolkit(f.toolkit.clone())
        .env(f.env(&[("OUT_DIR", out.to_str().unwrap())]))
        .manifest_dir(f.pkg())
        .cache_dir(f.dir.path().join("cache"))
        .module("both", ["kernels/g1.cu", "kernels/g2.cu"])
        .archs("8.6")
        .try_plan("k")
        .unwrap();
    assert!(
        plan.jobs
            .iter()
            .any(|j| j.command.contains("-include kernels/g1.cu")
                && j.command.ends_with("kernels/g2.cu")),
        "{:?}",
        plan.jobs
    );
    assert!(!out.exists(), "try_plan created {}", out.display());
    assert!(!f.dir.path().join("cache").exists());
}

/// A plan provisions nothing and writes nothing, in archbuild's home either: a header library
/// it would install is an error naming the build that installs it, and a directory library's
/// content hash is not remembered.
#[test]
fn a_plan_installs_and_remembers_nothing_in_the_home() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    f.write("vendor/lib/lib.h", "// a header library\n");
    let home = f.dir.path().join("home");
    let plan = |lib: archbuild::HeaderLibrary| {
        archbuild::Build::new()
            .toolkit(f.toolkit.clone())
            .env(f.env(&[]))
            .manifest_dir(f.pkg())
            .home(archbuild::config::Home::at(&home))
            .file("kernels/add.cu")
            .header_library(lib)
            .archs("8.6")
            .try_plan("k")
    };
    let listing = plan(archbuild::HeaderLibrary::path("vendor", "vendor/lib")).unwrap();
    assert!(
        listing
            .jobs
            .iter()
            .any(|j| j.command.contains("vendor/lib")),
        "{:?}",
        listing.jobs
    );
    assert!(!home.exists(), "try_plan wrote into archbuild's home");
    let err = plan(archbuild::HeaderLibrary::pypi("nvidia-cutlass", "4.2.0"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("not installed yet") && err.contains("cargo archbuild build"),
        "{err}"
    );
    assert!(!home.exists(), "try_plan installed into archbuild's home");
}

#[test]
fn flags_defines_includes_and_launcher_reach_the_commands() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &["inc.cuh"]);
    f.write("include/inc.cuh", "// shared\n");
    f.write(
        "Cargo.toml",
        "[package]\nname = \"p\"\n[package.metadata.archbuild]\nnvcc-flags = [\"-std=c++17\"]\ndefines = [\"FROM_TOML\"]\n",
    );
    let r = f
        .build(&[
            ("ARCHBUILD_NVCC_FLAGS", "-lineinfo"),
            ("ARCHBUILD_COMPILER_LAUNCHER", "/usr/bin/env"),
        ])
        .file("kernels/add.cu")
        .archs("8.6")
        .flag("-O3")
        .include("include")
        .define("TILE", Some("32"))
        .ptxas_flag("-v")
        .try_compile("k")
        .unwrap();
    assert!(r
        .dependencies
        .iter()
        .any(|d| d.ends_with("include/inc.cuh")));
    let calls = f.compiles();
    // Include directories under the package are passed relative to it.
    let inc = "-Iinclude".to_owned();
    let cicc = &calls.iter().find(|c| c.tool == "nvcc").unwrap().args;
    assert_eq!(
        cicc[..9],
        [
            "-ptx",
            "-arch=compute_86",
            "-std=c++17",
            "-O3",
            "-lineinfo",
            SEED,
            &inc,
            "-DFROM_TOML",
            "-DTILE=32"
        ]
    );
    let p = &calls.iter().find(|c| c.tool == "ptxas").unwrap().args;
    assert_eq!(
        p[..4],
        ["-arch=sm_86", "-m64", "-v", "--generate-line-info"]
    );
    let listing = f
        .build(&[("ARCHBUILD_COMPILER_LAUNCHER", "/usr/bin/env")])
        .file("kernels/add.cu")
        .archs("8.6")
        .try_plan("k")
        .unwrap();
    assert!(
        listing.jobs[0].command.starts_with("/usr/bin/env "),
        "{:?}",
        listing.jobs[0]
    );

    // A changed define is a different key: everything recompiles.
    let before = f.compiles().len();
    f.build(&[])
        .file("kernels/add.cu")
        .archs("8.6")
        .define("TILE", Some("64"))
        .try_compile("k")
        .unwrap();
    assert_eq!(f.compiles().len(), before + 2);
}

#[test]
fn corrupt_cache_entries_are_rebuilt_not_trusted() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let first = f
        .build(&[])
        .file("kernels/add.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap();
    let fatbin = first.modules[0].fatbin.clone();
    let good = std::fs::read(&fatbin).unwrap();
    let build = || {
        f.build(&[])
            .file("kernels/add.cu")
            .archs("8.6")
            .try_compile("k")
            .unwrap()
    };

    // An output file changed behind archbuild's back is rewritten (its stamp no longer matches).
    std::fs::write(&fatbin, b"tampered").unwrap();
    assert_eq!(build().jobs_run, 0);
    assert_eq!(std::fs::read(&fatbin).unwrap(), good);

    // Damage every cached cubin and PTX entry (as a disk error or a torn copy would), and
    // remove the output so they must be read: they fail verification and are recompiled.
    for ns in ["ptx", "cubin"] {
        for e in walk(&f.dir.path().join("cache").join(ns)) {
            let mut b = std::fs::read(&e).unwrap();
            let n = b.len();
            b[n - 1] ^= 0xff;
            std::fs::write(&e, b).unwrap();
        }
    }
    std::fs::remove_file(&fatbin).unwrap();
    let second = build();
    assert_eq!(second.jobs_run, 2);
    assert_eq!(std::fs::read(&second.modules[0].fatbin).unwrap(), good);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn a_compile_error_is_reported_once_for_all_archs() {
    let f = Fake::new();
    f.write(
        "kernels/bad.cu",
        "extern \"C\" __global__ void k(float* x) {}\n#error broken kernel\n",
    );
    let err = f
        .build(&[])
        .file("kernels/bad.cu")
        .archs("7.5 8.0 8.6 8.9")
        .jobs(2)
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert_eq!(err.matches("error: #error directive").count(), 1, "{err}");
    assert!(
        err.contains("kernels/bad.cu:2"),
        "file:line of the first error: {err}"
    );
    assert!(
        err.contains("failed to compile `kernels/bad.cu` for compute_"),
        "{err}"
    );
    // Nothing started after the first failure: at most the two running at once ran.
    assert!(f.compiles().len() <= 2, "{:?}", f.compiles());

    // A diagnostic only one arch hits is reported for that arch.
    let g = Fake::new();
    g.write(
        "kernels/bad.cu",
        "extern \"C\" __global__ void k(float* x) {}\n// fake-fail-arch compute_86\n",
    );
    let err = g
        .build(&[])
        .file("kernels/bad.cu")
        .archs("7.5 8.6")
        .jobs(1)
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("for compute_86 (cicc phase) at kernels/bad.cu:2"),
        "{err}"
    );
}

#[test]
fn an_empty_source_warns_and_a_file_archs_entry_for_no_source_is_refused() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    f.write("kernels/empty.cu", "// nothing here yet\n");
    let r = f
        .build(&[])
        .files(["kernels/add.cu", "kernels/empty.cu"])
        .archs("7.5")
        .try_compile("k")
        .unwrap();
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        matches!(&r.warnings[0], archbuild::Warning::NoKernels { sources, .. }
            if sources.iter().any(|s| s.ends_with("kernels/empty.cu"))),
        "{:?}",
        r.warnings
    );
    let line = r.warnings[0].to_string();
    assert!(
        line.contains("kernels/empty.cu") && line.contains("defines no kernel"),
        "{line}"
    );
    let err = f
        .build(&[])
        .file("kernels/add.cu")
        .file_archs("kernels/ad.cu", "8.6")
        .archs("7.5")
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`kernels/ad.cu`") && err.contains("kernels/add.cu"),
        "{err}"
    );
}

#[test]
fn a_torch_list_pytorch_rejects_is_a_warning_of_the_report_and_of_build_scripts() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    // The CLI builds quietly and prints the report's warnings: the warning must be there.
    let r = f
        .build(&[("TORCH_CUDA_ARCH_LIST", "7.5,8.6")])
        .file("kernels/add.cu")
        .try_compile("k")
        .unwrap();
    assert_eq!(r.source.to_string(), "TORCH_CUDA_ARCH_LIST");
    assert_eq!(r.archs.to_string(), "7.5 8.6");
    assert!(
        r.warnings
            .iter()
            .map(ToString::to_string)
            .any(|w| w.contains("PyTorch rejects `7.5,8.6`") && w.contains("`7.5;8.6+PTX`")),
        "{:?}",
        r.warnings
    );
    let r = f
        .build(&[("TORCH_CUDA_ARCH_LIST", "7.5;8.6")])
        .file("kernels/add.cu")
        .try_compile("k")
        .unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn a_compiler_killed_by_the_oom_killer_is_named_as_such() {
    let f = Fake::new();
    f.write(
        "kernels/big.cu",
        "// fake-oom\n__global__ void big(float *x) { x[0] = 1; }\n",
    );
    let err = f
        .build(&[])
        .file("kernels/big.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("out-of-memory killer") && err.contains("ARCHBUILD_JOBS"),
        "{err}"
    );
    assert!(!err.contains("fix the error(s) above"), "{err}");
}

/// The error of a build of one kernel whose compile ends as `line` (a fake-nvcc directive) says.
fn failing_build(line: &str) -> archbuild::Error {
    let f = Fake::new();
    f.write(
        "kernels/k.cu",
        &format!("// {line}\n__global__ void k(float *x) {{ x[0] = 1; }}\n"),
    );
    f.build(&[])
        .file("kernels/k.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap_err()
}

#[test]
fn a_compiler_killed_under_nvcc_is_named_as_the_oom_killer_too() {
    // nvcc runs cicc through a shell: the kill shows as exit 137 and the shell's `Killed`.
    let err = failing_build("fake-exit 137 Killed").to_string();
    assert!(
        err.contains("out-of-memory killer") && !err.contains("fix the error(s) above"),
        "{err}"
    );
}

#[test]
fn a_tool_missing_from_the_toolkit_is_a_broken_toolkit_not_a_compile_error() {
    let err = failing_build("fake-exit 127 sh: 1: /opt/cuda/bin/../nvvm/bin/cicc: not found");
    assert!(
        matches!(err, archbuild::Error::ToolkitBroken { .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("is incomplete or broken: sh: 1: /opt/cuda/bin/../nvvm/bin/cicc: not found")
            && text.contains("CUDA_HOME"),
        "{text}"
    );
}

#[test]
fn a_full_disk_is_named_with_the_fix_not_as_a_compile_error() {
    let err = failing_build(
        "fake-exit 1 fatal error: when writing output to k.cpp1.ii: No space left on device",
    );
    assert!(matches!(err, archbuild::Error::DiskFull { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("is full") && text.contains("ARCHBUILD_CACHE_DIR") && text.contains("TMPDIR"),
        "{text}"
    );
}

#[test]
fn messages_about_cargo_toml_kernels_point_at_cargo_toml() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    f.kernel("other/add.cu", "add2", &[]);
    let toml = |kernels: &str| {
        f.write(
            "Cargo.toml",
            &format!(
                "[package]\nname = \"p\"\n[package.metadata.archbuild]\nkernels = {kernels}\n"
            ),
        )
    };
    let err = |f: &Fake| {
        f.build(&[])
            .archs("8.6")
            .try_compile("k")
            .unwrap_err()
            .to_string()
    };
    toml("[\"kernels\"]");
    let e = err(&f);
    assert!(
        e.contains("`kernels` is a directory") && e.contains("Cargo.toml") && !e.contains(".file("),
        "{e}"
    );
    toml("[\"kernels/nope.cu\"]");
    let e = err(&f);
    assert!(
        e.contains("does not exist") && e.contains("Cargo.toml"),
        "{e}"
    );
    toml("[\"kernels/add.cu\", \"other/add.cu\"]");
    let e = err(&f);
    assert!(
        e.contains("rename one of the files") && !e.contains(".module("),
        "{e}"
    );
    // The build script's own paths are still told about `.file(...)`.
    let e = f
        .build(&[])
        .file("kernels/nope.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap_err()
        .to_string();
    assert!(e.contains(".file(...)"), "{e}");
}

#[test]
fn nvcc_flags_from_the_environment_are_shell_words() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    f.build(&[(
        "ARCHBUILD_NVCC_FLAGS",
        r#"-lineinfo "-DGREETING=hello world""#,
    )])
    .file("kernels/add.cu")
    .archs("8.6")
    .try_compile("k")
    .unwrap();
    let calls = f.compiles();
    let cicc = &calls.iter().find(|c| c.tool == "nvcc").unwrap().args;
    assert!(
        cicc.windows(2)
            .any(|w| w == ["-lineinfo", "-DGREETING=hello world"]),
        "{cicc:?}"
    );

    // An unclosed quote is refused, with the fix, before anything runs.
    let err = f
        .build(&[("ARCHBUILD_NVCC_FLAGS", r#"-DGREETING="hello"#)])
        .file("kernels/add.cu")
        .archs("8.6")
        .try_compile("k")
        .unwrap_err();
    insta::assert_snapshot!(err.to_string());
}
