//! archbuild-runtime: loads the right CUDA image on every GPU of a mixed machine.
//!
//! A fat binary embedded by archbuild's build.rs helper is parsed once ([`FatBinary`],
//! [`EmbeddedFatbin`]). For each GPU the [`Loader`] chooses one image with `archbuild-arch`'s
//! selection rules, loads only that image, and returns a cudarc module (or, with
//! [`Loader::load_raw`], a [`raw::RawModule`] read in place, without a copy) with a
//! [`LoadReport`] saying what was chosen, how it was loaded (cubin, cached JIT, driver JIT or
//! nvJitLink), how long it took and why the other images were not used. PTX is JIT-compiled by
//! the driver or by nvJitLink and the cubin kept in a persistent, verified [`jit::JitCache`].
//! [`Loader::preflight`] checks every visible GPU at once.
//!
//! The loader runs on any [`driver::Driver`]: [`driver::CudaDriver`] (cudarc, `libcuda` loaded
//! at run time, a missing driver is an error) or [`sim::SimDriver`] (simulated GPUs, for tests of
//! mixed rigs).
//!
//! The root holds what a program needs to load its kernels; the rest lives in modules:
//! [`driver`] (the driver trait, the real driver, `CUresult` codes), [`jit`] (the JIT cache,
//! nvJitLink and who compiles PTX), [`sim`] (the simulated driver), [`raw`] (modules loaded
//! without a copy), [`variants`] (kernel variant groups), [`launch`] (what the generated typed
//! launchers take), [`gpus`] (the machine's GPUs, real or
//! simulated by `ARCHBUILD_SIMULATED_GPUS`, as `cargo archbuild` sees them).
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

mod backend;
mod cache;
mod cuda;
pub mod driver;
mod env;
mod error;
mod fatbinary;
pub mod gpus;
pub mod jit;
pub mod launch;
mod loader;
mod locate;
mod nvjitlink;
mod pick;
mod preflight;
pub mod raw;
mod report;
pub mod sim;
pub mod variants;

pub use error::{Error, PtxTooNew, Result};
pub use fatbinary::{EmbeddedFatbin, FatBinary, Image};
pub use loader::{Loaded, Loader};
pub use pick::KernelAvailability;
pub use report::{
    BadEntry, CacheStatus, Compiler, GpuCheck, LoadPath, LoadReport, Plan, PlannedRoute, Preflight,
};

/// Re-exported so callers name policies and arch types without a direct dependency.
pub use archbuild_arch::{ComputeCapability, CudaVersion, Policy, PtxIsa, Selection, Target};
