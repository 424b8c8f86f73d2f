//! Facts about NVIDIA's toolkits, as data: which PTX ISA each CUDA release introduced (so we
//! know what a driver can JIT), and which CUDA release added and removed each `sm_`. Device
//! names per compute capability live in `devices`. Sources: NVIDIA release notes and the PTX
//! ISA release history, checked against nvcc 13.5 (`--list-gpu-code`, `-arch=sm_XY --dryrun`);
//! `docs/arch-lists.md` and `docs/runtime.md` say what follows from them.

use crate::cc::{Arch, ComputeCapability, CudaVersion, PtxIsa, Variant};

const fn v(major: u32, minor: u32) -> CudaVersion {
    CudaVersion::new(major, minor)
}

/// `(PTX ISA, first CUDA release that emits it)`, ascending in both columns. CUDA 12.6 still
/// emits 8.5, which is why 8.6 starts at 12.7.
const PTX_ISA_TABLE: &[((u32, u32), CudaVersion)] = &[
    ((6, 0), v(9, 0)),
    ((6, 1), v(9, 1)),
    ((6, 2), v(9, 2)),
    ((6, 3), v(10, 0)),
    ((6, 4), v(10, 1)),
    ((6, 5), v(10, 2)),
    ((7, 0), v(11, 0)),
    ((7, 1), v(11, 1)),
    ((7, 2), v(11, 2)),
    ((7, 3), v(11, 3)),
    ((7, 4), v(11, 4)),
    ((7, 5), v(11, 5)),
    ((7, 6), v(11, 6)),
    ((7, 7), v(11, 7)),
    ((7, 8), v(11, 8)),
    ((8, 0), v(12, 0)),
    ((8, 1), v(12, 1)),
    ((8, 2), v(12, 2)),
    ((8, 3), v(12, 3)),
    ((8, 4), v(12, 4)),
    ((8, 5), v(12, 5)),
    ((8, 6), v(12, 7)),
    ((8, 7), v(12, 8)),
    ((8, 8), v(12, 9)),
    ((9, 0), v(13, 0)),
    ((9, 1), v(13, 1)),
    ((9, 2), v(13, 2)),
    ((9, 3), v(13, 3)),
    ((9, 4), v(13, 4)),
    ((9, 5), v(13, 5)),
];

/// The first CUDA release whose tools emit PTX of this ISA version (9.5 → 13.5).
/// `None` for ISA versions this table does not know.
pub fn first_cuda_for_ptx_isa(isa: PtxIsa) -> Option<CudaVersion> {
    PTX_ISA_TABLE
        .iter()
        .find(|((ma, mi), _)| PtxIsa::new(*ma, *mi) == isa)
        .map(|(_, cuda)| *cuda)
}

/// The newest PTX ISA a driver reporting this CUDA version can JIT-compile
/// (13.0 → 9.0, 12.8 → 8.7, 12.6 → 8.5).
///
/// `None` when the version is older than CUDA 9.0 or newer than the newest release this table
/// knows: a newer driver can JIT everything listed here, but we cannot say how much more.
pub fn max_ptx_isa_for_cuda(cuda: CudaVersion) -> Option<PtxIsa> {
    let newest = PTX_ISA_TABLE.last().map(|(_, c)| *c)?;
    if cuda > newest {
        return None;
    }
    PTX_ISA_TABLE
        .iter()
        .rev()
        .find(|(_, first)| *first <= cuda)
        .map(|((ma, mi), _)| PtxIsa::new(*ma, *mi))
}

/// Which CUDA release first built an arch, and which one (if any) dropped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArchSupport {
    /// First CUDA version whose nvcc accepts `sm_XY` / `compute_XY` for this arch.
    pub added: CudaVersion,
    /// First CUDA version that no longer accepts it; `None` while still supported.
    pub removed: Option<CudaVersion>,
}

/// `(sm number, variant, added, removed)`. Variants appear only where nvcc accepts them.
const ARCH_TABLE: &[(u32, Variant, CudaVersion, Option<CudaVersion>)] = {
    use Variant::{Arch as A, Family as F, Plain as P};
    &[
        // Kepler: 3.0/3.2 dropped in 11.0, 3.5/3.7 in 12.0.
        (30, P, v(4, 2), Some(v(11, 0))),
        (32, P, v(6, 0), Some(v(11, 0))),
        (35, P, v(5, 0), Some(v(12, 0))),
        (37, P, v(6, 5), Some(v(12, 0))),
        // Maxwell, Pascal, Volta: dropped in 13.0.
        (50, P, v(6, 0), Some(v(13, 0))),
        (52, P, v(6, 5), Some(v(13, 0))),
        (53, P, v(7, 0), Some(v(13, 0))),
        (60, P, v(8, 0), Some(v(13, 0))),
        (61, P, v(8, 0), Some(v(13, 0))),
        (62, P, v(8, 0), Some(v(13, 0))),
        (70, P, v(9, 0), Some(v(13, 0))),
        (72, P, v(10, 0), Some(v(13, 0))),
        // Turing, Ampere, Ada, Hopper.
        (75, P, v(10, 0), None),
        (80, P, v(11, 0), None),
        (86, P, v(11, 1), None),
        (87, P, v(11, 4), None),
        (88, P, v(13, 0), None),
        (89, P, v(11, 8), None),
        (90, P, v(11, 8), None),
        (90, A, v(12, 0), None),
        // Blackwell: 12.8 added 100/101/120, 12.9 added 103/121 and `f`, 13.0 renamed 101 to
        // 110, 13.5 added 107.
        (100, P, v(12, 8), None),
        (100, A, v(12, 8), None),
        (100, F, v(12, 9), None),
        (101, P, v(12, 8), Some(v(13, 0))),
        (101, A, v(12, 8), Some(v(13, 0))),
        (101, F, v(12, 9), Some(v(13, 0))),
        (103, P, v(12, 9), None),
        (103, A, v(12, 9), None),
        (103, F, v(12, 9), None),
        (107, P, v(13, 5), None),
        (107, A, v(13, 5), None),
        (107, F, v(13, 5), None),
        (110, P, v(13, 0), None),
        (110, A, v(13, 0), None),
        (110, F, v(13, 0), None),
        (120, P, v(12, 8), None),
        (120, A, v(12, 8), None),
        (120, F, v(12, 9), None),
        (121, P, v(12, 9), None),
        (121, A, v(12, 9), None),
        (121, F, v(12, 9), None),
    ]
};

/// Which CUDA release added (and possibly removed) this arch; `None` if no release had it.
pub fn arch_support(arch: Arch) -> Option<ArchSupport> {
    ARCH_TABLE
        .iter()
        .find(|(sm, variant, _, _)| *sm == arch.cc.sm() && *variant == arch.variant)
        .map(|(_, _, added, removed)| ArchSupport {
            added: *added,
            removed: *removed,
        })
}

/// Whether nvcc of this CUDA version can build `sm_XY` / `compute_XY` for `arch`.
pub fn toolkit_can_build(cuda: CudaVersion, arch: Arch) -> bool {
    arch_support(arch).is_some_and(|s| cuda >= s.added && s.removed.is_none_or(|r| cuda < r))
}

/// Every compute capability NVIDIA has shipped, ascending (plain entries of the arch table).
pub(crate) fn shipped_ccs() -> impl Iterator<Item = ComputeCapability> {
    ARCH_TABLE
        .iter()
        .filter(|(_, variant, _, _)| *variant == Variant::Plain)
        .map(|(sm, _, _, _)| ComputeCapability::from_sm(*sm))
}

/// The plain archs a CUDA release's nvcc lists (`--list-gpu-code`), ascending, by this table:
/// what a stand-in for a toolkit that is not on the machine knows (docs.rs builds).
pub fn toolkit_plain_archs(cuda: CudaVersion) -> Vec<Arch> {
    shipped_ccs()
        .map(|cc| Arch::new(cc, Variant::Plain))
        .filter(|a| toolkit_can_build(cuda, *a))
        .collect()
}

pub(crate) fn is_known_cc(cc: ComputeCapability) -> bool {
    shipped_ccs().any(|k| k == cc)
}

/// The CUDA versions that can build `arch`, as text for messages: "12.8 to 12.9", "13.0 and
/// newer".
pub fn toolkits_for(arch: Arch) -> Option<String> {
    let s = arch_support(arch)?;
    Some(match s.removed {
        None => format!("CUDA {} and newer", s.added),
        Some(r) => format!("CUDA {} up to (not including) {}", s.added, r),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_isa_round_trips_with_first_cuda() {
        for ((ma, mi), cuda) in PTX_ISA_TABLE {
            let isa = PtxIsa::new(*ma, *mi);
            assert_eq!(first_cuda_for_ptx_isa(isa), Some(*cuda));
            assert_eq!(max_ptx_isa_for_cuda(*cuda), Some(isa));
        }
    }

    #[test]
    fn a_release_lists_the_plain_archs_it_builds() {
        let sms = |c| -> Vec<u32> { toolkit_plain_archs(c).iter().map(|a| a.cc.sm()).collect() };
        let cuda13 = sms(v(13, 0));
        assert!(cuda13.contains(&75) && cuda13.contains(&90) && !cuda13.contains(&70));
        let cuda12 = sms(v(12, 4));
        assert!(cuda12.contains(&50) && cuda12.contains(&70) && !cuda12.contains(&100));
        assert!(cuda13.windows(2).all(|w| w[0] < w[1]));
    }
}
