//! The build-time check that every image of a module lays out each kernel's parameters alike.
//!
//! The host passes one argument list to a launch, whatever image the GPU loaded; each arch's
//! PTX (the source of its cubin and of its PTX image) says what that image expects. A kernel
//! whose parameters differ between archs (an `#if __CUDA_ARCH__` or a `-D` that changes a
//! parameter's type on one of them) is refused naming the parameter and the images.

use std::collections::BTreeMap;

use archbuild_arch::Arch;
use archbuild_fatbin::ptx_params::{EntryParams, ParamLayout};

use crate::error::{Error, Result};
use crate::report::signature::images;

/// Refuses the first kernel whose parameter layouts differ between `by_arch`'s images.
pub(crate) fn check(module: &str, by_arch: &[(Arch, Vec<EntryParams>)]) -> Result<()> {
    // kernel → its layout → the archs whose PTX declares it so.
    let mut seen: BTreeMap<&str, BTreeMap<&[ParamLayout], Vec<Arch>>> = BTreeMap::new();
    for (arch, entries) in by_arch {
        for e in entries {
            seen.entry(&e.name)
                .or_default()
                .entry(&e.params)
                .or_default()
                .push(*arch);
        }
    }
    for (kernel, layouts) in seen {
        if layouts.len() > 1 {
            return Err(Error::KernelParamsDiffer {
                module: module.to_string(),
                kernel: kernel.to_string(),
                detail: describe(&layouts),
            });
        }
    }
    Ok(())
}

/// "parameter 2 is `.u32` (4 bytes, align 4) in sm_80, sm_86 but `.f64` (8 bytes, align 8) in
/// sm_90", or the counts when they differ.
fn describe(layouts: &BTreeMap<&[ParamLayout], Vec<Arch>>) -> String {
    let all: Vec<(&[ParamLayout], &Vec<Arch>)> = layouts.iter().map(|(l, a)| (*l, a)).collect();
    let counts: Vec<usize> = all.iter().map(|(l, _)| l.len()).collect();
    if counts.iter().any(|&c| c != counts[0]) {
        let parts: Vec<String> = all
            .iter()
            .map(|(l, a)| format!("{} parameter(s) in {}", l.len(), images(a)))
            .collect();
        return parts.join(" but ");
    }
    let first_diff = (0..counts[0])
        .find(|&i| all.iter().any(|(l, _)| l[i] != all[0].0[i]))
        .unwrap_or(0);
    let parts: Vec<String> = all
        .iter()
        .map(|(l, a)| format!("{} in {}", l[first_diff], images(a)))
        .collect();
    format!("parameter {first_diff} is {}", parts.join(" but "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(name: &str, tys: &[(&str, u32)]) -> EntryParams {
        EntryParams {
            name: name.into(),
            params: tys
                .iter()
                .map(|(t, s)| ParamLayout {
                    ty: t.to_string(),
                    size: *s,
                    align: *s,
                })
                .collect(),
        }
    }

    fn arch(s: &str) -> Arch {
        let (major, minor) = s.split_once('.').unwrap();
        Arch::plain(major.parse().unwrap(), minor.parse().unwrap())
    }

    #[test]
    fn the_same_layout_everywhere_passes_and_a_kernel_of_one_arch_is_fine() {
        let k = e("k", &[(".u64", 8), (".u32", 4)]);
        let only90 = e("hopper", &[(".u64", 8)]);
        let by_arch = vec![
            (arch("8.0"), vec![k.clone()]),
            (arch("9.0"), vec![k, only90]),
        ];
        check("m", &by_arch).unwrap();
    }

    #[test]
    fn a_parameter_that_differs_names_it_and_the_images() {
        let by_arch = vec![
            (arch("8.0"), vec![e("k", &[(".u64", 8), (".f32", 4)])]),
            (arch("8.6"), vec![e("k", &[(".u64", 8), (".f32", 4)])]),
            (arch("9.0"), vec![e("k", &[(".u64", 8), (".f64", 8)])]),
        ];
        let err = check("m", &by_arch).unwrap_err().to_string();
        assert!(
            err.contains(
                "parameter 1 is `.f32` (4 bytes, align 4) in sm_80, sm_86 but `.f64` (8 bytes, \
                 align 8) in sm_90"
            ),
            "{err}"
        );
        let by_arch = vec![
            (arch("8.0"), vec![e("k", &[(".u64", 8)])]),
            (arch("9.0"), vec![e("k", &[(".u64", 8), (".u32", 4)])]),
        ];
        let err = check("m", &by_arch).unwrap_err().to_string();
        assert!(
            err.contains("1 parameter(s) in sm_80 but 2 parameter(s) in sm_90"),
            "{err}"
        );
    }
}
