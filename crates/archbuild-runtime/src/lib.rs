//! archbuild-runtime: loads the right CUDA image on every GPU of a mixed machine.
//!
//! A fat binary embedded by archbuild's build.rs helper is parsed once ([`FatBinary`],
//! [`EmbeddedFatbin`]). For each GPU the [`Loader`] chooses one image with `archbuild-arch`'s
//! selection rules, loads only that image, and returns a cudarc module (or, with
//! [`Loader::load_raw`], a [`RawModule`] read in place, without a copy) with a [`LoadReport`]
//! saying what was chosen, how it was loaded (cubin, cached JIT, driver JIT or nvJitLink), how
//! long it took and why the other images were not used. PTX is JIT-compiled by the driver or
//! by nvJitLink and the cubin kept in a persistent, verified [`JitCache`].
//! [`Loader::preflight`] checks every visible GPU at once.
//!
//! The loader runs on any [`Driver`]: [`CudaDriver`] (cudarc, `libcuda` loaded at run time, a
//! missing driver is an error) or [`SimDriver`] (simulated GPUs, for tests of mixed rigs).
//!
//! ```no_run
//! use archbuild_runtime::{FatBinary, Loader};
//! use cudarc::driver::CudaContext;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! static BYTES: &[u8] = &[]; // kernels::<module>::FATBIN, from build.rs's OUT_DIR/kernels.rs
//! let fatbin = FatBinary::new(BYTES)?;
//! let loader = Loader::new()?; // real driver, ARCHBUILD_* environment
//! println!("{}", loader.preflight(&fatbin)?.ensure()?);
//! let ctx = CudaContext::new(0)?;
//! let loaded = loader.load_in(&fatbin, &ctx)?;
//! eprintln!("{}", loaded.report);
//! let kernel = loaded.module.load_function("my_kernel")?;
//! # let _ = kernel; Ok(()) }
//! ```

mod cache;
mod cuda;
mod driver;
mod env;
mod error;
mod fatbinary;
mod loader;
mod locate;
mod nvjitlink;
mod pick;
mod preflight;
mod raw;
mod report;
mod sim;
mod variants;

pub use cache::{CacheKey, JitCache, Lookup, DEFAULT_MAX_BYTES};
pub use cuda::CudaDriver;
pub use driver::{DeviceProps, Driver, JitOutput};
pub use error::{cu, Error, PtxTooNew, Result};
pub use fatbinary::{EmbeddedFatbin, FatBinary, Image};
pub use loader::{JitPreference, Loaded, Loader};
pub use locate::{candidates as nvjitlink_candidates, discover as discover_nvjitlink};
pub use nvjitlink::{NvJitLink, PARALLEL_PTXAS};
pub use raw::{RawFunction, RawModule};
pub use report::{
    CacheStatus, Compiler, GpuCheck, LoadPath, LoadReport, Plan, PlannedRoute, Preflight,
};
pub use sim::{SimDevice, SimDriver, SimModule};
pub use variants::{VariantChoice, VariantGroup};

/// Re-exported so callers name policies and arch types without a direct dependency.
pub use archbuild_arch::{ComputeCapability, CudaVersion, Policy, PtxIsa, Selection, Target};
