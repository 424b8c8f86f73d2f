//! Kernel variant groups at build time: a named list of kernels in preference order
//! (`gemm = ["gemm_wgmma", "gemm_mma", "gemm_simt"]`), declared in `[package.metadata.archbuild.
//! variants]` or with `Build::variants`. After packing, each group is resolved on every target
//! of the module that holds it, exactly as the runtime loader will resolve it on the image it
//! loads: the first variant the image contains. A target left with no variant fails the build
//! here, naming the arch and the group, instead of failing on one GPU of a rig at run time.

use crate::error::{Error, Result};
use crate::report::{ModuleReport, VariantReport};

/// The groups of a build: the build script's, then Cargo.toml's (a name set in both takes the
/// build script's list).
pub(crate) fn groups(
    from_build: &[(String, Vec<String>)],
    from_manifest: &[(String, Vec<String>)],
) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = from_build.to_vec();
    for (name, ks) in from_manifest {
        if !out.iter().any(|(n, _)| n == name) {
            out.push((name.clone(), ks.clone()));
        }
    }
    out
}

/// Resolves every group on every target of the module that holds it.
pub(crate) fn check(
    groups: &[(String, Vec<String>)],
    modules: &[ModuleReport],
) -> Result<Vec<VariantReport>> {
    let mut reports = Vec::new();
    for (group, kernels) in groups {
        if kernels.is_empty() {
            return Err(Error::Config {
                what: "variant group",
                origin: format!("`{group}`"),
                value: "[]".into(),
                hint: "list the group's kernels, most preferred first, e.g. gemm = \
                       [\"gemm_wgmma\", \"gemm_mma\", \"gemm_simt\"]"
                    .into(),
            });
        }
        let holders: Vec<&ModuleReport> = modules
            .iter()
            .filter(|m| kernels.iter().any(|k| m.kernels.contains(k)))
            .collect();
        if holders.is_empty() {
            return Err(Error::VariantUnknown {
                group: group.clone(),
                kernels: kernels.join(", "),
                known: known_kernels(modules),
            });
        }
        for m in holders {
            let mut choices = Vec::new();
            for (target, have) in &m.target_kernels {
                match kernels.iter().find(|k| have.contains(k)) {
                    Some(k) => choices.push((target.clone(), k.clone())),
                    None => {
                        return Err(Error::VariantMissing {
                            group: group.clone(),
                            module: m.name.clone(),
                            target: target.clone(),
                            detail: format!(
                                "none of {} is in that image ({}); fix: add a kernel that every \
                                 arch compiles (e.g. a SIMT version) to the end of the group, \
                                 build one of them for {target}, or drop {} from the arch list",
                                kernels.join(", "),
                                where_present(kernels, m),
                                archbuild_arch::Target::parse_nvcc_name(target)
                                    .map_or_else(|| target.clone(), |t| t.arch.to_string())
                            ),
                        })
                    }
                }
            }
            reports.push(VariantReport {
                group: group.clone(),
                module: m.name.clone(),
                choices,
            });
        }
    }
    Ok(reports)
}

/// `gemm_wgmma is only in sm_90a; gemm_mma in sm_86, compute_86`.
fn where_present(kernels: &[String], m: &ModuleReport) -> String {
    kernels
        .iter()
        .map(|k| {
            let ts: Vec<&str> = m
                .target_kernels
                .iter()
                .filter(|(_, have)| have.contains(k))
                .map(|(t, _)| t.as_str())
                .collect();
            if ts.is_empty() {
                format!("{k} is in no image")
            } else {
                format!("{k} is in {}", ts.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn known_kernels(modules: &[ModuleReport]) -> String {
    let mut all: Vec<&str> = modules
        .iter()
        .flat_map(|m| m.kernels.iter().map(String::as_str))
        .collect();
    all.sort();
    all.dedup();
    if all.len() > 12 {
        let n = all.len();
        all.truncate(12);
        format!("{}, … ({n} in all)", all.join(", "))
    } else {
        all.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(targets: &[(&str, &[&str])]) -> ModuleReport {
        let target_kernels: Vec<(String, Vec<String>)> = targets
            .iter()
            .map(|(t, ks)| (t.to_string(), ks.iter().map(|k| k.to_string()).collect()))
            .collect();
        let mut kernels: Vec<String> = target_kernels.iter().flat_map(|(_, k)| k.clone()).collect();
        kernels.sort();
        kernels.dedup();
        ModuleReport {
            name: "gemm".into(),
            sources: vec![],
            fatbin: "gemm.fatbin".into(),
            bytes: 0,
            archs: String::new(),
            targets: targets.iter().map(|(t, _)| t.to_string()).collect(),
            kernels,
            target_kernels,
            declared: Vec::new(),
            coverage_gaps: Vec::new(),
            made_by: Vec::new(),
        }
    }

    fn group() -> Vec<(String, Vec<String>)> {
        vec![(
            "gemm".into(),
            ["gemm_wgmma", "gemm_mma", "gemm_simt"]
                .map(String::from)
                .to_vec(),
        )]
    }

    #[test]
    fn each_target_gets_its_first_variant() {
        let m = module(&[
            ("sm_75", &["gemm_simt"]),
            ("sm_86", &["gemm_mma", "gemm_simt"]),
            ("sm_90a", &["gemm_mma", "gemm_simt", "gemm_wgmma"]),
        ]);
        let r = check(&group(), &[m]).unwrap();
        assert_eq!(
            r[0].to_string(),
            "variants `gemm` (gemm): sm_75 -> gemm_simt, sm_86 -> gemm_mma, sm_90a -> gemm_wgmma"
        );
    }

    #[test]
    fn a_target_without_a_variant_and_an_unknown_group_fail() {
        let m = module(&[("sm_75", &["other"]), ("sm_86", &["gemm_mma"])]);
        let e = check(&group(), std::slice::from_ref(&m))
            .unwrap_err()
            .to_string();
        assert!(e.contains("sm_75") && e.contains("`gemm`"), "{e}");
        let typo = vec![("gemm".to_owned(), vec!["gem_mma".to_owned()])];
        let e = check(&typo, &[m]).unwrap_err().to_string();
        assert!(e.contains("gem_mma") && e.contains("gemm_mma"), "{e}");
    }
}
