//! The CUDA driver the loader talks to: the [`Driver`] trait with what it reports
//! ([`DeviceProps`], [`JitOutput`]), the real driver ([`CudaDriver`], cudarc with `libcuda`
//! loaded at run time), and the `CUresult` codes archbuild reasons about ([`cu`]). The simulated
//! driver is [`crate::sim`].

pub use crate::backend::{DeviceProps, Driver, JitOutput};
pub use crate::cuda::CudaDriver;
pub use crate::error::cu;
