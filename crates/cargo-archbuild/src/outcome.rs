//! What the CLI reports for a build and each fat binary it wrote: the library's report (kernel
//! coverage included) plus what the CLI checks afterwards (each GPU's verdict). Plain data, shared by
//! the code that builds (`building`) and the code that prints it (`messages`).

use archbuild::{BuildReport, ModuleReport};
use serde::Serialize;

use crate::gpus::GpuVerdict;

/// What the CLI reports for one fat binary.
#[derive(Debug, Serialize)]
pub(crate) struct ModuleOutcome {
    #[serde(flatten)]
    pub module: ModuleReport,
    /// What each visible GPU will load from it (empty without a GPU).
    pub gpus: Vec<GpuVerdict>,
    /// Why `gpus` is empty (no driver, no GPU), e.g. "no CUDA driver: libcuda.so.1 could not
    /// be loaded …"; `None` when there are verdicts.
    pub gpus_note: Option<String>,
}

/// What the CLI reports for one build.
#[derive(Debug, Serialize)]
pub(crate) struct BuildOutcome {
    pub label: String,
    #[serde(skip)]
    pub per_module: bool,
    #[serde(flatten)]
    pub report: BuildReport,
    pub modules_checked: Vec<ModuleOutcome>,
}
