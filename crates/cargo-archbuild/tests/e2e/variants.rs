//! `doctor FILE` and `inspect FILE` show a fat binary's kernel variant groups (recorded beside
//! it by the build) and which variant each image, and each simulated GPU, gets.

use std::path::Path;

use crate::support::{cli, scratch};

#[test]
fn doctor_and_inspect_show_each_gpus_variant() {
    let dir = scratch();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/variants/kernels/gemm.cu");
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::copy(src, dir.path().join("kernels/gemm.cu")).unwrap();
    let report = archbuild::Build::new()
        .toolkit(archbuild_tests::toolkit().clone())
        .env(archbuild::Env::from_vars([(
            "PATH",
            std::env::var_os("PATH").unwrap_or_default(),
        )]))
        .manifest_dir(dir.path())
        .cache(false)
        .out_dir(dir.path().join("out"))
        .file("kernels/gemm.cu")
        .archs("7.5 8.6+PTX 9.0a")
        .variants("gemm", &["gemm_hopper", "gemm_mma", "gemm_simt"])
        .quiet(true)
        .try_compile("kernels")
        .unwrap_or_else(|e| panic!("{e}"));
    let fatbin = &report.modules[0].fatbin;

    let out = cli()
        .args(["doctor"])
        .arg(fatbin)
        .env("ARCHBUILD_SIMULATED_GPUS", "7.5,8.6,9.0@13.5")
        .env("ARCHBUILD_NVJITLINK", "off")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "variant gemm -> gemm_simt (in sm_75)",
        "variant gemm -> gemm_mma (in sm_86)",
        "variant gemm -> gemm_hopper (in sm_90a)",
    ] {
        assert!(text.contains(want), "missing `{want}`:\n{text}");
    }

    let out = cli().args(["inspect"]).arg(fatbin).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "variants `gemm` [gemm_hopper, gemm_mma, gemm_simt]: sm_75 -> gemm_simt, sm_86 -> \
             gemm_mma, compute_86 -> gemm_mma, sm_90a -> gemm_hopper"
        ),
        "{text}"
    );
}
