//! Kernel coverage at build time: a kernel present in some images of a module but missing from
//! others (compiled out by an `#if __CUDA_ARCH__ >= …` guard) fails on the GPUs that load those
//! images with `CUDA_ERROR_NOT_FOUND` (500). The build says so — in build scripts as
//! `cargo:warning` lines — grouped by where the kernels are missing, so one guard around many
//! kernels is one line, not one per kernel. Kernels of a declared variant group are missing on
//! purpose (the loader picks another variant) and are not reported.

use std::collections::BTreeMap;

use crate::report::ModuleReport;

/// The most kernel names one line lists.
const NAMES_SHOWN: usize = 6;

/// One warning per (module, set of images lacking the kernels).
pub(crate) fn warnings(modules: &[ModuleReport], groups: &[(String, Vec<String>)]) -> Vec<String> {
    let in_group = |k: &str| groups.iter().any(|(_, ks)| ks.iter().any(|g| g == k));
    let mut out = Vec::new();
    for m in modules {
        let mut by_missing: BTreeMap<Vec<&str>, Vec<&str>> = BTreeMap::new();
        for k in m.kernels.iter().filter(|k| !in_group(k)) {
            let missing: Vec<&str> = m
                .target_kernels
                .iter()
                .filter(|(_, have)| !have.contains(k))
                .map(|(t, _)| t.as_str())
                .collect();
            if !missing.is_empty() {
                by_missing.entry(missing).or_default().push(k);
            }
        }
        for (missing, kernels) in by_missing {
            let mut names: Vec<String> = kernels
                .iter()
                .take(NAMES_SHOWN)
                .map(|k| format!("`{k}`"))
                .collect();
            if kernels.len() > NAMES_SHOWN {
                names.push(format!("and {} more", kernels.len() - NAMES_SHOWN));
            }
            out.push(format!(
                "module `{}`: {} kernel(s) missing from {}: {}; GPUs that load those images \
                 get CUDA_ERROR_NOT_FOUND (500) looking them up; check the `#if __CUDA_ARCH__` \
                 guards around them, drop those archs, or declare the kernels in a variant group \
                 with a fallback (`variants`) so the loader picks one the GPU has",
                m.name,
                kernels.len(),
                missing.join(", "),
                names.join(", ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_set_of_images_not_per_kernel() {
        let many: Vec<String> = (0..9).map(|i| format!("k{i}")).collect();
        let mut all = many.clone();
        all.push("everywhere".into());
        let m = ModuleReport {
            name: "unary".into(),
            sources: vec![],
            fatbin: "u.fatbin".into(),
            bytes: 0,
            archs: String::new(),
            targets: vec!["sm_75".into(), "sm_90".into()],
            kernels: all.clone(),
            target_kernels: vec![
                ("sm_75".into(), vec!["everywhere".into()]),
                ("sm_90".into(), all),
            ],
        };
        let w = warnings(std::slice::from_ref(&m), &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("9 kernel(s) missing from sm_75") && w[0].contains("and 3 more"),
            "{w:?}"
        );
        let grouped = vec![("g".to_string(), many)];
        assert!(
            warnings(&[m], &grouped).is_empty(),
            "variants are missing on purpose"
        );
    }
}
