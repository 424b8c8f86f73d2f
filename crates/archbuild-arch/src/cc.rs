//! The vocabulary every other part of archbuild speaks: compute capabilities with their
//! `a`/`f` variants, build targets (cubin `sm_XY` or PTX `compute_XY`), PTX ISA versions and
//! CUDA versions. Only types, parsing of single names, and display live here; arch *lists*,
//! compatibility and selection build on top.

use std::fmt;

/// A compute capability such as 8.6 (`major` 8, `minor` 6).
///
/// Ordered by `(major, minor)`, which is also the order of the SM numbers (86 < 89 < 90 < 100).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComputeCapability {
    pub major: u32,
    pub minor: u32,
}

impl ComputeCapability {
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// The SM number nvcc and the fat binary use: 8.6 → 86, 10.0 → 100, 12.1 → 121.
    pub const fn sm(self) -> u32 {
        self.major * 10 + self.minor
    }

    /// The inverse of [`ComputeCapability::sm`]: 86 → 8.6, 100 → 10.0. The minor is always
    /// the last decimal digit, which holds for every CC NVIDIA has shipped.
    pub const fn from_sm(sm: u32) -> Self {
        Self::new(sm / 10, sm % 10)
    }
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The feature-set variant of a target.
///
/// Feature sets nest: `Arch` ⊃ `Family` ⊃ `Plain`, and portability runs the other way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Variant {
    /// `sm_86`: runs on the same major with minor ≥ (cubin) or any later CC (PTX).
    #[default]
    Plain,
    /// `sm_100f`: family-specific, runs on the same family with minor ≥ (CUDA 12.9+, CC 10.0+).
    Family,
    /// `sm_90a`: architecture-specific, runs on exactly this CC and nothing else.
    Arch,
}

impl Variant {
    /// The suffix nvcc uses: `""`, `"f"` or `"a"`.
    pub const fn suffix(self) -> &'static str {
        match self {
            Variant::Plain => "",
            Variant::Family => "f",
            Variant::Arch => "a",
        }
    }
}

/// A compute capability together with its variant: what follows `sm_` or `compute_`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arch {
    pub cc: ComputeCapability,
    pub variant: Variant,
}

impl Arch {
    pub const fn new(cc: ComputeCapability, variant: Variant) -> Self {
        Self { cc, variant }
    }

    pub const fn plain(major: u32, minor: u32) -> Self {
        Self::new(ComputeCapability::new(major, minor), Variant::Plain)
    }

    /// `86`, `90a`, `100f`.
    pub fn sm_name(self) -> String {
        format!("{}{}", self.cc.sm(), self.variant.suffix())
    }
}

impl fmt::Display for Arch {
    /// Dotted form with suffix: `8.6`, `9.0a`, `10.0f`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.cc, self.variant.suffix())
    }
}

/// What a build target produces: machine code for one SM, or PTX for a virtual architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TargetKind {
    /// `sm_XY`: a cubin (ELF) that runs without JIT on compatible devices.
    Cubin,
    /// `compute_XY`: PTX that the driver or nvJitLink compiles for the device at load time.
    Ptx,
    /// `lto_XY`: LTO-IR (NVVM IR) that only nvJitLink links into a cubin for the device at load
    /// time; no driver loads it (CUDA 12.0's drivers stopped JIT-compiling NVVM IR).
    LtoIr,
}

impl TargetKind {
    pub const fn prefix(self) -> &'static str {
        match self {
            TargetKind::Cubin => "sm_",
            TargetKind::Ptx => "compute_",
            TargetKind::LtoIr => "lto_",
        }
    }

    /// Whether an image of this kind is compiled for the device when it is loaded (PTX by the
    /// driver or nvJitLink, LTO-IR by nvJitLink), rather than loaded as it is.
    pub const fn is_jit(self) -> bool {
        !matches!(self, TargetKind::Cubin)
    }
}

/// One build target: `sm_86` (cubin), `compute_89` (PTX) or `lto_90` (LTO-IR), with variant.
///
/// Ordering puts targets by arch first, then cubin before PTX before LTO-IR, so sorted lists
/// read `sm_75 sm_86 sm_89 compute_89 lto_90`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub arch: Arch,
    pub kind: TargetKind,
}

impl Ord for Target {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.arch, self.kind).cmp(&(other.arch, other.kind))
    }
}

impl PartialOrd for Target {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Target {
    pub const fn cubin(arch: Arch) -> Self {
        Self {
            arch,
            kind: TargetKind::Cubin,
        }
    }

    pub const fn ptx(arch: Arch) -> Self {
        Self {
            arch,
            kind: TargetKind::Ptx,
        }
    }

    pub const fn lto(arch: Arch) -> Self {
        Self {
            arch,
            kind: TargetKind::LtoIr,
        }
    }

    /// Parses exactly `sm_XY[a|f]`, `compute_XY[a|f]` or `lto_XY[a|f]` (case-insensitive). Arch *lists* with
    /// all their dialects are parsed by the `list` module; this is for names tools print.
    pub fn parse_nvcc_name(s: &str) -> Option<Self> {
        let lower = s.trim().to_ascii_lowercase();
        let (kind, rest) = if let Some(r) = lower.strip_prefix("sm_") {
            (TargetKind::Cubin, r)
        } else if let Some(r) = lower.strip_prefix("compute_") {
            (TargetKind::Ptx, r)
        } else if let Some(r) = lower.strip_prefix("lto_") {
            (TargetKind::LtoIr, r)
        } else {
            return None;
        };
        let (digits, variant) = match rest.as_bytes().last()? {
            b'a' => (&rest[..rest.len() - 1], Variant::Arch),
            b'f' => (&rest[..rest.len() - 1], Variant::Family),
            _ => (rest, Variant::Plain),
        };
        if digits.len() < 2 || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let sm: u32 = digits.parse().ok()?;
        Some(Self {
            arch: Arch::new(ComputeCapability::from_sm(sm), variant),
            kind,
        })
    }
}

impl fmt::Display for Target {
    /// nvcc's name: `sm_86`, `compute_90a`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.kind.prefix(), self.arch.sm_name())
    }
}

/// A PTX ISA version, from a PTX file's `.version M.m` directive (CUDA 13.5 emits 9.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxIsa {
    pub major: u32,
    pub minor: u32,
}

impl PtxIsa {
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }
}

impl fmt::Display for PtxIsa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A CUDA version as the driver API encodes it: `cuDriverGetVersion` returns 13000 for 13.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudaVersion(pub u32);

impl CudaVersion {
    pub const fn new(major: u32, minor: u32) -> Self {
        Self(major * 1000 + minor * 10)
    }
    pub const fn major(self) -> u32 {
        self.0 / 1000
    }
    pub const fn minor(self) -> u32 {
        (self.0 % 1000) / 10
    }
}

impl fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major(), self.minor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvcc_names_round_trip() {
        for name in [
            "sm_75",
            "sm_86",
            "sm_90a",
            "sm_100f",
            "compute_89",
            "compute_120a",
            "sm_121",
            "lto_90",
            "lto_100f",
        ] {
            let t = Target::parse_nvcc_name(name).unwrap();
            assert_eq!(t.to_string(), name);
        }
        assert_eq!(
            Target::parse_nvcc_name("SM_86"),
            Some(Target::cubin(Arch::plain(8, 6)))
        );
        for bad in [
            "sm_",
            "sm_8",
            "sm_8x",
            "compute_1000",
            "lto_9",
            "sm_90b",
            "",
        ] {
            assert_eq!(Target::parse_nvcc_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn ordering_reads_naturally() {
        let mut v = [
            Target::ptx(Arch::plain(8, 9)),
            Target::cubin(Arch::plain(8, 9)),
            Target::cubin(Arch::plain(7, 5)),
            Target::cubin(Arch::plain(10, 0)),
        ];
        v.sort();
        let s: Vec<String> = v.iter().map(|t| t.to_string()).collect();
        assert_eq!(s, ["sm_75", "sm_89", "compute_89", "sm_100"]);
    }

    #[test]
    fn cuda_version_parts() {
        let v = CudaVersion(13000);
        assert_eq!((v.major(), v.minor()), (13, 0));
        assert_eq!(CudaVersion::new(12, 9).to_string(), "12.9");
    }
}
