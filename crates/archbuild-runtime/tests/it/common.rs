//! Shared helpers for the runtime's integration tests: the checked-in fixtures (real cubins and
//! PTX made by CUDA 13.5, see `tests/fixtures/README.md`), fat binaries built from them with
//! archbuild-fatbin's writer, and a process of its own for a test that changes the environment.

use std::path::PathBuf;
use std::process::Command;

use archbuild_arch::{Arch, Target, TargetKind};
use archbuild_fatbin::{CompressionChoice, FatbinWriter};
use archbuild_runtime::FatBinary;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The fixture cubin for `sm_XY[a]`.
pub fn cubin(arch: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(format!("sm_{arch}.cubin"))).expect("fixture cubin")
}

/// The fixture PTX for `compute_XY[a]` with its `.version` set to `isa` (the fixtures are ISA
/// 9.5, from CUDA 13.5; the kernel uses nothing newer than ISA 7.x, so an older `.version` is
/// still valid PTX).
pub fn ptx(arch: &str, isa: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(fixtures().join(format!("compute_{arch}.ptx")))
        .expect("fixture PTX");
    assert!(text.contains(".version 9.5\n"));
    text.replace(".version 9.5\n", &format!(".version {isa}\n"))
        .into_bytes()
}

/// Builds a fat binary from specs: `sm_86` (cubin), `compute_80` (PTX, ISA 9.0),
/// `compute_80@9.5` (PTX with that ISA). PTX is zstd-compressed as nvcc does by default.
pub fn fatbin_bytes(specs: &[&str]) -> Vec<u8> {
    let mut w = FatbinWriter::new();
    w.compression(CompressionChoice::nvcc_default());
    for spec in specs {
        let (name, isa) = spec.split_once('@').unwrap_or((spec, "9.0"));
        let t = Target::parse_nvcc_name(name).unwrap_or_else(|| panic!("bad spec {spec}"));
        let arch: Arch = t.arch;
        let suffix = arch.sm_name();
        match t.kind {
            TargetKind::Cubin => w.add_cubin(&cubin(&suffix), arch).unwrap(),
            TargetKind::Ptx => w.add_ptx(&ptx(&suffix, isa), arch).unwrap(),
            TargetKind::LtoIr => w.add_ltoir(b"NVVM IR stand-in", arch).unwrap(),
        };
    }
    w.write().unwrap()
}

pub fn fatbin(specs: &[&str]) -> FatBinary {
    FatBinary::from_vec(fatbin_bytes(specs)).unwrap()
}

/// The index of the image with this nvcc name in `fb`.
pub fn index_of(fb: &FatBinary, name: &str) -> usize {
    fb.images()
        .iter()
        .position(|i| i.target.to_string() == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

/// Marks the re-run of this test binary in which only the test it names runs.
const ALONE: &str = "ARCHBUILD_TEST_ALONE";

/// Runs `body` in a process of its own: this test binary runs again with only the test `name`
/// (its full path, e.g. `env::environment_variables`), which calls `alone` again and runs
/// `body` there. For tests that set environment variables: the other tests, on threads of this
/// process, read the process environment (the loader reads `ARCHBUILD_*`) and would see them.
pub fn alone(name: &str, body: impl FnOnce()) {
    if std::env::var_os(ALONE).is_some_and(|v| v == name) {
        body();
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ALONE, name)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} in its own process: {}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    eprint!("{stderr}");
}

/// Says why a test cannot run here; in CI (`CI` set), where everything these tests need is
/// installed, fails with it instead: a test that returns early there would assert nothing.
pub fn skip(why: &str) {
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped: {why}");
}
