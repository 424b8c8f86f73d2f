//! Narrowing a kernel's own arch list (a per-file or per-group list: what the kernel *can* be
//! built for) to the GPUs a requested list names (what the person building asked for), as
//! vLLM's and HF kernel-builder's "supported ∩ requested" do, defined for `a`/`f` variants and
//! PTX (`docs/arch-lists.md`, "Narrowing a per-file list"):
//!
//! - each target of the requested list names one GPU: its compute capability (`9.0`, `9.0a`,
//!   `compute_90` and `9.0+PTX` all name 9.0; PTX names its own GPU, not every newer one);
//! - for each such GPU, the kernel keeps its best cubin and its best PTX *for that GPU*: of its
//!   targets of that kind that run there (NVIDIA's compatibility rules, `compat.rs`), those of
//!   the highest compute capability, every variant of it (`9.0` and `9.0a` both stay).
//!
//! So `9.0a` narrowed to `native` on an H100 (`9.0+PTX`) is `9.0a`; `8.0 9.0a` narrowed to
//! `8.6` is `8.0` (the cubin that runs there); `10.0f` narrowed to `10.3` is `10.0f`. The
//! kernel's list decides the forms (cubin, PTX, variant), the requested list the GPUs.

use std::collections::BTreeSet;

use crate::cc::{ComputeCapability, Target, TargetKind};
use crate::compat::target_runs_on;
use crate::list::ArchList;

/// The GPUs a requested list names: the compute capability of each of its targets.
pub fn named_gpus(requested: &ArchList) -> Vec<ComputeCapability> {
    let set: BTreeSet<ComputeCapability> = requested.targets().iter().map(|t| t.arch.cc).collect();
    set.into_iter().collect()
}

/// `own` narrowed to the GPUs `requested` names (module docs); empty when none of `own`'s
/// targets runs on any of them.
pub fn narrow(own: &ArchList, requested: &ArchList) -> ArchList {
    let mut keep: Vec<Target> = Vec::new();
    for gpu in named_gpus(requested) {
        for kind in [TargetKind::Cubin, TargetKind::Ptx] {
            let fits: Vec<Target> = own
                .targets()
                .iter()
                .filter(|t| t.kind == kind && target_runs_on(**t, gpu))
                .copied()
                .collect();
            if let Some(best) = fits.iter().map(|t| t.arch.cc).max() {
                keep.extend(fits.into_iter().filter(|t| t.arch.cc == best));
            }
        }
    }
    ArchList::from_targets(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(own: &str, requested: &str) -> String {
        let own: ArchList = own.parse().unwrap();
        let requested: ArchList = requested.parse().unwrap();
        narrow(&own, &requested).to_string()
    }

    #[test]
    fn variants_ptx_and_families() {
        assert_eq!(n("9.0a", "9.0+PTX"), "9.0a");
        assert_eq!(n("9.0a", "compute_90"), "9.0a");
        assert_eq!(n("9.0a", "8.6 8.9+PTX"), "");
        assert_eq!(n("8.0 9.0a", "8.6"), "8.0");
        assert_eq!(n("8.0 8.6 8.9", "8.9"), "8.9");
        assert_eq!(n("10.0f", "10.3"), "10.0f");
        assert_eq!(n("9.0 9.0a+PTX", "9.0"), "9.0 9.0a+PTX");
        assert_eq!(n("7.5 8.0 8.6+PTX", "9.0+PTX"), "compute_86");
        assert_eq!(n("7.5+PTX 8.0+PTX", "8.6"), "8.0+PTX");
        // Narrowing to the list itself changes nothing.
        let all = "7.5 8.0 8.6 9.0a+PTX 10.0f 12.0+PTX";
        assert_eq!(n(all, all), all);
    }
}
