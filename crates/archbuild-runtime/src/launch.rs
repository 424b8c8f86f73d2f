//! Typed kernel launches: what the launchers archbuild's build script generates are made of.
//!
//! For every kernel whose parameters map to Rust, the generated module has a launcher type
//! (`kernels::vector_add::VectorAdd`) whose `launch` takes exactly the kernel's arguments:
//! a `const T*` parameter takes `&impl DeviceIn<T>` (a [`CudaSlice`] or [`CudaView`] of `T`),
//! a `T*` one `&mut impl DeviceOut<T>` (a [`CudaSlice`] or [`CudaViewMut`]), a scalar its exact
//! Rust type (`unsigned int` is `u32`, `size_t` is `u64`, `__half` is [`Half`]). A missing,
//! extra or swapped argument, or a read-only buffer where the kernel writes, is a compile error.
//!
//! ```text
//! let vector_add = kernels::vector_add::VectorAdd::load(&loaded.module)?;
//! // SAFETY: vector_add reads a[i], b[i] and writes c[i] for i < n; each holds n elements.
//! unsafe { vector_add.launch(&stream, LaunchConfig::for_num_elems(n), &a, &b, &mut c, n) }?;
//! ```
//!
//! `launch` stays `unsafe`: types are what the build can check (against every image's
//! `.entry`); bounds, aliasing and the launch shape a kernel expects are its own contract.

pub use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr,
    DriverError, LaunchArgs, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};

use std::sync::Arc;

use crate::{Error, Loaded};

/// CUDA's `__half` as a launch argument or buffer element: its bits. With the `half` feature,
/// `half::f16` converts into it and `CudaSlice<half::f16>` passes where a kernel takes
/// `__half*`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Half(pub u16);

/// CUDA's `__nv_bfloat16` as a launch argument or buffer element: its bits. With the `half`
/// feature, `half::bf16` converts into it.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bf16(pub u16);

// SAFETY: plain 16-bit values, laid out as the device's `__half` and `__nv_bfloat16`.
unsafe impl DeviceRepr for Half {}
unsafe impl ValidAsZeroBits for Half {}
unsafe impl DeviceRepr for Bf16 {}
unsafe impl ValidAsZeroBits for Bf16 {}

#[cfg(feature = "half")]
impl From<half::f16> for Half {
    fn from(v: half::f16) -> Self {
        Half(v.to_bits())
    }
}

#[cfg(feature = "half")]
impl From<half::bf16> for Bf16 {
    fn from(v: half::bf16) -> Self {
        Bf16(v.to_bits())
    }
}

/// `Self` has the device representation of `T`: a buffer of `Self` passes where a kernel
/// takes `T*`.
///
/// # Safety
/// `Self` and `T` must have the same size, alignment and meaning of bits.
pub unsafe trait Element<T> {}

// SAFETY: a type is laid out as itself.
unsafe impl<T> Element<T> for T {}
// SAFETY: `half`'s types are `repr(transparent)` 16-bit IEEE and bfloat16 values.
#[cfg(feature = "half")]
unsafe impl Element<Half> for half::f16 {}
#[cfg(feature = "half")]
unsafe impl Element<Bf16> for half::bf16 {}

/// A device buffer a kernel reads (`const T*`).
pub trait DeviceIn<T> {
    /// Pushes the buffer's device pointer.
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>);
}

/// A device buffer a kernel may write (`T*`).
pub trait DeviceOut<T> {
    /// Pushes the buffer's device pointer.
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>);
}

impl<T, U: Element<T>> DeviceIn<T> for CudaSlice<U> {
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T, U: Element<T>> DeviceIn<T> for CudaView<'_, U> {
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T, U: Element<T>> DeviceOut<T> for CudaSlice<U> {
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T, U: Element<T>> DeviceOut<T> for CudaViewMut<'_, U> {
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

/// The function the GPU runs for variant `group` of a loaded module, with its name: what a
/// generated group launcher (`kernels::gemm::GemmVariant`) loads.
pub fn load_variant(
    loaded: &Loaded<Arc<CudaModule>>,
    group: &str,
) -> Result<(String, CudaFunction), Error> {
    let name = loaded.variant(group)?.to_owned();
    let function = loaded.module.load_function(&name).map_err(|e| {
        crate::cuda::driver_err("cuModuleGetFunction", loaded.report.ordinal, e, "")
    })?;
    Ok((name, function))
}
