//! Builds the host CUDA C++ in `src/vector_add.cu` (`<<<…>>>` launches through the CUDA
//! runtime) into `libhost_cuda_vector_add.a` with archbuild's library builder: the device side
//! per arch through archbuild's job graph and cache, the host side once with that fat binary
//! embedded, and the link lines for the archive and the static CUDA runtime. The arch list is
//! archbuild's (ARCHBUILD_ARCHS > `archs` in Cargo.toml > TORCH_CUDA_ARCH_LIST / CUDAARCHS >
//! the default); `cargo archbuild doctor` on the executable lists its images.

fn main() {
    // The sources, the archive's name, host flags and runtime are in Cargo.toml's
    // [package.metadata.archbuild], which `cargo archbuild build -p host_cuda` reads too.
    let report = archbuild::Library::new()
        .provision(true)
        .compile("host_cuda_vector_add");
    // For the program's banner and the embedded-images test.
    println!("cargo::rustc-env=HOST_CUDA_ARCHS={}", report.archs);
    println!(
        "cargo::rustc-env=HOST_CUDA_TARGETS={}",
        report.arch_list().target_names().join(" ")
    );
}
