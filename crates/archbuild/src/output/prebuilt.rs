//! Fat binaries made elsewhere flow into cargo builds: a CI matrix's (`ARCHBUILD_PREBUILT`,
//! `Build::prebuilt`) and a package's own, shipped inside it (`prebuilt` in
//! `[package.metadata.archbuild]`, `docs/publishing.md`).
//!
//! Either is taken only when its build record (`record.rs`) says it is what this build would
//! make — same targets, same settings, every input and probe unchanged, the file intact — and
//! the module is compiled otherwise, saying why. A CI file is compared with everything this
//! build sees, toolkit and host compiler included; a package's was made by its author's
//! toolkit, so it is compared on the package's own files and every setting but those two
//! (`keys::Facts::packaged`), which is what lets a dependent without a toolkit take it. A
//! prebuilt fat binary is therefore never silently stale. Every fat binary this build packs
//! gets its record written here too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use archbuild_arch::Target;

use crate::base::paths::write_if_changed;
use crate::base::store::Key;
use crate::cache::deps::{self, FileHashes, Inputs, Roots};
use crate::cache::record::{display, record_path, PackagedSettings, Record};
use crate::error::{Error, Result};
use crate::jobs::keys::{self, Facts};
use crate::jobs::JobRunner;
use crate::plan::Module;
use crate::prepare::{Prebuilt, Prepared, Take};
use crate::report::warning::Warning;
use crate::report::ModuleReport;

/// The settings text both kinds of record are compared on (the compression as the key has it).
pub(crate) fn compression_text(p: &Prepared) -> String {
    p.packing.asked_text()
}

/// Checks `<dir>/<module>.fatbin` against this build; its bytes and its record when it
/// matches, else why not.
fn check(
    source: &Prebuilt,
    module: &str,
    targets: &[String],
    settings: &str,
    p: &Prepared,
    roots: &Roots,
    hashes: &FileHashes,
) -> std::result::Result<(Vec<u8>, Record), String> {
    let fatbin = source.dir().join(format!("{module}.fatbin"));
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
    // A package's file vouches for the package's own files; what its author's compile read
    // elsewhere (the toolkit's and the system's headers) is the author's toolkit.
    let packaged = matches!(source, Prebuilt::Packaged(_));
    let checked = |path: &String| !packaged || path.starts_with("b:");
    match (source, &record.packaged) {
        (Prebuilt::Ci(_), _) => {
            if record.settings != settings {
                return Err("it was built with other flags (also those of \
                            NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS and the files they name), \
                            include dirs, defines, compression, compiler environment, toolkit \
                            or host compiler (docs/build.md, \"What the cache key holds\")"
                    .into());
            }
        }
        (Prebuilt::Packaged(_), None) => {
            return Err(
                "its record holds no package settings (an older archbuild wrote it); \
                        run `cargo archbuild package` again"
                    .into(),
            )
        }
        (Prebuilt::Packaged(_), Some(shipped)) => {
            let facts = Facts::packaged(&record.toolkit, p.toolkits.asked(), &p.settings, roots);
            // Packed as the package chose: taken when this build sets no other compression
            // and its fleet reads it (`prepare/packing.rs`).
            let packed = shipped
                .items
                .iter()
                .find(|(k, _)| k == "compression")
                .map(|(_, v)| v.clone())
                .filter(|v| p.packing.takes_shipped(v))
                .unwrap_or_else(|| compression_text(p));
            let (key, items) = keys::output_items(&p.settings, &facts, &packed);
            if key != shipped.settings {
                return Err(setting_differs(&shipped.items, &items));
            }
        }
    }
    for (p, h) in record.inputs.iter().filter(|(p, _)| checked(p)) {
        if !holds(roots, hashes, p, h) {
            return Err(format!("`{}` changed since it was built", display(p)));
        }
    }
    for (p, h) in record.probes.iter().filter(|(p, _)| checked(p)) {
        if !holds(roots, hashes, p, h) {
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
    // A record vouches for what it lists: the images must be those targets, no fewer.
    let held = image_targets(&bytes).map_err(|e| format!("it cannot be read: {e}"))?;
    if held != record.targets {
        return Err(format!(
            "its record lists {} but it holds {}",
            record.targets.join(" "),
            if held.is_empty() {
                "no image".to_owned()
            } else {
                held.join(" ")
            }
        ));
    }
    Ok((bytes, record))
}

/// The targets of a fat binary's images (`sm_86`, `compute_90`), sorted, as records list them.
fn image_targets(bytes: &[u8]) -> std::result::Result<Vec<String>, archbuild_fatbin::Error> {
    let mut targets: Vec<String> = archbuild_fatbin::read_any(bytes)?
        .iter()
        .filter_map(|i| match i.kind {
            archbuild_fatbin::EntryKind::Ptx => Some(Target::ptx(i.arch).to_string()),
            archbuild_fatbin::EntryKind::Elf => Some(Target::cubin(i.arch).to_string()),
            _ => None,
        })
        .collect();
    targets.sort();
    targets.dedup();
    Ok(targets)
}

/// Whether a portable path is still in the state a record lists, by the rule the cache's
/// manifests are checked with (`deps::holds`: a content hash, `-` for absent, `f` for a file
/// whose existence alone was looked at).
fn holds(roots: &Roots, hashes: &FileHashes, portable: &str, want: &str) -> bool {
    roots
        .local(portable)
        .is_some_and(|l| deps::holds(hashes, &l, want))
}

/// Names the first setting whose values differ between a package's record and this build.
fn setting_differs(shipped: &[(String, String)], now: &[(String, String)]) -> String {
    let mut fields: Vec<&str> = Vec::new();
    let mut seen = BTreeSet::new();
    for (f, _) in shipped.iter().chain(now) {
        if seen.insert(f.as_str()) {
            fields.push(f);
        }
    }
    let values = |items: &[(String, String)], field: &str| -> Vec<String> {
        items
            .iter()
            .filter(|(f, _)| f == field)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let shown = |v: &[String]| match v {
        [] => "none".to_owned(),
        _ => v
            .iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(" "),
    };
    for field in fields {
        let (a, b) = (values(shipped, field), values(now, field));
        if a != b {
            return format!(
                "its `{field}` setting differs: it was built with {}, this build has {}",
                shown(&a),
                shown(&b)
            );
        }
    }
    "its settings differ (docs/build.md, \"What the cache key holds\")".into()
}

/// What [`take_prebuilt`] took.
#[derive(Default)]
pub(crate) struct Taken {
    pub(crate) names: Vec<String>,
    pub(crate) modules: Vec<ModuleReport>,
    pub(crate) deps: Vec<PathBuf>,
    pub(crate) warnings: Vec<Warning>,
    /// Package files that matched and are compiled again to be compared (`ARCHBUILD_VERIFY`):
    /// module, file, bytes.
    pub(crate) to_verify: Vec<(String, PathBuf, Vec<u8>)>,
    /// Why each module left to compile was not taken: module, file, reason.
    pub(crate) refused: Vec<(String, PathBuf, String)>,
    /// How many package files were compiled again and found equal.
    pub(crate) verified: usize,
    /// Per module of the build (by its index), whether it is still to be compiled.
    pub(crate) compile: Vec<bool>,
}

impl Taken {
    /// Nothing taken: every one of `modules` modules is compiled.
    pub(crate) fn none(modules: usize) -> Self {
        Self {
            compile: vec![true; modules],
            ..Self::default()
        }
    }
}

/// Takes every module whose fat binary in `source` matches this build (sources, flags,
/// targets), writing it as the module's output; the others stay to compile (`Taken::compile`),
/// each with a warning saying why its file was not used. As `p.take` says, a matching package
/// file sampled by `ARCHBUILD_VERIFY` stays to compile too (then compared), and under docs.rs
/// anything shipped is taken and an empty fat binary stands in for the rest.
pub(crate) fn take_prebuilt(
    p: &Prepared,
    source: &Prebuilt,
    out: &Path,
    settings_key: &str,
    roots: &Roots,
) -> Result<Taken> {
    let hashes = FileHashes::default();
    let mut taken = Taken::none(p.modules.len());
    let mut chosen = Vec::new();
    for (m, module) in p.modules.iter().enumerate() {
        let targets = module.archs.list.target_names();
        let fatbin = source.dir().join(format!("{}.fatbin", module.name));
        match check(
            source,
            &module.name,
            &targets,
            settings_key,
            p,
            roots,
            &hashes,
        ) {
            Ok((bytes, record)) => {
                let packaged = matches!(source, Prebuilt::Packaged(_));
                let sampled = packaged && p.verify.samples(&Key::of(&bytes));
                match (sampled, p.take()) {
                    (true, Take::Matching) => {
                        taken.to_verify.push((module.name.clone(), fatbin, bytes));
                    }
                    (true, Take::Unverified) => {
                        taken.warnings.push(Warning::PackagedUnverified {
                            module: module.name.clone(),
                            fatbin,
                        });
                        chosen.push((m, bytes, Some(record)));
                    }
                    _ => chosen.push((m, bytes, Some(record))),
                }
            }
            // docs.rs takes any shipped file it can read; one it cannot (damaged, or none) is
            // left for `left_over`, which says why.
            Err(why) if p.take() == Take::Docs => {
                let readable = |b: &Vec<u8>| archbuild_fatbin::read_any(b).is_ok();
                match std::fs::read(&fatbin).ok().filter(readable) {
                    Some(shipped) => {
                        taken.warnings.push(Warning::Docs {
                            module: module.name.clone(),
                            fatbin: Some(fatbin.clone()),
                            reason: Some(why),
                        });
                        let record = Record::read(&record_path(&fatbin)).ok();
                        chosen.push((m, shipped, record));
                    }
                    None if fatbin.exists() => {
                        taken.refused.push((module.name.clone(), fatbin, why));
                    }
                    None => {}
                }
            }
            Err(why) => {
                // In the author's own build this is a stale `prebuilt/`: say how to renew it.
                let renew = match source {
                    Prebuilt::Packaged(_) => {
                        " (the package's file is stale: `cargo archbuild package` renews it)"
                    }
                    Prebuilt::Ci(_) => "",
                };
                taken.warnings.push(Warning::PrebuiltRejected {
                    module: module.name.clone(),
                    fatbin: fatbin.clone(),
                    reason: format!("{why}{renew}"),
                });
                taken.refused.push((module.name.clone(), fatbin, why));
            }
        }
    }
    for (m, bytes, record) in chosen {
        let module = &p.modules[m];
        taken.compile[m] = false;
        let (report, inputs) = use_prebuilt(module, out, &bytes, record.as_ref(), roots)?;
        let fatbin = source.dir().join(format!("{}.fatbin", module.name));
        taken.deps.push(record_path(&fatbin));
        taken.deps.push(fatbin);
        taken.deps.extend(inputs);
        taken.names.push(module.name.clone());
        taken.modules.push(report);
    }
    Ok(taken)
}

/// What a build with a stand-in toolkit (which compiles nothing) does with the modules left
/// over: under docs.rs, an empty fat binary for each (with a warning); otherwise an error that
/// says why each was not taken (the caller then looks for a toolkit).
pub(crate) fn left_over(p: &Prepared, out: &Path, roots: &Roots, taken: &mut Taken) -> Result<()> {
    if !taken.compile.contains(&true) {
        return Ok(());
    }
    if p.take() != Take::Docs {
        return Err(refused(taken));
    }
    for (m, module) in p.modules.iter().enumerate() {
        if !std::mem::replace(&mut taken.compile[m], false) {
            continue;
        }
        let (mut report, _) = use_prebuilt(module, out, &[], None, roots)?;
        // The items a real build's module has: its targets, and its kernels from the sources.
        report.targets = module.archs.list.target_names();
        report.kernels = scanned_kernels(&p.settings.base_dir, module);
        report.declared = scanned_declarations(&p.settings.base_dir, module);
        report.target_kernels = report
            .targets
            .iter()
            .map(|t| (t.clone(), report.kernels.clone()))
            .collect();
        let reason = taken
            .refused
            .iter()
            .find(|(name, _, _)| *name == module.name)
            .map(|(_, f, why)| format!("{} is not usable: {why}", f.display()));
        taken.warnings.push(Warning::Docs {
            module: module.name.clone(),
            fatbin: None,
            reason,
        });
        taken.modules.push(report);
    }
    Ok(())
}

/// The kernels a module's sources declare (`kernel_scan.rs`), sorted as a real build lists them.
fn scanned_kernels(base: &Path, module: &Module) -> Vec<String> {
    let mut kernels: Vec<String> = module
        .members
        .iter()
        .filter_map(|s| std::fs::read_to_string(base.join(s)).ok())
        .flat_map(|text| crate::output::kernel_scan::kernels(&text))
        .collect();
    kernels.sort();
    kernels.dedup();
    kernels
}

/// The `extern "C"` kernels' declarations read from the sources (`kernel_scan::declarations`):
/// the typed launchers a real build generates for them.
fn scanned_declarations(base: &Path, module: &Module) -> Vec<crate::report::signature::Declared> {
    let mut out: Vec<crate::report::signature::Declared> = Vec::new();
    for text in module
        .members
        .iter()
        .filter_map(|s| std::fs::read_to_string(base.join(s)).ok())
    {
        for d in crate::output::kernel_scan::declarations(&text) {
            if !out.iter().any(|o| o.entry == d.entry) {
                out.push(d);
            }
        }
    }
    out.sort_by(|a, b| a.entry.cmp(&b.entry));
    out
}

/// The error of a build that cannot compile what its package's files do not cover.
fn refused(taken: &Taken) -> Error {
    let reasons: Vec<String> = match taken.refused.as_slice() {
        [] => taken
            .to_verify
            .iter()
            .map(|(m, f, _)| {
                format!(
                    "`{m}`: {} is to be compiled again to verify it (ARCHBUILD_VERIFY)",
                    f.display()
                )
            })
            .collect(),
        refused => refused
            .iter()
            .map(|(m, f, why)| format!("`{m}`: {} is not used: {why}", f.display()))
            .collect(),
    };
    Error::PackagedRefused {
        reasons: reasons.join("; "),
    }
}

/// Compares what this build compiled with the package files it was asked to verify; the
/// modules whose bytes agree.
pub(crate) fn verify_packaged(
    to_verify: &[(String, PathBuf, Vec<u8>)],
    made: &[ModuleReport],
) -> Result<Vec<String>> {
    let mut agreed = Vec::new();
    for (module, fatbin, shipped) in to_verify {
        let Some(m) = made.iter().find(|m| m.name == *module) else {
            continue;
        };
        let bytes = std::fs::read(&m.fatbin).map_err(|e| Error::io("read", &m.fatbin, e))?;
        if bytes != *shipped {
            return Err(Error::PackagedDiffers {
                module: module.clone(),
                fatbin: fatbin.clone(),
            });
        }
        agreed.push(module.clone());
    }
    Ok(agreed)
}

/// Writes a prebuilt fat binary and the record it was checked against into the output
/// directory; returns its report and the inputs to watch.
fn use_prebuilt(
    module: &Module,
    out: &Path,
    bytes: &[u8],
    record: Option<&Record>,
    roots: &Roots,
) -> Result<(ModuleReport, Vec<PathBuf>)> {
    let path = out.join(format!("{}.fatbin", module.name));
    write_if_changed(&path, bytes).map_err(|e| Error::io("write", &path, e))?;
    match record {
        Some(record) => record
            .write(&record_path(&path))
            .map_err(|e| Error::io("write", record_path(&path), e))?,
        // No record describes these bytes: none may seem to.
        None => match std::fs::remove_file(record_path(&path)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io("remove", record_path(&path), e))
            }
            _ => {}
        },
    }
    // docs.rs's stand-in for a module nothing was shipped for: no image.
    let images = match bytes {
        [] => Vec::new(),
        _ => archbuild_fatbin::read_any(bytes).map_err(|e| Error::Pack {
            module: module.name.clone(),
            source: Box::new(e),
        })?,
    };
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
        .iter()
        .flat_map(|r| &r.inputs)
        .filter(|(p, _)| p.starts_with("b:"))
        .filter_map(|(p, _)| roots.local(p))
        .collect();
    let report = ModuleReport {
        name: module.name.clone(),
        sources: module.members.clone(),
        fatbin: path,
        bytes: bytes.len(),
        archs: module.archs.list.to_string(),
        targets: record.map(|r| r.targets.clone()).unwrap_or_default(),
        kernels,
        target_kernels,
        declared: record.map(|r| r.declared.clone()).unwrap_or_default(),
        coverage_gaps: Vec::new(),
        made_by: record
            .map(|r| {
                r.targets
                    .iter()
                    .map(|t| (t.clone(), r.toolkit_of(t).to_owned()))
                    .collect()
            })
            .unwrap_or_default(),
    };
    Ok((report, inputs))
}

/// What a module's cicc jobs read and probed (`JobOut::read`, their union): what its record
/// lists, and so what a build that takes the file checks; `None` when one of them could not
/// say (an input was unreadable). The toolkit's own files are the toolkit's settings' business.
pub(crate) fn module_read<'a>(
    reads: impl IntoIterator<Item = Option<&'a Inputs>>,
) -> Option<Inputs> {
    let reads: Option<Vec<&Inputs>> = reads.into_iter().collect();
    Some(Inputs::union(reads?))
}

/// The inputs a record lists: the module's reads without the toolkit's files.
fn recorded(read: &Inputs) -> Inputs {
    let outside = |(p, _): &(String, String)| !p.starts_with("t:");
    Inputs {
        deps: read.deps.iter().filter(|d| outside(d)).cloned().collect(),
        probes: read.probes.iter().filter(|d| outside(d)).cloned().collect(),
        ..read.clone()
    }
}

/// Writes the record beside a fat binary this build packed, unless an identical one is there.
pub(crate) fn write_record(
    compiler: &JobRunner<'_>,
    (module, read): (&Module, Option<&Inputs>),
    report: &ModuleReport,
    settings_key: &str,
    p: &Prepared,
    variants: Vec<(String, Vec<String>)>,
) -> Result<()> {
    // What its compiles read and probed, as their cache entries have it; with an input that
    // was unreadable nothing can vouch for the file, and no record is written.
    let Some(inputs) = read.map(recorded) else {
        return Ok(());
    };
    let path = record_path(&report.fatbin);
    let facts = Facts::packaged(
        p.toolkits.main().release(),
        p.toolkits.asked(),
        &p.settings,
        &compiler.roots,
    );
    let (packaged_key, items) = keys::output_items(&p.settings, &facts, &compression_text(p));
    let packaged = PackagedSettings {
        settings: packaged_key,
        items,
        toolkit_query: p.toolkits.main().query_text(),
    };
    let record = |fatbin_blake3: String| {
        let mut r = Record::new(
            &module.name,
            &report.targets,
            &report.made_by,
            settings_key.to_owned(),
            p.toolkits.main().release(),
            inputs.clone(),
            fatbin_blake3,
        );
        r.variants = variants.clone();
        r.declared = report.declared.clone();
        r.packaged = Some(packaged.clone());
        r
    };
    // Unchanged, the fat binary is not read again: the same inputs made it, at the same size.
    if let Ok(old) = Record::read(&path) {
        let same_size = crate::base::paths::file_stamp(&report.fatbin)
            .is_some_and(|(len, _)| len == report.bytes as u64);
        if same_size && record(old.fatbin_blake3.clone()) == old {
            return Ok(());
        }
    }
    let bytes = std::fs::read(&report.fatbin).map_err(|e| Error::io("read", &report.fatbin, e))?;
    let record = record(Key::of(&bytes).hex());
    record
        .write(&path)
        .map_err(|e| Error::io("write", &path, e))
}
