//! What a build warns about, as data: each warning is a [`Warning`] with the facts it rests on
//! (the kernels and targets of a coverage gap, the prebuilt file and why it was refused), so a
//! caller renders or inspects it instead of parsing text. `Display` writes the line people read
//! (build scripts print it as `cargo:warning`); JSON carries the fields, a `kind` and that line.

use std::fmt;
use std::path::PathBuf;

use archbuild_arch::GapGroup;
use serde::{Serialize, Serializer};

/// One warning of a build.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    /// The arch list reads here but its own tool would reject it (e.g. an entry of
    /// `TORCH_CUDA_ARCH_LIST` that PyTorch does not take).
    ArchListDialect { message: String },
    /// A prebuilt fat binary (`ARCHBUILD_PREBUILT`) does not match the build, so the module
    /// was compiled.
    PrebuiltRejected {
        module: String,
        fatbin: PathBuf,
        reason: String,
    },
    /// The build cache's disk has less room than a build needs (`available` bytes): the build
    /// ran without the cache, storing and serving nothing.
    CacheFull { dir: PathBuf, available: u64 },
    /// A package's shipped fat binary matched and was taken, but `ARCHBUILD_VERIFY` asked to
    /// compile it again and there is no toolkit to do it.
    PackagedUnverified { module: String, fatbin: PathBuf },
    /// docs.rs (`DOCS_RS`): a module's shipped fat binary was taken although it does not match
    /// (`reason`), or, with none shipped (`fatbin` absent), an empty one stands in.
    Docs {
        module: String,
        fatbin: Option<PathBuf>,
        reason: Option<String>,
    },
    /// A module's fat binary holds no kernel.
    NoKernels {
        module: String,
        sources: Vec<PathBuf>,
        fatbin: PathBuf,
    },
    /// Kernels (or variant groups) missing from some of a module's images, grouped by the
    /// images they are missing from; the module's `coverage_gaps` has one entry per kernel.
    CoverageGap {
        module: String,
        #[serde(flatten)]
        gaps: GapGroup,
    },
    /// sccache-dist (through `ARCHBUILD_COMPILER_LAUNCHER=sccache`) did not run some jobs: its
    /// scheduler could not be reached, or build servers failed; those ran on this machine, with
    /// the same results.
    Distribution { message: String },
    /// A source set zstd compression (`asked`, from `origin`), and this build has no zstd
    /// writer (archbuild's `zstd` feature is off): its fat binaries are packed with LZ4.
    NoZstdWriter { origin: String, asked: String },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::ArchListDialect { message } => f.write_str(message),
            Warning::PrebuiltRejected {
                module,
                fatbin,
                reason,
            } => write!(
                f,
                "the prebuilt {} is not used: {reason}; compiling `{module}` instead",
                fatbin.display()
            ),
            Warning::PackagedUnverified { module, fatbin } => write!(
                f,
                "the packaged {} of `{module}` is taken unverified: ARCHBUILD_VERIFY asks to \
                 compile it again and no CUDA toolkit was found (install one with `cargo \
                 archbuild toolkit install` to verify it)",
                fatbin.display()
            ),
            Warning::Docs {
                module,
                fatbin: Some(fatbin),
                reason,
            } => write!(
                f,
                "docs.rs: took {} for `{module}` without compiling{}; documentation runs no \
                 kernel",
                fatbin.display(),
                reason
                    .as_ref()
                    .map(|r| format!(" although {r}"))
                    .unwrap_or_default()
            ),
            Warning::Docs { module, reason, .. } => write!(
                f,
                "docs.rs: `{module}` {} and docs.rs has no CUDA toolkit, so its FATBIN is \
                 empty and its kernel constants come from its sources' `__global__` \
                 declarations; ship the fat binaries with `cargo archbuild package` for the \
                 compiled kernel list (docs/publishing.md)",
                reason
                    .as_ref()
                    .map_or("ships no prebuilt fat binary".to_owned(), |r| format!(
                        "has no usable prebuilt fat binary ({r})"
                    ))
            ),
            Warning::NoKernels {
                sources, fatbin, ..
            } => {
                let sources: Vec<String> =
                    sources.iter().map(|s| s.display().to_string()).collect();
                write!(
                    f,
                    "`{}` defines no kernel: the fat binary {} holds nothing to launch (no \
                     `__global__` function survived preprocessing for any arch); add a kernel \
                     or remove the file from the build",
                    sources.join("`, `"),
                    fatbin.display()
                )
            }
            Warning::CoverageGap { module, gaps } => write!(f, "module `{module}`: {gaps}"),
            Warning::Distribution { message } => f.write_str(message),
            Warning::NoZstdWriter { origin, asked } => write!(
                f,
                "{origin} asks for {asked}, and this build of archbuild writes no zstd (its \
                 `zstd` feature, which builds libzstd, is off): packed with LZ4 instead, which \
                 every driver reads; `cargo archbuild package` (the CLI) writes zstd, or turn on \
                 archbuild's `zstd` feature in [build-dependencies]"
            ),
            Warning::CacheFull { dir, available } => write!(
                f,
                "the disk holding the build cache {} has {:.1} MiB free, less than the {} MiB a \
                 build may need: built without the cache (nothing served or stored); free space \
                 there, or set ARCHBUILD_CACHE_DIR to a larger disk",
                dir.display(),
                *available as f64 / (1u64 << 20) as f64,
                crate::base::paths::CACHE_ROOM >> 20
            ),
        }
    }
}

/// Serializes warnings with their line (`message`) beside their fields.
pub(crate) fn with_messages<S: Serializer>(ws: &[Warning], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Shown<'a> {
        #[serde(flatten)]
        warning: &'a Warning,
        message: String,
    }
    s.collect_seq(ws.iter().map(|w| Shown {
        warning: w,
        message: w.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use archbuild_arch::{coverage_gaps, group_gaps, ImageKernels, Target};

    #[test]
    fn json_has_the_kind_the_facts_and_the_line() {
        let images = [
            ImageKernels {
                target: Target::parse_nvcc_name("sm_75").unwrap(),
                kernels: vec!["add".into()],
            },
            ImageKernels {
                target: Target::parse_nvcc_name("sm_90").unwrap(),
                kernels: vec!["add".into(), "fast".into()],
            },
        ];
        let gaps = group_gaps(&coverage_gaps(&images, &[]));
        let w = Warning::CoverageGap {
            module: "k".into(),
            gaps: gaps[0].clone(),
        };
        let mut out = Vec::new();
        with_messages(
            std::slice::from_ref(&w),
            &mut serde_json::Serializer::new(&mut out),
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v[0]["kind"], "coverage-gap");
        assert_eq!(v[0]["module"], "k");
        assert_eq!(v[0]["kernels"], serde_json::json!(["fast"]));
        assert_eq!(v[0]["missing_from"], serde_json::json!(["sm_75"]));
        assert_eq!(v[0]["affected_gpus"], serde_json::json!(["7.5"]));
        assert_eq!(v[0]["message"], w.to_string());
        assert!(w
            .to_string()
            .starts_with("module `k`: 1 kernel(s) missing from sm_75"));
    }
}
