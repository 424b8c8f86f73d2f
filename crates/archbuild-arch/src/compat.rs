//! NVIDIA's binary-compatibility rules, as three predicates. Everything that decides whether an
//! image can run on a device (selection, `doctor` reports, build-time warnings) asks here.
//!
//! | target | plain `XY` | family `XYf` | arch-specific `XYa` |
//! |---|---|---|---|
//! | cubin `sm_` | same major, minor ≥ Y | same major, minor ≥ Y | exactly X.Y |
//! | PTX `compute_` | any CC ≥ X.Y | same major, minor ≥ Y | exactly X.Y |
//! | LTO-IR `lto_` | any CC ≥ X.Y | same major, minor ≥ Y | exactly X.Y |
//!
//! LTO-IR follows PTX: nvJitLink 13.5 links `lto_80` for sm_80, sm_86, sm_90 and sm_120 and
//! refuses it for sm_75 (`archbuild-runtime`'s `it nvjitlink` checks this with the real
//! library). It also linked `lto_90a` for sm_100; archbuild does not rely on that, because `a`
//! code may use features of one chip only.
//!
//! Plain PTX is the only form that crosses majors: that is what the JIT is for. `f` code uses
//! family features that later majors do not promise, so its PTX stays inside the family; `a`
//! code uses features of one chip only.

use crate::cc::{Arch, ComputeCapability, Target, TargetKind, Variant};

/// Whether a cubin built for `sm_<arch>` runs on `device` without JIT.
pub fn cubin_runs_on(arch: Arch, device: ComputeCapability) -> bool {
    match arch.variant {
        Variant::Plain | Variant::Family => same_major_not_older(arch.cc, device),
        Variant::Arch => arch.cc == device,
    }
}

/// Whether PTX for `compute_<arch>` can be JIT-compiled for `device` (ignoring the PTX ISA
/// version, which is a question about the driver, not the device: see `select`).
pub fn ptx_jits_for(arch: Arch, device: ComputeCapability) -> bool {
    match arch.variant {
        Variant::Plain => device >= arch.cc,
        Variant::Family => same_major_not_older(arch.cc, device),
        Variant::Arch => arch.cc == device,
    }
}

/// Whether `target` (cubin, PTX or LTO-IR) can run on `device`.
pub fn target_runs_on(target: Target, device: ComputeCapability) -> bool {
    match target.kind {
        TargetKind::Cubin => cubin_runs_on(target.arch, device),
        TargetKind::Ptx | TargetKind::LtoIr => ptx_jits_for(target.arch, device),
    }
}

fn same_major_not_older(built: ComputeCapability, device: ComputeCapability) -> bool {
    built.major == device.major && device.minor >= built.minor
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability::new(major, minor)
    }

    #[test]
    fn documented_examples() {
        // From cuda-compatibility.md: sm_86 runs on 8.6 and 8.9, sm_89 not on 8.6, no 8.x
        // cubin on 9.0.
        assert!(cubin_runs_on(Arch::plain(8, 6), cc(8, 6)));
        assert!(cubin_runs_on(Arch::plain(8, 6), cc(8, 9)));
        assert!(!cubin_runs_on(Arch::plain(8, 9), cc(8, 6)));
        assert!(!cubin_runs_on(Arch::plain(8, 6), cc(9, 0)));
        assert!(ptx_jits_for(Arch::plain(8, 6), cc(9, 0)));
        // 100f -> 10.0 and 10.3; 120f -> 12.0 and 12.1, never across families.
        let f100 = Arch::new(cc(10, 0), Variant::Family);
        assert!(cubin_runs_on(f100, cc(10, 3)) && !cubin_runs_on(f100, cc(12, 0)));
        assert!(!ptx_jits_for(f100, cc(11, 0)));
        let a90 = Arch::new(cc(9, 0), Variant::Arch);
        assert!(target_runs_on(Target::ptx(a90), cc(9, 0)));
        assert!(!target_runs_on(Target::ptx(a90), cc(10, 0)));
    }
}
