//! Support for the integration tests in `tests/tests/`: where the real CUDA tools are.
//!
//! The toolkit is located — and on a bare machine (CI) provisioned from PyPI — by archbuild's
//! own code ([`archbuild::Discovery::locate`] with provisioning on), so CI exercises the same
//! path users do. The search order is archbuild's: `NVCC`, `CUDA_HOME`/`CUDA_PATH`/`CUDA_ROOT`,
//! `PATH`, `/usr/local/cuda`, then `<ARCHBUILD_HOME>/toolkits/`. Provisioning runs once per
//! machine: concurrent test binaries wait on archbuild's install lock and reuse the result.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use archbuild::{Discovery, Env, Home, Toolkit};
pub mod servers;

/// The toolkit the tests use (found or provisioned once per test process).
pub fn toolkit() -> &'static Toolkit {
    static TOOLKIT: OnceLock<Toolkit> = OnceLock::new();
    TOOLKIT.get_or_init(|| {
        let env = Env::process().with_cargo_metadata(false);
        let home = Home::from_env(&env);
        Discovery::new(home)
            .locate(&env, true, &mut archbuild::stderr_progress)
            .unwrap_or_else(|e| panic!("the CUDA toolkit for the integration tests: {e}"))
    })
}

/// Path of a CUDA tool (`nvcc`, `cuobjdump`, `fatbinary`, `ptxas`) from the toolkit tests use.
pub fn tool(name: &str) -> PathBuf {
    toolkit().tool(name)
}

/// Runs a command, panicking with its stderr if it fails; returns stdout.
pub fn run(cmd: &mut Command) -> String {
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
    String::from_utf8_lossy(&out.stdout).into_owned()
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

/// An nvcc command (from the tests' toolkit) running in `dir`.
pub fn nvcc(dir: &Path) -> Command {
    let mut c = Command::new(tool("nvcc"));
    c.current_dir(dir);
    c
}
