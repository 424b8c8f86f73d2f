//! The simulated driver behaves as the real one is documented and observed to behave
//! (fatbin-format.md §8, cuda-compatibility.md): error codes for wrong cubins and too-new PTX,
//! the driver's own pick from a whole fat binary, JIT output and counters.

use std::borrow::Cow;

use archbuild_arch::CudaVersion;
use archbuild_runtime::driver::{cu, Driver};
use archbuild_runtime::sim::SimDriver;

use crate::common::{cubin, fatbin_bytes, ptx};

fn h100() -> SimDriver {
    SimDriver::new(CudaVersion::new(13, 0))
        .with_gpu(9, 0)
        .with_gpu(8, 6)
}

fn code(d: &SimDriver, ordinal: usize, image: Vec<u8>) -> u32 {
    match d.load(ordinal, Cow::Owned(image)) {
        Ok(_) => 0,
        Err(e) => e
            .driver_code()
            .unwrap_or_else(|| panic!("not a driver error: {e}")),
    }
}

#[test]
fn cubins_load_only_where_they_run() {
    let d = h100();
    assert_eq!(code(&d, 0, cubin("90")), 0);
    assert_eq!(code(&d, 0, cubin("90a")), 0);
    assert_eq!(
        code(&d, 0, cubin("86")),
        cu::NO_BINARY_FOR_GPU,
        "sm_86 on 9.0"
    );
    assert_eq!(
        code(&d, 0, cubin("75")),
        cu::NO_BINARY_FOR_GPU,
        "sm_75 on 9.0"
    );
    assert_eq!(code(&d, 0, cubin("100")), cu::NO_BINARY_FOR_GPU);
    assert_eq!(code(&d, 1, cubin("80")), 0, "sm_80 on 8.6");
    assert_eq!(
        code(&d, 1, cubin("89")),
        cu::NO_BINARY_FOR_GPU,
        "sm_89 on 8.6"
    );
    assert_eq!(code(&d, 1, cubin("90a")), cu::NO_BINARY_FOR_GPU);
    assert_eq!(d.jit_count(), 0);
}

#[test]
fn ptx_checks_isa_and_target() {
    let d = h100();
    assert_eq!(code(&d, 0, ptx("80", "9.0")), 0);
    assert_eq!(d.jit_count(), 1, "loading PTX is a JIT");
    assert_eq!(
        code(&d, 0, ptx("80", "9.5")),
        cu::UNSUPPORTED_PTX_VERSION,
        "ISA 9.5 on a 13.0 driver"
    );
    assert_eq!(
        code(&d, 0, ptx("100", "9.0")),
        cu::INVALID_PTX,
        "PTX for 10.0 on 9.0"
    );
    assert_eq!(
        code(&d, 1, ptx("90a", "9.0")),
        cu::INVALID_PTX,
        "90a PTX on 8.6"
    );
    assert_eq!(d.jit_count(), 1, "failed checks do not count as JIT");
    let newer = SimDriver::new(CudaVersion::new(13, 5)).with_gpu(9, 0);
    assert_eq!(
        code(&newer, 0, ptx("80", "9.5")),
        0,
        "a 13.5 driver JITs ISA 9.5"
    );
    let err = d.load(0, ptx("80", "9.5").into()).unwrap_err().to_string();
    assert!(
        err.contains("CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222)")
            && err.contains("update the NVIDIA driver"),
        "{err}"
    );
}

#[test]
fn whole_fatbin_pick_follows_the_driver() {
    let d = h100();
    let pick = |ordinal: usize, specs: &[&str]| match d.load(ordinal, fatbin_bytes(specs).into()) {
        Ok(m) => m.source.to_string(),
        Err(e) => format!("error {}", e.driver_code().unwrap()),
    };
    assert_eq!(
        pick(0, &["sm_80", "sm_90", "compute_80"]),
        "sm_90",
        "a compatible cubin wins"
    );
    assert_eq!(
        pick(0, &["compute_80", "compute_86"]),
        "compute_86",
        "highest PTX <= device"
    );
    assert_eq!(pick(0, &["compute_100", "compute_86"]), "compute_86");
    assert_eq!(pick(0, &["sm_80"]), "error 209");
    assert_eq!(
        pick(0, &["compute_80@9.0", "compute_86@9.5"]),
        "error 222",
        "no fallback to older PTX"
    );
    assert_eq!(pick(1, &["sm_75", "sm_80", "sm_86", "compute_86"]), "sm_86");
    assert_eq!(pick(1, &["sm_75", "sm_89", "compute_80"]), "compute_80");
    // Only the first container counts.
    let mut two = fatbin_bytes(&["sm_80"]);
    two.extend(fatbin_bytes(&["sm_90"]));
    assert_eq!(d.load(0, two.into()).unwrap_err().driver_code(), Some(209));
}

#[test]
fn jit_output_loads_where_it_was_compiled_for() {
    let d = h100();
    let out = d.jit(0, &ptx("80", "9.0")).unwrap();
    assert!(out.info_log.contains("sm_90"), "{}", out.info_log);
    assert_eq!(d.jit_count(), 1);
    let m = d.load(0, out.cubin.clone().into()).unwrap();
    assert_eq!(m.machine_arch.sm_name(), "90");
    assert_eq!(m.kernels, ["scale"]);
    assert_eq!(
        code(&d, 1, out.cubin),
        cu::NO_BINARY_FOR_GPU,
        "an sm_90 cubin does not run on 8.6"
    );
    assert_eq!(d.load_count(), 1);
    let err = d.jit(0, &ptx("80", "9.5")).unwrap_err();
    assert_eq!(err.driver_code(), Some(222));
    assert!(
        err.to_string().contains("Unsupported .version 9.5"),
        "the JIT log is in the error: {err}"
    );
}

#[test]
fn garbage_and_bad_ordinals() {
    let d = h100();
    assert_eq!(
        code(&d, 0, b"not an image".to_vec()),
        cu::INVALID_IMAGE,
        "no PTX header: the real 13.0 driver answers 200"
    );
    assert_eq!(
        code(&d, 0, b".version 9.0\n.target bogus\n".to_vec()),
        cu::INVALID_PTX,
        "PTX the JIT cannot compile: 218"
    );
    assert!(matches!(
        d.load(7, cubin("90").into()),
        Err(archbuild_runtime::Error::NoSuchDevice {
            ordinal: 7,
            count: 2
        })
    ));
    assert_eq!(d.device(1).unwrap().cc.to_string(), "8.6");
}
