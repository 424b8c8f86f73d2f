//! Driver floors (issue 35): fleets on R525, R535, R550, R570 and R580 drivers (CUDA 12.0,
//! 12.2, 12.4, 12.8, 13.0) against images made by CUDA 13.0 and 13.5 (cubins with CUDA 13's
//! ELF ABI; PTX ISA 9.0 and 9.5) and, for the compression floor, by CUDA 12.4, stored, LZ4 and
//! zstd, handed over as one image (archbuild's loader) or as a whole fat binary (the driver
//! decompresses). The expected grid is written out by hand from the documented floors
//! (`docs/runtime.md`, "Driver floors").

use archbuild_arch::{
    driver_branch, select, ComputeCapability, CudaVersion, DeviceInfo, Handoff, ImageCompression,
    ImageInfo, Outcome, Policy, PtxIsa, Reason, Route, Target,
};

const DRIVERS: [CudaVersion; 5] = [
    CudaVersion::new(12, 0),
    CudaVersion::new(12, 2),
    CudaVersion::new(12, 4),
    CudaVersion::new(12, 8),
    CudaVersion::new(13, 0),
];

/// One image on a 7.5 GPU: `cubin`, `jit` (driver JIT), `nvjitlink`, or `no` (refused for
/// the driver).
fn verdict(img: ImageInfo, driver: CudaVersion, handoff: Handoff) -> &'static str {
    let device = DeviceInfo {
        handoff,
        ..DeviceInfo::new(ComputeCapability::new(7, 5), driver)
    };
    let s = select(&[img], &device, Policy::PreferCubin);
    match (s.chosen.map(|c| c.route), s.verdicts[0].outcome) {
        (Some(Route::Cubin), _) => "cubin",
        (Some(Route::DriverJit), _) => "jit",
        (Some(Route::NeedsNewerJit { .. }), _) => "nvjitlink",
        (None, Outcome::Rejected(Reason::DriverTooOld { .. })) => "no",
        other => panic!("unexpected {other:?}"),
    }
}

fn sm75(made_by: u32, compression: ImageCompression) -> ImageInfo {
    ImageInfo::new(Target::parse_nvcc_name("sm_75").unwrap(), None)
        .made_by(Some(made_by))
        .compression(compression)
}

fn compute75(isa: (u32, u32), compression: ImageCompression) -> ImageInfo {
    ImageInfo::new(
        Target::parse_nvcc_name("compute_75").unwrap(),
        Some(PtxIsa::new(isa.0, isa.1)),
    )
    .compression(compression)
}

#[test]
fn the_verdicts_follow_the_documented_floors() {
    use Handoff::{FatBinary, Image};
    use ImageCompression::{Lz4, None as Stored, Zstd};
    // Columns: drivers CUDA 12.0 (R525), 12.2 (R535), 12.4 (R550), 12.8 (R570), 13.0 (R580).
    let rows: Vec<(&str, ImageInfo, Handoff, [&str; 5])> = vec![
        // CUDA 13.0 / 13.5 cubins (ELF ABI 8) need R580, whatever the compression.
        (
            "13.x sm_75 stored",
            sm75(13, Stored),
            Image,
            ["no", "no", "no", "no", "cubin"],
        ),
        (
            "13.x sm_75 lz4, fatbin",
            sm75(13, Lz4),
            FatBinary,
            ["no", "no", "no", "no", "cubin"],
        ),
        (
            "13.x sm_75 zstd, fatbin",
            sm75(13, Zstd),
            FatBinary,
            ["no", "no", "no", "no", "cubin"],
        ),
        (
            "13.x sm_75 zstd, image",
            sm75(13, Zstd),
            Image,
            ["no", "no", "no", "no", "cubin"],
        ),
        // PTX from 13.0 (ISA 9.0) JITs on R580; from 13.5 (9.5) R580 needs nvJitLink 13.
        (
            "13.0 compute_75 stored",
            compute75((9, 0), Stored),
            Image,
            ["no", "no", "no", "no", "jit"],
        ),
        (
            "13.5 compute_75 stored",
            compute75((9, 5), Stored),
            Image,
            ["no", "no", "no", "no", "nvjitlink"],
        ),
        (
            "13.5 compute_75 zstd, fatbin",
            compute75((9, 5), Zstd),
            FatBinary,
            ["no", "no", "no", "no", "nvjitlink"],
        ),
        // CUDA 12.4 images: R525 loads the cubin; zstd handed to the driver needs R550.
        (
            "12.4 sm_75 stored, fatbin",
            sm75(12, Stored),
            FatBinary,
            ["cubin", "cubin", "cubin", "cubin", "cubin"],
        ),
        (
            "12.4 sm_75 lz4, fatbin",
            sm75(12, Lz4),
            FatBinary,
            ["cubin", "cubin", "cubin", "cubin", "cubin"],
        ),
        (
            "12.4 sm_75 zstd, fatbin",
            sm75(12, Zstd),
            FatBinary,
            ["no", "no", "cubin", "cubin", "cubin"],
        ),
        (
            "12.4 sm_75 zstd, image",
            sm75(12, Zstd),
            Image,
            ["cubin", "cubin", "cubin", "cubin", "cubin"],
        ),
        (
            "12.4 compute_75 stored",
            compute75((8, 4), Stored),
            Image,
            ["nvjitlink", "nvjitlink", "jit", "jit", "jit"],
        ),
        (
            "12.4 compute_75 zstd, fatbin",
            compute75((8, 4), Zstd),
            FatBinary,
            ["no", "no", "jit", "jit", "jit"],
        ),
    ];
    let mut failures = Vec::new();
    for (name, img, handoff, expected) in rows {
        let got: Vec<&str> = DRIVERS.iter().map(|d| verdict(img, *d, handoff)).collect();
        if got != expected {
            failures.push(format!("{name}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let branches: Vec<_> = DRIVERS.iter().map(|d| driver_branch(*d)).collect();
    assert_eq!(
        branches,
        [Some(525), Some(535), Some(550), Some(570), Some(580)]
    );
}

#[test]
fn a_cubin_the_driver_cannot_load_is_skipped_with_the_floor_and_the_fix() {
    let device = DeviceInfo {
        name: Some("RTX 2080".into()),
        ..DeviceInfo::new(ComputeCapability::new(7, 5), CudaVersion::new(12, 4))
    };
    let images = [
        sm75(13, ImageCompression::None),
        compute75((9, 5), ImageCompression::Zstd),
    ];
    let s = select(&images, &device, Policy::PreferCubin);
    assert_eq!(s.chosen, None);
    let text = s.to_string();
    assert!(
        text.contains(
            "[0] sm_75: rejected: cubin made by CUDA 13 needs a driver for CUDA 13.0 (R580) or \
             newer; this GPU's driver is CUDA 12.4: update the driver, or build with a CUDA 12 \
             toolkit, or ship PTX it can JIT (ISA 8.4 or older)"
        ),
        "{text}"
    );
    assert!(
        text.contains("[1] compute_75 (PTX ISA 9.5): rejected: PTX ISA 9.5 needs a driver for CUDA 13.5 or newer to JIT it"),
        "{text}"
    );
    assert!(
        text.contains(
            "fix: update the driver to CUDA 13.0 (R580) or newer, or build with a CUDA 12 \
             toolkit, or ship PTX it can JIT (ISA 8.4 or older), or build the PTX with CUDA 12.4 \
             or older, or ship a cubin made by CUDA 12"
        ),
        "{text}"
    );
    // A CUDA 12 image beside them is chosen instead.
    let mut with_12 = images.to_vec();
    with_12.push(sm75(12, ImageCompression::None));
    let s = select(&with_12, &device, Policy::PreferCubin);
    assert_eq!(s.chosen.map(|c| c.index), Some(2));
    assert_eq!(s.fix_hint(), None);
}
