//! Shared helpers: the binary under test with a clean environment, and fixture files built once
//! per test run with the real nvcc (tiny kernels, a handful of nvcc calls in total).

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::sync::OnceLock;

use assert_cmd::Command;

/// The CLI with a predictable environment: no colour, no archbuild variables from the caller,
/// the test toolkit's nvcc, and a private archbuild home (build cache, JIT cache).
pub fn cli() -> Command {
    let mut cmd = cli_without_toolkit();
    cmd.env("NVCC", archbuild_tests::tool("nvcc"));
    cmd
}

/// [`cli`] without the test toolkit (finding it provisions it on a bare machine), for commands
/// that fail before they look for one.
pub fn cli_without_toolkit() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-archbuild"));
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        // ARCHBUILD_VERIFY stays: CI runs the whole suite once with it set to `all`.
        let verify = k == "ARCHBUILD_VERIFY";
        if !verify
            && (k.starts_with("ARCHBUILD_") || k == "TORCH_CUDA_ARCH_LIST" || k == "CUDAARCHS")
        {
            cmd.env_remove(&key);
        }
    }
    cmd.env("NO_COLOR", "1")
        .env("ARCHBUILD_CACHE_DIR", home().join("cache"))
        .env("ARCHBUILD_JIT_CACHE", home().join("jit"));
    cmd
}

/// A scratch directory shared by the whole run (fixtures, caches).
pub fn home() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temp dir"))
        .path()
}

/// A fresh directory for one test's outputs.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(home()).expect("temp dir")
}

/// Source files under `tests/fixtures/`.
pub fn fixture_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Files made by nvcc from the fixture sources.
pub struct Built {
    /// `nvcc --fatbin` for sm_75, sm_86 and compute_86 (`fast_path` missing from sm_75).
    pub fatbin: PathBuf,
    /// `nvcc -c` object with sm_75 and compute_86.
    pub object: PathBuf,
    /// `nvcc -cubin -arch=sm_90`.
    pub cubin: PathBuf,
    /// `nvcc -ptx -arch=compute_90`.
    pub ptx: PathBuf,
    /// An executable linked by nvcc from two translation units (sm_75 + compute_89).
    pub executable: PathBuf,
}

/// The nvcc-made fixtures, built on first use.
pub fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = home().join("nvcc");
        std::fs::create_dir_all(&dir).unwrap();
        let k = fixture_source("kernels.cu");
        let b = Built {
            fatbin: dir.join("kernels.fatbin"),
            object: dir.join("kernels.o"),
            cubin: dir.join("kernels.cubin"),
            ptx: dir.join("kernels.ptx"),
            executable: dir.join("app"),
        };
        let g = |arch: &str, code: &str| format!("-gencode=arch={arch},code={code}");
        nvcc(&[
            &k,
            "--fatbin".as_ref(),
            g("compute_75", "sm_75").as_ref(),
            g("compute_86", "sm_86").as_ref(),
            g("compute_86", "compute_86").as_ref(),
            "-o".as_ref(),
            &b.fatbin,
        ]);
        nvcc(&[
            &k,
            "-c".as_ref(),
            g("compute_75", "sm_75").as_ref(),
            g("compute_86", "compute_86").as_ref(),
            "-o".as_ref(),
            &b.object,
        ]);
        nvcc(&[
            &k,
            "-cubin".as_ref(),
            "-arch=sm_90".as_ref(),
            "-o".as_ref(),
            &b.cubin,
        ]);
        nvcc(&[
            &k,
            "-ptx".as_ref(),
            "-arch=compute_90".as_ref(),
            "-o".as_ref(),
            &b.ptx,
        ]);
        nvcc(&[
            &fixture_source("host_main.cu"),
            &k,
            g("compute_75", "sm_75").as_ref(),
            g("compute_89", "compute_89").as_ref(),
            "-o".as_ref(),
            &b.executable,
        ]);
        b
    })
}

pub fn nvcc(args: &[&Path]) {
    let out = StdCommand::new(archbuild_tests::tool("nvcc"))
        .args(args)
        .output()
        .expect("run nvcc");
    assert!(
        out.status.success(),
        "nvcc {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `cuobjdump ARGS FILE` stdout.
pub fn cuobjdump(args: &[&str], file: &Path) -> String {
    let out = StdCommand::new(archbuild_tests::tool("cuobjdump"))
        .args(args)
        .arg(file)
        .output()
        .expect("run cuobjdump");
    assert!(
        out.status.success(),
        "cuobjdump failed on {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs the CLI and parses its stdout as one JSON document.
pub fn json(cmd: &mut Command) -> serde_json::Value {
    json_lines(cmd).pop().expect("at least one message")
}

/// Every message of `--message-format json`: each stdout line must be one JSON object with a
/// `reason` and the `format_version`; the last is the command's final report.
pub fn json_lines(cmd: &mut Command) -> Vec<serde_json::Value> {
    let out = cmd.output().expect("run cargo-archbuild");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let fail = |why: String| -> ! {
        panic!(
            "{why}\nstdout:\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| fail(format!("a stdout line is not JSON ({e}): {line}")));
            if !v["reason"].is_string() || v["format_version"] != 1 {
                fail(format!(
                    "a message without reason or format_version: {line}"
                ));
            }
            v
        })
        .collect();
    if lines.is_empty() {
        fail("no JSON message on stdout".into());
    }
    lines
}

/// stdout and stderr as text, with the exit code.
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run cargo-archbuild");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
