//! What the GPU fixtures generator and the GPU programs share: the test kernel, the marker
//! each image's kernel writes, and the fat binary compositions.
#![allow(dead_code)]

use archbuild_runtime::Target;

/// The kernels of every fixture image. `MARKER` differs per image (see [`marker`]), so running
/// `marker` tells which image the driver actually loaded.
pub const KERNEL_CU: &str = r#"// archbuild-runtime GPU fixtures (written by examples/gpu_fixtures.rs)
#ifndef MARKER
#define MARKER 0u
#endif
extern "C" __global__ void marker(unsigned int* out) { *out = MARKER; }
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

/// The marker of an image: `sm * 10 + variant` (0 plain, 1 `a`, 2 `f`), plus 100000 for PTX.
/// sm_90 → 900, sm_90a → 901, compute_86 → 100860.
pub fn marker(target: Target) -> u32 {
    let variant = match target.arch.variant {
        archbuild_arch::Variant::Plain => 0,
        archbuild_arch::Variant::Arch => 1,
        archbuild_arch::Variant::Family => 2,
    };
    let ptx = if target.kind == archbuild_arch::TargetKind::Ptx {
        100_000
    } else {
        0
    };
    ptx + target.arch.cc.sm() * 10 + variant
}

/// The marker of the sm_90 LTO-IR fixture (`lto90.fatbin`): no image kind shares it.
pub const LTO_MARKER: u32 = 200_900;

/// The target a marker stands for (for messages).
pub fn target_of_marker(m: u32) -> String {
    let (prefix, rest) = if m >= 100_000 {
        ("compute_", m - 100_000)
    } else {
        ("sm_", m)
    };
    let suffix = match rest % 10 {
        1 => "a",
        2 => "f",
        _ => "",
    };
    format!("{prefix}{}{suffix}", rest / 10)
}

/// The images compiled for the fixtures. PTX is kept at ISA 9.0 (what the CUDA 13.0 driver
/// JITs) and, for `compute_90`, also at the 9.5 that CUDA 13.5 emits.
pub const CUBINS: &[&str] = &["75", "80", "86", "89", "90", "90a"];
pub const PTXS: &[&str] = &["75", "80", "86", "89", "90", "90a", "100"];

/// One fat binary of the fixtures: file stem, images (`sm_90`, `compute_80` = ISA 9.0,
/// `compute_90@9.5`), and how its entries are compressed (`default`, `zstd`, `lz4`, `none`).
pub struct Composition {
    pub name: &'static str,
    pub images: &'static [&'static str],
    pub compression: &'static str,
}

const fn c(
    name: &'static str,
    images: &'static [&'static str],
    compression: &'static str,
) -> Composition {
    Composition {
        name,
        images,
        compression,
    }
}

/// Compositions compared against the driver's own pick on a CC 9.0 GPU (acceptance 4).
pub const COMPARED: &[Composition] = &[
    c("c01_sm90", &["sm_90"], "default"),
    c(
        "c02_cubin_wins",
        &["sm_80", "sm_90", "compute_80"],
        "default",
    ),
    c("c03_highest_ptx", &["compute_80", "compute_86"], "default"),
    c(
        "c04_ptx_not_above_device",
        &["compute_86", "compute_100"],
        "default",
    ),
    c("c05_other_major_cubin", &["sm_86", "compute_80"], "default"),
    c(
        "c06_jit",
        &["sm_75", "sm_86", "sm_89", "compute_89"],
        "default",
    ),
    c(
        "c07_arch_specific_cubin",
        &["sm_90a", "compute_80"],
        "default",
    ),
    c("c08_plain_and_a_cubin", &["sm_90", "sm_90a"], "default"),
    c("c09_ptx_90", &["compute_80", "compute_90"], "default"),
    c("c10_cubin_and_own_ptx", &["sm_90", "compute_90"], "default"),
    c("c11_old_ptx", &["sm_89", "compute_75"], "default"),
    c(
        "c12_plain_and_a_ptx",
        &["compute_90", "compute_90a"],
        "default",
    ),
    c("c13_nothing_fits", &["sm_80", "sm_86"], "default"),
    c("c14_all_zstd", &["sm_80", "sm_90", "compute_80"], "zstd"),
    c("c15_all_lz4", &["compute_80", "compute_86"], "lz4"),
    c("c16_stored", &["sm_86", "compute_80"], "none"),
    // LZ4HC cubins (written with the `lz4` crate), chosen over the PTX on a 9.0 GPU.
    c("c17_lz4_cubins", &["sm_75", "sm_90", "compute_80"], "lz4"),
];

/// PTX ISA 9.5 only: the 13.0 driver refuses it (222); nvJitLink 13.5 compiles it (acceptance 3).
pub const ISA95: Composition = c("isa95", &["sm_86", "compute_90@9.5"], "default");
/// Used on every GPU of a multi-GPU machine (acceptance 5): cubins for common GPUs plus PTX.
pub const MULTI: Composition = c(
    "multi",
    &["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "compute_90"],
    "default",
);

/// Every composition the fixtures generator writes.
pub fn all() -> Vec<&'static Composition> {
    COMPARED.iter().chain([&ISA95, &MULTI]).collect()
}

/// The fat binary file of a composition.
pub fn file(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    dir.join(format!("{name}.fatbin"))
}

/// The benchmark fat binaries: `bench_<stem>.fatbin` with an sm_90 cubin and compute_90 PTX.
pub const BENCH: &[(&str, &str)] = &[
    ("matmul", "matmul_variants.cu"),
    ("kernels", "bench_kernels.cu"),
];

/// The driver the GPU programs load through. Without a driver or GPU it prints "no GPU:
/// skipped" and gives `None` (the program exits 0); another failure prints `FAIL driver` and
/// exits 1.
pub fn driver_or_skip() -> Option<archbuild_runtime::driver::CudaDriver> {
    use archbuild_runtime::Error;
    match archbuild_runtime::driver::CudaDriver::new() {
        Ok(d) => Some(d),
        Err(e @ (Error::NoDriver { .. } | Error::NoDevice { .. })) => {
            println!("no GPU: skipped ({e})");
            None
        }
        Err(e) => {
            println!("FAIL driver: {e}");
            std::process::exit(1);
        }
    }
}

/// Runs the one-argument kernel `name(unsigned* out)` of `m` on one thread and returns what it
/// wrote: the marker or arch each test kernel reports.
pub fn run_u32(
    ctx: &std::sync::Arc<cudarc::driver::CudaContext>,
    m: &std::sync::Arc<cudarc::driver::CudaModule>,
    name: &str,
) -> Result<u32, String> {
    use cudarc::driver::{LaunchConfig, PushKernelArg};
    let f = m.load_function(name).map_err(|e| format!("{name}: {e}"))?;
    let s = ctx.default_stream();
    let mut out = s.alloc_zeros::<u32>(1).map_err(|e| e.to_string())?;
    let mut b = s.launch_builder(&f);
    b.arg(&mut out);
    // SAFETY: the kernel takes one `unsigned*` and writes one u32 through it.
    unsafe { b.launch(LaunchConfig::for_num_elems(1)) }.map_err(|e| e.to_string())?;
    Ok(s.clone_dtoh(&out).map_err(|e| e.to_string())?[0])
}
