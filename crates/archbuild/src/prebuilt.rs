//! Prebuilt fat binaries: what a CI matrix compiled flows back into cargo builds.
//!
//! A build given `ARCHBUILD_PREBUILT=<dir>` (or `Build::prebuilt`) takes `<dir>/<module>.fatbin`
//! only when its build record (`record.rs`) matches this build exactly — same targets, same
//! settings, every input and probe unchanged, the file intact — and compiles the module
//! otherwise, saying why. A prebuilt fat binary is therefore never silently stale. Every fat
//! binary this build packs gets its record written here too.

use std::path::{Path, PathBuf};

use archbuild_arch::Target;

use crate::deps::{self, FileHashes, Roots};
use crate::error::{Error, Result};
use crate::jobs::JobRunner;
use crate::paths::write_if_changed;
use crate::plan::{self, Module};
use crate::prepare::Prepared;
use crate::record::{display, record_path, Record};
use crate::report::ModuleReport;

/// Checks `<dir>/<module>.fatbin` against this build; its bytes and its record when it
/// matches, else why not.
fn check(
    dir: &Path,
    module: &str,
    targets: &[String],
    settings: &str,
    roots: &Roots,
    hashes: &FileHashes,
) -> Result<(Vec<u8>, Record), String> {
    let fatbin = dir.join(format!("{module}.fatbin"));
    let record = Record::read(&record_path(&fatbin)).map_err(|e| e.to_string())?;
    let mut want = targets.to_vec();
    want.sort();
    if record.targets != want {
        return Err(format!(
            "it holds {} but this build needs {}",
            record.targets.join(" "),
            want.join(" ")
        ));
    }
    if record.settings != settings {
        return Err(
            "it was built with other flags (also those of NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS \
             and the files they name), include dirs, defines, compression, compiler \
             environment, toolkit or host compiler (docs/build.md, \"What the cache key holds\")"
                .into(),
        );
    }
    for (p, h) in &record.inputs {
        let now = roots
            .local(p)
            .and_then(|l| hashes.hash(&l))
            .map_or_else(|| "-".to_owned(), |k| k.hex());
        if now != *h {
            return Err(format!("`{}` changed since it was built", display(p)));
        }
    }
    for (p, h) in &record.probes {
        let now = roots
            .local(p)
            .and_then(|l| hashes.hash(&l))
            .map_or_else(|| "-".to_owned(), |k| k.hex());
        if now != *h {
            return Err(format!(
                "`{}` {} since it was built",
                display(p),
                if h == "-" {
                    "appeared"
                } else {
                    "changed or vanished"
                }
            ));
        }
    }
    let bytes = std::fs::read(&fatbin).map_err(|e| format!("cannot read it: {e}"))?;
    if record.describes(&fatbin, &bytes).is_err() {
        return Err("the file does not match its record (damaged or replaced)".into());
    }
    Ok((bytes, record))
}

/// What [`take_prebuilt`] took from `ARCHBUILD_PREBUILT`.
#[derive(Default)]
pub(crate) struct Taken {
    pub(crate) names: Vec<String>,
    pub(crate) modules: Vec<ModuleReport>,
    pub(crate) deps: Vec<PathBuf>,
    pub(crate) warnings: Vec<crate::Warning>,
}

/// Takes every module whose prebuilt fat binary in `dir` matches this build (sources, flags,
/// targets) out of `p.modules`, writing it as the module's output; the others stay to compile,
/// each with a warning saying why its prebuilt one was not used.
pub(crate) fn take_prebuilt(
    p: &mut Prepared,
    dir: &Path,
    out: &Path,
    settings_key: &str,
    roots: &Roots,
) -> Result<Taken> {
    let hashes = FileHashes::default();
    let mut taken = Taken::default();
    let mut rest = Vec::new();
    for module in std::mem::take(&mut p.modules) {
        let targets = module.archs.list.target_names();
        match check(dir, &module.name, &targets, settings_key, roots, &hashes) {
            Ok((bytes, record)) => {
                let (report, inputs) = use_prebuilt(&module, out, &bytes, &record, roots)?;
                taken.deps.extend(inputs);
                taken.names.push(module.name.clone());
                taken.modules.push(report);
            }
            Err(why) => {
                taken.warnings.push(crate::Warning::PrebuiltRejected {
                    module: module.name.clone(),
                    fatbin: dir.join(format!("{}.fatbin", module.name)),
                    reason: why.to_string(),
                });
                rest.push(module);
            }
        }
    }
    p.modules = rest;
    Ok(taken)
}

/// Writes a prebuilt fat binary and the record it was checked against into the output
/// directory; returns its report and the inputs to watch.
fn use_prebuilt(
    module: &Module,
    out: &Path,
    bytes: &[u8],
    record: &Record,
    roots: &Roots,
) -> Result<(ModuleReport, Vec<PathBuf>)> {
    let path = out.join(format!("{}.fatbin", module.name));
    write_if_changed(&path, bytes).map_err(|e| Error::io("write", &path, e))?;
    record
        .write(&record_path(&path))
        .map_err(|e| Error::io("write", record_path(&path), e))?;
    let images = archbuild_fatbin::read_any(bytes).map_err(|e| Error::Pack {
        module: module.name.clone(),
        source: Box::new(e),
    })?;
    let target_kernels: Vec<(String, Vec<String>)> = images
        .iter()
        .filter_map(|i| {
            let t = match i.kind {
                archbuild_fatbin::EntryKind::Ptx => Target::ptx(i.arch),
                archbuild_fatbin::EntryKind::Elf => Target::cubin(i.arch),
                _ => return None,
            };
            let mut k = i.kernels.clone();
            k.sort();
            Some((t.to_string(), k))
        })
        .collect();
    let mut kernels: Vec<String> = images.iter().flat_map(|i| i.kernels.clone()).collect();
    kernels.sort();
    kernels.dedup();
    let inputs = record
        .inputs
        .iter()
        .filter(|(p, _)| p.starts_with("b:"))
        .filter_map(|(p, _)| roots.local(p))
        .collect();
    let report = ModuleReport {
        name: module.name.clone(),
        sources: module.members.clone(),
        fatbin: path,
        bytes: bytes.len(),
        archs: module.archs.list.to_string(),
        targets: record.targets.clone(),
        kernels,
        target_kernels,
        coverage_gaps: Vec::new(),
    };
    Ok((report, inputs))
}

/// Writes the record beside a fat binary this build packed, unless an identical one is there.
pub(crate) fn write_record(
    compiler: &JobRunner<'_>,
    module: &Module,
    report: &ModuleReport,
    module_deps: &[PathBuf],
    settings_key: &str,
    p: &Prepared,
    variants: Vec<(String, Vec<String>)>,
) -> Result<()> {
    let Some(inputs) = deps::inputs(
        &compiler.roots,
        module_deps,
        &p.settings.probe_dirs,
        &compiler.hashes,
        &plan::arch_list_macro(module),
    ) else {
        return Ok(());
    };
    let path = record_path(&report.fatbin);
    if let Ok(old) = Record::read(&path) {
        let mut targets = report.targets.clone();
        targets.sort();
        let mut deps = inputs.deps.clone();
        deps.sort();
        deps.dedup();
        if old.module == module.name
            && old.settings == settings_key
            && old.targets == targets
            && old.inputs == deps
            && old.variants == variants
            && crate::paths::file_stamp(&report.fatbin)
                .is_some_and(|(len, _)| len == report.bytes as u64)
        {
            return Ok(());
        }
    }
    let bytes = std::fs::read(&report.fatbin).map_err(|e| Error::io("read", &report.fatbin, e))?;
    let mut record = Record::new(
        &module.name,
        &report.targets,
        settings_key.to_owned(),
        p.toolkit.release(),
        inputs,
        &bytes,
    );
    record.variants = variants;
    record
        .write(&path)
        .map_err(|e| Error::io("write", &path, e))
}
