//! Kernel coverage at build time: each module's images as the coverage rule of
//! `archbuild_arch` sees them (the kernels every target's image holds), the gaps it finds with
//! the build's variant groups, and one warning per set of images the kernels are missing from.
//! `inspect` and `doctor` run the same rule on the file, so they report the same gaps.

use archbuild_arch::{coverage_gaps, group_gaps, ImageKernels, Target};

use crate::report::warning::Warning;
use crate::report::ModuleReport;

/// Fills each module's `coverage_gaps` and returns the warnings for them.
pub(crate) fn check(
    modules: &mut [ModuleReport],
    groups: &[(String, Vec<String>)],
) -> Vec<Warning> {
    let mut out = Vec::new();
    for m in modules {
        let images: Vec<ImageKernels> = m
            .target_kernels
            .iter()
            .filter_map(|(t, kernels)| {
                Some(ImageKernels {
                    target: Target::parse_nvcc_name(t)?,
                    kernels: kernels.clone(),
                })
            })
            .collect();
        m.coverage_gaps = coverage_gaps(&images, groups);
        out.extend(
            group_gaps(&m.coverage_gaps)
                .into_iter()
                .map(|gaps| Warning::CoverageGap {
                    module: m.name.clone(),
                    gaps,
                }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(target_kernels: &[(&str, &[&str])]) -> ModuleReport {
        let all: Vec<String> = target_kernels
            .iter()
            .flat_map(|(_, ks)| ks.iter().map(|k| k.to_string()))
            .collect();
        ModuleReport {
            name: "unary".into(),
            sources: vec![],
            fatbin: "u.fatbin".into(),
            bytes: 0,
            archs: String::new(),
            targets: target_kernels.iter().map(|(t, _)| t.to_string()).collect(),
            kernels: all,
            target_kernels: target_kernels
                .iter()
                .map(|(t, ks)| (t.to_string(), ks.iter().map(|k| k.to_string()).collect()))
                .collect(),
            declared: Vec::new(),
            coverage_gaps: Vec::new(),
            made_by: Vec::new(),
        }
    }

    #[test]
    fn one_warning_per_set_of_images_and_the_gaps_per_kernel() {
        let many: Vec<String> = (0..9).map(|i| format!("k{i}")).collect();
        let mut all: Vec<&str> = many.iter().map(String::as_str).collect();
        all.push("everywhere");
        let mut ms = [module(&[("sm_75", &["everywhere"]), ("sm_90", &all)])];
        let w = check(&mut ms, &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(ms[0].coverage_gaps.len(), 9);
        let line = w[0].to_string();
        assert!(
            line.contains("9 kernel(s) missing from sm_75") && line.contains("and 3 more"),
            "{line}"
        );
        let mut variants = many;
        variants.push("everywhere".into());
        let grouped = vec![("g".to_string(), variants)];
        assert!(
            check(&mut ms, &grouped).is_empty(),
            "variants are missing on purpose"
        );
        assert!(ms[0].coverage_gaps.is_empty());
    }
}
