//! Modules loaded straight from the fat binary's bytes, without a copy.
//!
//! cudarc builds a `CudaModule` only from an owned `Vec<u8>` (`Ptx::from_binary`), so a cubin
//! stored uncompressed in an embedded fat binary is copied once before `cuModuleLoadData`: about
//! 100 µs for a 2.3 MB cubin, a third of what the load itself costs. [`Loader::load_raw`] hands
//! the driver a pointer into the fat binary instead, and returns a [`RawModule`]: function
//! lookup, a launch over raw kernel parameters, and the `CUmodule` for anything else. Use
//! [`Loader::load`] when you want cudarc's typed launch builder; the two choose, compile and
//! cache exactly alike (they share one code path and differ only in the last driver call).

use std::borrow::Cow;
use std::ffi::{c_void, CString};
use std::sync::Arc;

use cudarc::driver::{result as cu_result, sys, CudaContext, CudaStream, LaunchConfig};

use crate::backend::{DeviceProps, Driver, JitOutput};
use crate::cuda::{driver_err, guard, CudaDriver};
use crate::error::{cu, Error, Result};
use crate::fatbinary::FatBinary;
use crate::loader::{Loaded, Loader};
use archbuild_arch::CudaVersion;

/// A module loaded in one context, unloaded when dropped.
#[derive(Debug)]
pub struct RawModule {
    cu_module: sys::CUmodule,
    ctx: Arc<CudaContext>,
}

// SAFETY: a CUmodule may be used from any thread once its context is current there, which every
// method (and Drop) ensures; cudarc's CudaModule is Send + Sync on the same grounds.
unsafe impl Send for RawModule {}
unsafe impl Sync for RawModule {}

impl Drop for RawModule {
    fn drop(&mut self) {
        // Errors cannot be reported from Drop; a failed unload leaks the module, nothing worse.
        let _ = guard(|| {
            if self.ctx.bind_to_thread().is_ok() {
                // SAFETY: loaded by cuModuleLoadData in this context, unloaded once.
                let _ = unsafe { cu_result::module::unload(self.cu_module) };
            }
        });
    }
}

impl RawModule {
    /// The `CUmodule`, valid while `self` lives.
    pub fn cu_module(&self) -> sys::CUmodule {
        self.cu_module
    }

    /// The context the module was loaded in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The kernel `name` (as in the PTX: `extern "C"` names, or C++ mangled ones).
    pub fn function(&self, name: &str) -> Result<RawFunction<'_>> {
        let ordinal = self.ctx.ordinal();
        let Ok(c_name) = CString::new(name) else {
            return Err(Error::driver(
                "cuModuleGetFunction",
                ordinal,
                cu::INVALID_VALUE,
                cu::name(cu::INVALID_VALUE),
                &format!("the kernel name {name:?} contains a NUL byte"),
            ));
        };
        guard(|| self.ctx.bind_to_thread())?
            .map_err(|e| driver_err("cuCtxSetCurrent", ordinal, e, ""))?;
        // SAFETY: a live module and a NUL-terminated name.
        let f = guard(|| unsafe { cu_result::module::get_function(self.cu_module, c_name) })?
            .map_err(|e| driver_err("cuModuleGetFunction", ordinal, e, &format!("`{name}`")))?;
        Ok(RawFunction {
            cu_function: f,
            module: self,
        })
    }
}

/// A kernel of a [`RawModule`], valid while the module lives.
#[derive(Debug, Clone, Copy)]
pub struct RawFunction<'m> {
    cu_function: sys::CUfunction,
    module: &'m RawModule,
}

impl RawFunction<'_> {
    /// The `CUfunction`.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.cu_function
    }

    /// Launches the kernel on `stream` (`cuLaunchKernel`); `params` holds one pointer per kernel
    /// parameter, each pointing at the argument's value (for a buffer, at its device pointer).
    ///
    /// # Safety
    /// The parameters must match the kernel's signature in number, order and type, and every
    /// buffer must stay valid until the kernel has finished.
    pub unsafe fn launch(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        let ctx = &self.module.ctx;
        let ordinal = ctx.ordinal();
        if stream.context().cu_ctx() != ctx.cu_ctx() {
            return Err(Error::driver(
                "cuLaunchKernel",
                ordinal,
                cu::INVALID_CONTEXT,
                cu::name(cu::INVALID_CONTEXT),
                "the stream belongs to another context than the module",
            ));
        }
        guard(|| ctx.bind_to_thread())?
            .map_err(|e| driver_err("cuCtxSetCurrent", ordinal, e, ""))?;
        let (grid, block, shared) = (cfg.grid_dim, cfg.block_dim, cfg.shared_mem_bytes);
        let stream = stream.cu_stream();
        // SAFETY: the caller vouches for the parameters; function and stream share a context.
        guard(|| unsafe {
            cu_result::launch_kernel(self.cu_function, grid, block, shared, stream, params)
        })?
        .map_err(|e| driver_err("cuLaunchKernel", ordinal, e, ""))
    }
}

/// The real driver, loading images where they lie instead of copying them into a `Vec`.
struct InPlace<'a>(&'a CudaDriver);

impl Driver for InPlace<'_> {
    type Module = RawModule;

    fn version(&self) -> Result<CudaVersion> {
        self.0.version()
    }
    fn device_count(&self) -> Result<usize> {
        self.0.device_count()
    }
    fn device(&self, ordinal: usize) -> Result<DeviceProps> {
        self.0.device(ordinal)
    }
    fn jit(&self, ordinal: usize, ptx: &[u8]) -> Result<JitOutput> {
        self.0.jit(ordinal, ptx)
    }
    fn prepare(&self, ordinal: usize) -> Result<()> {
        self.0.prepare(ordinal)
    }

    fn load(&self, ordinal: usize, image: Cow<'_, [u8]>) -> Result<RawModule> {
        let ctx = self.0.bound(ordinal)?;
        // SAFETY: a complete image (the fat binary's reader checked its bounds); the driver
        // copies what it keeps before returning, so the bytes need to live only for the call.
        let m = guard(|| unsafe { cu_result::module::load_data(image.as_ptr().cast::<c_void>()) })?
            .map_err(|e| driver_err("cuModuleLoadData", ordinal, e, ""))?;
        Ok(RawModule { cu_module: m, ctx })
    }
}

impl Loader<CudaDriver> {
    /// Like [`Loader::load`], but the driver reads the chosen image where it lies in the fat
    /// binary (no copy), and the module is a [`RawModule`].
    pub fn load_raw(&self, fatbin: &FatBinary, ordinal: usize) -> Result<Loaded<RawModule>> {
        self.load_via(&InPlace(&self.driver), fatbin, ordinal)
    }

    /// [`Loader::load_raw`] into the caller's context (see [`Loader::load_in`]).
    pub fn load_raw_in(
        &self,
        fatbin: &FatBinary,
        ctx: &Arc<CudaContext>,
    ) -> Result<Loaded<RawModule>> {
        self.driver.adopt(ctx.clone());
        self.load_raw(fatbin, ctx.ordinal())
    }
}
