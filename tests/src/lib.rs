//! Support for the integration tests in `tests/tests/`: where the real CUDA tools are.
//!
//! The toolkit is located (and on a bare machine provisioned) by archbuild's own code, so CI
//! exercises the same path users do. Until the build driver's provisioning lands this falls
//! back to `ARCHBUILD_TEST_CUDA_BIN`.

use std::path::PathBuf;

/// Path of a CUDA tool (`nvcc`, `cuobjdump`, `fatbinary`, `ptxas`) from the toolkit tests use.
pub fn tool(name: &str) -> PathBuf {
    let dir = std::env::var_os("ARCHBUILD_TEST_CUDA_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/cudatk/nvidia/cu13/bin"));
    dir.join(name)
}
