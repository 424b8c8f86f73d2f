//! What the loader tells its caller: which image went onto which GPU, how, how fast, and why
//! the other images were not used ([`LoadReport`]); and the per-GPU plan of a preflight
//! ([`Preflight`]).

use std::fmt;
use std::time::Duration;

use archbuild_arch::{ComputeCapability, CudaVersion, PtxIsa, Selection, Target};

use crate::error::{Error, Result};

/// Who compiled a JIT-compiled cubin; part of the JIT cache key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compiler {
    /// The driver's JIT (`cuLinkComplete`), identified by the driver's CUDA version.
    Driver(CudaVersion),
    /// nvJitLink of this version.
    NvJitLink(CudaVersion),
}

impl fmt::Display for Compiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Compiler::Driver(v) => write!(f, "driver CUDA {v}"),
            Compiler::NvJitLink(v) => write!(f, "nvJitLink {v}"),
        }
    }
}

/// How the chosen image got onto the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPath {
    /// A cubin from the fat binary, loaded as is.
    Cubin,
    /// A cubin compiled earlier from the chosen PTX, served by archbuild's JIT cache.
    CachedJit(Compiler),
    /// The PTX compiled now by the driver's JIT.
    DriverJit,
    /// The PTX compiled now by nvJitLink of this version.
    NvJitLink(CudaVersion),
    /// The LTO-IR linked now (`-lto`) by nvJitLink of this version.
    LinkedLto(CudaVersion),
}

impl fmt::Display for LoadPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadPath::Cubin => f.write_str("cubin"),
            LoadPath::CachedJit(c) => write!(f, "cached JIT (compiled by {c})"),
            LoadPath::DriverJit => f.write_str("driver JIT"),
            LoadPath::NvJitLink(v) => write!(f, "nvJitLink {v}"),
            LoadPath::LinkedLto(v) => write!(f, "LTO-IR linked by nvJitLink {v}"),
        }
    }
}

/// What happened in archbuild's JIT cache during a load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheStatus {
    /// A cubin was loaded; the cache was not involved.
    NotNeeded,
    /// The cache is off (`ARCHBUILD_JIT_CACHE=off`, or no cache directory).
    Off,
    /// Served from the cache.
    Hit,
    /// Not in the cache; compiled and stored.
    Stored,
    /// An entry failed verification or loading (why), was removed, recompiled and stored
    /// again.
    Replaced(BadEntry),
    /// Compiled, but storing failed (why); the load itself succeeded.
    NotStored(String),
}

/// Why a JIT cache entry was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadEntry {
    /// The store refused it: truncated, of another key, or its checksum does not match.
    Rejected(archbuild_store::entry::Rejection),
    /// It verified, but the driver refused to load it (the driver's error).
    DriverRefused(String),
}

impl fmt::Display for BadEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadEntry::Rejected(why) => write!(f, "{why}"),
            BadEntry::DriverRefused(e) => write!(f, "the driver refused the cached cubin: {e}"),
        }
    }
}

/// The full account of one load.
#[derive(Debug, Clone)]
pub struct LoadReport {
    pub ordinal: usize,
    pub device_name: String,
    pub cc: ComputeCapability,
    /// The CUDA version the driver reports.
    pub driver: CudaVersion,
    /// Index of the chosen image in [`crate::FatBinary::images`].
    pub image_index: usize,
    pub image_target: Target,
    pub image_ptx_isa: Option<PtxIsa>,
    pub path: LoadPath,
    pub cache: CacheStatus,
    /// The JIT compiler's info log (empty for cubins and cache hits).
    pub jit_log: String,
    /// Wall time of the whole load: selection, extraction, JIT or cache, `cuModuleLoadData`
    /// (not the creation of the GPU's context on its first use).
    pub elapsed: Duration,
    /// The selection: every image with why it was chosen or not (its `Display` explains).
    pub selection: Selection,
    /// Each declared variant group resolved on the loaded image.
    pub variants: Vec<crate::variants::VariantChoice>,
}

impl LoadReport {
    /// `GPU 0 NVIDIA H100 (9.0)`, as messages name the GPU.
    pub fn gpu(&self) -> String {
        format!("GPU {} {} ({})", self.ordinal, self.device_name, self.cc)
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "GPU {} {} ({}), driver CUDA {}: loaded [{}] {} via {} in {:.3} ms",
            self.ordinal,
            self.device_name,
            self.cc,
            self.driver,
            self.image_index,
            self.image_target,
            self.path,
            self.elapsed.as_secs_f64() * 1e3
        )?;
        match &self.cache {
            CacheStatus::Replaced(why) => writeln!(f, "JIT cache: bad entry replaced ({why})")?,
            CacheStatus::NotStored(why) => writeln!(f, "JIT cache: not stored ({why})")?,
            _ => {}
        }
        for line in self.selection.to_string().lines() {
            writeln!(f, "  {line}")?;
        }
        for v in &self.variants {
            writeln!(f, "  variant: {v}")?;
        }
        Ok(())
    }
}

/// How preflight expects an image to be loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlannedRoute {
    Cubin,
    DriverJit,
    NvJitLink(CudaVersion),
    /// LTO-IR, linked for the GPU by nvJitLink of this version.
    LinkLto(CudaVersion),
}

impl fmt::Display for PlannedRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlannedRoute::Cubin => f.write_str("cubin"),
            PlannedRoute::DriverJit => f.write_str("JIT by the driver"),
            PlannedRoute::NvJitLink(v) => write!(f, "JIT by nvJitLink {v}"),
            PlannedRoute::LinkLto(v) => write!(f, "LTO-IR linked by nvJitLink {v}"),
        }
    }
}

/// The image one GPU will use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub image_index: usize,
    pub image_target: Target,
    pub route: PlannedRoute,
}

/// Preflight's verdict for one GPU.
#[derive(Debug)]
pub struct GpuCheck {
    pub ordinal: usize,
    pub device_name: String,
    pub cc: ComputeCapability,
    /// The plan, or the error (naming the fix) that loading would fail with.
    pub outcome: Result<Plan>,
    /// The selection behind the verdict; its `Display` explains every image.
    pub selection: Selection,
    /// Each declared variant group resolved on the planned image (empty without a plan).
    pub variants: Vec<crate::variants::VariantChoice>,
}

/// Preflight over every visible GPU.
#[derive(Debug)]
pub struct Preflight {
    pub driver: CudaVersion,
    pub gpus: Vec<GpuCheck>,
}

impl Preflight {
    /// True when every GPU can run the fat binary.
    pub fn all_ok(&self) -> bool {
        self.gpus
            .iter()
            .all(|g| g.outcome.is_ok() && g.variants.iter().all(|v| v.kernel.is_some()))
    }

    /// `Ok(self)` when every GPU can run the fat binary, else [`Error::Preflight`] with one
    /// line (and fix) per failing GPU: the call to make at program start.
    pub fn ensure(self) -> Result<Self> {
        let failures: Vec<String> = self
            .gpus
            .iter()
            .flat_map(|g| {
                let gpu = format!("GPU {} {} ({})", g.ordinal, g.device_name, g.cc);
                let load = g.outcome.as_ref().err().map(|e| e.to_string());
                let variants = g
                    .variants
                    .iter()
                    .filter(|v| v.kernel.is_none())
                    .map(move |v| {
                        Error::NoVariant {
                            gpu: gpu.clone(),
                            choice: v.to_string(),
                        }
                        .to_string()
                    });
                load.into_iter().chain(variants)
            })
            .collect();
        if failures.is_empty() {
            Ok(self)
        } else {
            Err(Error::Preflight { failures })
        }
    }
}

impl fmt::Display for Preflight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "preflight: {} GPU(s), driver CUDA {}",
            self.gpus.len(),
            self.driver
        )?;
        for g in &self.gpus {
            match &g.outcome {
                Ok(p) => writeln!(
                    f,
                    "  GPU {} {} ({}): [{}] {} ({})",
                    g.ordinal, g.device_name, g.cc, p.image_index, p.image_target, p.route
                )?,
                // The error begins with the same "GPU n NAME (CC): " label.
                Err(e) => writeln!(f, "  {e}")?,
            }
            for v in &g.variants {
                writeln!(f, "    variant: {v}")?;
            }
        }
        Ok(())
    }
}
