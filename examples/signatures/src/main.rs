//! signatures: launches each of the 30 kernels of `kernels/signatures.cu` through the typed
//! launcher archbuild generated for it (the struct-by-value kernel by name) and checks every
//! result on the CPU.
//!
//! ```text
//! cargo run -p signatures [-- --require-gpu]
//! ```
//!
//! Without a GPU it prints `no GPU: <reason>` and exits 0; with `--require-gpu` that is an
//! error (exit 1).

use std::ffi::c_char;
use std::process::ExitCode;
use std::sync::Arc;

use archbuild_runtime::driver::CudaDriver;
use archbuild_runtime::launch::{Bf16, Half};
use archbuild_runtime::{EmbeddedFatbin, Loader};
use cudarc::driver::{CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use exit::Failure;
use half::{bf16, f16};
use signatures::kernels::signatures as k;

#[path = "../../common/exit.rs"]
mod exit;

static FATBIN: EmbeddedFatbin = EmbeddedFatbin::new(k::FATBIN);

/// Elements per buffer: more than one block of 256 threads, not a multiple of it.
const N: usize = 1000;

fn main() -> ExitCode {
    exit::report("signatures", run())
}

/// The launch shape every kernel here takes: one thread per element.
fn cfg() -> LaunchConfig {
    LaunchConfig::for_num_elems(N as u32)
}

/// Compares a GPU result with the CPU's, naming the kernel and the first difference.
fn check<T: PartialEq + std::fmt::Debug>(
    kernel: &str,
    got: &[T],
    want: &[T],
    passed: &mut Vec<String>,
) -> Result<(), Failure> {
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        return Err(Failure::Other(format!(
            "{kernel}: element {i} is {:?}, the CPU says {:?}",
            got[i], want[i]
        )));
    }
    passed.push(kernel.to_owned());
    Ok(())
}

/// The `ADD` kernels: y = x + v for one integer type.
macro_rules! add_case {
    ($stream:expr, $module:expr, $passed:expr, $launcher:ident, $t:ty, $n:expr) => {{
        let x: Vec<$t> = (0..N).map(|i| (i % 100) as $t).collect();
        let v: $t = 7 as $t;
        let xd = $stream.clone_htod(&x)?;
        let mut yd = $stream.alloc_zeros::<$t>(N)?;
        let kernel = k::$launcher::load($module)?;
        // SAFETY: x and y hold N elements; the kernel indexes below n = N.
        unsafe { kernel.launch($stream, cfg(), &xd, v, &mut yd, $n) }?;
        let want: Vec<$t> = x.iter().map(|&e| e.wrapping_add(v)).collect();
        check(
            k::$launcher::NAME,
            &$stream.clone_dtoh(&yd)?,
            &want,
            $passed,
        )?;
    }};
}

fn run() -> Result<(), Failure> {
    let loader = Loader::from_env(CudaDriver::new()?)?;
    let ctx = loader.driver().context(0)?;
    let loaded = loader.load_in(FATBIN.get()?, &ctx)?;
    print!("{}", loaded.report);
    let s = &ctx.default_stream();
    let m = &loaded.module;
    let mut passed = Vec::new();
    let p = &mut passed;
    let xs: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();

    {
        let xd = s.clone_htod(&xs)?;
        let mut yd = s.clone_htod(&vec![1.0f32; N])?;
        let kernel = k::AxpyF32::load(m)?;
        // SAFETY: N elements each; n = N.
        unsafe { kernel.launch(s, cfg(), 2.0, &xd, &mut yd, N as u32) }?;
        let want: Vec<f32> = xs.iter().map(|x| 2.0 * x + 1.0).collect();
        check("axpy_f32", &s.clone_dtoh(&yd)?, &want, p)?;
    }
    {
        let x: Vec<f64> = (0..N).map(|i| i as f64 * 0.25).collect();
        let xd = s.clone_htod(&x)?;
        let mut yd = s.clone_htod(&vec![3.0f64; N])?;
        let kernel = k::AxpyF64::load(m)?;
        // SAFETY: N elements each; n = N.
        unsafe { kernel.launch(s, cfg(), -4.0, &xd, &mut yd, N as u64) }?;
        let want: Vec<f64> = x.iter().map(|x| -4.0 * x + 3.0).collect();
        check("axpy_f64", &s.clone_dtoh(&yd)?, &want, p)?;
    }
    add_case!(s, m, p, AddI8, i8, N as i32);
    add_case!(s, m, p, AddU8, u8, N as i32);
    add_case!(s, m, p, AddChar, c_char, N as i32);
    add_case!(s, m, p, AddI16, i16, N as i32);
    add_case!(s, m, p, AddU16, u16, N as i32);
    add_case!(s, m, p, AddI32, i32, N as i32);
    add_case!(s, m, p, AddU32, u32, N as u32);
    add_case!(s, m, p, AddI64, i64, N as i64);
    add_case!(s, m, p, AddU64, u64, N as u64);
    add_case!(s, m, p, AddLong, i64, N as i64);
    add_case!(s, m, p, AddSize, u64, N as u64);
    bools(s, m, p, &xs)?;
    halves(s, m, p, &xs)?;
    buffers(s, m, p, &xs)?;
    cpp_names(s, m, p, &xs)?;
    by_name(s, m, p)?;
    println!(
        "signatures: {} kernels launched on GPU 0, every result checked on the CPU: OK ({})",
        passed.len(),
        passed.join(" ")
    );
    Ok(())
}

type Module = Arc<cudarc::driver::CudaModule>;
type S = Arc<CudaStream>;

fn bools(s: &S, m: &Module, p: &mut Vec<String>, xs: &[f32]) -> Result<(), Failure> {
    let flags: Vec<bool> = (0..N).map(|i| i % 3 == 0).collect();
    let fd = s.clone_htod(&flags)?;
    let ad = s.clone_htod(xs)?;
    let mut yd = s.alloc_zeros::<f32>(N)?;
    let kernel = k::SelectBool::load(m)?;
    // SAFETY: N elements each; n = N.
    unsafe { kernel.launch(s, cfg(), &fd, true, &ad, &mut yd, N as i32) }?;
    let want: Vec<f32> = (0..N)
        .map(|i| if !flags[i] { xs[i] } else { 0.0 })
        .collect();
    check("select_bool", &s.clone_dtoh(&yd)?, &want, p)?;
    let mut count = s.alloc_zeros::<u32>(1)?;
    let kernel = k::CountTrue::load(m)?;
    // SAFETY: flags holds N elements, count one; n = N.
    unsafe { kernel.launch(s, cfg(), &fd, &mut count, N as i32) }?;
    let want = flags.iter().filter(|&&f| f).count() as u32;
    check("count_true", &s.clone_dtoh(&count)?, &[want], p)
}

fn halves(s: &S, m: &Module, p: &mut Vec<String>, xs: &[f32]) -> Result<(), Failure> {
    // Small integers and halves: exact in f16 and bf16, so the CPU's rounding is the GPU's.
    let hx: Vec<f16> = (0..N)
        .map(|i| f16::from_f32((i % 64) as f32 * 0.5))
        .collect();
    let hy: Vec<f16> = vec![f16::from_f32(1.0); N];
    let xd = s.clone_htod(&hx)?;
    let mut yd = s.clone_htod(&hy)?;
    let kernel = k::HalfAxpy::load(m)?;
    // SAFETY: N elements each; n = N.
    unsafe {
        kernel.launch(
            s,
            cfg(),
            Half::from(f16::from_f32(2.0)),
            &xd,
            &mut yd,
            N as i32,
        )
    }?;
    let want: Vec<f16> = hx
        .iter()
        .map(|x| f16::from_f32(2.0 * x.to_f32() + 1.0))
        .collect();
    check("half_axpy", &s.clone_dtoh(&yd)?, &want, p)?;

    let mut fd = s.alloc_zeros::<f32>(N)?;
    let kernel = k::HalfToFloat::load(m)?;
    // SAFETY: N elements each; n = N.
    unsafe { kernel.launch(s, cfg(), &xd, &mut fd, N as i32) }?;
    let want: Vec<f32> = hx.iter().map(|x| x.to_f32()).collect();
    check("half_to_float", &s.clone_dtoh(&fd)?, &want, p)?;

    let bx: Vec<bf16> = (0..N).map(|i| bf16::from_f32((i % 32) as f32)).collect();
    let bxd = s.clone_htod(&bx)?;
    let mut byd = s.alloc_zeros::<bf16>(N)?;
    let kernel = k::Bf16Scale::load(m)?;
    // SAFETY: N elements each; n = N.
    unsafe {
        kernel.launch(
            s,
            cfg(),
            Bf16::from(bf16::from_f32(-3.0)),
            &bxd,
            &mut byd,
            N as i32,
        )
    }?;
    let want: Vec<bf16> = bx
        .iter()
        .map(|x| bf16::from_f32(-3.0 * x.to_f32()))
        .collect();
    check("bf16_scale", &s.clone_dtoh(&byd)?, &want, p)?;

    let xd = s.clone_htod(xs)?;
    let kernel = k::FloatToBf16::load(m)?;
    // SAFETY: N elements each; n = N.
    unsafe { kernel.launch(s, cfg(), &xd, &mut byd, N as i32) }?;
    let want: Vec<bf16> = xs.iter().map(|&x| bf16::from_f32(x)).collect();
    check("float_to_bf16", &s.clone_dtoh(&byd)?, &want, p)
}

fn buffers(s: &S, m: &Module, p: &mut Vec<String>, xs: &[f32]) -> Result<(), Failure> {
    let mut yd = s.clone_htod(xs)?;
    let kernel = k::NegateInPlace::load(m)?;
    // SAFETY: N elements; n = N.
    unsafe { kernel.launch(s, cfg(), &mut yd, N as i32) }?;
    let want: Vec<f32> = xs.iter().map(|x| -x).collect();
    check("negate_in_place", &s.clone_dtoh(&yd)?, &want, p)?;

    let mut ud = s.alloc_zeros::<u16>(N)?;
    let kernel = k::FillU16::load(m)?;
    // SAFETY: N elements; n = N.
    unsafe { kernel.launch(s, cfg(), &mut ud, 0xBEEF, N as u64) }?;
    check("fill_u16", &s.clone_dtoh(&ud)?, &vec![0xBEEFu16; N], p)?;

    let a: Vec<i8> = (0..N).map(|i| (i % 50) as i8 - 25).collect();
    let b: Vec<i16> = (0..N).map(|i| (i * 3) as i16).collect();
    let c: Vec<i32> = (0..N).map(|i| (i * i) as i32).collect();
    let d: Vec<i64> = (0..N).map(|i| 1_000_000_000 * i as i64).collect();
    let (ad, bd, cd, dd) = (
        s.clone_htod(&a)?,
        s.clone_htod(&b)?,
        s.clone_htod(&c)?,
        s.clone_htod(&d)?,
    );
    let mut out = s.alloc_zeros::<f64>(N)?;
    let kernel = k::Mixed::load(m)?;
    // SAFETY: every buffer holds N elements; n = N.
    unsafe {
        kernel.launch(
            s,
            cfg(),
            &ad,
            &bd,
            &cd,
            &dd,
            &mut out,
            0.5,
            6,
            0.25,
            N as i32,
        )
    }?;
    let want: Vec<f64> = (0..N)
        .map(|i| a[i] as f64 + b[i] as f64 + c[i] as f64 + d[i] as f64 + 0.5 * 6.0 + 0.25)
        .collect();
    check("mixed", &s.clone_dtoh(&out)?, &want, p)?;

    // A view of part of a buffer passes where the kernel reads, a mutable view where it writes.
    let src = s.clone_htod(xs)?;
    let mut dst = s.alloc_zeros::<f32>(2 * N)?;
    let kernel = k::RestrictCopy::load(m)?;
    {
        let mut tail = dst.slice_mut(N..);
        // SAFETY: the view and the source hold N elements; n = N.
        unsafe { kernel.launch(s, cfg(), &src.slice(..), &mut tail, N as i32) }?;
    }
    let mut want = vec![0.0f32; N];
    want.extend_from_slice(xs);
    check("restrict_copy", &s.clone_dtoh(&dst)?, &want, p)
}

fn cpp_names(s: &S, m: &Module, p: &mut Vec<String>, xs: &[f32]) -> Result<(), Failure> {
    let mut fd = s.alloc_zeros::<f32>(N)?;
    let kernel = k::FillFloat::load(m)?;
    // SAFETY: N elements; n = N.
    unsafe { kernel.launch(s, cfg(), &mut fd, 1.5, N as u64) }?;
    check("fill<float>", &s.clone_dtoh(&fd)?, &vec![1.5f32; N], p)?;
    let mut id = s.alloc_zeros::<i32>(N)?;
    let kernel = k::FillInt::load(m)?;
    // SAFETY: N elements; n = N.
    unsafe { kernel.launch(s, cfg(), &mut id, -9, N as u64) }?;
    check("fill<int>", &s.clone_dtoh(&id)?, &vec![-9i32; N], p)?;

    let ad = s.clone_htod(xs)?;
    let bd = s.clone_htod(&vec![0.25f32; N])?;
    let mut cd = s.alloc_zeros::<f32>(N)?;
    let kernel = k::CppSub::load(m)?;
    // SAFETY: N elements each; n = N.
    unsafe { kernel.launch(s, cfg(), &ad, &bd, &mut cd, N as i32) }?;
    let want: Vec<f32> = xs.iter().map(|x| x - 0.25).collect();
    check("cpp_sub", &s.clone_dtoh(&cd)?, &want, p)?;

    let a: Vec<f64> = (0..N).map(|i| i as f64).collect();
    let (ad, bd) = (s.clone_htod(&a)?, s.clone_htod(&vec![-2.0f64; N])?);
    let mut cd = s.alloc_zeros::<f64>(N)?;
    let kernel = k::Mul::load(m)?;
    // SAFETY: N elements each; n = N.
    unsafe { kernel.launch(s, cfg(), &ad, &bd, &mut cd, N as i32) }?;
    let want: Vec<f64> = a.iter().map(|x| -2.0 * x).collect();
    check("ops::mul", &s.clone_dtoh(&cd)?, &want, p)?;

    // The two overloads of `twice`: one launcher each, told apart by their parameter types.
    let mut fd = s.clone_htod(xs)?;
    let kernel = k::Twice::load(m)?;
    // SAFETY: N elements; n = N.
    unsafe { kernel.launch(s, cfg(), &mut fd, N as i32) }?;
    let want: Vec<f32> = xs.iter().map(|x| 2.0 * x).collect();
    check("twice(float*)", &s.clone_dtoh(&fd)?, &want, p)?;
    let ints: Vec<i32> = (0..N as i32).collect();
    let mut id = s.clone_htod(&ints)?;
    let kernel = k::Twice2::load(m)?;
    // SAFETY: N elements; n = N.
    unsafe { kernel.launch(s, cfg(), &mut id, N as i32) }?;
    let want: Vec<i32> = ints.iter().map(|x| 2 * x).collect();
    check("twice(int*)", &s.clone_dtoh(&id)?, &want, p)
}

/// `struct Pair { int a; float b; }`, as the kernel lays it out.
#[repr(C)]
#[derive(Clone, Copy)]
struct Pair {
    a: i32,
    b: f32,
}
// SAFETY: `repr(C)` plain data, laid out as the C struct.
unsafe impl DeviceRepr for Pair {}

/// The struct-by-value kernel has no typed launcher: launched by name, as before.
fn by_name(s: &S, m: &Module, p: &mut Vec<String>) -> Result<(), Failure> {
    let f = m.load_function(k::PAIR_SUM)?;
    let pair = Pair { a: 40, b: 2.5 };
    let mut y = s.alloc_zeros::<f32>(1)?;
    let mut launch = s.launch_builder(&f);
    launch.arg(&pair).arg(&mut y);
    // SAFETY: the kernel takes (Pair, float*) and writes y[0] only.
    unsafe { launch.launch(LaunchConfig::for_num_elems(1)) }?;
    check("pair_sum", &s.clone_dtoh(&y)?, &[42.5f32], p)
}
