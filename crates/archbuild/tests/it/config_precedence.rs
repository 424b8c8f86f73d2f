//! The configuration precedence (API > ARCHBUILD_ARCHS > Cargo.toml > TORCH_CUDA_ARCH_LIST >
//! CUDAARCHS > default) and the arch checks against the toolkit.

use crate::support::fake::Fake;

/// Resolves with every source set down to `level` removed from the top; returns (list, source).
fn resolve(f: &Fake, api: bool, env: &[(&str, &str)]) -> (String, String) {
    let mut b = f.build(env);
    b.file("kernels/add.cu");
    if api {
        b.archs("7.5");
    }
    let l = b.try_plan("k").unwrap();
    (l.archs, l.source.to_string())
}

#[test]
fn each_source_wins_over_the_ones_below_it() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let manifest = "[package]\nname = \"p\"\n[package.metadata.archbuild]\narchs = \"8.6\"\n";
    let all = [
        ("ARCHBUILD_ARCHS", "8.0"),
        ("TORCH_CUDA_ARCH_LIST", "8.9"),
        ("CUDAARCHS", "90"),
    ];
    f.write("Cargo.toml", manifest);
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        resolve(&f, true, &all),
        s("7.5", "the build's arch list (`.archs(...)` / `--archs`)")
    );
    assert_eq!(resolve(&f, false, &all), s("8.0", "ARCHBUILD_ARCHS"));
    // Blank counts as unset (a CI matrix leaving the variable empty).
    let blank = [("ARCHBUILD_ARCHS", " "), all[1], all[2]];
    assert_eq!(
        resolve(&f, false, &blank),
        s("8.6", "Cargo.toml [package.metadata.archbuild] archs")
    );
    f.write("Cargo.toml", "[package]\nname = \"p\"\n");
    assert_eq!(
        resolve(&f, false, &all[1..]),
        s("8.9", "TORCH_CUDA_ARCH_LIST")
    );
    // CMake's bare number means cubin and PTX.
    assert_eq!(resolve(&f, false, &all[2..]), s("9.0+PTX", "CUDAARCHS"));
    assert_eq!(
        resolve(&f, false, &[]),
        s(
            "7.5 8.0 9.0 10.0 11.0 12.0+PTX",
            "the default (`all-major` of the toolkit)"
        )
    );
}

#[test]
fn every_source_is_checked_against_the_toolkit() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    let err = f
        .build(&[("TORCH_CUDA_ARCH_LIST", "7.0;8.6")])
        .file("kernels/add.cu")
        .try_plan("k")
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("CUDA 13.5.37 cannot build `sm_70` (from TORCH_CUDA_ARCH_LIST)"),
        "{msg}"
    );
    assert!(msg.contains("CUDA 9.0 up to (not including) 13.0"), "{msg}");

    let err = f
        .build(&[("ARCHBUILD_ARCHS", "8.6x")])
        .file("kernels/add.cu")
        .try_plan("k")
        .unwrap_err();
    assert!(err.to_string().contains("in ARCHBUILD_ARCHS"), "{err}");

    // `native` asks for the GPUs; the test supplies them.
    let l = f
        .build(&[("ARCHBUILD_ARCHS", "native")])
        .file("kernels/add.cu")
        .native_devices(&[
            archbuild::ComputeCapability::new(8, 6),
            archbuild::ComputeCapability::new(8, 9),
        ])
        .try_plan("k")
        .unwrap();
    assert_eq!(l.archs, "8.6 8.9+PTX");
    let err = f
        .build(&[("ARCHBUILD_ARCHS", "native")])
        .file("kernels/add.cu")
        .native_devices(&[])
        .try_plan("k")
        .unwrap_err();
    assert!(err.to_string().contains("none is visible"), "{err}");
}

/// `native` means the GPUs `ARCHBUILD_SIMULATED_GPUS` describes, as for the runtime and every
/// `cargo archbuild` command: the build reads the variable itself (the fake toolkit has no
/// `__nvcc_device_query`, so without it no GPU is visible), for its list and per-file lists.
#[test]
fn native_is_the_simulated_gpus_for_the_list_and_per_file_lists() {
    let f = Fake::new();
    f.kernel("kernels/add.cu", "add", &[]);
    f.kernel("kernels/mul.cu", "mul", &[]);
    let sim = ("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6@13000");
    let l = f
        .build(&[("ARCHBUILD_ARCHS", "native"), sim])
        .file("kernels/add.cu")
        .try_plan("k")
        .unwrap();
    assert_eq!(l.archs, "7.5 8.6+PTX");
    let l = f
        .build(&[sim])
        .archs("9.0")
        .file("kernels/add.cu")
        .file("kernels/mul.cu")
        .file_archs("kernels/mul.cu", "native")
        .try_plan("k")
        .unwrap();
    let mut mul: Vec<&str> = l
        .jobs
        .iter()
        .filter(|j| j.module == "mul")
        .map(|j| j.target.as_str())
        .collect();
    mul.sort();
    mul.dedup();
    assert_eq!(mul, ["compute_75", "compute_86", "sm_75", "sm_86"], "{l:?}");
    // A program's devices win; a bad description names the variable and the part.
    let l = f
        .build(&[("ARCHBUILD_ARCHS", "native"), sim])
        .file("kernels/add.cu")
        .native_devices(&[archbuild::ComputeCapability::new(8, 9)])
        .try_plan("k")
        .unwrap();
    assert_eq!(l.archs, "8.9+PTX");
    let err = f
        .build(&[
            ("ARCHBUILD_ARCHS", "native"),
            ("ARCHBUILD_SIMULATED_GPUS", "8.6x"),
        ])
        .file("kernels/add.cu")
        .try_plan("k")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("invalid ARCHBUILD_SIMULATED_GPUS `8.6x`: `8.6x` is not a compute"),
        "{err}"
    );
}
