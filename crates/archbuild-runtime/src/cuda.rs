//! The real driver, on cudarc with `libcuda` loaded at run time.
//!
//! cudarc panics when `libcuda` is missing (on first use) or lacks a symbol; this module probes
//! for the library before anything touches it and runs every driver call under
//! `catch_unwind`, so a machine without a driver gets [`Error::NoDriver`], never a panic.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Mutex};

use archbuild_arch::{ComputeCapability, CudaVersion};
use cudarc::driver::result::{self as cu_result, DriverError};
use cudarc::driver::{sys, CudaContext, CudaModule};
use cudarc::nvrtc::Ptx;

use crate::backend::{nul_terminated, DeviceProps, Driver, JitOutput};
use crate::error::{cu, Error, Result};
use crate::fatbinary::FatBinary;
use crate::loader::{Loaded, Loader};

/// Size of each JIT log buffer handed to `cuLinkCreate`.
const LOG_BYTES: usize = 1 << 16;

/// The CUDA driver, through cudarc. Contexts are the devices' primary contexts (the ones the
/// CUDA runtime and `CudaContext::new` use), created on first use or adopted from the caller.
#[derive(Debug)]
pub struct CudaDriver {
    version: CudaVersion,
    contexts: Mutex<HashMap<usize, Arc<CudaContext>>>,
}

impl CudaDriver {
    /// Loads `libcuda` and initialises it. Without a driver this is [`Error::NoDriver`]; with a
    /// driver but no GPU, [`Error::NoDevice`].
    pub fn new() -> Result<Self> {
        // SAFETY: is_culib_present only tries to dlopen the candidate names.
        let present = guard(|| unsafe { sys::is_culib_present() })?;
        if !present {
            return Err(Error::NoDriver {
                detail: "libcuda.so.1 could not be loaded (not installed, or not on the library \
                         search path)"
                    .into(),
            });
        }
        match guard(cu_result::init)? {
            Ok(()) => {}
            Err(e) if code(e) == cu::NO_DEVICE => {
                return Err(Error::NoDevice {
                    detail: "cuInit reported CUDA_ERROR_NO_DEVICE".into(),
                })
            }
            Err(e) => {
                return Err(Error::NoDriver {
                    detail: format!("cuInit failed with {}", name(e)),
                })
            }
        }
        let mut v = 0i32;
        // SAFETY: a valid out-pointer.
        let rc = guard(|| unsafe { sys::cuDriverGetVersion(&mut v) })?;
        rc.result().map_err(|e| Error::NoDriver {
            detail: format!("cuDriverGetVersion failed with {}", name(e)),
        })?;
        Ok(Self {
            version: CudaVersion(v.max(0) as u32),
            contexts: Mutex::new(HashMap::new()),
        })
    }

    /// The primary context of GPU `ordinal`, retained on first use.
    pub fn context(&self, ordinal: usize) -> Result<Arc<CudaContext>> {
        let mut map = self.contexts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(ctx) = map.get(&ordinal) {
            return Ok(ctx.clone());
        }
        let count = self.device_count()?;
        if ordinal >= count {
            return Err(Error::NoSuchDevice { ordinal, count });
        }
        let ctx = guard(|| CudaContext::new(ordinal))?
            .map_err(|e| driver_err("cuDevicePrimaryCtxRetain", ordinal, e, ""))?;
        map.insert(ordinal, ctx.clone());
        Ok(ctx)
    }

    /// Uses the caller's context for its device from now on, so modules land in it.
    pub fn adopt(&self, ctx: Arc<CudaContext>) {
        let mut map = self.contexts.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(ctx.ordinal(), ctx);
    }

    pub(crate) fn bound(&self, ordinal: usize) -> Result<Arc<CudaContext>> {
        let ctx = self.context(ordinal)?;
        guard(|| ctx.bind_to_thread())?
            .map_err(|e| driver_err("cuCtxSetCurrent", ordinal, e, ""))?;
        Ok(ctx)
    }
}

impl Driver for CudaDriver {
    type Module = Arc<CudaModule>;

    fn version(&self) -> Result<CudaVersion> {
        Ok(self.version)
    }

    fn device_count(&self) -> Result<usize> {
        match guard(cu_result::device::get_count)? {
            Ok(n) => Ok(n.max(0) as usize),
            Err(e) if code(e) == cu::NO_DEVICE => Ok(0),
            Err(e) => Err(driver_err("cuDeviceGetCount", 0, e, "")),
        }
    }

    fn device(&self, ordinal: usize) -> Result<DeviceProps> {
        let count = self.device_count()?;
        if ordinal >= count {
            return Err(Error::NoSuchDevice { ordinal, count });
        }
        guard(|| -> Result<DeviceProps> {
            let err = |e| driver_err("cuDeviceGet", ordinal, e, "");
            let dev = cu_result::device::get(ordinal as i32).map_err(err)?;
            let name = cu_result::device::get_name(dev).map_err(err)?;
            use sys::CUdevice_attribute::*;
            // SAFETY: a valid device handle.
            let major = unsafe {
                cu_result::device::get_attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            }
            .map_err(err)?;
            let minor = unsafe {
                cu_result::device::get_attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            }
            .map_err(err)?;
            let cc = ComputeCapability::new(major.max(0) as u32, minor.max(0) as u32);
            Ok(DeviceProps { ordinal, name, cc })
        })?
    }

    fn prepare(&self, ordinal: usize) -> Result<()> {
        self.bound(ordinal).map(drop)
    }

    fn load(&self, ordinal: usize, image: Cow<'_, [u8]>) -> Result<Self::Module> {
        let ctx = self.bound(ordinal)?;
        let data = image.into_owned();
        guard(|| ctx.load_module(Ptx::from_binary(data)))?
            .map_err(|e| driver_err("cuModuleLoadData", ordinal, e, ""))
    }

    fn jit(&self, ordinal: usize, ptx: &[u8]) -> Result<JitOutput> {
        let _ctx = self.bound(ordinal)?;
        let ptx = nul_terminated(ptx);
        guard(|| link_ptx(ordinal, &ptx))?
    }
}

impl Loader<CudaDriver> {
    /// A loader on the real driver, configured by the environment (see [`Loader::from_env`]).
    pub fn new() -> Result<Self> {
        Loader::from_env(CudaDriver::new()?)
    }

    /// Loads into the caller's context (its device's image is chosen), so the module can be
    /// used with the caller's streams.
    pub fn load_in(
        &self,
        fatbin: &FatBinary,
        ctx: &Arc<CudaContext>,
    ) -> Result<Loaded<Arc<CudaModule>>> {
        self.driver.adopt(ctx.clone());
        self.load(fatbin, ctx.ordinal())
    }
}

/// JIT through the linker API: unlike `cuModuleLoadData` on PTX, it hands back the cubin (for
/// archbuild's cache) and fills the info and error log buffers.
fn link_ptx(ordinal: usize, ptx: &[u8]) -> Result<JitOutput> {
    use sys::CUjit_option::*;
    let mut info = vec![0u8; LOG_BYTES];
    let mut errors = vec![0u8; LOG_BYTES];
    let mut opts = [
        CU_JIT_INFO_LOG_BUFFER,
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_ERROR_LOG_BUFFER,
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_LOG_VERBOSE,
    ];
    // Size options are passed by value in the pointer slot, as cuda.h specifies.
    let mut vals: [*mut c_void; 5] = [
        info.as_mut_ptr().cast(),
        ptr::without_provenance_mut(LOG_BYTES),
        errors.as_mut_ptr().cast(),
        ptr::without_provenance_mut(LOG_BYTES),
        ptr::without_provenance_mut(1),
    ];
    let mut state: sys::CUlinkState = ptr::null_mut();
    let text = |buf: &[u8]| {
        String::from_utf8_lossy(crate::backend::ptx_text(buf))
            .trim()
            .to_string()
    };
    // SAFETY: option arrays of equal length; the log buffers outlive the link state.
    unsafe {
        sys::cuLinkCreate_v2(
            opts.len() as u32,
            opts.as_mut_ptr(),
            vals.as_mut_ptr(),
            &mut state,
        )
    }
    .result()
    .map_err(|e| driver_err("cuLinkCreate", ordinal, e, ""))?;
    struct Destroy(sys::CUlinkState);
    impl Drop for Destroy {
        fn drop(&mut self) {
            // SAFETY: created by cuLinkCreate, destroyed once.
            unsafe { sys::cuLinkDestroy(self.0) };
        }
    }
    let state = Destroy(state);
    let name = CString::new("archbuild.ptx").expect("no NUL");
    // SAFETY: the PTX buffer is valid for the call; the driver copies it.
    let rc = unsafe {
        sys::cuLinkAddData_v2(
            state.0,
            sys::CUjitInputType::CU_JIT_INPUT_PTX,
            ptx.as_ptr() as *mut c_void,
            ptx.len(),
            name.as_ptr(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    rc.result()
        .map_err(|e| driver_err("cuLinkAddData (PTX JIT)", ordinal, e, &text(&errors)))?;
    let mut cubin: *mut c_void = ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: valid out-pointers; the cubin stays owned by the link state until destroyed.
    unsafe { sys::cuLinkComplete(state.0, &mut cubin, &mut size) }
        .result()
        .map_err(|e| driver_err("cuLinkComplete (PTX JIT)", ordinal, e, &text(&errors)))?;
    // SAFETY: the driver returned `size` readable bytes at `cubin`.
    let cubin = unsafe { std::slice::from_raw_parts(cubin as *const u8, size) }.to_vec();
    drop(state);
    Ok(JitOutput {
        cubin,
        info_log: text(&info),
    })
}

/// Runs a cudarc call, turning a panic (missing library or symbol) into [`Error::NoDriver`].
pub(crate) fn guard<T>(f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "the CUDA driver library panicked".into());
        Error::NoDriver { detail: msg }
    })
}

pub(crate) fn code(e: DriverError) -> u32 {
    e.0 as u32
}

fn name(e: DriverError) -> String {
    format!("{:?} ({})", e.0, code(e))
}

pub(crate) fn driver_err(op: &'static str, ordinal: usize, e: DriverError, log: &str) -> Error {
    Error::driver(op, ordinal, code(e), format!("{:?}", e.0), log)
}
