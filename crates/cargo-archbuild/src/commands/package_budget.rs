//! The package's budget, checked before anything compiles where the size can be estimated:
//! from the files an earlier `package` wrote into the same directory, packed with the same
//! compression, scaled by the cubins each module will hold against those it held. A fat
//! binary's size is mostly its cubins, and a cubin's size mostly its kernels, the same for
//! every arch within some tens of percent; a first `package`, a module without an earlier
//! file, or another compression gives no estimate, and the size is checked after the compile
//! as before.

use std::path::Path;

use archbuild::record::{record_path, Record};
use archbuild::{Build, JobPhase};

use crate::error::CliError;
use crate::shell::human_bytes;

/// How far over the budget an estimate must be to stop the command: estimates err, and a
/// package that might fit is compiled and measured.
const MARGIN: f64 = 1.25;

/// The estimate, when every module the build makes has an earlier file packed as this build
/// will pack: `(bytes, modules)`.
pub(crate) fn estimate(build: &mut Build, dir: &Path) -> Option<(u64, usize)> {
    let plan = build.try_plan_to_build(crate::building::BUILD_NAME).ok()?;
    let mut modules: Vec<&str> = plan.jobs.iter().map(|j| j.module.as_str()).collect();
    modules.dedup();
    let mut total = 0.0;
    for module in &modules {
        let fatbin = dir.join(format!("{module}.fatbin"));
        let record = Record::read(&record_path(&fatbin)).ok()?;
        let packed = record
            .packaged
            .as_ref()?
            .items
            .iter()
            .any(|(k, v)| k == "compression" && *v == plan.compression);
        let bytes = std::fs::metadata(&fatbin).ok()?.len();
        if !packed || bytes == 0 {
            return None;
        }
        let cubins = |n: usize| n.max(1) as f64;
        let before = record
            .targets
            .iter()
            .filter(|t| t.starts_with("sm_"))
            .count();
        let after = plan
            .jobs
            .iter()
            .filter(|j| j.module == *module && j.phase == JobPhase::Ptxas)
            .count();
        total += bytes as f64 * cubins(after) / cubins(before);
    }
    Some((total as u64, modules.len()))
}

/// The error when the estimate is over the budget by more than the margin.
pub(crate) fn check(
    label: &str,
    (bytes, modules): (u64, usize),
    budget: u64,
) -> Result<(), CliError> {
    if (bytes as f64) <= budget as f64 * MARGIN {
        return Ok(());
    }
    Err(CliError::Cargo {
        message: format!(
            "the fat binaries of `{label}` would take about {} (estimated before compiling, \
             from the {modules} file(s) the last `package` wrote and the cubins this arch list \
             adds), over the package's budget of {}",
            human_bytes(bytes),
            human_bytes(budget)
        ),
        help: "narrow the arch list (`archs`), choose `compression = \"size\"` (the default \
               when none is set), or raise `prebuilt-budget` in [package.metadata.archbuild] \
               (crates.io refuses packages over 10 MiB); remove the directory's fat binaries to \
               compile without an estimate"
            .into(),
    })
}
