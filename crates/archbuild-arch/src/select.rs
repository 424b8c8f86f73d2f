//! Choosing the image to load on one device from the images a fat binary carries, by a
//! documented policy, with a verdict for every image so the choice can be explained.
//!
//! `prefer-cubin` (the default, and what the driver itself does):
//! 1. the best compatible cubin: the highest compatible arch, which is the device's own CC
//!    when present (and there `a` > `f` > plain), else the newest older one of the same major;
//! 2. else the best compatible PTX or LTO-IR: first those the driver can JIT (PTX ISA ≤ what
//!    its CUDA version supports) or nvJitLink can link (LTO-IR, when the program has nvJitLink:
//!    [`DeviceInfo::links_lto`]), then the highest arch ≤ the device, then LTO-IR before PTX of
//!    the same arch (whole-program IR, compiled for this very device by the same compiler as
//!    a build's, against the driver's JIT of PTX); a PTX only nvJitLink can compile is still
//!    chosen, with [`Route::NeedsNewerJit`]. LTO-IR follows PTX's compatibility rule
//!    (`compat`): `lto_80` links for 8.0 and every later GPU, `lto_90a` for 9.0 alone.
//!
//! An image the device could run but its driver cannot load (a floor of `floors`: the cubin's
//! toolkit, the PTX ISA beyond what nvJitLink of the driver's major compiles, zstd the driver
//! must decompress) is rejected with [`Reason::DriverTooOld`], naming the floor and the fix.
//!
//! `prefer-ptx` takes step 2 before step 1, `cubin-only` skips step 2, `force-ptx` skips step 1.
//! Ties between identical targets go to the lower index (the first image in the fat binary).

use std::fmt;
use std::str::FromStr;

use crate::cc::{Arch, ComputeCapability, CudaVersion, PtxIsa, Target, TargetKind, Variant};
use crate::error::Error;
use crate::floors::{self, DriverFloor, Handoff};
use crate::{suggest, tables};

pub use crate::floors::ImageInfo;

/// The device to choose for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub cc: ComputeCapability,
    /// The CUDA version the driver reports (`cuDriverGetVersion`).
    pub driver: CudaVersion,
    /// The name the driver reports, for messages.
    pub name: Option<String>,
    /// Whether the driver gets the chosen image alone or the whole fat binary (which decides
    /// whether compression sets a floor).
    pub handoff: Handoff,
    /// Whether LTO-IR can be linked for this device: only nvJitLink links it, and the program
    /// found one (no driver loads LTO-IR).
    pub links_lto: bool,
}

impl DeviceInfo {
    /// A device with no name, loaded through archbuild's loader ([`Handoff::Image`]), with no
    /// nvJitLink to link LTO-IR.
    pub fn new(cc: ComputeCapability, driver: CudaVersion) -> Self {
        Self {
            cc,
            driver,
            name: None,
            handoff: Handoff::Image,
            links_lto: false,
        }
    }
}

/// How to choose between cubin and PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum Policy {
    /// Cubin when one fits, else PTX (the driver's own behaviour).
    #[default]
    PreferCubin,
    /// PTX when one fits, else cubin.
    PreferPtx,
    /// Never PTX.
    CubinOnly,
    /// Never cubin.
    ForcePtx,
}

impl Policy {
    const NAMES: [&'static str; 4] = ["prefer-cubin", "prefer-ptx", "cubin-only", "force-ptx"];
    const ALL: [Policy; 4] = [
        Policy::PreferCubin,
        Policy::PreferPtx,
        Policy::CubinOnly,
        Policy::ForcePtx,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Policy::PreferCubin => "prefer-cubin",
            Policy::PreferPtx => "prefer-ptx",
            Policy::CubinOnly => "cubin-only",
            Policy::ForcePtx => "force-ptx",
        }
    }

    /// `cubin-only` excludes what is compiled at load time (PTX and LTO-IR); `force-ptx`
    /// excludes cubins.
    fn allows(self, kind: TargetKind) -> bool {
        match self {
            Policy::CubinOnly => !kind.is_jit(),
            Policy::ForcePtx => kind.is_jit(),
            Policy::PreferCubin | Policy::PreferPtx => true,
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = Error;

    /// Accepts the names in any case, with `_` for `-`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        Self::NAMES
            .iter()
            .position(|n| *n == norm)
            .map(|i| Self::ALL[i])
            .ok_or_else(|| Error::UnknownPolicy {
                input: s.to_string(),
                suggestion: suggest::suggest_from(&norm, &Self::NAMES),
            })
    }
}

/// How the chosen image gets onto the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Load the cubin as is.
    Cubin,
    /// Hand the PTX to the driver's JIT.
    DriverJit,
    /// The PTX is newer than the driver can JIT (it would fail with
    /// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`); compile it with nvJitLink instead.
    NeedsNewerJit { ptx_isa: PtxIsa, driver_max: PtxIsa },
    /// Link the LTO-IR into a cubin for the device with nvJitLink (`-lto`).
    LinkLto,
}

/// Why an image cannot be used on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A cubin of another major (sm_86 on 9.0).
    DifferentMajor {
        built: ComputeCapability,
        device: ComputeCapability,
    },
    /// A cubin or `f` PTX of the same major but a higher minor (sm_89 on 8.6).
    MinorTooHigh {
        built: ComputeCapability,
        device: ComputeCapability,
    },
    /// `a` code for another CC (sm_90a on 10.0).
    ArchSpecificOtherCc {
        built: ComputeCapability,
        device: ComputeCapability,
    },
    /// `f` code for another family (sm_100f on 12.0).
    OtherFamily {
        built: ComputeCapability,
        device: ComputeCapability,
    },
    /// Plain PTX for a newer CC than the device (compute_90 on 8.6).
    PtxForNewerDevice {
        built: ComputeCapability,
        device: ComputeCapability,
    },
    /// Plain LTO-IR for a newer CC than the device (lto_90 on 8.6).
    LtoIrForNewerDevice {
        built: ComputeCapability,
        device: ComputeCapability,
    },
    /// LTO-IR, which only nvJitLink links, and the program has no nvJitLink.
    NoLtoLinker,
    /// Compatible with the device, but its driver is older than the image's floor.
    DriverTooOld {
        floor: DriverFloor,
        driver: CudaVersion,
    },
    /// Compatible, but the policy excludes this kind of image.
    ExcludedByPolicy(Policy),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reason::DifferentMajor { built, device } => {
                write!(f, "a cubin for {built} runs only on {built} and later {}.x devices, not on {device}", built.major)
            }
            Reason::MinorTooHigh { built, device } => {
                write!(f, "built for {built}, newer than the device's {device}")
            }
            Reason::ArchSpecificOtherCc { built, device } => {
                write!(f, "arch-specific (`a`) code for {built} runs only on exactly {built}, not {device}")
            }
            Reason::OtherFamily { built, device } => write!(
                f,
                "family-specific (`f`) code for {built} runs only on the {}.x family, not {device}",
                built.major
            ),
            Reason::PtxForNewerDevice { built, device } => {
                write!(
                    f,
                    "PTX for {built} cannot be compiled for the older {device}"
                )
            }
            Reason::LtoIrForNewerDevice { built, device } => {
                write!(
                    f,
                    "LTO-IR for {built} cannot be linked for the older {device}"
                )
            }
            Reason::NoLtoLinker => f.write_str(
                "LTO-IR is linked for the GPU by nvJitLink alone, and no nvJitLink was found: \
                 install it (`pip install nvidia-nvjitlink-cu13`, or the toolkit's \
                 libnvJitLink.so) or set ARCHBUILD_NVJITLINK to its path",
            ),
            Reason::DriverTooOld { floor, driver } => write!(
                f,
                "{floor}; this GPU's driver is CUDA {driver}: {}",
                floors::floor_fix(&floor, driver)
            ),
            Reason::ExcludedByPolicy(p) => {
                write!(f, "compatible, but policy {p} excludes this kind of image")
            }
        }
    }
}

/// The chosen image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chosen {
    pub index: usize,
    pub target: Target,
    pub route: Route,
}

/// What happened to one image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Chosen,
    /// Compatible, but a better image won.
    Usable,
    Rejected(Reason),
}

/// The verdict on one image, by its index in the input slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub index: usize,
    pub target: Target,
    pub outcome: Outcome,
}

/// The outcome of [`select`]: the choice (if any) and a verdict for every image. Its
/// `Display` is the explanation shown to users; [`Selection::fix_hint`] names the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub chosen: Option<Chosen>,
    pub verdicts: Vec<Verdict>,
    pub device: DeviceInfo,
    pub policy: Policy,
    /// Kept for the explanation: the images as given.
    pub(crate) images: Vec<ImageInfo>,
}

impl Selection {
    /// The images as given to [`select`].
    pub fn images(&self) -> &[ImageInfo] {
        &self.images
    }

    /// The newest PTX ISA the device's driver can JIT, if the tables know its version.
    pub fn driver_max_ptx(&self) -> Option<PtxIsa> {
        tables::max_ptx_isa_for_cuda(self.device.driver)
    }
}

/// Why `image` cannot run on `device` (ignoring policy and the driver), or `None` if it can.
pub(crate) fn incompatibility(target: Target, device: ComputeCapability) -> Option<Reason> {
    let built = target.arch.cc;
    let reason = match (target.kind, target.arch.variant) {
        (_, Variant::Arch) if built != device => Reason::ArchSpecificOtherCc { built, device },
        (_, Variant::Arch) => return None,
        (TargetKind::Ptx, Variant::Plain) if built > device => {
            Reason::PtxForNewerDevice { built, device }
        }
        (TargetKind::LtoIr, Variant::Plain) if built > device => {
            Reason::LtoIrForNewerDevice { built, device }
        }
        (TargetKind::Ptx | TargetKind::LtoIr, Variant::Plain) => return None,
        (_, Variant::Family) if built.major != device.major => {
            Reason::OtherFamily { built, device }
        }
        (TargetKind::Cubin, Variant::Plain) if built.major != device.major => {
            Reason::DifferentMajor { built, device }
        }
        _ if built.minor > device.minor => Reason::MinorTooHigh { built, device },
        _ => return None,
    };
    Some(reason)
}

/// How `img` would be loaded by a driver that JITs PTX up to `driver_max` (`None`: a driver
/// newer than the tables, assumed to JIT anything).
pub(crate) fn route_for(img: &ImageInfo, driver_max: Option<PtxIsa>) -> Route {
    match (img.target.kind, img.ptx_isa, driver_max) {
        (TargetKind::Cubin, _, _) => Route::Cubin,
        (TargetKind::LtoIr, _, _) => Route::LinkLto,
        (TargetKind::Ptx, Some(isa), Some(max)) if isa > max => Route::NeedsNewerJit {
            ptx_isa: isa,
            driver_max: max,
        },
        (TargetKind::Ptx, _, _) => Route::DriverJit,
    }
}

/// Picks the image to load on `device` according to `policy`; see the module docs.
pub fn select(images: &[ImageInfo], device: &DeviceInfo, policy: Policy) -> Selection {
    let driver_max = tables::max_ptx_isa_for_cuda(device.driver);
    let route_of = |img: &ImageInfo| route_for(img, driver_max);
    let mut verdicts = Vec::with_capacity(images.len());
    let mut best_cubin: Option<(usize, Arch)> = None;
    let mut best_ptx: Option<(usize, (bool, Arch, bool))> = None;
    for (index, img) in images.iter().enumerate() {
        let target = img.target;
        let outcome = if let Some(reason) = incompatibility(target, device.cc) {
            Outcome::Rejected(reason)
        } else if let Some(floor) = floors::blocking_floor(img, device.handoff, device.driver) {
            Outcome::Rejected(Reason::DriverTooOld {
                floor,
                driver: device.driver,
            })
        } else if target.kind == TargetKind::LtoIr && !device.links_lto {
            Outcome::Rejected(Reason::NoLtoLinker)
        } else if !policy.allows(target.kind) {
            Outcome::Rejected(Reason::ExcludedByPolicy(policy))
        } else {
            // Strictly greater keeps the first of equal candidates.
            match target.kind {
                TargetKind::Cubin => {
                    if best_cubin.is_none_or(|(_, a)| target.arch > a) {
                        best_cubin = Some((index, target.arch));
                    }
                }
                TargetKind::Ptx | TargetKind::LtoIr => {
                    let lto = target.kind == TargetKind::LtoIr;
                    let ready = matches!(route_of(img), Route::DriverJit | Route::LinkLto);
                    let key = (ready, target.arch, lto);
                    if best_ptx.is_none_or(|(_, k)| key > k) {
                        best_ptx = Some((index, key));
                    }
                }
            }
            Outcome::Usable
        };
        verdicts.push(Verdict {
            index,
            target,
            outcome,
        });
    }
    let (cubin, ptx) = (best_cubin.map(|(i, _)| i), best_ptx.map(|(i, _)| i));
    let pick = match policy {
        Policy::PreferCubin | Policy::CubinOnly => cubin.or(ptx),
        Policy::PreferPtx | Policy::ForcePtx => ptx.or(cubin),
    };
    let chosen = pick.map(|index| {
        verdicts[index].outcome = Outcome::Chosen;
        Chosen {
            index,
            target: images[index].target,
            route: route_of(&images[index]),
        }
    });
    Selection {
        chosen,
        verdicts,
        device: device.clone(),
        policy,
        images: images.to_vec(),
    }
}
