//! Variant groups and kernels resolved on one image of a fat binary: which kernel of each group
//! the image has, and the error for a kernel it lacks (naming the images that have it). Apart
//! from `variants` (the groups themselves) so that `fatbinary`, which carries the groups, and
//! this, which reads the images, do not depend on each other.

use crate::error::{Error, Result};
use crate::fatbinary::FatBinary;
use crate::variants::{runs_on, VariantChoice, VariantGroup};
use archbuild_arch::Target;

/// Resolves `group` on image `index` of `fatbin`.
pub(crate) fn choose(
    fatbin: &FatBinary,
    index: usize,
    group: &VariantGroup,
) -> Result<VariantChoice> {
    let image = fatbin.images()[index].target;
    let kernels = fatbin.image_kernels(index)?;
    let mut skipped = Vec::new();
    for k in &group.kernels {
        if kernels.iter().any(|have| have == k) {
            return Ok(VariantChoice {
                group: group.name.clone(),
                kernel: Some(k.clone()),
                image,
                skipped,
            });
        }
        skipped.push((k.clone(), fatbin.images_with_kernel(k)?));
    }
    Ok(VariantChoice {
        group: group.name.clone(),
        kernel: None,
        image,
        skipped,
    })
}

/// Every group of `fatbin` resolved on image `index`.
pub(crate) fn choose_all(fatbin: &FatBinary, index: usize) -> Result<Vec<VariantChoice>> {
    fatbin
        .variant_groups()
        .iter()
        .map(|g| choose(fatbin, index, g))
        .collect()
}

/// The error for a kernel that image `index` lacks, naming where it is.
pub(crate) fn missing(fatbin: &FatBinary, index: usize, kernel: &str, gpu: &str) -> Result<Error> {
    let image = fatbin.images()[index].target;
    let have = fatbin.images_with_kernel(kernel)?;
    let (present_in, fix) = if have.is_empty() {
        (
            "no image of this fat binary has it".to_owned(),
            "check the name (C++ kernels need their mangled name unless declared `extern \"C\"`) \
             and that the source defines it for some arch"
                .to_owned(),
        )
    } else {
        let where_ = have
            .iter()
            .map(|t| format!("{t} ({})", runs_on(t)))
            .collect::<Vec<_>>()
            .join(", ");
        (
            format!("it is only in {where_}"),
            "run it only on those GPUs, declare a variant group with a fallback kernel \
             (`variants` in [package.metadata.archbuild]) and call `Loaded::variant`, or build \
             the kernel for this GPU's arch"
                .to_owned(),
        )
    };
    Ok(Error::KernelMissing {
        kernel: kernel.to_owned(),
        gpu: gpu.to_owned(),
        image: image.to_string(),
        detail: format!("{present_in}; fix: {fix}"),
    })
}

/// Whether the image a GPU got has a kernel, and where the kernel is when it does not: what
/// host code asks before it dispatches, in place of a build-time capability `cfg` (one fat
/// binary serves GPUs of several generations, so "has WMMA" is true per GPU, not per build).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelAvailability {
    /// The loaded image, `image`, has the kernel.
    Present { image: Target },
    /// The loaded image lacks it: its source compiled the kernel out for this arch (a
    /// `__CUDA_ARCH__` guard) or never defined it. `elsewhere`: the images that have it.
    Absent {
        image: Target,
        elsewhere: Vec<Target>,
    },
}

impl KernelAvailability {
    /// Whether this GPU can launch the kernel.
    pub fn is_present(&self) -> bool {
        matches!(self, KernelAvailability::Present { .. })
    }
}

impl std::fmt::Display for KernelAvailability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelAvailability::Present { image } => write!(f, "in the {image} image it loaded"),
            KernelAvailability::Absent { image, elsewhere } if elsewhere.is_empty() => write!(
                f,
                "not in the {image} image it loaded, nor in any other image of the fat binary"
            ),
            KernelAvailability::Absent { image, elsewhere } => {
                let list: Vec<String> = elsewhere
                    .iter()
                    .map(|t| format!("{t} ({})", runs_on(t)))
                    .collect();
                write!(
                    f,
                    "not in the {image} image it loaded (its source compiled it out for that \
                     arch); only in {}",
                    list.join(", ")
                )
            }
        }
    }
}

/// Whether image `index` of `fatbin` has `kernel`.
pub(crate) fn availability(
    fatbin: &FatBinary,
    index: usize,
    kernel: &str,
) -> Result<KernelAvailability> {
    let image = fatbin.images()[index].target;
    if fatbin.image_kernels(index)?.iter().any(|k| k == kernel) {
        return Ok(KernelAvailability::Present { image });
    }
    Ok(KernelAvailability::Absent {
        image,
        elsewhere: fatbin.images_with_kernel(kernel)?,
    })
}
