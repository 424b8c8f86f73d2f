//! Issue 35's acceptance on a real GPU: for each fat binary given, the verdict archbuild's
//! preflight gives (what `doctor` prints), the image its loader loads with no nvJitLink, and
//! the image the driver picks from the whole fat binary, compared.
//!
//! ```text
//! driver_floors FATBIN...
//! ```
//! Each kernel image's `which` kernel writes `__CUDA_ARCH__ * 100 + __CUDACC_VER_MINOR__`, so a
//! run tells both the arch and the toolkit release that made the image (`9000` is a compute_90
//! or sm_90 image of a CUDA 13.0 compiler, `9005` of 13.5). One PASS/FAIL line per file; exit 1
//! if any failed. Without a driver or GPU it prints "no GPU: skipped" and exits 0.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use archbuild_runtime::driver::{CudaDriver, Driver};
use archbuild_runtime::{FatBinary, Loader};
use cudarc::driver::{CudaContext, CudaModule};

mod support;

/// Runs `which` and returns what it wrote.
fn run_which(ctx: &Arc<CudaContext>, m: &Arc<CudaModule>) -> Result<u32, String> {
    support::run_u32(ctx, m, "which")
}

/// `arch 90, CUDA 13.0` for 9000.
fn shown(v: u32) -> String {
    format!("arch {}, CUDA 13.{}", v / 100, v % 100)
}

fn check(loader: &Loader<CudaDriver>, path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let fb = FatBinary::from_vec(bytes).map_err(|e| e.to_string())?;
    let images: Vec<String> = fb.images().iter().map(|i| i.target.to_string()).collect();
    let verdict = loader.preflight(&fb).map_err(|e| e.to_string())?;
    let gpu = verdict.gpus.first().ok_or("no GPU in the preflight")?;
    let planned = gpu
        .outcome
        .as_ref()
        .map(|p| (p.image_target.to_string(), p.route.to_string()));
    let ctx = loader.driver().context(0).map_err(|e| e.to_string())?;
    let driver = match loader.driver().load(0, Cow::Borrowed(fb.bytes())) {
        Ok(m) => Ok(run_which(&ctx, &m)?),
        Err(e) => Err(e.driver_code().unwrap_or(0)),
    };
    let ours = loader.load(&fb, 0);
    let head = format!("images [{}]", images.join(" "));
    match (planned, driver, ours) {
        (Ok((target, route)), Ok(d), Ok(l)) => {
            let ran = run_which(&ctx, &l.module)?;
            let loaded = l.report.image_target.to_string();
            if target != loaded || ran != d {
                return Err(format!(
                    "{head}: doctor planned {target} ({route}), the loader loaded {loaded} \
                     ({}) which ran as {}, the driver's pick ran as {}",
                    l.report.path,
                    shown(ran),
                    shown(d)
                ));
            }
            Ok(format!(
                "{head}: doctor plans {target} ({route}); the loader loaded it ({}), the driver \
                 picked the same image: both ran as {}",
                l.report.path,
                shown(d)
            ))
        }
        (Err(e), Err(code), Err(_)) => Ok(format!(
            "{head}: doctor refuses ({e}); the driver refuses too (error {code})"
        )),
        (planned, driver, ours) => Err(format!(
            "{head}: doctor {planned:?}, driver {driver:?}, loader {:?}",
            ours.map(|l| l.report.image_target.to_string())
        )),
    }
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: driver_floors FATBIN...");
        std::process::exit(2);
    }
    let Some(driver) = support::driver_or_skip() else {
        return;
    };
    println!(
        "driver CUDA {}; GPU 0: {:?}",
        driver.version().map(|v| v.to_string()).unwrap_or_default(),
        driver.device(0).map(|d| (d.name, d.cc.to_string()))
    );
    // No nvJitLink: what loads must load through the driver alone.
    let loader = Loader::with_driver(driver).nvjitlink(None);
    let mut failed = 0;
    for f in &files {
        match check(&loader, Path::new(f)) {
            Ok(detail) => println!("PASS {f}: {detail}"),
            Err(e) => {
                failed += 1;
                println!("FAIL {f}: {e}");
            }
        }
    }
    println!("{} passed, {failed} failed", files.len() - failed);
    std::process::exit(i32::from(failed > 0));
}
