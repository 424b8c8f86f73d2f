//! Compiles `kernels/gemm.cu` for the list in Cargo.toml and checks the `gemm` variant group:
//! every target must hold one of its kernels (the build fails naming the arch otherwise).

fn main() {
    archbuild::Build::new().provision(true).compile("kernels");
}
