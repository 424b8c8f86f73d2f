//! The fleet a build is for (`docs/build.md`, "Fleets"): its GPUs *and drivers*, from
//! `Build::fleet`, else `ARCHBUILD_FLEET`, else `fleet` in `[package.metadata.archbuild]`, with
//! `native` standing for this machine's GPUs and driver (the simulated GPUs' when
//! `ARCHBUILD_SIMULATED_GPUS` is set). The build uses it twice, both before compiling:
//! compression left to archbuild avoids zstd where a member's driver is below 12.4 (R550),
//! and every list the build makes is checked with the driver floors of
//! `archbuild_arch::Fleet::check`, so a member that could load nothing is an error now, not
//! `CUDA_ERROR_NO_BINARY_FOR_GPU` on that machine later.

use archbuild_arch::{
    ComputeCapability, CudaVersion, Fleet, FleetProblem, Handoff, ImageCompression, ImageInfo,
    SimulatedGpus, TargetKind,
};
use archbuild_fatbin::{Compression, CompressionChoice};

use crate::base::env::Env;
use crate::base::layered::{Layer, Layered, Setting};
use crate::config::archs::ArchSource;
use crate::config::manifest::PackageConfig;
use crate::error::{Error, FleetIssue, Result};
use crate::plan::Module;
use crate::prepare::spec::Spec;
use crate::toolkit::native::SIMULATED_GPUS;

/// The variable naming the fleet (`docs/environment.md`).
pub(crate) const FLEET_VAR: &str = "ARCHBUILD_FLEET";

/// Where Linux's NVIDIA module says its version (`NVRM version: … 580.65.06 …`).
const DRIVER_VERSION_FILE: &str = "/proc/driver/nvidia/version";

/// The fleet and where it was set, `native` resolved; `None` when no source names one.
pub(crate) fn resolve(
    b: &Spec,
    env: &Env,
    pkg: Option<&PackageConfig>,
    devices: &dyn Fn() -> Result<Vec<ComputeCapability>>,
) -> Result<Option<(Fleet, String)>> {
    const SETTING: Setting = Setting(&[
        Layer::Builder("the build's `.fleet(...)`"),
        Layer::Variable(FLEET_VAR),
        Layer::Manifest("fleet"),
    ]);
    let manifest = pkg.and_then(|p| p.fleet.as_deref());
    let Some(Layered {
        value: text,
        origin,
    }) = SETTING.resolve(b.fleet.as_deref(), env, manifest)
    else {
        return Ok(None);
    };
    let origin = origin.to_string();
    let mut fleet = Fleet::parse(&text, &origin)?;
    if fleet.native {
        let driver = native_driver(env).map_err(|why| Error::Config {
            what: "fleet",
            origin: origin.clone(),
            value: text.clone(),
            hint: format!(
                "`native` needs this machine's driver version, and {why}; write the GPUs out \
                 with their drivers (e.g. `8.6@13.0`), or describe them in \
                 ARCHBUILD_SIMULATED_GPUS"
            ),
        })?;
        fleet.add_native(&devices()?, driver);
    }
    Ok(Some((fleet, origin)))
}

/// The driver `native` runs on: the simulated one, else the loaded NVIDIA module's branch.
fn native_driver(env: &Env) -> std::result::Result<CudaVersion, String> {
    if let Some(text) = env.var(SIMULATED_GPUS) {
        return SimulatedGpus::parse(&text, SIMULATED_GPUS)
            .map(|s| s.driver)
            .map_err(|e| e.to_string());
    }
    let text = std::fs::read_to_string(DRIVER_VERSION_FILE)
        .map_err(|e| format!("{DRIVER_VERSION_FILE} cannot be read ({e})"))?;
    driver_of_version_file(&text)
        .ok_or_else(|| format!("{DRIVER_VERSION_FILE} names no driver branch archbuild knows"))
}

/// `NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 …` → CUDA 13.0.
fn driver_of_version_file(text: &str) -> Option<CudaVersion> {
    let line = text.lines().find(|l| l.starts_with("NVRM version"))?;
    let branch = line
        .split_whitespace()
        .find_map(|w| w.split_once('.').and_then(|(b, _)| b.parse::<u32>().ok()))?;
    archbuild_arch::cuda_for_branch(branch)
}

/// Checks every list the build makes against the fleet: the build's own list with every
/// problem, a per-file list without "covers no member" (a `9.0a` kernel is for 9.0 alone by
/// design). The images are what `toolkit` makes, stored as `compression` says, handed to the
/// driver as a whole fat binary (the generated module's `FATBIN`, a library's registration),
/// which is when the driver decompresses.
pub(crate) fn check(
    (fleet, origin): (&Fleet, &str),
    modules: &[Module],
    toolkits: &crate::toolkit::makers::Toolkits,
    compression: CompressionChoice,
) -> Result<()> {
    // Each image by its toolkit: the legacy one's where it builds the target, the PTX
    // toolkit's PTX (`ptx-toolkit`), else the build's.
    let made = |t: archbuild_arch::Target| toolkits.of(toolkits.maker(t));
    let stored = |c: Compression| match c {
        Compression::None => ImageCompression::None,
        Compression::Lz4 => ImageCompression::Lz4,
        Compression::Zstd { .. } => ImageCompression::Zstd,
    };
    let mut issues: Vec<FleetIssue> = Vec::new();
    let mut seen: Vec<&archbuild_arch::ArchList> = Vec::new();
    for m in modules {
        if seen.contains(&&m.archs.list) {
            continue;
        }
        seen.push(&m.archs.list);
        let own = matches!(m.archs.source, ArchSource::FileOverride(_));
        let images: Vec<ImageInfo> = m
            .archs
            .list
            .targets()
            .iter()
            .map(|&t| match t.kind {
                TargetKind::Cubin => ImageInfo::new(t, None)
                    .made_by(Some(made(t).version().major()))
                    .compression(stored(compression.elf)),
                TargetKind::Ptx => {
                    let isa = archbuild_arch::max_ptx_isa_for_cuda(made(t).version());
                    ImageInfo::new(t, isa).compression(stored(compression.ptx))
                }
                // Stored as it is: nvJitLink reads it, no driver.
                TargetKind::LtoIr => {
                    ImageInfo::new(t, None).made_by(Some(made(t).version().major()))
                }
            })
            .collect();
        let list = match &m.archs.source {
            ArchSource::FileOverride(f) => format!("`{f}`'s list `{}`", m.archs.list),
            _ => format!("the build's list `{}`", m.archs.list),
        };
        issues.extend(
            fleet
                .check(&images, Handoff::FatBinary)
                .into_iter()
                .filter(|p| !(own && matches!(p, FleetProblem::NotCovered { .. })))
                .map(|problem| FleetIssue {
                    list: list.clone(),
                    problem,
                }),
        );
    }
    if issues.is_empty() {
        return Ok(());
    }
    Err(Error::FleetCannotLoad {
        fleet: fleet.to_string(),
        origin: origin.to_owned(),
        toolkit: toolkits.main().release().to_owned(),
        issues,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_of_the_nvidia_module() {
        let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 \
                    06:54:38 UTC 2025\nGCC version:  gcc version 12.2.0\n";
        assert_eq!(driver_of_version_file(text), Some(CudaVersion::new(13, 0)));
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release";
        assert_eq!(driver_of_version_file(open), Some(CudaVersion::new(12, 4)));
        assert_eq!(driver_of_version_file("nothing"), None);
    }
}
