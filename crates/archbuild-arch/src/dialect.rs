//! What the same arch-list text means to different tools (`Dialect`): a bare `86` is a cubin
//! alone to archbuild and nvcc's `-code=sm_86`, but cubin *and* PTX to CMake; PyTorch accepts
//! fewer forms than archbuild reads; `CUDA_COMPUTE_CAP`'s `90` is nvcc's `-arch=sm_90` (cubin and
//! PTX), as bindgen_cuda and cudaforge read it. Lists from `CUDAARCHS`, `TORCH_CUDA_ARCH_LIST` and
//! `CUDA_COMPUTE_CAP` are read in their tool's dialect (`docs/arch-lists.md`).

use std::fmt;

/// How an arch list's entries are read. The source of a list decides it, because the same
/// text means different things to different tools: a bare `86` is a cubin alone to archbuild
/// and nvcc's `-code=sm_86`, but cubin *and* PTX to CMake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Dialect {
    /// archbuild's own: every form below, a bare `86`/`8.6`/`sm_86` is a cubin.
    Archbuild,
    /// CMake's `CUDA_ARCHITECTURES`/`CUDAARCHS`: `86` cubin and PTX, `86-real` cubin only,
    /// `86-virtual` PTX only.
    CMake,
    /// PyTorch's `TORCH_CUDA_ARCH_LIST`: `8.6`, `8.6+PTX`, `9.0a` and generation names;
    /// archbuild reads more, and warns about what PyTorch would reject.
    PyTorch,
    /// `CUDA_COMPUTE_CAP` as bindgen_cuda and cudaforge read it (candle, mistral.rs): `90` (or
    /// `9.0`, as `nvidia-smi` prints it) is nvcc's `--gpu-architecture=sm_90`, the sm_90 cubin
    /// and compute_90 PTX. archbuild also reads several, separated by `,` or spaces, which those
    /// tools reject (a warning says so).
    #[cfg_attr(feature = "serde", serde(rename = "compute-cap"))]
    ComputeCap,
}

impl Dialect {
    /// The dialect of a list read from an environment variable: CMake's for `CUDAARCHS`,
    /// PyTorch's for `TORCH_CUDA_ARCH_LIST`, archbuild's otherwise.
    pub fn of_variable(name: &str) -> Dialect {
        match name {
            "CUDAARCHS" => Dialect::CMake,
            "TORCH_CUDA_ARCH_LIST" => Dialect::PyTorch,
            "CUDA_COMPUTE_CAP" => Dialect::ComputeCap,
            _ => Dialect::Archbuild,
        }
    }

    /// Rewrites a list of this dialect into archbuild's (the shared parser's) syntax.
    pub fn to_archbuild(self, text: &str) -> String {
        match self {
            Dialect::CMake => cmake_to_archbuild(text),
            Dialect::ComputeCap => cmake_to_archbuild(&undotted(text)),
            Dialect::Archbuild | Dialect::PyTorch => text.to_owned(),
        }
    }

    /// Refuses what a list of this dialect cannot mean: LTO-IR (`lto_90`, `9.0+LTO`) in a list
    /// of CMake, PyTorch or `CUDA_COMPUTE_CAP`, whose tools have no LTO form; archbuild's own
    /// lists take it. `origin` names the list in the error.
    pub fn check(self, text: &str, origin: &str) -> Result<(), crate::Error> {
        if self == Dialect::Archbuild {
            return Ok(());
        }
        let lto = text
            .split(|c: char| c == ';' || c == ',' || c.is_whitespace())
            .find(|e| e.to_ascii_lowercase().contains("lto"));
        match lto {
            Some(entry) => Err(crate::Error::LtoInForeignList {
                input: entry.to_owned(),
                origin: origin.to_owned(),
                dialect: self.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Warnings about a list that parses here but that the dialect's own tool rejects.
    pub fn warnings(self, text: &str) -> Vec<String> {
        match self {
            Dialect::PyTorch => torch_list_warning(text).into_iter().collect(),
            Dialect::ComputeCap => compute_cap_warning(text).into_iter().collect(),
            Dialect::Archbuild | Dialect::CMake => Vec::new(),
        }
    }

    /// One line on what a bare number means in this dialect.
    pub fn rule(self) -> &'static str {
        match self {
            Dialect::Archbuild => "a bare `86` is the sm_86 cubin alone; `+PTX` adds PTX",
            Dialect::CMake => {
                "a bare `86` is the sm_86 cubin and compute_86 PTX; `86-real` the cubin \
                 alone, `86-virtual` the PTX alone"
            }
            Dialect::PyTorch => {
                "`8.6` is the sm_86 cubin, `8.6+PTX` adds PTX; generation names; \
                 entries PyTorch rejects are warned about"
            }
            Dialect::ComputeCap => {
                "a bare `90` (or `9.0`) is nvcc's `-arch=sm_90`: the sm_90 cubin and compute_90 \
                 PTX, as bindgen_cuda and cudaforge read it"
            }
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Archbuild => "archbuild",
            Dialect::CMake => "cmake",
            Dialect::PyTorch => "pytorch",
            Dialect::ComputeCap => "compute-cap",
        })
    }
}

/// A warning when `TORCH_CUDA_ARCH_LIST` holds something PyTorch itself rejects (archbuild
/// accepts more): PyTorch builds in the same environment would fail on it. PyTorch takes `X.Y`,
/// `X.Ya`, either with `+PTX`, and its generation names, separated by `;` or spaces.
fn torch_list_warning(value: &str) -> Option<String> {
    let names: Vec<&str> = crate::parse::generation_names().map(|(n, _)| n).collect();
    let ok = |e: &str| {
        let e = e.strip_suffix("+PTX").unwrap_or(e);
        if names.contains(&e) {
            return true;
        }
        let e = e.strip_suffix('a').unwrap_or(e);
        let mut parts = e.split('.');
        matches!(
            (parts.next(), parts.next(), parts.next()),
            (Some(ma), Some(mi), None)
                if !ma.is_empty() && !mi.is_empty()
                    && ma.bytes().all(|b| b.is_ascii_digit())
                    && mi.bytes().all(|b| b.is_ascii_digit())
        )
    };
    let bad: Vec<&str> = value
        .split(|c: char| c == ';' || c.is_whitespace())
        .filter(|e| !e.is_empty() && !ok(e))
        .collect();
    if bad.is_empty() {
        return None;
    }
    Some(format!(
        "TORCH_CUDA_ARCH_LIST=`{value}` builds here, but PyTorch rejects {}: PyTorch extension \
         builds in this environment will fail; use `X.Y`, `X.Ya` or `X.Y+PTX` entries or \
         generation names, separated by `;` or spaces (e.g. `7.5;8.6+PTX`)",
        bad.iter()
            .map(|b| format!("`{b}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// `8.6` and `12.0` (as `nvidia-smi --query-gpu=compute_cap` prints them) as `86` and `120`.
fn undotted(v: &str) -> String {
    v.split(|c: char| c == ';' || c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| match t.split_once('.') {
            // `9.0`, and with an arch-specific suffix `9.0a`.
            Some((ma, mi))
                if !ma.is_empty()
                    && ma.bytes().all(|b| b.is_ascii_digit())
                    && mi.trim_end_matches(['a', 'f']).len() == 1
                    && mi.as_bytes()[0].is_ascii_digit() =>
            {
                format!("{ma}{mi}")
            }
            _ => t.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A warning when `CUDA_COMPUTE_CAP` holds what bindgen_cuda and cudaforge cannot read (they
/// parse one whole number): their builds in the same environment fail on it.
fn compute_cap_warning(value: &str) -> Option<String> {
    let one_number = value.trim().bytes().all(|b| b.is_ascii_digit()) && !value.trim().is_empty();
    (!one_number).then(|| {
        format!(
            "CUDA_COMPUTE_CAP=`{value}` builds here, but bindgen_cuda and cudaforge read one whole \
             number such as `90`: their builds in this environment will fail on it"
        )
    })
}

/// CMake's `CUDA_ARCHITECTURES` meaning of a bare number is "SASS and PTX"; rewrite it so the
/// shared parser (where a bare number is a cubin) sees `86-real 86-virtual`.
fn cmake_to_archbuild(v: &str) -> String {
    v.split(|c: char| c == ';' || c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            let digits = t.trim_end_matches(['a', 'f']);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                format!("{t}-real {t}-virtual")
            } else {
                t.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn lto_ir_is_refused_where_the_tool_has_no_form_for_it() {
        assert!(Dialect::Archbuild.check("8.0 9.0+LTO lto_100", "x").is_ok());
        for d in [Dialect::CMake, Dialect::PyTorch, Dialect::ComputeCap] {
            assert!(d.check("80;90", "x").is_ok());
            let e = d.check("80;lto_90", "CUDAARCHS").unwrap_err().to_string();
            assert!(
                e.contains("`lto_90` in CUDAARCHS asks for LTO-IR")
                    && e.contains("ARCHBUILD_ARCHS")
                    && e.contains(&d.to_string()),
                "{e}"
            );
        }
        let e = Dialect::PyTorch
            .check("8.0 9.0+LTO", "TORCH_CUDA_ARCH_LIST")
            .unwrap_err();
        assert!(e.to_string().contains("`9.0+LTO`"), "{e}");
    }

    use super::*;

    #[test]
    fn torch_lists_pytorch_rejects_get_a_warning() {
        for ok in ["7.5;8.6+PTX", "Ampere;Hopper", "8.0 9.0a+PTX", "Rubin"] {
            assert_eq!(torch_list_warning(ok), None, "{ok}");
        }
        for (bad, named) in [
            ("7.5,8.6", "`7.5,8.6`"),
            ("sm_86", "`sm_86`"),
            ("8.6;12.0f", "`12.0f`"),
        ] {
            let w = torch_list_warning(bad).unwrap();
            assert!(w.contains(named) && w.contains("PyTorch"), "{w}");
        }
    }

    #[test]
    fn compute_cap_numbers_are_nvcc_s_arch_flag() {
        let d = Dialect::of_variable("CUDA_COMPUTE_CAP");
        assert_eq!(d, Dialect::ComputeCap);
        assert_eq!(d.to_archbuild("90"), "90-real 90-virtual");
        assert_eq!(d.to_archbuild("8.6"), "86-real 86-virtual");
        assert_eq!(d.to_archbuild("120"), "120-real 120-virtual");
        assert_eq!(
            d.to_archbuild("80, 9.0a"),
            "80-real 80-virtual 90a-real 90a-virtual"
        );
        assert_eq!(d.to_archbuild("all"), "all");
        assert!(d.warnings("90").is_empty());
        let w = d.warnings("80,86");
        assert!(w.len() == 1 && w[0].contains("bindgen_cuda"), "{w:?}");
    }

    #[test]
    fn cmake_bare_numbers_mean_both() {
        assert_eq!(
            cmake_to_archbuild("75;86-real;90a"),
            "75-real 75-virtual 86-real 90a-real 90a-virtual"
        );
        assert_eq!(cmake_to_archbuild("all-major"), "all-major");
    }
}
