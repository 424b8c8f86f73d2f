//! The toolkit tables against what real tools report. The lists below were printed by
//! `ptxas --help` (`--gpu-name` allowed values) of the CUDA 12.8.93, 12.9.86 and 13.5.37
//! wheels, and by `nvcc --list-gpu-code` of CUDA 13.0 (cuda-compatibility.md); the PTX ISA
//! facts are from the PTX ISA release history and the observed 13.0 driver.

use archbuild_arch::{
    arch_support, first_cuda_for_ptx_isa, max_ptx_isa_for_cuda, toolkit_can_build, toolkits_for,
    Arch, ComputeCapability, CudaVersion, PtxIsa, Target, Variant,
};

const PTXAS_12_8: &str =
    "sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 \
    sm_90a sm_100 sm_100a sm_101 sm_101a sm_120 sm_120a";
const PTXAS_12_9: &str = "sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 \
    sm_90a sm_100 sm_100a sm_100f sm_101 sm_101a sm_101f sm_103 sm_103a sm_103f sm_120 sm_120a sm_120f sm_121 \
    sm_121a sm_121f";
const PTXAS_13_5: &str = "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_103 sm_103a \
    sm_103f sm_107 sm_107a sm_107f sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f";
/// `nvcc --list-gpu-code` of CUDA 13.0 (plain archs only).
const NVCC_13_0_PLAIN: &str =
    "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_110 sm_103 sm_120 sm_121";

fn archs(list: &str) -> Vec<Arch> {
    list.split_whitespace()
        .map(|n| Target::parse_nvcc_name(n).unwrap().arch)
        .collect()
}

/// Every arch in the tables.
fn universe() -> Vec<Arch> {
    let mut out = Vec::new();
    for sm in 20..=140 {
        for variant in [Variant::Plain, Variant::Family, Variant::Arch] {
            let arch = Arch::new(ComputeCapability::from_sm(sm), variant);
            if arch_support(arch).is_some() {
                out.push(arch);
            }
        }
    }
    out
}

#[test]
fn toolkit_reach_matches_real_ptxas_lists() {
    for (version, list) in [
        ((12, 8), PTXAS_12_8),
        ((12, 9), PTXAS_12_9),
        ((13, 5), PTXAS_13_5),
    ] {
        let cuda = CudaVersion::new(version.0, version.1);
        let listed = archs(list);
        for arch in universe() {
            assert_eq!(
                toolkit_can_build(cuda, arch),
                listed.contains(&arch),
                "CUDA {cuda} sm_{}",
                arch.sm_name()
            );
        }
    }
    let cuda = CudaVersion::new(13, 0);
    let listed = archs(NVCC_13_0_PLAIN);
    for arch in universe()
        .into_iter()
        .filter(|a| a.variant == Variant::Plain)
    {
        assert_eq!(
            toolkit_can_build(cuda, arch),
            listed.contains(&arch),
            "CUDA 13.0 sm_{}",
            arch.sm_name()
        );
    }
}

#[test]
fn documented_additions_and_removals() {
    let v = CudaVersion::new;
    let support = |sm: u32, variant| {
        arch_support(Arch::new(ComputeCapability::from_sm(sm), variant)).unwrap()
    };
    // 13.0 dropped Maxwell, Pascal and Volta (sm_50..sm_72).
    for sm in [50, 52, 53, 60, 61, 62, 70, 72] {
        assert_eq!(
            support(sm, Variant::Plain).removed,
            Some(v(13, 0)),
            "sm_{sm}"
        );
    }
    // 12.0 dropped Kepler.
    assert_eq!(support(35, Variant::Plain).removed, Some(v(12, 0)));
    assert_eq!(support(37, Variant::Plain).removed, Some(v(12, 0)));
    // 12.8 added 100/101/120, 12.9 added 103/121 and `f`, 13.0 renamed 101 to 110, 13.5 added 107.
    for sm in [100, 101, 120] {
        assert_eq!(support(sm, Variant::Plain).added, v(12, 8), "sm_{sm}");
    }
    for (sm, variant) in [
        (103, Variant::Plain),
        (121, Variant::Plain),
        (100, Variant::Family),
        (120, Variant::Family),
    ] {
        assert_eq!(support(sm, variant).added, v(12, 9), "sm_{sm}{variant:?}");
    }
    assert_eq!(support(101, Variant::Plain).removed, Some(v(13, 0)));
    assert_eq!(support(110, Variant::Plain).added, v(13, 0));
    assert_eq!(support(107, Variant::Plain).added, v(13, 5));
    // No `a` before 9.0, no `f` before 10.0, nothing for CCs that never existed.
    assert!(arch_support(Arch::new(ComputeCapability::new(8, 6), Variant::Arch)).is_none());
    assert!(arch_support(Arch::new(ComputeCapability::new(9, 0), Variant::Family)).is_none());
    assert!(arch_support(Arch::plain(8, 5)).is_none());
    assert_eq!(
        toolkits_for(Arch::plain(7, 0)).unwrap(),
        "CUDA 9.0 up to (not including) 13.0"
    );
    assert_eq!(
        toolkits_for(Arch::plain(9, 0)).unwrap(),
        "CUDA 11.8 and newer"
    );
}

#[test]
fn ptx_isa_versus_cuda() {
    let isa = PtxIsa::new;
    let v = CudaVersion::new;
    // A driver JITs up to the ISA of its own CUDA version.
    assert_eq!(max_ptx_isa_for_cuda(v(13, 0)), Some(isa(9, 0)));
    assert_eq!(max_ptx_isa_for_cuda(v(12, 8)), Some(isa(8, 7)));
    assert_eq!(
        max_ptx_isa_for_cuda(v(12, 6)),
        Some(isa(8, 5)),
        "12.6 still emits 8.5"
    );
    assert_eq!(max_ptx_isa_for_cuda(v(12, 7)), Some(isa(8, 6)));
    assert_eq!(max_ptx_isa_for_cuda(v(11, 8)), Some(isa(7, 8)));
    assert_eq!(
        max_ptx_isa_for_cuda(CudaVersion(13000)),
        Some(isa(9, 0)),
        "cuDriverGetVersion's 13000"
    );
    assert_eq!(max_ptx_isa_for_cuda(CudaVersion(12080)), Some(isa(8, 7)));
    // Unknown territory: newer than the table, or older than CUDA 9.
    assert_eq!(max_ptx_isa_for_cuda(v(13, 9)), None);
    assert_eq!(max_ptx_isa_for_cuda(v(8, 0)), None);
    // First CUDA for an ISA: the 13.0 driver rejects 9.5, which came with 13.5.
    assert_eq!(first_cuda_for_ptx_isa(isa(9, 5)), Some(v(13, 5)));
    assert_eq!(first_cuda_for_ptx_isa(isa(8, 6)), Some(v(12, 7)));
    assert_eq!(first_cuda_for_ptx_isa(isa(7, 0)), Some(v(11, 0)));
    assert_eq!(first_cuda_for_ptx_isa(isa(9, 9)), None);
    // The two agree: a CUDA version can JIT the ISA it introduced, and not the next one.
    for minor in 0..=5 {
        let cuda = first_cuda_for_ptx_isa(isa(9, minor)).unwrap();
        assert_eq!(max_ptx_isa_for_cuda(cuda), Some(isa(9, minor)));
    }
}
