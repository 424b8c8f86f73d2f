//! Builds every kernel listed in Cargo.toml's `[package.metadata.archbuild]` for the resolved
//! arch list (one nvcc/ptxas job per target, in parallel, cached per target) and generates
//! `OUT_DIR/kernels.rs` with the fat binaries and one constant per kernel name. Without a CUDA
//! toolkit, archbuild installs its pinned one from PyPI once (needs Python 3 with pip).

fn main() {
    archbuild::Build::new().provision(true).compile("kernels");
}
