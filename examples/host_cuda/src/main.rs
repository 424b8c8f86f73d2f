//! host_cuda: host CUDA C++ (built into a static library by `archbuild::Library`) called from
//! Rust; the CUDA runtime picks the embedded image for GPU 0 and the result is checked on
//! the CPU. `cargo archbuild doctor target/debug/host_cuda` lists the images the executable
//! embeds and which one each GPU will load.
//!
//! Without a GPU it prints `no GPU: <reason>` and exits 0, unless `--require-gpu` is given.

use std::ffi::{c_char, c_int, CStr};
use std::process::ExitCode;

extern "C" {
    fn host_cuda_device(
        name: *mut c_char,
        name_len: usize,
        major: *mut c_int,
        minor: *mut c_int,
        err: *mut c_char,
        len: usize,
    ) -> c_int;
    fn host_cuda_vector_add(
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        n: u32,
        cuda_arch: *mut u32,
        err: *mut c_char,
        len: usize,
    ) -> c_int;
}

/// cudaErrorInsufficientDriver, cudaErrorNoDevice, cudaErrorInitializationError: no usable GPU.
const NO_GPU_CODES: [c_int; 3] = [35, 100, 3];

fn text(buf: &[c_char]) -> String {
    // SAFETY: the C side always NUL-terminates (snprintf) within the buffer.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn main() -> ExitCode {
    let require_gpu = std::env::args().any(|a| a == "--require-gpu");
    println!(
        "host_cuda: host code built by archbuild::Library for `{}` ({})",
        env!("HOST_CUDA_ARCHS"),
        env!("HOST_CUDA_TARGETS")
    );
    let mut err = [0 as c_char; 512];
    let mut name = [0 as c_char; 256];
    let (mut major, mut minor) = (0, 0);
    // SAFETY: every pointer is valid for the sizes passed.
    let rc = unsafe {
        host_cuda_device(
            name.as_mut_ptr(),
            name.len(),
            &mut major,
            &mut minor,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if rc != 0 {
        let reason = text(&err);
        if NO_GPU_CODES.contains(&rc) && !require_gpu {
            println!("no GPU: {reason}");
            return ExitCode::SUCCESS;
        }
        if NO_GPU_CODES.contains(&rc) {
            eprintln!("host_cuda: error: no GPU: {reason} (--require-gpu was given)");
        } else {
            eprintln!("host_cuda: error: {reason}");
        }
        return ExitCode::FAILURE;
    }
    let n: u32 = 1 << 20;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (3 * i) as f32 + 0.25).collect();
    let mut c = vec![0f32; n as usize];
    let mut cuda_arch = 0u32;
    // SAFETY: a, b and c hold n floats; cuda_arch and err are valid out-pointers.
    let rc = unsafe {
        host_cuda_vector_add(
            a.as_ptr(),
            b.as_ptr(),
            c.as_mut_ptr(),
            n,
            &mut cuda_arch,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if rc != 0 {
        eprintln!(
            "host_cuda: error on GPU 0 {} ({major}.{minor}): {} — run `cargo archbuild doctor {}` to see \
             which embedded image this GPU lacks",
            text(&name),
            text(&err),
            std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "<this executable>".into())
        );
        return ExitCode::FAILURE;
    }
    if let Some(i) = (0..n as usize).find(|&i| c[i] != a[i] + b[i]) {
        eprintln!(
            "host_cuda: error: wrong result: c[{i}] = {} (expected {})",
            c[i],
            a[i] + b[i]
        );
        return ExitCode::FAILURE;
    }
    println!(
        "host_cuda: GPU 0 {} ({major}.{minor}) ran code compiled for __CUDA_ARCH__ {cuda_arch}; \
         {n} elements checked on the CPU: OK",
        text(&name)
    );
    ExitCode::SUCCESS
}
