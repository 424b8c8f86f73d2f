//! Compiles `kernels/vector_add.cu` (listed in Cargo.toml's `[package.metadata.archbuild]`) for
//! the resolved arch list and generates `OUT_DIR/kernels.rs`: the fat binary as bytes and one
//! constant per kernel name. On a machine without a CUDA toolkit, archbuild installs its pinned
//! one from PyPI (once, into its cache) — the build needs Python 3 with pip, not a CUDA install.

fn main() {
    archbuild::Build::new().provision(true).compile("kernels");
}
