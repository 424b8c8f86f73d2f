//! Support for the integration tests in `tests/tests/it/` (one test binary), and for
//! cargo-archbuild's: where the real CUDA tools are, builds with them, copies of the fixtures,
//! cargo and nvcc commands, and (in [`servers`]) real storage servers.
//!
//! The toolkit is located — and on a bare machine (CI) provisioned from PyPI — by archbuild's
//! own code ([`archbuild::toolkit::Discovery::locate`] with provisioning on), so CI exercises the same
//! path users do. The search order is archbuild's: `NVCC`, `CUDA_HOME`/`CUDA_PATH`/`CUDA_ROOT`,
//! `PATH`, `/usr/local/cuda`, then `<ARCHBUILD_HOME>/toolkits/`. Provisioning runs once per
//! machine: concurrent test processes wait on archbuild's install lock and reuse the result.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use archbuild::{config::Home, toolkit::Discovery, Build, BuildReport, Env, Toolkit};
pub mod servers;

/// The toolkit the tests use (found or provisioned once per test process).
pub fn toolkit() -> &'static Toolkit {
    static TOOLKIT: OnceLock<Toolkit> = OnceLock::new();
    TOOLKIT.get_or_init(|| {
        let env = Env::process().with_cargo_metadata(false);
        let home = Home::from_env(&env);
        Discovery::new(home)
            .locate(&env, true, &mut archbuild::toolkit::stderr_progress)
            .unwrap_or_else(|e| panic!("the CUDA toolkit for the integration tests: {e}"))
    })
}

/// Path of a CUDA tool (`nvcc`, `cuobjdump`, `fatbinary`, `ptxas`) from the toolkit tests use.
pub fn tool(name: &str) -> PathBuf {
    toolkit().tool(name)
}

/// Runs a command, panicking with its stdout and stderr if it fails; returns stdout.
pub fn run(cmd: &mut Command) -> String {
    String::from_utf8_lossy(&output(cmd).stdout).into_owned()
}

/// Runs a command, panicking with its stdout and stderr if it fails; returns its output.
pub fn output(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The environment builds in these tests see: this process's `PATH` (and `ARCHBUILD_VERIFY`)
/// and nothing else, so no variable of the machine running them (`ARCHBUILD_ARCHS`,
/// `CUDA_HOME`, …) reaches a build.
pub fn path_env() -> Env {
    env_with::<OsString, OsString>([])
}

/// [`path_env`] plus `vars`.
pub fn env_with<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Env
where
    K: Into<OsString>,
    V: Into<OsString>,
{
    let path = ("PATH".into(), std::env::var_os("PATH").unwrap_or_default());
    // CI runs the whole suite once with ARCHBUILD_VERIFY=all: every cache hit a test reaches is
    // compiled again and compared, so a key hole any test walks into fails the run.
    let verify = std::env::var_os("ARCHBUILD_VERIFY").map(|v| ("ARCHBUILD_VERIFY".into(), v));
    Env::from_vars(
        std::iter::once(path)
            .chain(verify)
            .chain(vars.into_iter().map(|(k, v)| (k.into(), v.into()))),
    )
}

/// A build with the tests' [`toolkit`] and [`path_env`]; the test adds the rest.
pub fn build() -> Build {
    let mut b = Build::new();
    b.toolkit(toolkit().clone()).env(path_env());
    b
}

/// Every module's fat binary, by module name.
pub fn fatbins(r: &BuildReport) -> BTreeMap<String, Vec<u8>> {
    r.modules
        .iter()
        .map(|m| {
            let bytes = std::fs::read(&m.fatbin)
                .unwrap_or_else(|e| panic!("read {}: {e}", m.fatbin.display()));
            (m.name.clone(), bytes)
        })
        .collect()
}

/// A small translation unit with an `extern "C"` kernel and an instantiated template kernel:
/// enough to exercise plain and mangled kernel names in every image kind.
pub const KERNEL: &str = r#"
extern "C" __global__ void add_one(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
template <typename T> __global__ void scale(T *x, T s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
template __global__ void scale<float>(float *, float, int);
"#;

/// This checkout's root (the workspace directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// `tests/fixtures`, the fixture crates and sources.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Copies the downstream fixture's kernels (`tests/fixtures/downstream/kernels`: `add.cu`,
/// `scale.cu` and the headers they include) into `to`.
pub fn fixture_kernels(to: &Path) {
    copy_dir(&fixtures_dir().join("downstream/kernels"), to);
}

/// Copies the fixture crate `tests/fixtures/<name>` into `into/<name>`, points its path
/// dependencies (`../../../crates/…`) at this checkout and reuses this workspace's Cargo.lock,
/// so the fixture resolves the versions the workspace was tested with. Returns the copy.
pub fn fixture(name: &str, into: &Path) -> PathBuf {
    let root = repo_root();
    let dir = into.join(name);
    copy_dir(&fixtures_dir().join(name), &dir);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))
        .expect("the fixture has a Cargo.toml")
        .replace("../../../crates/", &format!("{}/crates/", root.display()));
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("write the fixture's Cargo.toml");
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    dir
}

/// A target directory for the cargo builds one test starts, under Cargo's scratch space for
/// tests: kept between local runs (a rerun builds little), removed when the test ends under CI
/// (`CI` set), whose machine's free disk varies and is not shared with a later run.
pub struct TestTarget(PathBuf);

impl TestTarget {
    pub fn new(dir: PathBuf) -> Self {
        std::fs::create_dir_all(&dir).expect("test target directory");
        Self(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TestTarget {
    fn drop(&mut self) {
        if std::env::var_os("CI").is_some() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Copies a directory tree (without `target/` directories).
pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap_or_else(|e| panic!("create {}: {e}", dst.display()));
    let entries = std::fs::read_dir(src).unwrap_or_else(|e| panic!("read {}: {e}", src.display()));
    for e in entries.flatten() {
        let to = dst.join(e.file_name());
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && e.file_name() != "target" {
            copy_dir(&e.path(), &to);
        } else if !is_dir {
            std::fs::copy(e.path(), &to)
                .unwrap_or_else(|err| panic!("copy {}: {err}", e.path().display()));
        }
    }
}

/// `cargo` (the one running the tests, else from `PATH`) with `args`, in `dir`'s package.
pub fn cargo(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(args)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"));
    cmd
}

/// An nvcc command (from the tests' toolkit) running in `dir`.
pub fn nvcc(dir: &Path) -> Command {
    let mut c = Command::new(tool("nvcc"));
    c.current_dir(dir);
    c
}

/// The fat binary of a one-kernel source built in `dir` with the cache off, compute_80 PTX
/// alone: what the JIT caches' tests have the driver (or nvJitLink) compile.
pub fn ptx_only_fatbin(dir: &Path) -> Vec<u8> {
    std::fs::write(
        dir.join("k.cu"),
        "extern \"C\" __global__ void scale(float *x, float s) { x[threadIdx.x] *= s; }\n",
    )
    .unwrap();
    let report = build()
        .manifest_dir(dir)
        .cache(false)
        .out_dir(dir.join("out"))
        .file("k.cu")
        .archs("compute_80")
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::read(&report.modules[0].fatbin).unwrap()
}
