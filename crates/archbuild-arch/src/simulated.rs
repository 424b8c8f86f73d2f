//! The simulated GPUs of `ARCHBUILD_SIMULATED_GPUS` (and of `cargo archbuild ci --fleet`), parsed
//! once: the build's `native` and the runtime's simulated driver read the same devices from the
//! same text. Pure: the caller reads the variable (through its `Env`, so a build script announces
//! it) and hands the text here.
//!
//! Syntax: GPUs separated by `,` or `;`, each a compute capability (`8.6`, `86`, `sm_86`)
//! optionally followed by `:NAME`; then optionally `@DRIVER`, the CUDA version the simulated
//! driver reports (`13000` or `13.0`; default 13.0). Examples: `8.6,9.0@13000`,
//! `7.5:RTX 2080;8.6:RTX 3090;8.9:RTX 4090@12.4`, `@13.0` (a driver, no GPU).
//!
//! ```
//! use archbuild_arch::{ComputeCapability, CudaVersion, SimulatedGpus};
//! let sim = SimulatedGpus::parse("7.5:RTX 2080, sm_86 @12.4", "ARCHBUILD_SIMULATED_GPUS").unwrap();
//! assert_eq!(sim.ccs(), [ComputeCapability::new(7, 5), ComputeCapability::new(8, 6)]);
//! assert_eq!(sim.gpus[0].name.as_deref(), Some("RTX 2080"));
//! assert_eq!(sim.driver, CudaVersion::new(12, 4));
//! ```

use crate::cc::{ComputeCapability, CudaVersion, Target};
use crate::error::Error;

/// One simulated GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulatedGpu {
    pub cc: ComputeCapability,
    /// The name after `:`, when one is given (the runtime names the others after a product).
    pub name: Option<String>,
}

/// The GPUs and the driver version a simulated-GPU description gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulatedGpus {
    /// In the order written (the device ordinals).
    pub gpus: Vec<SimulatedGpu>,
    /// The CUDA version the simulated driver reports.
    pub driver: CudaVersion,
}

impl SimulatedGpus {
    /// The driver version when the text names none.
    pub const DEFAULT_DRIVER: CudaVersion = CudaVersion::new(13, 0);

    /// Parses `text` (see the module docs); `origin` names where it comes from (the variable,
    /// a flag) in the error, which says what is wrong with which part.
    pub fn parse(text: &str, origin: &str) -> Result<Self, Error> {
        let bad = |why: String| Error::SimulatedGpus {
            origin: origin.to_owned(),
            spec: text.to_owned(),
            why,
        };
        let (gpus, driver) = match text.rsplit_once('@') {
            Some((g, v)) => {
                let v = v.trim();
                let driver = parse_driver_version(v).ok_or_else(|| {
                    bad(format!(
                        "`{v}` is not a CUDA driver version (write `13000` or `13.0`)"
                    ))
                })?;
                (g, driver)
            }
            None => (text, Self::DEFAULT_DRIVER),
        };
        let mut out = Vec::new();
        for entry in gpus
            .split([',', ';'])
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            let (cc_text, name) = match entry.split_once(':') {
                Some((c, n)) => (c.trim(), Some(n.trim())),
                None => (entry, None),
            };
            let cc = parse_device_cc(cc_text).ok_or_else(|| {
                bad(format!(
                    "`{cc_text}` is not a compute capability (write `8.6`, `86` or `sm_86`)"
                ))
            })?;
            out.push(SimulatedGpu {
                cc,
                name: name.filter(|n| !n.is_empty()).map(str::to_owned),
            });
        }
        Ok(Self { gpus: out, driver })
    }

    /// The compute capabilities of the GPUs, in order (what `native` means with them).
    pub fn ccs(&self) -> Vec<ComputeCapability> {
        self.gpus.iter().map(|g| g.cc).collect()
    }
}

/// A device's compute capability as the description writes it: `8.6`, `86` or `sm_86` (an
/// `a`/`f` suffix, `sm_90a`, names the same device).
pub fn parse_device_cc(text: &str) -> Option<ComputeCapability> {
    if let Some((major, minor)) = text.split_once('.') {
        let (major, minor) = (major.parse().ok()?, minor.parse().ok()?);
        return (minor < 10).then(|| ComputeCapability::new(major, minor));
    }
    let name = if text.starts_with("sm_") {
        text.to_owned()
    } else {
        format!("sm_{text}")
    };
    Target::parse_nvcc_name(&name).map(|t| t.arch.cc)
}

/// A driver's CUDA version: `13.0` or the driver API's number, `13000`.
pub fn parse_driver_version(text: &str) -> Option<CudaVersion> {
    if let Some((major, minor)) = text.split_once('.') {
        return Some(CudaVersion::new(major.parse().ok()?, minor.parse().ok()?));
    }
    let n: u32 = text.parse().ok()?;
    (n >= 1000).then_some(CudaVersion(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability::new(major, minor)
    }

    #[test]
    fn every_spelling_of_a_device_and_a_driver() {
        let sim = SimulatedGpus::parse("8.6,9.0@13000", "t").unwrap();
        assert_eq!(sim.ccs(), [cc(8, 6), cc(9, 0)]);
        assert_eq!(sim.driver, CudaVersion::new(13, 0));
        let sim = SimulatedGpus::parse("sm_75:My 2080; 86 @12.4", "t").unwrap();
        assert_eq!(sim.gpus[0].name.as_deref(), Some("My 2080"));
        assert_eq!(
            sim.gpus[1],
            SimulatedGpu {
                cc: cc(8, 6),
                name: None
            }
        );
        assert_eq!(sim.driver, CudaVersion::new(12, 4));
        let sim = SimulatedGpus::parse("@13.0", "t").unwrap();
        assert!(sim.gpus.is_empty());
        let sim = SimulatedGpus::parse(" sm_90a ;, 100:", "t").unwrap();
        assert_eq!(sim.ccs(), [cc(9, 0), cc(10, 0)]);
        assert_eq!(sim.gpus[1].name, None, "an empty name is no name");
        assert_eq!(sim.driver, SimulatedGpus::DEFAULT_DRIVER);
    }

    #[test]
    fn a_bad_part_is_named_with_its_origin_and_the_fix() {
        for (text, part) in [
            ("8.6x", "`8.6x` is not a compute"),
            ("8.6@13", "`13` is not a CUDA driver version (write `13000`"),
            ("8.6@abc", "`abc` is not a CUDA driver"),
            ("8.10", "`8.10` is not a compute"),
        ] {
            let e = SimulatedGpus::parse(text, "ARCHBUILD_SIMULATED_GPUS").unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!(
                    "invalid ARCHBUILD_SIMULATED_GPUS `{text}`: {part}"
                )),
                "{msg}"
            );
            assert!(msg.contains("e.g. `8.6,9.0@13000`"), "{msg}");
        }
    }
}
