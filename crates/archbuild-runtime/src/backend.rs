//! The driver abstraction: the few CUDA driver operations the loader needs, behind one trait,
//! so the same loader runs on the real driver ([`crate::driver::CudaDriver`], through cudarc) and
//! on the simulated one ([`crate::sim::SimDriver`]) that CI uses to test mixed rigs without a
//! GPU. Users see it as [`crate::driver`].

use std::borrow::Cow;

use archbuild_arch::{ComputeCapability, CudaVersion};

use crate::error::Result;

/// What the loader needs to know about one GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProps {
    /// Ordinal as the driver numbers devices (after `CUDA_VISIBLE_DEVICES`).
    pub ordinal: usize,
    /// Marketing name, e.g. `NVIDIA GeForce RTX 3090`.
    pub name: String,
    /// Compute capability, e.g. 8.6.
    pub cc: ComputeCapability,
}

/// A cubin produced by a JIT compiler, with the compiler's informational log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JitOutput {
    /// The compiled cubin (ELF), ready for `cuModuleLoadData`.
    pub cubin: Vec<u8>,
    /// The compiler's info log (register use, spills …); may be empty.
    pub info_log: String,
}

/// The CUDA driver operations the loader uses.
///
/// Implementations behave like `libcuda`: `load` accepts a cubin, NUL-terminated PTX or a whole
/// fat binary (of which, like the driver, only the first container counts) and fails with the
/// driver's error codes (209 for a cubin of another arch, 222 for PTX newer than the driver,
/// 218 for PTX whose target the GPU cannot run).
pub trait Driver {
    /// A loaded module (for the real driver, an `Arc<cudarc::driver::CudaModule>`).
    type Module;

    /// The CUDA version the driver supports (`cuDriverGetVersion`, 13000 for 13.0).
    fn version(&self) -> Result<CudaVersion>;

    /// How many GPUs are visible.
    fn device_count(&self) -> Result<usize>;

    /// Name and compute capability of GPU `ordinal`.
    fn device(&self, ordinal: usize) -> Result<DeviceProps>;

    /// Makes GPU `ordinal` ready for loads (the real driver creates its primary context on
    /// first use, 50–100 ms), so that a [`crate::LoadReport`]'s time is the load's own.
    fn prepare(&self, _ordinal: usize) -> Result<()> {
        Ok(())
    }

    /// `cuModuleLoadData` on GPU `ordinal`.
    fn load(&self, ordinal: usize, image: Cow<'_, [u8]>) -> Result<Self::Module>;

    /// JIT-compiles NUL-terminated PTX for GPU `ordinal` with the driver's own compiler
    /// (the linker API, `cuLinkAddData` + `cuLinkComplete`) so the cubin can be stored; the
    /// error log, if the compiler fails, is part of the returned error.
    fn jit(&self, ordinal: usize, ptx: &[u8]) -> Result<JitOutput>;
}

impl<D: Driver + ?Sized> Driver for &D {
    type Module = D::Module;
    fn version(&self) -> Result<CudaVersion> {
        (**self).version()
    }
    fn device_count(&self) -> Result<usize> {
        (**self).device_count()
    }
    fn device(&self, ordinal: usize) -> Result<DeviceProps> {
        (**self).device(ordinal)
    }
    fn prepare(&self, ordinal: usize) -> Result<()> {
        (**self).prepare(ordinal)
    }
    fn load(&self, ordinal: usize, image: Cow<'_, [u8]>) -> Result<Self::Module> {
        (**self).load(ordinal, image)
    }
    fn jit(&self, ordinal: usize, ptx: &[u8]) -> Result<JitOutput> {
        (**self).jit(ordinal, ptx)
    }
}

/// Returns `ptx` with exactly one terminating NUL, as `cuModuleLoadData` and the JIT require.
pub(crate) fn nul_terminated(ptx: &[u8]) -> Cow<'_, [u8]> {
    let text_len = ptx.iter().position(|&b| b == 0).unwrap_or(ptx.len());
    if text_len + 1 == ptx.len() {
        Cow::Borrowed(ptx)
    } else {
        let mut v = ptx[..text_len].to_vec();
        v.push(0);
        Cow::Owned(v)
    }
}

/// The text of NUL-terminated (or NUL-padded) PTX.
pub(crate) fn ptx_text(ptx: &[u8]) -> &[u8] {
    let end = ptx.iter().position(|&b| b == 0).unwrap_or(ptx.len());
    &ptx[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_termination() {
        assert_eq!(&*nul_terminated(b"abc"), b"abc\0");
        assert_eq!(&*nul_terminated(b"abc\0"), b"abc\0");
        assert_eq!(&*nul_terminated(b"abc\0\0\0\0"), b"abc\0");
        assert_eq!(ptx_text(b"abc\0\0"), b"abc");
    }
}
