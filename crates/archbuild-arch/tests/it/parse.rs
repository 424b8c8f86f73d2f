//! Arch-list parsing: every accepted syntax, PyTorch's documented examples, the context words
//! `native`/`all`/`all-major`, separators, deduplication, ordering, display and `-gencode`.

use archbuild_arch::{Arch, ArchList, ComputeCapability, ResolveContext, Target};

fn ctx() -> ResolveContext<'static> {
    ResolveContext::new("ARCHBUILD_ARCHS")
}

/// The targets of `input`, as nvcc names.
fn expand(input: &str) -> Vec<String> {
    expand_with(input, &ctx())
}

fn expand_with(input: &str, ctx: &ResolveContext) -> Vec<String> {
    match ArchList::parse(input, ctx) {
        Ok(list) => list.targets().iter().map(|t| t.to_string()).collect(),
        Err(e) => panic!("{input:?}: {e}"),
    }
}

fn cc(major: u32, minor: u32) -> ComputeCapability {
    ComputeCapability::new(major, minor)
}

/// What `nvcc --list-gpu-code` prints for CUDA 13.5 (observed), in its own order.
fn cuda_13_5_archs() -> Vec<Arch> {
    [
        "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_110",
        "sm_103", "sm_120", "sm_121", "sm_107",
    ]
    .iter()
    .map(|n| Target::parse_nvcc_name(n).unwrap().arch)
    .collect()
}

#[test]
fn every_single_syntax() {
    let cases: &[(&str, &[&str])] = &[
        ("8.6", &["sm_86"]),
        ("86", &["sm_86"]),
        ("sm_86", &["sm_86"]),
        ("compute_86", &["compute_86"]),
        ("8.6+PTX", &["sm_86", "compute_86"]),
        ("86-real", &["sm_86"]),
        ("86-virtual", &["compute_86"]),
        ("9.0a", &["sm_90a"]),
        ("sm_90a", &["sm_90a"]),
        ("90a", &["sm_90a"]),
        ("compute_90a", &["compute_90a"]),
        ("100f", &["sm_100f"]),
        ("10.0f", &["sm_100f"]),
        ("sm_100f", &["sm_100f"]),
        ("compute_100f", &["compute_100f"]),
        ("120f-virtual", &["compute_120f"]),
        ("12.0a+PTX", &["sm_120a", "compute_120a"]),
        ("100", &["sm_100"]),
        ("12.1", &["sm_121"]),
    ];
    for (input, want) in cases {
        assert_eq!(expand(input), *want, "{input}");
    }
}

#[test]
fn case_does_not_matter() {
    for input in [
        "SM_86",
        "Sm_86",
        "8.6+ptx",
        "8.6+Ptx",
        "COMPUTE_86",
        "86-REAL",
        "86-Virtual",
        "SM_90A",
        "100F",
    ] {
        assert!(ArchList::parse(input, &ctx()).is_ok(), "{input}");
    }
    assert_eq!(expand("AMPERE"), expand("ampere"));
    assert_eq!(expand("Ampere+TEGRA"), ["sm_87"]);
    let dev = [cc(8, 6)];
    assert_eq!(
        expand_with("NATIVE", &ctx().with_devices(&dev)),
        ["sm_86", "compute_86"]
    );
    let tk = cuda_13_5_archs();
    assert_eq!(
        expand_with("All-Major", &ctx().with_toolkit(&tk)),
        expand_with("all-major", &ctx().with_toolkit(&tk))
    );
}

#[test]
fn pytorch_generation_names_expand_exactly_as_pytorch() {
    // torch/utils/cpp_extension.py `named_arches`.
    let cases: &[(&str, &[&str])] = &[
        ("Kepler+Tesla", &["sm_37"]),
        ("Kepler", &["sm_35", "compute_35"]),
        ("Maxwell+Tegra", &["sm_53"]),
        ("Maxwell", &["sm_50", "sm_52", "compute_52"]),
        ("Pascal", &["sm_60", "sm_61", "compute_61"]),
        ("Volta+Tegra", &["sm_72"]),
        ("Volta", &["sm_70", "compute_70"]),
        ("Turing", &["sm_75", "compute_75"]),
        ("Ampere+Tegra", &["sm_87"]),
        ("Ampere", &["sm_80", "sm_86", "compute_86"]),
        ("Ada", &["sm_89", "compute_89"]),
        ("Hopper", &["sm_90", "compute_90"]),
        ("Blackwell+Tegra", &["sm_110"]),
        (
            "Blackwell",
            &["sm_100", "sm_103", "sm_120", "sm_121", "compute_121"],
        ),
        ("Rubin", &["sm_107", "compute_107"]),
    ];
    for (input, want) in cases {
        assert_eq!(expand(input), *want, "{input}");
    }
}

#[test]
fn pytorch_documented_examples() {
    // From PyTorch's TORCH_CUDA_ARCH_LIST documentation.
    assert_eq!(expand("Maxwell+Tegra;6.1"), ["sm_53", "sm_61"]);
    assert_eq!(expand("Volta"), ["sm_70", "compute_70"]);
    assert_eq!(expand("7.5+PTX"), ["sm_75", "compute_75"]);
    assert_eq!(
        expand("5.0;6.0+PTX;7.0;7.5"),
        ["sm_50", "sm_60", "compute_60", "sm_70", "sm_75"]
    );
    assert_eq!(
        expand("3.5;5.2;6.0;6.1;7.0+PTX"),
        ["sm_35", "sm_52", "sm_60", "sm_61", "sm_70", "compute_70"]
    );
}

#[test]
fn separators_mix_freely() {
    let want = ["sm_75", "sm_86", "sm_89", "compute_89"];
    for input in [
        "7.5;8.6;8.9+PTX",
        "7.5,8.6,8.9+PTX",
        "7.5 8.6 8.9+PTX",
        "7.5\t8.6\n8.9+PTX",
        " 7.5 ; 8.6 ,, 8.9+PTX ; ",
        "sm_75,86-real;8.9+PTX",
    ] {
        assert_eq!(expand(input), want, "{input:?}");
    }
}

#[test]
fn duplicates_collapse_and_order_is_deterministic() {
    assert_eq!(
        expand("8.9+PTX 8.6 7.5 sm_86 86-real 8.9"),
        ["sm_75", "sm_86", "sm_89", "compute_89"]
    );
    assert_eq!(
        expand("Ampere 8.6+PTX 86-virtual"),
        ["sm_80", "sm_86", "compute_86"]
    );
    assert_eq!(
        expand("compute_90 9.0a 9.0 100f 100"),
        ["sm_90", "compute_90", "sm_90a", "sm_100", "sm_100f"]
    );
    assert_eq!(
        ArchList::parse("9.0 8.6", &ctx()),
        ArchList::parse("8.6,9.0", &ctx())
    );
}

#[test]
fn native_is_every_visible_device_with_ptx_on_the_highest() {
    // PyTorch with an empty TORCH_CUDA_ARCH_LIST on a 2080 + 3090 + 4090 machine builds
    // 7.5;8.6;8.9+PTX.
    let rig = [cc(8, 6), cc(7, 5), cc(8, 9), cc(8, 6)];
    let c = ctx().with_devices(&rig);
    assert_eq!(
        expand_with("native", &c),
        ["sm_75", "sm_86", "sm_89", "compute_89"]
    );
    assert_eq!(
        ArchList::parse("native", &c).unwrap().to_string(),
        "7.5 8.6 8.9+PTX"
    );
    let h100 = [cc(9, 0)];
    assert_eq!(
        expand_with("native", &ctx().with_devices(&h100)),
        ["sm_90", "compute_90"]
    );
    // Mixed with explicit entries.
    assert_eq!(
        expand_with("native;9.0a", &ctx().with_devices(&h100)),
        ["sm_90", "compute_90", "sm_90a"]
    );
}

#[test]
fn all_and_all_major_follow_nvcc() {
    // Observed with nvcc 13.5 `-arch=all --dryrun`: every sm, PTX only for compute_120 (the
    // highest X.0, "the highest major virtual architecture").
    let tk = cuda_13_5_archs();
    let c = ctx().with_toolkit(&tk);
    assert_eq!(
        ArchList::parse("all", &c).unwrap().to_string(),
        "7.5 8.0 8.6 8.7 8.8 8.9 9.0 10.0 10.3 10.7 11.0 12.0+PTX 12.1"
    );
    // `-arch=all-major`: sm_75 (oldest) 80 90 100 110 120 + compute_120.
    assert_eq!(
        expand_with("all-major", &c),
        [
            "sm_75",
            "sm_80",
            "sm_90",
            "sm_100",
            "sm_110",
            "sm_120",
            "compute_120"
        ]
    );
    // Like nvcc, `all` builds plain targets even when the list (e.g. from ptxas) has `a`/`f`.
    let with_variants = [
        Arch::plain(8, 6),
        Target::parse_nvcc_name("sm_90a").unwrap().arch,
        Arch::plain(9, 0),
    ];
    assert_eq!(
        expand_with("all", &ctx().with_toolkit(&with_variants)),
        ["sm_86", "sm_90", "compute_90"]
    );
    // A CC newer than the tables is accepted when the toolkit lists it.
    let future = [Arch::plain(9, 0), Arch::plain(13, 0)];
    assert_eq!(
        expand_with("13.0", &ctx().with_toolkit(&future)),
        ["sm_130"]
    );
}

#[test]
fn gencode_flags_per_target() {
    let list = ArchList::parse("7.5 8.6 8.9+PTX 9.0a 100f", &ctx()).unwrap();
    assert_eq!(
        list.gencode_flags(),
        [
            "-gencode=arch=compute_75,code=sm_75",
            "-gencode=arch=compute_86,code=sm_86",
            "-gencode=arch=compute_89,code=sm_89",
            "-gencode=arch=compute_89,code=compute_89",
            "-gencode=arch=compute_90a,code=sm_90a",
            "-gencode=arch=compute_100f,code=sm_100f",
        ]
    );
    assert_eq!(
        list.cubins().map(|a| a.sm_name()).collect::<Vec<_>>(),
        ["75", "86", "89", "90a", "100f"]
    );
    assert_eq!(list.ptx().map(|a| a.sm_name()).collect::<Vec<_>>(), ["89"]);
}

#[test]
fn display_is_canonical_and_parses_back() {
    let cases = [
        ("sm_89 compute_89 86 7.5", "7.5 8.6 8.9+PTX"),
        ("compute_86", "compute_86"),
        ("86-virtual 9.0a+PTX", "compute_86 9.0a+PTX"),
        ("100f Blackwell+Tegra", "10.0f 11.0"),
        ("compute_90a compute_100f", "compute_90a compute_100f"),
        ("lto_90 sm_90 8.0+PTX+LTO", "8.0+PTX+LTO 9.0+LTO"),
        ("lto_80 compute_80 lto_90a", "compute_80 lto_80 lto_90a"),
    ];
    for (input, canonical) in cases {
        let list = ArchList::parse(input, &ctx()).unwrap();
        assert_eq!(list.to_string(), canonical, "{input}");
        assert_eq!(
            ArchList::parse(canonical, &ctx()).unwrap(),
            list,
            "{canonical}"
        );
        assert_eq!(canonical.parse::<ArchList>().unwrap(), list);
    }
}

#[test]
fn union_and_from_targets() {
    let a: ArchList = "7.5 8.6".parse().unwrap();
    let b: ArchList = "8.6+PTX 9.0".parse().unwrap();
    assert_eq!(a.union(&b).to_string(), "7.5 8.6+PTX 9.0");
    assert_eq!(b.union(&a), a.union(&b));
    let t = ArchList::from_targets([
        Target::ptx(Arch::plain(8, 9)),
        Target::cubin(Arch::plain(8, 9)),
        Target::cubin(Arch::plain(8, 9)),
    ]);
    assert_eq!(t.to_string(), "8.9+PTX");
    assert_eq!(t.len(), 2);
    assert!(ArchList::default().is_empty());
    assert!(t.contains(Target::ptx(Arch::plain(8, 9))));
}
