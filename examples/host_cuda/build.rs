//! Compiles the host CUDA C++ in `src/vector_add.cu` with the cc crate, using the arch list
//! archbuild resolves (ARCHBUILD_ARCHS > `archs` in Cargo.toml > TORCH_CUDA_ARCH_LIST /
//! CUDAARCHS > the default) as nvcc `-gencode` flags, and links the CUDA runtime statically.
//! The executable then embeds one image per target, which `cargo archbuild doctor` lists.

use std::path::Path;

use archbuild::{
    config::Home,
    configure_cc_with_toolkit,
    toolkit::{stderr_progress, Discovery},
    ArchList, Build, Env,
};

fn main() {
    let env = Env::process();
    // The same toolkit discovery (and, on a bare machine, provisioning) as the kernel builds.
    let toolkit = Discovery::new(Home::from_env(&env))
        .locate(&env, true, &mut stderr_progress)
        .unwrap_or_else(|e| panic!("\n\nhost_cuda: {e}\n\n"));
    // Resolve the arch list exactly as a kernel build of this package would (nothing is
    // compiled by the plan; it only reads the configuration and checks the toolkit can build it).
    let plan = Build::new()
        .toolkit(toolkit.clone())
        .file("src/vector_add.cu")
        .try_plan("host_cuda")
        .unwrap_or_else(|e| panic!("\n\nhost_cuda: {e}\n\n"));
    let archs: ArchList = plan
        .archs
        .parse()
        .unwrap_or_else(|e| panic!("host_cuda: arch list `{}`: {e}", plan.archs));

    // The toolkit's nvcc drives the compile, with host flags routed to the host compiler.
    let mut build = cc::Build::new();
    configure_cc_with_toolkit(&mut build, &archs, &toolkit);
    build
        .file("src/vector_add.cu")
        .cudart("static")
        .warnings(false)
        .compile("host_cuda_vector_add");

    // cudart_static lives in lib/ (pip wheels), lib64/ (Linux installs) or targets/<arch>/lib.
    let root = toolkit.root();
    for dir in [
        "lib",
        "lib64",
        "targets/x86_64-linux/lib",
        "targets/sbsa-linux/lib",
    ] {
        if root.join(dir).join("libcudart_static.a").is_file() {
            println!(
                "cargo:rustc-link-search=native={}",
                root.join(dir).display()
            );
        }
    }
    for lib in ["dl", "rt", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    println!(
        "cargo:rerun-if-changed={}",
        Path::new("src/vector_add.cu").display()
    );
    // For the program's banner and the embedded-images test.
    println!("cargo:rustc-env=HOST_CUDA_ARCHS={archs}");
    println!(
        "cargo:rustc-env=HOST_CUDA_TARGETS={}",
        archs
            .targets()
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
}
