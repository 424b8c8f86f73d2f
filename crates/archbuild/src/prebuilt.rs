//! Prebuilt fat binaries: what a CI matrix compiled flows back into cargo builds.
//!
//! Every fat binary archbuild writes gets a *record* beside it, `<module>.fatbin.archbuild.json`:
//! its targets, a key of the settings that shape it (flags, include dirs, defines,
//! compression), every input the compiles read with its content hash (paths portable, as in
//! the build cache's manifests, so a record made on a CI runner checks out on a laptop), the
//! probes (`__has_include` names, shadowing candidates) with their state, and the fat binary's
//! own hash. `cargo archbuild merge` merges the records of CI shards.
//!
//! A build given `ARCHBUILD_PREBUILT=<dir>` (or `Build::prebuilt`) takes `<dir>/<module>.fatbin`
//! only when its record matches this build exactly — same targets, same settings, every input
//! and probe unchanged, the file intact — and compiles the module otherwise, saying why. A
//! prebuilt fat binary is therefore never silently stale.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use archbuild_arch::Target;

use crate::deps::{self, FileHashes, Inputs, Roots};
use crate::error::{Error, Result};
use crate::jobs::JobRunner;
use crate::paths::write_if_changed;
use crate::plan::{self, Module};
use crate::prepare::{Prepared, PREBUILT_VAR};
use crate::report::ModuleReport;
use crate::store::Key;

/// The record's format version.
const FORMAT: u32 = 1;

/// What a fat binary was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub format: u32,
    pub module: String,
    /// nvcc names (`sm_86`, `compute_89`), sorted.
    pub targets: Vec<String>,
    /// Hash of the settings that shape the output (`settings_key`).
    pub settings: String,
    /// The toolkit release that built it (informational).
    pub toolkit: String,
    /// `(portable path, content hash)` of every input, sorted.
    pub inputs: Vec<(String, String)>,
    /// `(portable path, hash or "-" for absent)`, sorted.
    pub probes: Vec<(String, String)>,
    /// BLAKE3 of the fat binary (hex).
    pub fatbin_blake3: String,
    /// The module's kernel variant groups (`cargo archbuild doctor`/`inspect` show them).
    #[serde(default)]
    pub variants: Vec<(String, Vec<String>)>,
}

/// The record's path for a fat binary.
pub fn record_path(fatbin: &Path) -> PathBuf {
    let mut p = fatbin.as_os_str().to_owned();
    p.push(".archbuild.json");
    PathBuf::from(p)
}

impl Record {
    pub(crate) fn new(
        module: &str,
        targets: &[String],
        settings: String,
        toolkit: &str,
        inputs: Inputs,
        fatbin: &[u8],
    ) -> Self {
        let mut targets = targets.to_vec();
        targets.sort();
        let mut r = Self {
            format: FORMAT,
            module: module.to_owned(),
            targets,
            settings,
            toolkit: toolkit.to_owned(),
            inputs: inputs.deps,
            probes: inputs.probes,
            fatbin_blake3: Key::of(fatbin).hex(),
            variants: Vec::new(),
        };
        r.inputs.sort();
        r.inputs.dedup();
        r.probes.sort();
        r.probes.dedup();
        r
    }

    pub fn read(path: &Path) -> Result<Self, String> {
        let text =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let r: Record = serde_json::from_slice(&text)
            .map_err(|e| format!("{} is not an archbuild record: {e}", path.display()))?;
        if r.format != FORMAT {
            return Err(format!(
                "{} has record format {} (this archbuild reads {FORMAT})",
                path.display(),
                r.format
            ));
        }
        Ok(r)
    }

    /// Whether `fatbin` is the very file this record was written for (its hash); else why not.
    pub fn describes(&self, fatbin: &[u8]) -> Result<(), String> {
        if Key::of(fatbin).hex() == self.fatbin_blake3 {
            return Ok(());
        }
        Err("its BLAKE3 hash is not the one the record holds".into())
    }

    pub(crate) fn write(&self, path: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        crate::paths::write_if_changed(path, &json).map(|_| ())
    }
}

/// Merges the records of CI shards of one module: same settings and inputs (else the shards
/// built different sources and the merge would be a lie); targets united; the merged fat
/// binary's hash; the module named `module` (the merged file's stem: shards of `cargo archbuild
/// compile` are named after their own outputs).
pub fn merge_records(
    records: &[Record],
    merged_fatbin: &[u8],
    module: &str,
) -> Result<Record, String> {
    let first = records.first().ok_or("no records to merge")?;
    let mut targets = Vec::new();
    let mut probes: BTreeMap<String, String> = BTreeMap::new();
    let mut inputs: BTreeMap<String, String> = BTreeMap::new();
    for r in records {
        if r.settings != first.settings {
            return Err(format!(
                "the shards were built with different flags, include dirs, defines or \
                 compression (`{}` and `{}`); build every shard with the same settings",
                first.module, r.module
            ));
        }
        for (p, h) in r.inputs.iter().chain(&r.probes) {
            let map = if r.inputs.iter().any(|(q, _)| q == p) {
                &mut inputs
            } else {
                &mut probes
            };
            if let Some(old) = map.insert(p.clone(), h.clone()) {
                if old != *h {
                    return Err(format!(
                        "the shards saw different contents of `{p}`; build every shard from the \
                         same commit"
                    ));
                }
            }
        }
        targets.extend(r.targets.iter().cloned());
    }
    targets.sort();
    targets.dedup();
    Ok(Record {
        format: FORMAT,
        module: module.to_owned(),
        targets,
        settings: first.settings.clone(),
        toolkit: first.toolkit.clone(),
        inputs: inputs.into_iter().collect(),
        probes: probes.into_iter().collect(),
        fatbin_blake3: Key::of(merged_fatbin).hex(),
        variants: first.variants.clone(),
    })
}

/// Checks `<dir>/<module>.fatbin` against this build; its bytes when it matches, else why not.
pub(crate) fn check(
    dir: &Path,
    module: &str,
    targets: &[String],
    settings: &str,
    roots: &Roots,
    hashes: &FileHashes,
) -> Result<Vec<u8>, String> {
    let fatbin = dir.join(format!("{module}.fatbin"));
    let record = Record::read(&record_path(&fatbin))?;
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
    if record.describes(&bytes).is_err() {
        return Err("the file does not match its record (damaged or replaced)".into());
    }
    Ok(bytes)
}

fn display(portable: &str) -> &str {
    portable.split_once(':').map_or(portable, |(_, p)| p)
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
            Ok(bytes) => {
                let (report, inputs) = use_prebuilt(&module, out, &bytes, dir, roots)?;
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

/// Writes a prebuilt fat binary (and its record) into the output directory; returns its report
/// and the inputs to watch.
fn use_prebuilt(
    module: &Module,
    out: &Path,
    bytes: &[u8],
    dir: &Path,
    roots: &Roots,
) -> Result<(ModuleReport, Vec<PathBuf>)> {
    let path = out.join(format!("{}.fatbin", module.name));
    write_if_changed(&path, bytes).map_err(|e| Error::io("write", &path, e))?;
    let from = record_path(&dir.join(format!("{}.fatbin", module.name)));
    let record = Record::read(&from).map_err(|detail| Error::Config {
        what: "prebuilt record",
        origin: PREBUILT_VAR.to_owned(),
        value: from.display().to_string(),
        hint: detail,
    })?;
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
