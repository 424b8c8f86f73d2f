//! Compiles `kernels/rig.cu` for the resolved arch list into `OUT_DIR/kernels.rs` (see
//! vector_add's build.rs). A missing toolkit is installed from PyPI once.

fn main() {
    archbuild::Build::new().provision(true).compile("kernels");
}
