//! Property tests: display/parse round trips on canonical lists, the parser never panics on
//! arbitrary input (and whatever it accepts round-trips), and selection only ever chooses an
//! image that can run on the device.

use archbuild_arch::{
    arch_support, select, target_runs_on, Arch, ArchList, ComputeCapability, CudaVersion,
    DeviceInfo, ImageInfo, Policy, PtxIsa, ResolveContext, Target, Variant,
};
use proptest::prelude::*;

/// Every target the tables know (any CUDA version), as cubin, PTX and LTO-IR.
fn known_targets() -> Vec<Target> {
    let mut out = Vec::new();
    for sm in 30..=130 {
        for variant in [Variant::Plain, Variant::Family, Variant::Arch] {
            let arch = Arch::new(ComputeCapability::from_sm(sm), variant);
            if arch_support(arch).is_some() {
                out.push(Target::cubin(arch));
                out.push(Target::ptx(arch));
                out.push(Target::lto(arch));
            }
        }
    }
    out
}

fn arb_list() -> impl Strategy<Value = ArchList> {
    let all = known_targets();
    proptest::sample::subsequence(all.clone(), 1..=all.len().min(12))
        .prop_map(ArchList::from_targets)
}

/// Strings made of the pieces entries are built from, so the parser's paths get exercised.
fn arb_entryish() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("sm_".to_string()),
        Just("compute_".to_string()),
        Just("+PTX".to_string()),
        Just("lto_".to_string()),
        Just("+LTO".to_string()),
        Just("-real".to_string()),
        Just("-virtual".to_string()),
        Just("Ampere".to_string()),
        Just("+Tegra".to_string()),
        Just("native".to_string()),
        Just("all".to_string()),
        Just("-major".to_string()),
        "[0-9]{1,3}",
        "[.;, af]",
        "\\PC",
    ];
    proptest::collection::vec(pieces, 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn display_then_parse_is_identity(list in arb_list()) {
        let shown = list.to_string();
        let back = ArchList::parse(&shown, &ResolveContext::new("test")).unwrap();
        prop_assert_eq!(&back, &list);
        prop_assert_eq!(back.to_string(), shown);
    }

    #[test]
    fn parser_never_panics_on_arbitrary_strings(s in any::<String>()) {
        let _ = ArchList::parse(&s, &ResolveContext::new("test"));
    }

    #[test]
    fn accepted_input_round_trips(s in arb_entryish()) {
        let devices = [ComputeCapability::new(8, 6), ComputeCapability::new(7, 5)];
        let toolkit = [Arch::plain(7, 5), Arch::plain(8, 0), Arch::plain(9, 0), Arch::plain(12, 0)];
        let ctx = ResolveContext::new("test").with_devices(&devices).with_toolkit(&toolkit);
        match ArchList::parse(&s, &ctx) {
            Ok(list) => {
                prop_assert!(!list.is_empty());
                let back = ArchList::parse(&list.to_string(), &ResolveContext::new("test")).unwrap();
                prop_assert_eq!(back, list);
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.contains("test"), "origin missing: {}", msg);
            }
        }
    }

    #[test]
    fn selection_only_chooses_runnable_images(
        picks in proptest::sample::subsequence(known_targets(), 0..8),
        dev in proptest::sample::select(vec![(7u32, 5u32), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (10, 3), (12, 0), (12, 1)]),
        policy in proptest::sample::select(vec![Policy::PreferCubin, Policy::PreferPtx, Policy::CubinOnly, Policy::ForcePtx]),
        isa_minor in 0u32..6,
        links_lto in proptest::bool::ANY,
    ) {
        let images: Vec<ImageInfo> = picks.iter().map(|t| ImageInfo::new(*t, Some(PtxIsa::new(9, isa_minor)))).collect();
        let cc = ComputeCapability::new(dev.0, dev.1);
        let device = DeviceInfo { links_lto, ..DeviceInfo::new(cc, CudaVersion::new(13, 0)) };
        let s = select(&images, &device, policy);
        prop_assert_eq!(s.verdicts.len(), images.len());
        let linkable = |t: Target| links_lto || t.kind != archbuild_arch::TargetKind::LtoIr;
        let runnable = images.iter().any(|i| target_runs_on(i.target, cc) && linkable(i.target));
        if let Some(c) = s.chosen {
            prop_assert!(target_runs_on(c.target, cc) && linkable(c.target));
            prop_assert_eq!(images[c.index].target, c.target);
        } else {
            prop_assert!(s.fix_hint().is_some());
            if policy == Policy::PreferCubin || policy == Policy::PreferPtx {
                prop_assert!(!runnable);
            }
        }
        let _ = s.to_string();
    }
}
