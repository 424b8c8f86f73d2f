//! Which CUDA driver the CLI talks to: the real one (libcuda through the runtime's
//! [`CudaDriver`]) or, when `ARCHBUILD_SIMULATED_GPUS` is set, the runtime's [`SimDriver`] with
//! the GPUs it describes — how `doctor` and `native` are exercised on machines without a GPU.
//!
//! `ARCHBUILD_SIMULATED_GPUS` syntax: GPUs separated by `,` or `;`, each a compute capability
//! (`8.6`, `86`, `sm_86`) optionally followed by `:NAME`; then optionally `@DRIVER`, the CUDA
//! version the simulated driver reports (`13000` or `13.0`; default 13.0). Examples:
//! `8.6,9.0@13000`, `7.5:RTX 2080;8.6:RTX 3090;8.9:RTX 4090@12.4`, `@13.0` (a driver, no GPU).

use archbuild_arch::{ComputeCapability, CudaVersion, Policy, Target};
use archbuild_runtime::{CudaDriver, DeviceProps, Driver, FatBinary, Loader, SimDriver};
use serde::Serialize;

use crate::error::CliError;

/// The variable that selects the simulated driver.
pub(crate) const SIM_VAR: &str = "ARCHBUILD_SIMULATED_GPUS";

/// The driver in use, or why there is none.
pub(crate) enum Gpus {
    Simulated {
        driver: SimDriver,
        spec: String,
    },
    Real(CudaDriver),
    /// No usable driver (the runtime's error text, which names the fix).
    Absent(String),
}

/// What is known about the driver and its GPUs.
#[derive(Debug, Clone)]
pub(crate) struct DriverFacts {
    /// `libcuda` or `simulated by ARCHBUILD_SIMULATED_GPUS=…`.
    pub source: String,
    pub version: Option<CudaVersion>,
    pub gpus: Vec<DeviceProps>,
    /// Why the driver or a GPU could not be queried.
    pub problem: Option<String>,
}

impl Gpus {
    /// The simulated driver when `ARCHBUILD_SIMULATED_GPUS` is set (a bad value is an error),
    /// else the real driver if it loads.
    pub(crate) fn open() -> Result<Self, CliError> {
        if let Some(spec) = std::env::var_os(SIM_VAR) {
            let spec = spec.to_string_lossy().trim().to_string();
            if !spec.is_empty() {
                let driver = parse_sim(&spec).map_err(|why| {
                    CliError::usage(
                        format!("invalid {SIM_VAR} `{spec}`: {why}"),
                        format!(
                            "write GPUs as compute capabilities separated by commas, each optionally \
                             `:NAME`, then optionally `@DRIVER` (e.g. `8.6,9.0@13000` or \
                             `7.5:RTX 2080,8.6@12.4`), or unset {SIM_VAR} to use the real driver"
                        ),
                    )
                })?;
                return Ok(Gpus::Simulated { driver, spec });
            }
        }
        Ok(match CudaDriver::new() {
            Ok(d) => Gpus::Real(d),
            Err(e) => Gpus::Absent(e.to_string()),
        })
    }

    /// Driver version and GPUs.
    pub(crate) fn facts(&self) -> DriverFacts {
        match self {
            Gpus::Simulated { driver, spec } => {
                query(driver, format!("simulated by {SIM_VAR}={spec}"))
            }
            Gpus::Real(driver) => query(driver, "libcuda".into()),
            Gpus::Absent(why) => DriverFacts {
                source: "libcuda".into(),
                version: None,
                gpus: Vec::new(),
                problem: Some(why.clone()),
            },
        }
    }

    /// Preflight of one module on every GPU: the image each will load and how, or the error.
    /// Empty without a driver.
    pub(crate) fn check(
        &self,
        fatbin: &FatBinary,
        policy: Option<Policy>,
    ) -> Result<Vec<GpuVerdict>, CliError> {
        match self {
            Gpus::Simulated { driver, .. } => preflight(driver, fatbin, policy),
            Gpus::Real(driver) => preflight(driver, fatbin, policy),
            Gpus::Absent(_) => Ok(Vec::new()),
        }
    }

    /// The compute capabilities of the visible GPUs (for `native`).
    pub(crate) fn ccs(&self) -> Vec<ComputeCapability> {
        self.facts().gpus.iter().map(|g| g.cc).collect()
    }
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

fn preflight<D: Driver>(
    driver: D,
    fatbin: &FatBinary,
    policy: Option<Policy>,
) -> Result<Vec<GpuVerdict>, CliError> {
    let driver_err = |e: archbuild_runtime::Error| CliError::Driver {
        message: e.to_string(),
    };
    let mut loader = Loader::from_env(driver).map_err(driver_err)?;
    if let Some(p) = policy {
        loader = loader.policy(p);
    }
    if loader.driver().device_count().map_err(driver_err)? == 0 {
        return Ok(Vec::new());
    }
    let pre = loader.preflight(fatbin).map_err(driver_err)?;
    Ok(pre
        .gpus
        .into_iter()
        .map(|g| {
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
        })
        .collect())
}

fn query<D: Driver>(driver: &D, source: String) -> DriverFacts {
    let mut facts = DriverFacts {
        source,
        version: None,
        gpus: Vec::new(),
        problem: None,
    };
    match driver.version() {
        Ok(v) => facts.version = Some(v),
        Err(e) => {
            facts.problem = Some(e.to_string());
            return facts;
        }
    }
    match driver.device_count() {
        Ok(n) => {
            for ordinal in 0..n {
                match driver.device(ordinal) {
                    Ok(d) => facts.gpus.push(d),
                    Err(e) => facts.problem = Some(e.to_string()),
                }
            }
        }
        Err(e) => facts.problem = Some(e.to_string()),
    }
    facts
}

/// Parses the `ARCHBUILD_SIMULATED_GPUS` syntax (see the module docs).
pub(crate) fn parse_sim(spec: &str) -> Result<SimDriver, String> {
    let (gpus, version) = match spec.rsplit_once('@') {
        Some((g, v)) => (g, parse_driver_version(v.trim())?),
        None => (spec, CudaVersion::new(13, 0)),
    };
    let mut driver = SimDriver::new(version);
    for entry in gpus
        .split([',', ';'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let (cc_text, name) = match entry.split_once(':') {
            Some((c, n)) => (c.trim(), Some(n.trim())),
            None => (entry, None),
        };
        let cc = parse_cc(cc_text).ok_or_else(|| {
            format!("`{cc_text}` is not a compute capability (write `8.6`, `86` or `sm_86`)")
        })?;
        driver = match name {
            Some(n) if !n.is_empty() => driver.with_named_gpu(n, cc),
            _ => driver.with_gpu(cc.major, cc.minor),
        };
    }
    Ok(driver)
}

fn parse_cc(text: &str) -> Option<ComputeCapability> {
    if let Some((major, minor)) = text.split_once('.') {
        let (major, minor) = (major.parse().ok()?, minor.parse().ok()?);
        return (minor < 10).then(|| ComputeCapability::new(major, minor));
    }
    let name = if text.starts_with("sm_") {
        text.to_string()
    } else {
        format!("sm_{text}")
    };
    Target::parse_nvcc_name(&name).map(|t| t.arch.cc)
}

fn parse_driver_version(v: &str) -> Result<CudaVersion, String> {
    let bad = || format!("`{v}` is not a CUDA driver version (write `13000` or `13.0`)");
    if let Some((major, minor)) = v.split_once('.') {
        let major: u32 = major.parse().map_err(|_| bad())?;
        let minor: u32 = minor.parse().map_err(|_| bad())?;
        return Ok(CudaVersion::new(major, minor));
    }
    let n: u32 = v.parse().map_err(|_| bad())?;
    if n < 1000 {
        return Err(bad());
    }
    Ok(CudaVersion(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_specs_parse() {
        let d = parse_sim("8.6,9.0@13000").unwrap();
        assert_eq!(d.version().unwrap(), CudaVersion::new(13, 0));
        assert_eq!(d.device_count().unwrap(), 2);
        assert_eq!(d.device(1).unwrap().cc, ComputeCapability::new(9, 0));
        let d = parse_sim("sm_75:My 2080; 86 @12.4").unwrap();
        assert_eq!(d.device(0).unwrap().name, "My 2080");
        assert_eq!(d.device(1).unwrap().cc, ComputeCapability::new(8, 6));
        assert_eq!(d.version().unwrap(), CudaVersion::new(12, 4));
        assert_eq!(parse_sim("@13.0").unwrap().device_count().unwrap(), 0);
    }

    #[test]
    fn bad_sim_specs_say_what_is_wrong() {
        assert!(parse_sim("8.6x").unwrap_err().contains("`8.6x`"));
        assert!(parse_sim("8.6@13").unwrap_err().contains("13000"));
        assert!(parse_sim("8.6@abc").is_err());
    }
}
