//! Kernel coverage: a kernel present in some images of a module but missing from others
//! (compiled out by an `#if __CUDA_ARCH__ >= …` guard) fails on the GPUs that load those images
//! with `CUDA_ERROR_NOT_FOUND` (500) when the program looks it up. Kernels of a declared variant
//! group are missing on purpose (the loader picks the first variant an image has), so only a
//! group with no variant in some image is a gap. The build, `inspect` and `doctor` all call
//! [`coverage_gaps`], so a file and the build that wrote it report the same gaps.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::cc::{ComputeCapability, CudaVersion, Target};
use crate::select::{select, DeviceInfo, ImageInfo, Policy};

/// The most kernel names one line lists.
const NAMES_SHOWN: usize = 6;

/// One image of a module as the coverage check sees it: its target and the kernels it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageKernels {
    pub target: Target,
    pub kernels: Vec<String>,
}

/// A kernel (or a variant group) that some images of a module lack.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CoverageGap {
    /// The kernel's name as the driver sees it; for a variant group, the group's name.
    pub kernel: String,
    /// The group's kernels when the gap is a variant group none of whose kernels is in the
    /// images of `missing_from`.
    pub variant_group: Option<Vec<String>>,
    /// The images that have it.
    pub present_in: Vec<Target>,
    /// The images that lack it.
    pub missing_from: Vec<Target>,
    /// Compute capabilities whose GPUs load an image that lacks it (the driver assumed new
    /// enough for the PTX).
    pub affected_gpus: Vec<ComputeCapability>,
}

/// Every gap of one module (one container of a file): the kernels missing from some of
/// `images`, leaving out the kernels of `groups` (a named list of variants each), which are
/// reported per group only when an image has none of them. Images with no kernel list at all
/// (LTO-IR) must be left out by the caller.
pub fn coverage_gaps(
    images: &[ImageKernels],
    groups: &[(String, Vec<String>)],
) -> Vec<CoverageGap> {
    let grouped: BTreeSet<&str> = groups
        .iter()
        .flat_map(|(_, ks)| ks.iter().map(String::as_str))
        .collect();
    let mut by_kernel: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for (pos, img) in images.iter().enumerate() {
        for k in img.kernels.iter().filter(|k| !grouped.contains(k.as_str())) {
            by_kernel.entry(k.as_str()).or_default().insert(pos);
        }
    }
    let mut out = Vec::new();
    for (kernel, have) in by_kernel {
        out.extend(gap(images, kernel, None, &have));
    }
    for (name, kernels) in groups {
        let have: BTreeSet<usize> = (0..images.len())
            .filter(|&p| kernels.iter().any(|k| images[p].kernels.contains(k)))
            .collect();
        // A group none of whose kernels is in the module belongs to another module.
        if !have.is_empty() {
            out.extend(gap(images, name, Some(kernels), &have));
        }
    }
    out
}

fn gap(
    images: &[ImageKernels],
    kernel: &str,
    group: Option<&Vec<String>>,
    have: &BTreeSet<usize>,
) -> Option<CoverageGap> {
    if have.len() == images.len() {
        return None;
    }
    let missing: Vec<usize> = (0..images.len()).filter(|p| !have.contains(p)).collect();
    let infos: Vec<ImageInfo> = images
        .iter()
        .map(|i| ImageInfo::new(i.target, None))
        .collect();
    let affected_gpus = crate::devices::known_ccs()
        .into_iter()
        .filter(|&cc| chosen_position(&infos, cc).is_some_and(|p| missing.contains(&p)))
        .collect();
    Some(CoverageGap {
        kernel: kernel.to_owned(),
        variant_group: group.cloned(),
        present_in: have.iter().map(|&p| images[p].target).collect(),
        missing_from: missing.iter().map(|&p| images[p].target).collect(),
        affected_gpus,
    })
}

/// Which image a GPU of `cc` loads (driver assumed new enough for the PTX).
fn chosen_position(images: &[ImageInfo], cc: ComputeCapability) -> Option<usize> {
    let device = DeviceInfo::new(cc, CudaVersion::new(99, 0));
    select(images, &device, Policy::PreferCubin)
        .chosen
        .map(|c| c.index)
}

/// Gaps that hit the same images, as one warning: one `#if` guard around many kernels is one
/// line, not one per kernel. [`fmt::Display`] writes the line people read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GapGroup {
    /// The kernels missing from the same images (a variant group as `group <name>`).
    pub kernels: Vec<String>,
    pub present_in: Vec<Target>,
    pub missing_from: Vec<Target>,
    pub affected_gpus: Vec<ComputeCapability>,
}

/// Groups `gaps` by the images they hit, in the order first seen.
pub fn group_gaps(gaps: &[CoverageGap]) -> Vec<GapGroup> {
    let mut out: Vec<GapGroup> = Vec::new();
    for g in gaps {
        let name = match &g.variant_group {
            Some(_) => format!("group {}", g.kernel),
            None => g.kernel.clone(),
        };
        let same = |h: &&mut GapGroup| {
            h.missing_from == g.missing_from
                && h.present_in == g.present_in
                && h.affected_gpus == g.affected_gpus
        };
        match out.iter_mut().find(same) {
            Some(h) => h.kernels.push(name),
            None => out.push(GapGroup {
                kernels: vec![name],
                present_in: g.present_in.clone(),
                missing_from: g.missing_from.clone(),
                affected_gpus: g.affected_gpus.clone(),
            }),
        }
    }
    out
}

impl fmt::Display for GapGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |ts: &[Target]| {
            ts.iter()
                .map(Target::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut names: Vec<String> = self
            .kernels
            .iter()
            .take(NAMES_SHOWN)
            .map(|k| match k.strip_prefix("group ") {
                Some(g) => format!("variant group `{g}`"),
                None => format!("`{k}`"),
            })
            .collect();
        if self.kernels.len() > NAMES_SHOWN {
            names.push(format!("and {} more", self.kernels.len() - NAMES_SHOWN));
        }
        let hit = match self.affected_gpus.is_empty() {
            true => "no known GPU loads those images, so nothing fails today".to_owned(),
            false => format!(
                "GPUs of compute capability {} load those images and get CUDA_ERROR_NOT_FOUND \
                 (500) looking them up",
                self.affected_gpus
                    .iter()
                    .map(ComputeCapability::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        write!(
            f,
            "{} kernel(s) missing from {}: {} (present in {}); {hit}; check the \
             `#if __CUDA_ARCH__` guards around them, drop those archs, or declare the kernels in \
             a variant group with a fallback (`variants`) so the loader picks one the GPU has",
            self.kernels.len(),
            join(&self.missing_from),
            names.join(", "),
            join(&self.present_in)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(name: &str, kernels: &[&str]) -> ImageKernels {
        ImageKernels {
            target: Target::parse_nvcc_name(name).unwrap(),
            kernels: kernels.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn t(name: &str) -> Target {
        Target::parse_nvcc_name(name).unwrap()
    }

    #[test]
    fn a_guarded_kernel_is_a_gap_with_the_gpus_it_breaks() {
        let images = [
            img("sm_75", &["add"]),
            img("sm_86", &["add", "fast"]),
            img("compute_86", &["add", "fast"]),
        ];
        let g = coverage_gaps(&images, &[]);
        assert_eq!(g.len(), 1, "{g:?}");
        assert_eq!(g[0].kernel, "fast");
        assert_eq!(g[0].missing_from, [t("sm_75")]);
        assert_eq!(g[0].present_in, [t("sm_86"), t("compute_86")]);
        assert_eq!(g[0].affected_gpus, [ComputeCapability::from_sm(75)]);
    }

    #[test]
    fn variants_are_missing_on_purpose_but_a_group_with_no_variant_is_a_gap() {
        let images = [
            img("sm_75", &["gemm_simt", "only_new"]),
            img("sm_90", &["gemm_wgmma", "gemm_simt", "only_new"]),
        ];
        let groups = vec![(
            "gemm".to_string(),
            vec!["gemm_wgmma".to_string(), "gemm_simt".to_string()],
        )];
        assert!(coverage_gaps(&images, &groups).is_empty());
        let images = [
            img("sm_75", &["only_new"]),
            img("sm_90", &["gemm_wgmma", "only_new"]),
        ];
        let g = coverage_gaps(&images, &groups);
        assert_eq!(g.len(), 1, "{g:?}");
        assert_eq!(g[0].kernel, "gemm");
        assert_eq!(g[0].missing_from, [t("sm_75")]);
        let line = group_gaps(&g)[0].to_string();
        assert!(line.contains("variant group `gemm`"), "{line}");
    }

    #[test]
    fn gaps_with_the_same_images_are_one_line() {
        let many: Vec<String> = (0..8).map(|i| format!("unary{i}")).collect();
        let mut all: Vec<&str> = many.iter().map(String::as_str).collect();
        all.push("add");
        let images = [img("sm_75", &["add"]), img("sm_90", &all)];
        let groups = group_gaps(&coverage_gaps(&images, &[]));
        assert_eq!(groups.len(), 1, "{groups:?}");
        let line = groups[0].to_string();
        assert!(
            line.starts_with("8 kernel(s) missing from sm_75: `unary0`")
                && line.contains("(present in sm_90)")
                && line.contains("and 2 more")
                && line.contains("compute capability 7.5"),
            "{line}"
        );
    }

    #[test]
    fn full_coverage_has_no_gaps() {
        let images = [img("sm_75", &["a", "b"]), img("compute_75", &["b", "a"])];
        assert!(coverage_gaps(&images, &[]).is_empty());
        assert!(coverage_gaps(&[], &[]).is_empty());
    }

    #[test]
    fn a_gap_no_gpu_meets_says_so() {
        let g = GapGroup {
            kernels: vec!["x".into()],
            present_in: vec![t("sm_86")],
            missing_from: vec![t("sm_87")],
            affected_gpus: vec![],
        };
        assert!(g.to_string().contains("nothing fails today"), "{g}");
    }
}
