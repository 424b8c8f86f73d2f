//! Image selection: the rig (RTX 2080 / 3090 / 4090 = 7.5 / 8.6 / 8.9) and H100 cases,
//! each with the expected choice asserted and the full explanation snapshotted, plus the
//! policy and tie-breaking rules of `docs/arch-lists.md`.

use archbuild_arch::{
    select, Chosen, ComputeCapability, CudaVersion, DeviceInfo, ImageInfo, Outcome, Policy, PtxIsa,
    Reason, Route, Selection, Target,
};

fn device(major: u32, minor: u32, name: &str, driver: CudaVersion) -> DeviceInfo {
    DeviceInfo {
        name: Some(name.to_string()),
        ..DeviceInfo::new(ComputeCapability::new(major, minor), driver)
    }
}

const DRIVER_13_0: CudaVersion = CudaVersion::new(13, 0);

fn rig() -> [DeviceInfo; 3] {
    [
        device(7, 5, "NVIDIA GeForce RTX 2080", DRIVER_13_0),
        device(8, 6, "NVIDIA GeForce RTX 3090", DRIVER_13_0),
        device(8, 9, "NVIDIA GeForce RTX 4090", DRIVER_13_0),
    ]
}

fn h100() -> DeviceInfo {
    device(9, 0, "NVIDIA H100 80GB HBM3", DRIVER_13_0)
}

/// Images from nvcc names; PTX gets ISA 9.0 (what CUDA 13.0 emits) unless `isa` says otherwise.
fn images(names: &[&str], isa: PtxIsa) -> Vec<ImageInfo> {
    names
        .iter()
        .map(|n| {
            let target = Target::parse_nvcc_name(n).unwrap_or_else(|| panic!("bad name {n}"));
            let ptx_isa = (target.kind == archbuild_arch::TargetKind::Ptx).then_some(isa);
            ImageInfo::new(target, ptx_isa)
        })
        .collect()
}

fn isa(major: u32, minor: u32) -> PtxIsa {
    PtxIsa::new(major, minor)
}

/// The chosen image's name and route, or None.
fn choice(s: &Selection) -> Option<(String, Route)> {
    s.chosen
        .map(|Chosen { target, route, .. }| (target.to_string(), route))
}

fn cubin(name: &str) -> Option<(String, Route)> {
    Some((name.to_string(), Route::Cubin))
}

/// Runs one image set on the three rig GPUs, checks the choices and snapshots the explanations.
fn rig_case(snapshot: &str, names: &[&str], expected: [Option<(String, Route)>; 3]) {
    let imgs = images(names, isa(9, 0));
    let mut text = String::new();
    for (dev, want) in rig().iter().zip(expected) {
        let s = select(&imgs, dev, Policy::PreferCubin);
        assert_eq!(choice(&s), want, "{names:?} on {}", dev.cc);
        assert_eq!(s.verdicts.len(), imgs.len());
        assert_eq!(s.fix_hint().is_some(), s.chosen.is_none());
        text.push_str(&format!("{s}\n\n"));
    }
    insta::assert_snapshot!(snapshot, text.trim_end());
}

#[test]
fn rig_sm75_only() {
    rig_case("rig_sm75", &["sm_75"], [cubin("sm_75"), None, None]);
}

#[test]
fn rig_sm75_sm86() {
    rig_case(
        "rig_sm75_sm86",
        &["sm_75", "sm_86"],
        [cubin("sm_75"), cubin("sm_86"), cubin("sm_86")],
    );
}

#[test]
fn rig_sm75_sm80_ptx() {
    rig_case(
        "rig_sm75_sm80_ptx",
        &["sm_75", "sm_80", "compute_80"],
        [cubin("sm_75"), cubin("sm_80"), cubin("sm_80")],
    );
}

#[test]
fn rig_sm75_sm86_sm89_ptx89() {
    rig_case(
        "rig_sm75_sm86_sm89_ptx89",
        &["sm_75", "sm_86", "sm_89", "compute_89"],
        [cubin("sm_75"), cubin("sm_86"), cubin("sm_89")],
    );
}

fn h100_case(
    snapshot: &str,
    names: &[&str],
    ptx_isa: PtxIsa,
    want: Option<(String, Route)>,
) -> Selection {
    let s = select(&images(names, ptx_isa), &h100(), Policy::PreferCubin);
    assert_eq!(choice(&s), want, "{names:?}");
    insta::assert_snapshot!(snapshot, s.to_string());
    s
}

#[test]
fn h100_sm90a() {
    h100_case("h100_sm90a", &["sm_90a"], isa(9, 0), cubin("sm_90a"));
}

#[test]
fn h100_sm80_does_not_fit() {
    let s = h100_case("h100_sm80", &["sm_80"], isa(9, 0), None);
    assert_eq!(
        s.verdicts[0].outcome,
        Outcome::Rejected(Reason::DifferentMajor {
            built: ComputeCapability::new(8, 0),
            device: ComputeCapability::new(9, 0)
        })
    );
    assert_eq!(
        s.fix_hint().unwrap(),
        "add 9.0 to ARCHBUILD_ARCHS (or 9.0+PTX), or build PTX for an arch <= 9.0"
    );
}

#[test]
fn h100_highest_ptx_below_the_device_is_jitted() {
    let s = h100_case(
        "h100_compute80_compute86",
        &["compute_80", "compute_86"],
        isa(9, 0),
        Some(("compute_86".into(), Route::DriverJit)),
    );
    assert_eq!(s.verdicts[0].outcome, Outcome::Usable);
    assert_eq!(s.fix_hint(), None);
}

#[test]
fn h100_ptx_isa_9_5_on_a_13_0_driver_needs_nvjitlink() {
    let s = h100_case(
        "h100_ptx_isa_9_5",
        &["compute_90"],
        isa(9, 5),
        Some((
            "compute_90".into(),
            Route::NeedsNewerJit {
                ptx_isa: isa(9, 5),
                driver_max: isa(9, 0),
            },
        )),
    );
    let hint = s.fix_hint().unwrap();
    assert!(
        hint.contains("add 9.0 to ARCHBUILD_ARCHS") && hint.contains("CUDA 13.5"),
        "{hint}"
    );
}

#[test]
fn jitable_ptx_beats_a_higher_ptx_the_driver_cannot_jit() {
    let imgs = vec![
        ImageInfo::new(
            Target::parse_nvcc_name("compute_90").unwrap(),
            Some(isa(9, 5)),
        ),
        ImageInfo::new(
            Target::parse_nvcc_name("compute_80").unwrap(),
            Some(isa(9, 0)),
        ),
    ];
    let s = select(&imgs, &h100(), Policy::PreferCubin);
    assert_eq!(choice(&s), Some(("compute_80".into(), Route::DriverJit)));
    assert_eq!(s.verdicts[0].outcome, Outcome::Usable);
}

#[test]
fn same_cc_prefers_arch_then_family_then_plain() {
    let b200 = device(10, 0, "NVIDIA B200", DRIVER_13_0);
    let s = select(
        &images(&["sm_100", "sm_100f", "sm_100a"], isa(9, 0)),
        &b200,
        Policy::PreferCubin,
    );
    assert_eq!(choice(&s), cubin("sm_100a"));
    let s = select(
        &images(&["sm_100", "sm_100f"], isa(9, 0)),
        &b200,
        Policy::PreferCubin,
    );
    assert_eq!(choice(&s), cubin("sm_100f"));
    // On 10.3 the exact plain cubin beats an older family cubin; sm_100a cannot run at all.
    let b300 = device(10, 3, "NVIDIA B300", DRIVER_13_0);
    let s = select(
        &images(&["sm_100a", "sm_100f", "sm_103"], isa(9, 0)),
        &b300,
        Policy::PreferCubin,
    );
    assert_eq!(choice(&s), cubin("sm_103"));
    assert!(matches!(
        s.verdicts[0].outcome,
        Outcome::Rejected(Reason::ArchSpecificOtherCc { .. })
    ));
    insta::assert_snapshot!("b300_variants", s.to_string());
}

#[test]
fn equal_targets_go_to_the_first_image() {
    let s = select(
        &images(&["sm_80", "sm_86", "sm_86"], isa(9, 0)),
        &rig()[1],
        Policy::PreferCubin,
    );
    assert_eq!(s.chosen.unwrap().index, 1);
    assert_eq!(s.verdicts[2].outcome, Outcome::Usable);
}

#[test]
fn policies() {
    let imgs = images(&["sm_75", "sm_80", "compute_80"], isa(9, 0));
    let rtx3090 = &rig()[1];
    let pick = |p| choice(&select(&imgs, rtx3090, p));
    assert_eq!(pick(Policy::PreferCubin), cubin("sm_80"));
    assert_eq!(pick(Policy::CubinOnly), cubin("sm_80"));
    assert_eq!(
        pick(Policy::PreferPtx),
        Some(("compute_80".into(), Route::DriverJit))
    );
    assert_eq!(
        pick(Policy::ForcePtx),
        Some(("compute_80".into(), Route::DriverJit))
    );
    // Fallbacks: prefer-ptx takes a cubin when no PTX fits; the strict ones do not.
    let only_cubin = images(&["sm_86"], isa(9, 0));
    assert_eq!(
        choice(&select(&only_cubin, rtx3090, Policy::PreferPtx)),
        cubin("sm_86")
    );
    let s = select(&only_cubin, rtx3090, Policy::ForcePtx);
    assert_eq!(s.chosen, None);
    assert_eq!(
        s.verdicts[0].outcome,
        Outcome::Rejected(Reason::ExcludedByPolicy(Policy::ForcePtx))
    );
    insta::assert_snapshot!("force_ptx_without_ptx", s.to_string());
    let only_ptx = images(&["compute_80"], isa(9, 0));
    let s = select(&only_ptx, rtx3090, Policy::CubinOnly);
    assert_eq!(s.chosen, None);
    insta::assert_snapshot!("cubin_only_without_cubin", s.to_string());
}

#[test]
fn policy_names_round_trip() {
    for p in [
        Policy::PreferCubin,
        Policy::PreferPtx,
        Policy::CubinOnly,
        Policy::ForcePtx,
    ] {
        assert_eq!(p.to_string().parse::<Policy>().unwrap(), p);
    }
    assert_eq!("PREFER_PTX".parse::<Policy>().unwrap(), Policy::PreferPtx);
    assert_eq!(Policy::default(), Policy::PreferCubin);
    assert!("prefer-gpu".parse::<Policy>().is_err());
}

#[test]
fn empty_image_set_and_unknown_driver() {
    let s = select(&[], &h100(), Policy::PreferCubin);
    assert_eq!(s.chosen, None);
    // A driver newer than the PTX table is assumed to JIT anything.
    let future = device(9, 0, "NVIDIA H100", CudaVersion::new(14, 2));
    let s2 = select(
        &images(&["compute_90"], isa(9, 5)),
        &future,
        Policy::PreferCubin,
    );
    assert_eq!(choice(&s2), Some(("compute_90".into(), Route::DriverJit)));
    insta::assert_snapshot!("empty_and_future_driver", format!("{s}\n\n{s2}"));
}

/// An LTO-IR image for the device's arch and a PTX of the same arch: LTO-IR is linked by
/// nvJitLink when the program has one, else the PTX goes to the driver; LTO-IR alone without
/// nvJitLink names the way out.
#[test]
fn lto_ir_is_linked_when_nvjitlink_is_there_and_ptx_stands_in_otherwise() {
    let imgs = images(&["compute_80", "lto_80", "lto_100"], isa(9, 0));
    let mut gpu = h100();
    gpu.links_lto = true;
    let s = select(&imgs, &gpu, Policy::PreferCubin);
    assert_eq!(choice(&s), Some(("lto_80".into(), Route::LinkLto)));
    assert_eq!(
        s.verdicts[2].outcome,
        Outcome::Rejected(Reason::LtoIrForNewerDevice {
            built: ComputeCapability::new(10, 0),
            device: ComputeCapability::new(9, 0)
        })
    );
    assert!(
        s.to_string()
            .contains("linked for this device by nvJitLink"),
        "{s}"
    );
    gpu.links_lto = false;
    let s = select(&imgs, &gpu, Policy::PreferCubin);
    assert_eq!(choice(&s), Some(("compute_80".into(), Route::DriverJit)));
    assert_eq!(
        s.verdicts[1].outcome,
        Outcome::Rejected(Reason::NoLtoLinker)
    );
    let s = select(&imgs[1..2], &gpu, Policy::PreferCubin);
    assert_eq!(s.chosen, None);
    let fix = s.fix_hint().unwrap();
    assert!(
        fix.contains("[0] lto_80")
            && fix.contains("ARCHBUILD_NVJITLINK")
            && fix.contains("nvjitlink-cu13"),
        "{fix}"
    );
    // cubin-only excludes LTO-IR as it excludes PTX; a newer PTX beats an older LTO-IR.
    gpu.links_lto = true;
    assert_eq!(select(&imgs, &gpu, Policy::CubinOnly).chosen, None);
    let newer_ptx = images(&["lto_80", "compute_90"], isa(9, 0));
    let s = select(&newer_ptx, &gpu, Policy::PreferCubin);
    assert_eq!(choice(&s), Some(("compute_90".into(), Route::DriverJit)));
}
