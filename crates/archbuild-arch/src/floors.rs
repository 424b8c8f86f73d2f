//! Driver floors: the oldest driver that loads an image, by rules NVIDIA documents (sources in
//! `docs/runtime.md`, "Driver floors"). A fleet is GPUs *and* drivers: an sm_75 cubin runs on a
//! 7.5 GPU only if that GPU's driver also takes the cubin's toolkit, its PTX ISA and its
//! compression.
//!
//! | rule | floor |
//! |---|---|
//! | cubin made by CUDA 13 (ELF ABI version 8) | driver for CUDA 13.0 (R580) |
//! | cubin made by CUDA 12 | CUDA 12.0 (R525), minor version compatibility |
//! | cubin made by CUDA 11 | CUDA 11.0 (R450) |
//! | PTX of ISA X.Y | the driver JITs it from the CUDA release that introduced X.Y; nvJitLink of that release's major makes a cubin a driver of that major loads, so below that major nothing loads it |
//! | zstd-compressed entry the driver decompresses | CUDA 12.4 (R550) |
//! | LZ4-compressed or stored entry | none beyond the above |
//!
//! The driver is named by the CUDA version it reports (`cuDriverGetVersion`, `8.9@12.4` in
//! `ARCHBUILD_SIMULATED_GPUS`) and, where the release notes document it, its branch.

use std::fmt;

use crate::cc::{CudaVersion, PtxIsa, Target, TargetKind};
use crate::tables;

/// One image of a fat binary: the target, for PTX its `.version`, for a cubin the toolkit that
/// made it, and how it is stored: what the driver floors (below) are read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageInfo {
    pub target: Target,
    /// The PTX ISA of a PTX image; `None` when unknown (treated as JIT-able by the driver).
    pub ptx_isa: Option<PtxIsa>,
    /// The major version of the toolkit that made a cubin (13 for ELF ABI version 8, or from the
    /// build record); `None` when unknown (no toolkit floor is applied).
    pub made_by: Option<u32>,
    /// How the image is stored in the fat binary.
    pub compression: ImageCompression,
}

impl ImageInfo {
    /// An image with no toolkit known, stored uncompressed.
    pub const fn new(target: Target, ptx_isa: Option<PtxIsa>) -> Self {
        Self {
            target,
            ptx_isa,
            made_by: None,
            compression: ImageCompression::None,
        }
    }

    /// The same image, made by a toolkit of this major version.
    pub const fn made_by(mut self, major: Option<u32>) -> Self {
        self.made_by = major;
        self
    }

    /// The same image, stored with this compression.
    pub const fn compression(mut self, compression: ImageCompression) -> Self {
        self.compression = compression;
        self
    }
}

const fn v(major: u32, minor: u32) -> CudaVersion {
    CudaVersion::new(major, minor)
}

/// How an image is stored in the fat binary, as far as a driver cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ImageCompression {
    /// Stored as is.
    #[default]
    None,
    /// An LZ4 block (`--compress-mode=speed`): decoded by every driver archbuild models.
    Lz4,
    /// A zstd frame (`--compress-mode=balance`/`size`, nvcc's default for PTX).
    Zstd,
}

/// Who hands an image to the driver, which decides who decompresses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Handoff {
    /// archbuild's loader extracts the chosen image, decompresses it itself and gives the driver
    /// only that image: compression sets no floor.
    #[default]
    Image,
    /// The whole fat binary goes to the driver (the CUDA runtime registering an executable's
    /// `.nv_fatbin`, `cuModuleLoadData` on a fat binary): the driver decompresses.
    FatBinary,
}

/// What an image needs of the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Requirement {
    /// A cubin made by a toolkit of this major version.
    CubinToolkit { major: u32 },
    /// PTX of this ISA version.
    PtxIsa { isa: PtxIsa },
    /// A zstd-compressed entry the driver decompresses.
    Zstd,
}

/// The oldest driver an image needs, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DriverFloor {
    pub requirement: Requirement,
    /// The oldest driver, by the CUDA version it reports.
    pub cuda: CudaVersion,
}

impl DriverFloor {
    /// The driver branch of the floor (525 for CUDA 12.0), where the release notes give one.
    pub fn branch(&self) -> Option<u32> {
        driver_branch(self.cuda)
    }

    /// Whether a driver reporting `driver` cannot load the image at all. PTX between the
    /// floor's major and the floor itself is not blocked: nvJitLink of the driver's major
    /// compiles it (the selection's `Route::NeedsNewerJit`).
    pub fn blocks(&self, driver: CudaVersion) -> bool {
        match self.requirement {
            Requirement::PtxIsa { .. } => driver.major() < self.cuda.major(),
            _ => driver < self.cuda,
        }
    }

    /// "CUDA 13.0 (R580)", or "CUDA 13.5" where no branch is documented.
    pub fn driver_name(&self) -> String {
        driver_name(self.cuda)
    }
}

/// "CUDA 12.4 (R550)": a driver by its CUDA version and, where documented, its branch.
pub fn driver_name(cuda: CudaVersion) -> String {
    match driver_branch(cuda) {
        Some(b) => format!("CUDA {cuda} (R{b})"),
        None => format!("CUDA {cuda}"),
    }
}

/// `(CUDA release, driver branch of its GA driver)`: NVIDIA's release notes, table "CUDA
/// Toolkit and Corresponding Driver Versions" (12.0 GA 525.60.13 … 13.0 GA 580.65.06).
const BRANCHES: &[(CudaVersion, u32)] = &[
    (v(11, 0), 450),
    (v(12, 0), 525),
    (v(12, 1), 530),
    (v(12, 2), 535),
    (v(12, 3), 545),
    (v(12, 4), 550),
    (v(12, 5), 555),
    (v(12, 6), 560),
    (v(12, 8), 570),
    (v(12, 9), 575),
    (v(13, 0), 580),
];

/// The driver branch whose GA driver reports this CUDA version (12.4 → 550), where documented.
pub fn driver_branch(cuda: CudaVersion) -> Option<u32> {
    BRANCHES.iter().find(|(c, _)| *c == cuda).map(|(_, b)| *b)
}

/// The CUDA version a driver of `branch` (the first number of `580.65.06`) reports at least:
/// the newest release whose GA driver is of that branch or older (575 → 12.9, 580 → 13.0, a
/// newer branch → 13.0). `None` below R450.
pub fn cuda_for_branch(branch: u32) -> Option<CudaVersion> {
    BRANCHES
        .iter()
        .filter(|(_, b)| *b <= branch)
        .map(|(c, _)| *c)
        .max()
}

/// The oldest driver that runs what a toolkit of `major` makes (minor version compatibility:
/// CUDA 11.x ≥ R450, 12.x ≥ R525, 13.x ≥ R580); a later major is assumed to need its `.0`.
pub fn toolkit_minimum_driver(major: u32) -> CudaVersion {
    v(major, 0)
}

/// The toolkit major a cubin's ELF ABI version (`e_ident[EI_ABIVERSION]`) proves: 8 is CUDA
/// 13 (or newer, which needs at least as new a driver). Version 7 is written by CUDA 12 and by
/// earlier releases alike, so it proves nothing; the build record can tell.
pub fn toolkit_for_elf_abi(abi_version: u8) -> Option<u32> {
    (abi_version >= 8).then_some(13)
}

/// The oldest driver a zstd-compressed entry needs when the driver decompresses it (RAPIDS:
/// CUDA 12 `balanced` needs 550.54.14+).
pub const ZSTD_MINIMUM_DRIVER: CudaVersion = v(12, 4);

/// Every floor of `img` when handed over by `handoff`, in the order they are checked.
pub fn driver_floors(img: &ImageInfo, handoff: Handoff) -> Vec<DriverFloor> {
    let mut floors = Vec::new();
    match (img.target.kind, img.made_by, img.ptx_isa) {
        (TargetKind::Cubin, Some(major), _) => floors.push(DriverFloor {
            requirement: Requirement::CubinToolkit { major },
            cuda: toolkit_minimum_driver(major),
        }),
        (TargetKind::Ptx, _, Some(isa)) => {
            if let Some(cuda) = tables::first_cuda_for_ptx_isa(isa) {
                floors.push(DriverFloor {
                    requirement: Requirement::PtxIsa { isa },
                    cuda,
                });
            }
        }
        _ => {}
    }
    if handoff == Handoff::FatBinary && img.compression == ImageCompression::Zstd {
        floors.push(DriverFloor {
            requirement: Requirement::Zstd,
            cuda: ZSTD_MINIMUM_DRIVER,
        });
    }
    floors
}

/// The first floor of `img` that a driver reporting `driver` does not reach.
pub fn blocking_floor(
    img: &ImageInfo,
    handoff: Handoff,
    driver: CudaVersion,
) -> Option<DriverFloor> {
    driver_floors(img, handoff)
        .into_iter()
        .find(|f| f.blocks(driver))
}

/// The fix for one floor on a driver of version `driver`, e.g. "update the driver, or build with
/// a CUDA 12 toolkit, or ship PTX it can JIT (ISA 8.4 or older)".
pub(crate) fn floor_fix(floor: &DriverFloor, driver: CudaVersion) -> String {
    let mut fixes = vec!["update the driver".to_owned()];
    fixes.extend(floor_alternatives(floor, driver));
    fixes.join(", or ")
}

/// The fixes other than a driver update.
pub(crate) fn floor_alternatives(floor: &DriverFloor, driver: CudaVersion) -> Vec<String> {
    let jit = match tables::max_ptx_isa_for_cuda(driver) {
        Some(max) => format!("ship PTX it can JIT (ISA {max} or older)"),
        None => "ship PTX it can JIT".to_owned(),
    };
    match floor.requirement {
        Requirement::CubinToolkit { .. } => {
            vec![format!("build with a CUDA {} toolkit", driver.major()), jit]
        }
        Requirement::PtxIsa { .. } => vec![
            format!("build the PTX with CUDA {driver} or older"),
            format!("ship a cubin made by CUDA {}", driver.major()),
        ],
        Requirement::Zstd => vec![
            "build with compression `speed` (LZ4) or `none`".to_owned(),
            "load it with archbuild's loader, which decompresses it itself".to_owned(),
        ],
    }
}

/// The oldest driver that loads the image by some route: for PTX, the first driver of the
/// major that introduced its ISA (with nvJitLink of that major); else the floor itself.
pub(crate) fn loads_from(floor: &DriverFloor) -> CudaVersion {
    match floor.requirement {
        Requirement::PtxIsa { .. } => toolkit_minimum_driver(floor.cuda.major()),
        _ => floor.cuda,
    }
}

impl fmt::Display for DriverFloor {
    /// What needs what: "cubin made by CUDA 13 needs a driver for CUDA 13.0 (R580) or newer".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let driver = self.driver_name();
        match self.requirement {
            Requirement::CubinToolkit { major } => {
                write!(
                    f,
                    "cubin made by CUDA {major} needs a driver for {driver} or newer"
                )
            }
            Requirement::PtxIsa { isa } => write!(
                f,
                "PTX ISA {isa} needs a driver for {driver} or newer to JIT it (nvJitLink would \
                 make a CUDA {} cubin, which needs a driver for {} or newer)",
                self.cuda.major(),
                driver_name(toolkit_minimum_driver(self.cuda.major()))
            ),
            Requirement::Zstd => write!(
                f,
                "zstd-compressed image needs a driver for {driver} or newer to decompress it"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Arch, Target};

    fn cubin(made_by: Option<u32>, compression: ImageCompression) -> ImageInfo {
        ImageInfo::new(Target::cubin(Arch::plain(7, 5)), None)
            .made_by(made_by)
            .compression(compression)
    }

    #[test]
    fn documented_floors() {
        assert_eq!(toolkit_for_elf_abi(8), Some(13));
        assert_eq!(toolkit_for_elf_abi(7), None);
        let f = blocking_floor(
            &cubin(Some(13), ImageCompression::None),
            Handoff::Image,
            v(12, 4),
        );
        assert_eq!(f.map(|f| f.cuda), Some(v(13, 0)));
        assert_eq!(
            f.unwrap().to_string(),
            "cubin made by CUDA 13 needs a driver for CUDA 13.0 (R580) or newer"
        );
        assert!(blocking_floor(
            &cubin(Some(12), ImageCompression::None),
            Handoff::Image,
            v(12, 0)
        )
        .is_none());
        assert!(blocking_floor(
            &cubin(Some(12), ImageCompression::None),
            Handoff::Image,
            v(11, 8)
        )
        .is_some());
        // zstd only where the driver decompresses, and from 12.4 (R550).
        let z = cubin(Some(12), ImageCompression::Zstd);
        assert!(blocking_floor(&z, Handoff::Image, v(12, 2)).is_none());
        assert_eq!(
            blocking_floor(&z, Handoff::FatBinary, v(12, 2)).map(|f| f.branch()),
            Some(Some(550))
        );
        assert!(blocking_floor(&z, Handoff::FatBinary, v(12, 4)).is_none());
        let l = cubin(Some(12), ImageCompression::Lz4);
        assert!(blocking_floor(&l, Handoff::FatBinary, v(12, 0)).is_none());
        // PTX: blocked only below the major of the release that introduced its ISA.
        let ptx = ImageInfo::new(Target::ptx(Arch::plain(7, 5)), Some(PtxIsa::new(9, 5)));
        assert!(blocking_floor(&ptx, Handoff::Image, v(13, 0)).is_none());
        assert_eq!(
            blocking_floor(&ptx, Handoff::Image, v(12, 8)).map(|f| f.cuda),
            Some(v(13, 5))
        );
        assert_eq!(driver_name(v(12, 4)), "CUDA 12.4 (R550)");
        assert_eq!(cuda_for_branch(580), Some(v(13, 0)));
        assert_eq!(
            cuda_for_branch(565),
            Some(v(12, 6)),
            "between branches: the older"
        );
        assert_eq!(cuda_for_branch(595), Some(v(13, 0)));
        assert_eq!(cuda_for_branch(440), None);
        assert_eq!(driver_name(v(13, 5)), "CUDA 13.5");
    }
}
