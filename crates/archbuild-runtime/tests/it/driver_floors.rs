//! Driver floors on the simulated driver (issue 35): fleets of one 7.5 GPU on R525, R535, R550,
//! R570 and R580 drivers (CUDA 12.0, 12.2, 12.4, 12.8, 13.0) against fat binaries made by CUDA
//! 13.0 and 13.5 (the fixtures' cubins, ELF ABI version 8; PTX ISA 9.0 and 9.5) and by CUDA 12.4
//! (a fixture cubin set to ELF ABI version 7 and 12.x's `e_flags` layout; PTX ISA 8.4), stored,
//! LZ4 and zstd. Per cell: the loader's preflight (handed over as one image, and as a whole fat
//! binary), the loader's load, and the simulated driver's own pick from the whole fat binary.
//! The expected grids are written out from the documented floors (`docs/runtime.md`).

use archbuild_arch::{Arch, CudaVersion, Handoff};
use archbuild_fatbin::{CompressionChoice, FatbinWriter};
use archbuild_runtime::driver::Driver;
use archbuild_runtime::sim::SimDriver;
use archbuild_runtime::{Error, FatBinary, Loader, PlannedRoute};

use crate::common;

const DRIVERS: [CudaVersion; 5] = [
    CudaVersion::new(12, 0),
    CudaVersion::new(12, 2),
    CudaVersion::new(12, 4),
    CudaVersion::new(12, 8),
    CudaVersion::new(13, 0),
];

/// The fixture sm_75 cubin as CUDA 12 writes it: ELF ABI version 7, SM in the low byte.
fn cuda12_cubin() -> Vec<u8> {
    let mut c = common::cubin("75");
    assert_eq!(c[8], 8, "the fixtures are CUDA 13 cubins");
    c[8] = 7;
    c[48..52].copy_from_slice(&75u32.to_le_bytes());
    c
}

/// A fat binary of `made_by` (`13.0`, `13.5` or `12.4`): the sm_75 cubin and/or compute_75 PTX
/// of that release's ISA, all entries compressed by `choice`.
fn fat(made_by: &str, cubin: bool, ptx: bool, choice: CompressionChoice) -> Vec<u8> {
    let (bytes, isa) = match made_by {
        "13.0" => (common::cubin("75"), "9.0"),
        "13.5" => (common::cubin("75"), "9.5"),
        "12.4" => (cuda12_cubin(), "8.4"),
        other => panic!("no fixture for {other}"),
    };
    let mut w = FatbinWriter::new();
    w.compression(choice);
    if cubin {
        w.add_cubin(&bytes, Arch::plain(7, 5)).unwrap();
    }
    if ptx {
        w.add_ptx(&common::ptx("75", isa), Arch::plain(7, 5))
            .unwrap();
    }
    w.write().unwrap()
}

/// Preflight's verdict: `cubin`, `jit`, `nvjitlink`, `too-new` (PTX only nvJitLink could compile,
/// none at hand) or `no` (no image loads).
fn planned(loader: &Loader<&SimDriver>, fb: &FatBinary) -> &'static str {
    let pf = loader.preflight(fb).unwrap();
    match &pf.gpus[0].outcome {
        Ok(p) => match p.route {
            PlannedRoute::Cubin => "cubin",
            PlannedRoute::DriverJit => "jit",
            PlannedRoute::NvJitLink(_) => "nvjitlink",
            PlannedRoute::LinkLto(_) => "lto",
        },
        Err(Error::PtxTooNew(_)) => "too-new",
        Err(Error::NoImage { .. }) => "no",
        Err(e) => panic!("unexpected {e}"),
    }
}

/// The simulated driver's answer to the whole fat binary: `ok` or the `CUresult` code.
fn driver_pick(driver: &SimDriver, bytes: &[u8]) -> String {
    match driver.load(0, bytes.into()) {
        Ok(_) => "ok".into(),
        Err(e) => e
            .driver_code()
            .map_or_else(|| e.to_string(), |c| c.to_string()),
    }
}

struct Row {
    name: &'static str,
    bytes: Vec<u8>,
    made_by: CudaVersion,
    loader: [&'static str; 5],
    whole: [&'static str; 5],
    driver: [&'static str; 5],
}

#[test]
fn doctor_preflight_and_the_driver_follow_the_documented_floors() {
    let stored = CompressionChoice::stored();
    let lz4 = CompressionChoice::all_lz4();
    let zstd = CompressionChoice::all_zstd();
    let v = CudaVersion::new;
    let mut rows = Vec::new();
    for (label, c) in [("stored", stored), ("lz4", lz4), ("zstd", zstd)] {
        for made in ["13.0", "13.5"] {
            rows.push(Row {
                name: if made == "13.0" {
                    "13.0 sm_75+compute_75"
                } else {
                    "13.5 sm_75+compute_75"
                },
                bytes: fat(made, true, true, c),
                made_by: v(13, if made == "13.0" { 0 } else { 5 }),
                loader: ["no", "no", "no", "no", "cubin"],
                whole: ["no", "no", "no", "no", "cubin"],
                driver: ["200", "200", "200", "200", "ok"],
            });
        }
        let zstd_row = label == "zstd";
        rows.push(Row {
            name: "12.4 sm_75+compute_75",
            bytes: fat("12.4", true, true, c),
            made_by: v(12, 4),
            loader: ["cubin"; 5],
            whole: if zstd_row {
                ["no", "no", "cubin", "cubin", "cubin"]
            } else {
                ["cubin"; 5]
            },
            driver: if zstd_row {
                ["200", "200", "ok", "ok", "ok"]
            } else {
                ["ok"; 5]
            },
        });
        // PTX alone: ISA 9.x only on the CUDA 13 driver (9.5 by nvJitLink alone); ISA 8.4 by the
        // driver from 12.4, by nvJitLink 12 below.
        rows.push(Row {
            name: "13.0 compute_75",
            bytes: fat("13.0", false, true, c),
            made_by: v(13, 0),
            loader: ["no", "no", "no", "no", "jit"],
            whole: ["no", "no", "no", "no", "jit"],
            // A zstd entry fails to decode below 12.4 before its ISA is read.
            driver: if zstd_row {
                ["200", "200", "222", "222", "ok"]
            } else {
                ["222", "222", "222", "222", "ok"]
            },
        });
        rows.push(Row {
            name: "13.5 compute_75",
            bytes: fat("13.5", false, true, c),
            made_by: v(13, 5),
            loader: ["no", "no", "no", "no", "too-new"],
            whole: ["no", "no", "no", "no", "too-new"],
            driver: if zstd_row {
                ["200", "200", "222", "222", "222"]
            } else {
                ["222"; 5]
            },
        });
        rows.push(Row {
            name: "12.4 compute_75",
            bytes: fat("12.4", false, true, c),
            made_by: v(12, 4),
            loader: ["too-new", "too-new", "jit", "jit", "jit"],
            whole: if zstd_row {
                ["no", "no", "jit", "jit", "jit"]
            } else {
                ["too-new", "too-new", "jit", "jit", "jit"]
            },
            driver: if zstd_row {
                ["200", "200", "ok", "ok", "ok"]
            } else {
                ["222", "222", "ok", "ok", "ok"]
            },
        });
        for r in rows.iter_mut().rev().take(5) {
            r.name = Box::leak(format!("{} {label}", r.name).into_boxed_str());
        }
    }
    let mut failures = Vec::new();
    for r in &rows {
        let (mut loader_got, mut whole_got, mut driver_got) = (vec![], vec![], vec![]);
        for d in DRIVERS {
            let driver = SimDriver::new(d).with_gpu(7, 5);
            let loader = Loader::with_driver(&driver).nvjitlink(None);
            let fb = FatBinary::from_vec(r.bytes.clone())
                .unwrap()
                .made_by(r.made_by);
            let verdict = planned(&loader, &fb);
            // The load does what preflight said, and the driver ends up with that image.
            let load = loader.load(&fb, 0);
            assert_eq!(
                load.is_ok(),
                matches!(verdict, "cubin" | "jit"),
                "{} on {d}: preflight {verdict}, load {:?}",
                r.name,
                load.err()
            );
            loader_got.push(verdict);
            whole_got.push(planned(
                &loader,
                &fb.clone().handed_over(Handoff::FatBinary),
            ));
            driver_got.push(driver_pick(&driver, &r.bytes));
        }
        for (what, got, want) in [
            ("loader", loader_got, r.loader.to_vec()),
            ("whole fat binary", whole_got, r.whole.to_vec()),
        ] {
            if got != want {
                failures.push(format!(
                    "{} ({what}): expected {want:?}, got {got:?}",
                    r.name
                ));
            }
        }
        if driver_got != r.driver {
            failures.push(format!(
                "{} (simulated driver): expected {:?}, got {driver_got:?}",
                r.name, r.driver
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_refusal_names_the_floor_and_the_fix() {
    let driver = SimDriver::new(CudaVersion::new(12, 4)).with_named_gpu(
        "NVIDIA GeForce RTX 2080",
        archbuild_arch::ComputeCapability::new(7, 5),
    );
    let loader = Loader::with_driver(&driver).nvjitlink(None);
    let fb = FatBinary::from_vec(fat("13.5", true, false, CompressionChoice::stored())).unwrap();
    let err = loader.load(&fb, 0).unwrap_err().to_string();
    insta::assert_snapshot!(err);
    let pf = loader.preflight(&fb).unwrap();
    let explanation = pf.gpus[0].selection.to_string();
    assert!(
        explanation.contains(
            "[0] sm_75: rejected: cubin made by CUDA 13 needs a driver for CUDA 13.0 (R580) or \
             newer; this GPU's driver is CUDA 12.4: update the driver, or build with a CUDA 12 \
             toolkit, or ship PTX it can JIT (ISA 8.4 or older)"
        ),
        "{explanation}"
    );
    // The driver itself refuses the cubin as "device kernel image is invalid".
    let refused = driver.load(0, common::cubin("75").into()).unwrap_err();
    assert_eq!(refused.driver_code(), Some(200), "{refused}");
    assert!(
        refused.to_string().contains("CUDA 13.0 (R580)"),
        "{refused}"
    );
}
