//! Kernel variants: the fastest kernel each GPU can run, chosen at load time.
//!
//! A kernel that exists only for some architectures (a WGMMA GEMM in the `sm_90a` image, an MMA
//! path compiled only where `__CUDA_ARCH__ >= 800`) is named in a *group* of variants in
//! preference order: `gemm = ["gemm_wgmma", "gemm_mma", "gemm_simt"]`. The build script
//! generates the groups (`VARIANTS` in each module of the generated Rust file) and checks that
//! every arch of the list has one; [`crate::FatBinary::with_variants`] hands them to the loader,
//! which resolves each group on the image it chose for the GPU — cubin, JIT or cached JIT alike —
//! to the first variant that image contains, and says why in the load report and in preflight.
//! A kernel missing from the chosen image is an error that names the images that have it and
//! the GPUs that could therefore run it, instead of the driver's bare
//! `CUDA_ERROR_NOT_FOUND` (500).

use std::fmt;

use archbuild_arch::{Target, TargetKind};

/// A named group of kernel variants, most preferred first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantGroup {
    pub name: String,
    pub kernels: Vec<String>,
}

impl VariantGroup {
    pub fn new<S: AsRef<str>>(name: &str, kernels: &[S]) -> Self {
        Self {
            name: name.to_owned(),
            kernels: kernels.iter().map(|k| k.as_ref().to_owned()).collect(),
        }
    }

    /// Groups from the generated table (`kernels::gemm::VARIANTS`).
    pub fn from_table(table: &[(&str, &[&str])]) -> Vec<Self> {
        table.iter().map(|(n, ks)| Self::new(n, ks)).collect()
    }
}

/// Which variant of a group one image offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantChoice {
    pub group: String,
    /// The first variant the image contains; `None` when it has none.
    pub kernel: Option<String>,
    /// The image the choice was made on.
    pub image: Target,
    /// Preferred variants the image lacks, each with the images that have it.
    pub skipped: Vec<(String, Vec<Target>)>,
}

impl fmt::Display for VariantChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kernel {
            Some(k) => write!(f, "{} -> {k} (in {})", self.group, self.image)?,
            None => write!(f, "{} -> none (no variant in {})", self.group, self.image)?,
        }
        for (k, images) in &self.skipped {
            write!(f, "; {k} is not in {}", self.image)?;
            if images.is_empty() {
                f.write_str(", nor in any image")?;
            } else {
                write!(f, ", only in {}", list(images))?;
            }
        }
        Ok(())
    }
}

fn list(targets: &[Target]) -> String {
    targets
        .iter()
        .map(Target::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The GPUs an image can run on, in words: `sm_90a` → `9.0 GPUs`, `sm_86` → `8.6–8.x GPUs`,
/// `compute_80` → `8.0 and newer GPUs (JIT)`.
pub(crate) fn runs_on(t: &Target) -> String {
    let cc = t.arch.cc;
    match (t.kind, t.arch.variant) {
        (TargetKind::Ptx, archbuild_arch::Variant::Plain) => format!("{cc} and newer GPUs (JIT)"),
        (TargetKind::Ptx, _) => format!("{cc} GPUs (JIT)"),
        (_, archbuild_arch::Variant::Plain) if cc.minor == 0 => {
            format!("{}.x GPUs", cc.major)
        }
        (_, archbuild_arch::Variant::Plain) => format!("{cc} to {}.x GPUs", cc.major),
        _ => format!("{cc} GPUs"),
    }
}
