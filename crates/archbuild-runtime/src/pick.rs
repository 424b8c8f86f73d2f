//! Variant groups and kernels resolved on one image of a fat binary: which kernel of each group
//! the image has, and the error for a kernel it lacks (naming the images that have it). Apart
//! from `variants` (the groups themselves) so that `fatbinary`, which carries the groups, and
//! this, which reads the images, do not depend on each other.

use crate::error::{Error, Result};
use crate::fatbinary::FatBinary;
use crate::variants::{runs_on, VariantChoice, VariantGroup};

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
