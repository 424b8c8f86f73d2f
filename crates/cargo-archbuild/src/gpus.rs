//! The GPUs the CLI checks against, as the runtime enumerates them
//! ([`archbuild_runtime::gpus`]: the real driver, or the simulated one that
//! `ARCHBUILD_SIMULATED_GPUS` describes, with the device list remembered per driver build), and
//! their verdicts on a module as the CLI prints them.

use archbuild_arch::Policy;
use archbuild_runtime::gpus::SIM_VAR;
use archbuild_runtime::{FatBinary, GpuCheck};
use serde::Serialize;

use crate::error::CliError;

pub(crate) use archbuild_runtime::gpus::{DriverFacts, Gpus};

/// The simulated driver when `ARCHBUILD_SIMULATED_GPUS` is set (a bad value is a usage error),
/// else the real driver if it loads.
pub(crate) fn open() -> Result<Gpus, CliError> {
    Gpus::open().map_err(open_error)
}

/// As [`open`], for the summary after a build: a device list seen before is taken from the
/// build cache instead of starting the driver (see [`Gpus::open_remembered`]).
pub(crate) fn open_for_summary() -> Result<Gpus, CliError> {
    let env = archbuild::Env::process().with_cargo_metadata(false);
    let home = archbuild::config::Home::from_env(&env);
    let store = archbuild_store::Store::new(home.cache_dir());
    Gpus::open_remembered(&store).map_err(open_error)
}

fn open_error(e: archbuild_runtime::Error) -> CliError {
    match e {
        archbuild_runtime::Error::SimulatedGpus { spec, why } => CliError::usage(
            format!("invalid {SIM_VAR} `{spec}`: {why}"),
            format!(
                "write GPUs as compute capabilities separated by commas, each optionally \
                 `:NAME`, then optionally `@DRIVER` (e.g. `8.6,9.0@13000` or \
                 `7.5:RTX 2080,8.6@12.4`), or unset {SIM_VAR} to use the real driver"
            ),
        ),
        other => CliError::Runtime(other),
    }
}

/// Preflight of one module on every GPU: the image each will load and how, or the error.
/// Empty without a driver or GPU.
pub(crate) fn check(
    gpus: &Gpus,
    fatbin: &FatBinary,
    policy: Option<Policy>,
) -> Result<Vec<GpuVerdict>, CliError> {
    let pre = gpus.preflight(fatbin, policy).map_err(CliError::Runtime)?;
    Ok(pre.map_or_else(Vec::new, |p| p.gpus.into_iter().map(verdict).collect()))
}

/// One GPU's verdict on one module.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GpuVerdict {
    pub ordinal: usize,
    pub name: String,
    pub cc: String,
    pub ok: bool,
    pub image: Option<String>,
    pub image_index: Option<usize>,
    /// `cubin`, `JIT by the driver`, `JIT by nvJitLink 13.5`.
    pub route: Option<String>,
    /// What is wrong and the fix, when the GPU cannot run the module.
    pub error: Option<String>,
    /// Every image with why it was or was not chosen.
    pub explanation: Option<String>,
    /// Each declared kernel variant group resolved on the image (`gemm -> gemm_mma (in sm_86)`).
    pub variants: Vec<String>,
}

fn verdict(g: GpuCheck) -> GpuVerdict {
    let base = GpuVerdict {
        ordinal: g.ordinal,
        name: g.device_name.clone(),
        cc: g.cc.to_string(),
        ok: g.outcome.is_ok() && g.variants.iter().all(|v| v.kernel.is_some()),
        image: None,
        image_index: None,
        route: None,
        error: None,
        explanation: Some(g.selection.to_string()),
        variants: g.variants.iter().map(ToString::to_string).collect(),
    };
    match g.outcome {
        Ok(plan) => GpuVerdict {
            image: Some(plan.image_target.to_string()),
            image_index: Some(plan.image_index),
            route: Some(plan.route.to_string()),
            ..base
        },
        Err(e) => GpuVerdict {
            error: Some(e.to_string()),
            ..base
        },
    }
}
