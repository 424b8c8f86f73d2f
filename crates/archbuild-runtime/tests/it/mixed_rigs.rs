//! Mixed machines on the simulated driver: for each rig (7.5+8.6+8.9, 8.0+9.0, 8.6+12.0) and
//! each image set, every GPU gets the expected image by the expected route, the module the
//! driver ends up with is that image, the choice equals the driver's own pick from the whole
//! fat binary, and GPUs that nothing fits get an error naming the fix.

use archbuild_arch::{ComputeCapability as Cc, CudaVersion};
use archbuild_runtime::driver::Driver;
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{Error, LoadPath, Loader};

use crate::common::{self, fatbin, fatbin_bytes, index_of};

fn rig(gpus: &[(&str, u32, u32)]) -> SimDriver {
    gpus.iter().fold(
        SimDriver::new(CudaVersion::new(13, 0)),
        |d, (name, ma, mi)| d.with_named_gpu(name, Cc::new(*ma, *mi)),
    )
}

const RIG_A: &[(&str, u32, u32)] = &[
    ("NVIDIA GeForce RTX 2080", 7, 5),
    ("NVIDIA GeForce RTX 3090", 8, 6),
    ("NVIDIA GeForce RTX 4090", 8, 9),
];
const RIG_B: &[(&str, u32, u32)] = &[
    ("NVIDIA A100-SXM4-80GB", 8, 0),
    ("NVIDIA H100 80GB HBM3", 9, 0),
];
const RIG_C: &[(&str, u32, u32)] = &[
    ("NVIDIA GeForce RTX 3090", 8, 6),
    ("NVIDIA GeForce RTX 5090", 12, 0),
];

/// Per GPU: `sm_XY` = that cubin, `compute_XY` = that PTX through the driver's JIT, `-` = no image.
fn check(rig_gpus: &[(&str, u32, u32)], images: &[&str], expected: &[&str]) {
    let driver = rig(rig_gpus);
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let fb = fatbin(images);
    let preflight = loader.preflight(&fb).unwrap();
    assert_eq!(preflight.gpus.len(), expected.len());
    for (ordinal, want) in expected.iter().enumerate() {
        let ctx = format!("images {images:?}, GPU {ordinal} {:?}", rig_gpus[ordinal]);
        let result = loader.load(&fb, ordinal);
        let plan = &preflight.gpus[ordinal].outcome;
        if *want == "-" {
            let err = result.expect_err(&ctx);
            assert!(matches!(err, Error::NoImage { .. }), "{ctx}: {err}");
            let (name, ma, mi) = rig_gpus[ordinal];
            let msg = err.to_string();
            assert!(
                msg.starts_with(&format!("GPU {ordinal} {name} ({ma}.{mi}): ")),
                "{ctx}: {msg}"
            );
            assert!(
                msg.contains(&format!("add {ma}.{mi} to ARCHBUILD_ARCHS")),
                "{ctx}: {msg}"
            );
            assert_eq!(
                plan.as_ref().unwrap_err().to_string(),
                msg,
                "{ctx}: preflight says the same"
            );
            // The driver itself refuses the whole fat binary too.
            let own = driver
                .load(ordinal, fatbin_bytes(images).into())
                .expect_err(&ctx);
            assert_eq!(own.driver_code(), Some(209), "{ctx}: {own}");
            continue;
        }
        let loaded = result.unwrap_or_else(|e| panic!("{ctx}: {e}"));
        let r = &loaded.report;
        assert_eq!(r.image_target.to_string(), *want, "{ctx}\n{r}");
        assert_eq!(r.image_index, index_of(&fb, want), "{ctx}");
        assert_eq!(
            plan.as_ref().unwrap().image_target.to_string(),
            *want,
            "{ctx}: preflight agrees"
        );
        let is_ptx = want.starts_with("compute_");
        assert_eq!(
            r.path,
            if is_ptx {
                LoadPath::DriverJit
            } else {
                LoadPath::Cubin
            },
            "{ctx}"
        );
        // What reached the GPU is that image: the cubin itself, or machine code for this GPU
        // compiled from that PTX.
        let m = &loaded.module;
        let device_cc = Cc::new(rig_gpus[ordinal].1, rig_gpus[ordinal].2);
        if is_ptx {
            assert_eq!(m.machine_arch.cc, device_cc, "{ctx}");
            assert!(m.ptx_sha256.is_some(), "{ctx}");
        } else {
            assert_eq!(m.source.to_string(), *want, "{ctx}");
        }
        assert_eq!(m.kernels, ["scale"], "{ctx}");
        // The driver, handed the whole fat binary, picks the same image.
        let own = driver
            .load(ordinal, fatbin_bytes(images).into())
            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(own.source.to_string(), *want, "{ctx}: driver's own pick");
        // The report explains the choice.
        assert!(
            r.to_string()
                .contains(&format!("result: [{}] {want}", r.image_index)),
            "{ctx}\n{r}"
        );
    }
}

const SET_75: &[&str] = &["sm_75"];
const SET_75_86: &[&str] = &["sm_75", "sm_86"];
const SET_75_80PTX: &[&str] = &["sm_75", "sm_80", "compute_80"];
const SET_75_86_89PTX: &[&str] = &["sm_75", "sm_86", "sm_89", "compute_89"];
const SET_90A: &[&str] = &["sm_90a"];
const SET_80: &[&str] = &["sm_80"];
const SET_PTX_80_86: &[&str] = &["compute_80", "compute_86"];

#[test]
fn rig_turing_ampere_ada() {
    check(RIG_A, SET_75, &["sm_75", "-", "-"]);
    check(RIG_A, SET_75_86, &["sm_75", "sm_86", "sm_86"]);
    check(RIG_A, SET_75_80PTX, &["sm_75", "sm_80", "sm_80"]);
    check(RIG_A, SET_75_86_89PTX, &["sm_75", "sm_86", "sm_89"]);
    check(RIG_A, SET_90A, &["-", "-", "-"]);
    check(RIG_A, SET_80, &["-", "sm_80", "sm_80"]);
    check(RIG_A, SET_PTX_80_86, &["-", "compute_86", "compute_86"]);
}

#[test]
fn rig_a100_h100() {
    check(RIG_B, SET_75, &["-", "-"]);
    check(RIG_B, SET_75_86, &["-", "-"]);
    check(RIG_B, SET_75_80PTX, &["sm_80", "compute_80"]);
    check(RIG_B, SET_75_86_89PTX, &["-", "compute_89"]);
    check(RIG_B, SET_90A, &["-", "sm_90a"]);
    check(RIG_B, SET_80, &["sm_80", "-"]);
    check(RIG_B, SET_PTX_80_86, &["compute_80", "compute_86"]);
}

#[test]
fn rig_ampere_blackwell() {
    check(RIG_C, SET_75, &["-", "-"]);
    check(RIG_C, SET_75_86, &["sm_86", "-"]);
    check(RIG_C, SET_75_80PTX, &["sm_80", "compute_80"]);
    check(RIG_C, SET_75_86_89PTX, &["sm_86", "compute_89"]);
    check(RIG_C, SET_90A, &["-", "-"]);
    check(RIG_C, SET_80, &["sm_80", "-"]);
    check(RIG_C, SET_PTX_80_86, &["compute_86", "compute_86"]);
}

#[test]
fn preflight_names_the_gpu_and_the_fix() {
    let driver = rig(RIG_A);
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let pf = loader.preflight(&fatbin(&["sm_75", "sm_89"])).unwrap();
    assert!(!pf.all_ok());
    insta::assert_snapshot!(pf.to_string());
    let err = pf.ensure().unwrap_err();
    insta::assert_snapshot!(err.to_string());
}

#[test]
fn ptx_isa_newer_than_the_driver_without_nvjitlink_names_both_fixes() {
    // PTX from CUDA 13.5 (ISA 9.5) on a CUDA 13.0 driver, as on the GPU machine.
    let driver = rig(RIG_B);
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let fb = fatbin(&["compute_80@9.5"]);
    let err = loader.load(&fb, 1).unwrap_err();
    assert!(matches!(err, Error::PtxTooNew { .. }), "{err}");
    insta::assert_snapshot!(err.to_string());
    assert_eq!(driver.jit_count(), 0, "refused before any JIT");
    // The driver itself would fail with 222 on the same PTX.
    let own = driver.load(1, common::ptx("80", "9.5").into()).unwrap_err();
    assert_eq!(own.driver_code(), Some(222), "{own}");
    // Preflight reports the same for every GPU.
    let pf = loader.preflight(&fb).unwrap();
    for g in &pf.gpus {
        assert!(g
            .outcome
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("update the NVIDIA driver"));
    }
}

#[test]
fn newer_isa_ptx_is_skipped_when_an_older_one_fits() {
    // The driver would pick compute_86 (ISA 9.5) and fail with 222; the loader takes the PTX it
    // can JIT.
    let driver = rig(RIG_C);
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let fb = fatbin(&["compute_80@9.0", "compute_86@9.5"]);
    let r = loader.load(&fb, 0).unwrap().report;
    assert_eq!(
        (r.image_target.to_string(), r.path),
        ("compute_80".into(), LoadPath::DriverJit)
    );
    let own = driver
        .load(
            0,
            fatbin_bytes(&["compute_80@9.0", "compute_86@9.5"]).into(),
        )
        .unwrap_err();
    assert_eq!(own.driver_code(), Some(222));
}

#[test]
fn policies_change_the_choice() {
    use archbuild_runtime::Policy;
    let driver = rig(RIG_B);
    let fb = fatbin(&["sm_80", "sm_90", "compute_80"]);
    let pick = |p: Policy| {
        let l = Loader::with_driver(&driver).nvjitlink(None).policy(p);
        l.load(&fb, 1)
            .map(|x| (x.report.image_target.to_string(), x.report.path))
    };
    assert_eq!(
        pick(Policy::PreferCubin).unwrap(),
        ("sm_90".into(), LoadPath::Cubin)
    );
    assert_eq!(
        pick(Policy::PreferPtx).unwrap(),
        ("compute_80".into(), LoadPath::DriverJit)
    );
    assert_eq!(
        pick(Policy::ForcePtx).unwrap(),
        ("compute_80".into(), LoadPath::DriverJit)
    );
    let only = Loader::with_driver(&driver)
        .nvjitlink(None)
        .policy(Policy::CubinOnly);
    let err = only.load(&fatbin(&["sm_80", "compute_80"]), 1).unwrap_err();
    insta::assert_snapshot!(err.to_string());
}

#[test]
fn bad_ordinal_and_bad_fatbin_are_errors() {
    let driver = rig(RIG_B);
    let loader = Loader::with_driver(&driver);
    let err = loader.load(&fatbin(&["sm_80"]), 5).unwrap_err();
    assert_eq!(err.to_string(), "GPU 5 does not exist: 2 GPU(s) visible; use an ordinal below 2 or check CUDA_VISIBLE_DEVICES");
    let mut bytes = fatbin_bytes(&["sm_80"]);
    bytes.truncate(40);
    let err = archbuild_runtime::FatBinary::from_vec(bytes).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot read the fat binary: truncated"),
        "{err}"
    );
}

#[test]
fn a_fat_binary_of_only_lto_ir_without_nvjitlink_names_the_fix() {
    // What `nvcc -dlto -fatbin -arch=lto_90` makes: nothing a driver loads; only nvJitLink links
    // it, and this loader has none.
    let sm90 = archbuild_arch::Target::parse_nvcc_name("sm_90")
        .unwrap()
        .arch;
    let bytes = archbuild_fatbin::FatbinWriter::new()
        .add_ltoir(b"not really NVVM IR, never read here", sm90)
        .unwrap()
        .write()
        .unwrap();
    let fb = archbuild_runtime::FatBinary::from_vec(bytes).unwrap();
    let driver = SimDriver::new(CudaVersion::new(13, 0)).with_gpu(9, 0);
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let err = loader.load(&fb, 0).unwrap_err();
    assert!(matches!(err, Error::NoImage { .. }), "{err:?}");
    insta::assert_snapshot!("lto_ir_without_nvjitlink", err.to_string());
}
