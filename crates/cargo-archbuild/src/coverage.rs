//! Kernel coverage: a kernel present in some images of a fat binary but missing from others
//! (typically compiled out by an `#if __CUDA_ARCH__ >= …` guard). A GPU that loads an image
//! without the kernel gets CUDA_ERROR_NOT_FOUND (500) when the program looks the kernel up, so
//! `inspect` and `build` name the kernel, the images that lack it and the GPUs that load them.

use std::collections::{BTreeMap, BTreeSet};

use archbuild_arch::{
    select, ComputeCapability, CudaVersion, DeviceInfo, ImageInfo, Policy, Target,
};
use serde::Serialize;

use archbuild_arch::known_ccs;

/// One image as the coverage check sees it.
#[derive(Debug, Clone)]
pub(crate) struct ImageKernels {
    /// Index in the listing the user sees (`[2]`).
    pub index: usize,
    pub target: Target,
    pub kernels: Vec<String>,
}

/// A kernel that some images lack.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct CoverageGap {
    pub kernel: String,
    /// The images (listing indices and targets) that have it.
    pub present_in: Vec<String>,
    /// The images that lack it.
    pub missing_from: Vec<String>,
    /// Compute capabilities whose GPUs would load an image lacking it.
    pub affected_gpus: Vec<String>,
}

impl CoverageGap {
    /// One line for a warning: what is missing where, and who is hit.
    pub fn describe(&self) -> String {
        let hit = if self.affected_gpus.is_empty() {
            "no known GPU loads those images, so nothing fails today".to_string()
        } else {
            format!(
                "GPUs with compute capability {} load those images and will fail to find it \
                 (CUDA_ERROR_NOT_FOUND, 500)",
                self.affected_gpus.join(", ")
            )
        };
        format!(
            "kernel `{}` is missing from {} but present in {}: {hit}; check `#if __CUDA_ARCH__` guards \
             around it, or drop those archs",
            self.kernel,
            self.missing_from.join(", "),
            self.present_in.join(", ")
        )
    }
}

/// Warning lines for `gaps`, one per set of images lacking kernels (one `#if` guard around many
/// kernels is one line, not one per kernel).
pub(crate) fn describe_grouped(gaps: &[CoverageGap]) -> Vec<String> {
    let mut groups: Vec<(&CoverageGap, Vec<&str>)> = Vec::new();
    for g in gaps {
        let same = |h: &&CoverageGap| {
            h.missing_from == g.missing_from
                && h.present_in == g.present_in
                && h.affected_gpus == g.affected_gpus
        };
        match groups.iter_mut().find(|(h, _)| same(h)) {
            Some((_, names)) => names.push(&g.kernel),
            None => groups.push((g, vec![&g.kernel])),
        }
    }
    groups
        .into_iter()
        .map(|(g, names)| {
            if names.len() == 1 {
                return g.describe();
            }
            let mut shown: Vec<String> = names.iter().take(6).map(|k| format!("`{k}`")).collect();
            if names.len() > 6 {
                shown.push(format!("and {} more", names.len() - 6));
            }
            let one = CoverageGap {
                kernel: String::new(),
                ..g.clone()
            };
            one.describe().replacen(
                "kernel `` is",
                &format!("{} kernels ({}) are", names.len(), shown.join(", ")),
                1,
            )
        })
        .collect()
}

/// Finds the kernels missing from some of `images` (one module / container).
/// Images with no kernel list at all (LTO-IR) must be left out by the caller.
pub(crate) fn gaps(images: &[ImageKernels]) -> Vec<CoverageGap> {
    let mut by_kernel: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for (pos, img) in images.iter().enumerate() {
        for k in &img.kernels {
            by_kernel.entry(k.as_str()).or_default().insert(pos);
        }
    }
    let infos: Vec<ImageInfo> = images
        .iter()
        .map(|i| ImageInfo {
            target: i.target,
            ptx_isa: None,
        })
        .collect();
    let label = |pos: usize| format!("[{}] {}", images[pos].index, images[pos].target);
    let mut out = Vec::new();
    for (kernel, have) in by_kernel {
        if have.len() == images.len() {
            continue;
        }
        let missing: Vec<usize> = (0..images.len()).filter(|p| !have.contains(p)).collect();
        let affected = known_ccs()
            .into_iter()
            .filter(|&cc| chosen_position(&infos, cc).is_some_and(|p| missing.contains(&p)))
            .map(|cc| cc.to_string())
            .collect();
        out.push(CoverageGap {
            kernel: kernel.to_string(),
            present_in: have.iter().map(|&p| label(p)).collect(),
            missing_from: missing.iter().map(|&p| label(p)).collect(),
            affected_gpus: affected,
        });
    }
    out
}

/// Which image a GPU of `cc` loads (driver assumed new enough for the PTX).
fn chosen_position(images: &[ImageInfo], cc: ComputeCapability) -> Option<usize> {
    let device = DeviceInfo {
        cc,
        driver: CudaVersion::new(99, 0),
        name: None,
    };
    select(images, &device, Policy::PreferCubin)
        .chosen
        .map(|c| c.index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(index: usize, name: &str, kernels: &[&str]) -> ImageKernels {
        ImageKernels {
            index,
            target: Target::parse_nvcc_name(name).unwrap(),
            kernels: kernels.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn guarded_kernel_is_flagged_with_the_gpus_it_breaks() {
        let images = [
            img(0, "sm_75", &["add"]),
            img(1, "sm_86", &["add", "fast"]),
            img(2, "compute_86", &["add", "fast"]),
        ];
        let g = gaps(&images);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].kernel, "fast");
        assert_eq!(g[0].missing_from, ["[0] sm_75"]);
        assert_eq!(g[0].affected_gpus, ["7.5"]);
        assert!(g[0].describe().contains("CUDA_ERROR_NOT_FOUND"));
    }

    #[test]
    fn gaps_with_the_same_images_are_one_line() {
        let many: Vec<String> = (0..8).map(|i| format!("unary{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut all = refs.clone();
        all.push("add");
        let images = [img(0, "sm_75", &["add"]), img(1, "sm_90", &all)];
        let lines = describe_grouped(&gaps(&images));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("8 kernels (`unary0`") && lines[0].contains("and 2 more"),
            "{lines:?}"
        );
    }

    #[test]
    fn full_coverage_has_no_gaps() {
        assert!(gaps(&[
            img(0, "sm_75", &["a", "b"]),
            img(1, "compute_75", &["b", "a"])
        ])
        .is_empty());
        assert!(gaps(&[]).is_empty());
    }
}
