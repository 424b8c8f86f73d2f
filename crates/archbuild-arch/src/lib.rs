//! Pure rules about CUDA GPU architectures: compute capabilities with `a`/`f` variants,
//! arch-list parsing in every common dialect, compatibility between images and devices, image
//! selection with an explanation, and the toolkit / PTX ISA tables. No I/O happens here, so the
//! build driver, the runtime loader and the CLI all share one source of truth.

mod cc;

pub use cc::{Arch, ComputeCapability, CudaVersion, PtxIsa, Target, TargetKind, Variant};
