//! Compiles `kernels/signatures.cu` and generates `OUT_DIR/kernels.rs` with a typed launcher
//! per kernel (this package depends on archbuild-runtime, which the launchers name).

fn main() {
    archbuild::Build::new().provision(true).compile("kernels");
}
