//! Packing one module's outputs into its fat binary with `archbuild-fatbin`.
//!
//! A *pack stamp* in the cache remembers, for the whole request — the module, the output path,
//! the compression, every target it asks for and which job output each is packed from (their
//! cache keys) — which file was written (length and mtime), the targets read back from the
//! written bytes and its kernel names. When the file on disk still matches and holds exactly
//! the requested targets, nothing is read or rewritten — so an unchanged rebuild reads no image,
//! verifies nothing large, and compresses nothing. What the report says about the file (its
//! targets, kernels) comes from what was written, never from the request alone.

use std::path::{Path, PathBuf};

use archbuild_arch::{Target, TargetKind};
use archbuild_fatbin::{CompressionChoice, FatbinWriter};
use serde::{Deserialize, Serialize};

use crate::base::paths::{file_stamp, write_if_changed};
use crate::base::store::{KeyBuilder, Ns, Store};
use crate::error::{Error, Result};
use crate::jobs::JobOut;
use crate::plan::{Job, Module, Phase};
use crate::prepare::Prepared;
use crate::report::ModuleReport;

#[derive(Serialize, Deserialize)]
struct Stamp {
    len: u64,
    mtime_ns: u128,
    /// The targets the written file holds, read back from its bytes.
    targets: Vec<String>,
    kernels: Vec<String>,
    target_kernels: Vec<(String, Vec<String>)>,
    /// Each kernel's declared signature (`report/signature.rs`), checked against every image.
    declared: Vec<crate::report::signature::Declared>,
}

/// What one module's packing works from: its jobs with their outputs, the targets they make,
/// and the stamp key naming exactly those outputs (`None` when one has no key or there is no
/// store: nothing is remembered then).
struct Inputs<'a> {
    mine: Vec<(&'a Job, &'a JobOut)>,
    path: PathBuf,
    deps: Vec<PathBuf>,
    targets: Vec<Target>,
    stamp_key: Option<crate::base::store::Key>,
}

/// Packs module `m`. Returns its report and dependencies, or `None` when a cached output it
/// needs has vanished or failed verification (the caller rebuilds).
pub(crate) fn pack(
    p: &Prepared,
    m: usize,
    (jobs, done): (&[Job], &[&JobOut]),
    out: &Path,
    store: Option<&Store>,
) -> Result<Option<(ModuleReport, Vec<PathBuf>)>> {
    let (module, verify, compression) = (&p.modules[m], p.verify, p.packing.written);
    let inputs = gather(module, m, jobs, done, compression, out, store);
    let report = |st: Stamp| ModuleReport {
        name: module.name.clone(),
        sources: module.members.clone(),
        fatbin: inputs.path.clone(),
        bytes: st.len as usize,
        archs: module.archs.list.to_string(),
        targets: st.targets,
        kernels: st.kernels,
        target_kernels: st.target_kernels,
        declared: st.declared,
        coverage_gaps: Vec::new(),
        // The caller knows the toolkit (`run.rs`).
        made_by: Vec::new(),
    };
    if let Some(st) = still_written(&inputs, store) {
        let sampled = inputs.stamp_key.is_some_and(|k| verify.samples(&k));
        if !sampled {
            return Ok(Some((report(st), inputs.deps)));
        }
        // Verified: the file the stamp vouches for must be what packing makes now.
        let Some((bytes, _)) = assemble(module, &inputs, compression, store)? else {
            return Ok(None);
        };
        if std::fs::read(&inputs.path).ok().as_deref() != Some(bytes.as_slice()) {
            return Err(Error::VerifyMismatch {
                module: module.name.clone(),
                job: format!("the fat binary {}", inputs.path.display()),
                detail: "the file the pack stamp found up to date is not what packing its \
                         job outputs makes now"
                    .into(),
                key_holds: format!(
                    "module={}; path={}; compression={compression:?}; targets={}",
                    module.name,
                    inputs.path.display(),
                    inputs
                        .targets
                        .iter()
                        .map(Target::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            });
        }
        return Ok(Some((report(st), inputs.deps)));
    }
    let Some(st) = write(module, &inputs, compression, store)? else {
        return Ok(None);
    };
    Ok(Some((report(st), inputs.deps)))
}

/// Module `m`'s jobs and outputs, the targets they make and the stamp key.
fn gather<'a>(
    module: &Module,
    m: usize,
    jobs: &'a [Job],
    done: &[&'a JobOut],
    compression: CompressionChoice,
    out: &Path,
    store: Option<&Store>,
) -> Inputs<'a> {
    let mine: Vec<(&Job, &JobOut)> = jobs
        .iter()
        .zip(done.iter().copied())
        .filter(|(j, _)| j.module == m)
        .collect();
    let path = out.join(format!("{}.fatbin", module.name));
    let mut deps = Vec::new();
    let mut targets: Vec<Target> = Vec::new();
    let mut stamp_key = KeyBuilder::new("pack");
    stamp_key
        .str("module", &module.name)
        .str("path", &path.to_string_lossy())
        .str("compression", &format!("{compression:?}"))
        // The same choice packs other bytes with libzstd and LZ4HC than with lz4_flex alone.
        .str("writers", archbuild_fatbin::writers().name())
        // The stamp keeps the kernels' declarations: a change in how they are read renews it.
        .str("declared", crate::report::signature::FORMAT);
    let mut all_keyed = true;
    for (job, d) in &mine {
        match job.phase {
            Phase::Cicc(_) => {
                deps.extend(d.deps.iter().cloned());
                targets.extend(job.targets.iter().filter(|t| t.kind == TargetKind::Ptx));
            }
            // A relocatable module's per-file jobs carry no target: their device link does.
            Phase::Lto(_) => {
                deps.extend(d.deps.iter().cloned());
                targets.extend(&job.targets);
            }
            Phase::Ptxas(_) | Phase::Link(_) => targets.extend(&job.targets),
        }
        match &d.key {
            Some(k) => {
                stamp_key.str("job", &job.label()).key("output", k);
                // A cicc job's PTX is packed only for the `compute_XY` targets it carries: the
                // same output packed or not is another file.
                for t in &job.targets {
                    stamp_key.str("packed-as", &t.to_string());
                }
            }
            None => all_keyed = false,
        }
    }
    targets.sort();
    for t in &targets {
        stamp_key.str("target", &t.to_string());
    }
    Inputs {
        mine,
        path,
        deps,
        targets,
        stamp_key: (all_keyed && store.is_some()).then(|| stamp_key.finish()),
    }
}

/// The stamp of these exact outputs, when the file it describes is still the one on disk.
fn still_written(inputs: &Inputs, store: Option<&Store>) -> Option<Stamp> {
    let (store, sk) = (store?, inputs.stamp_key.as_ref()?);
    let st: Stamp = serde_json::from_slice(&store.get_local(Ns::Pack.dir(), sk)?).ok()?;
    let requested: Vec<String> = inputs.targets.iter().map(Target::to_string).collect();
    (file_stamp(&inputs.path) == Some((st.len, st.mtime_ns))
        && st.targets == requested
        && !st.target_kernels.is_empty())
    .then_some(st)
}

/// The targets a fat binary's bytes hold, in the order of [`Target`]'s `Ord`.
pub(crate) fn written_targets(
    bytes: &[u8],
) -> std::result::Result<Vec<String>, archbuild_fatbin::Error> {
    let mut targets: Vec<Target> = archbuild_fatbin::read_any(bytes)?
        .iter()
        .map(|r| match r.kind {
            archbuild_fatbin::EntryKind::Ptx => Target::ptx(r.arch),
            archbuild_fatbin::EntryKind::LtoIr => Target::lto(r.arch),
            archbuild_fatbin::EntryKind::Elf => Target::cubin(r.arch),
        })
        .collect();
    targets.sort();
    targets.dedup();
    Ok(targets.iter().map(Target::to_string).collect())
}

/// Writes the fat binary (when its bytes changed) and stamps it. `None` when an image has
/// vanished or failed verification.
fn write(
    module: &Module,
    inputs: &Inputs,
    compression: CompressionChoice,
    store: Option<&Store>,
) -> Result<Option<Stamp>> {
    let Some((bytes, mut stamp)) = assemble(module, inputs, compression, store)? else {
        return Ok(None);
    };
    let path = &inputs.path;
    write_if_changed(path, &bytes).map_err(|e| Error::io("write", path, e))?;
    (stamp.len, stamp.mtime_ns) = file_stamp(path).unwrap_or((bytes.len() as u64, 0));
    remember(inputs, store, &stamp);
    Ok(Some(stamp))
}

/// Reads every image and packs the fat binary in memory, checked against the request; its
/// stamp without the file's length and time. `None` when an image has vanished or failed
/// verification.
fn assemble(
    module: &Module,
    inputs: &Inputs,
    compression: CompressionChoice,
    store: Option<&Store>,
) -> Result<Option<(Vec<u8>, Stamp)>> {
    let pack_err = |e: archbuild_fatbin::Error| Error::Pack {
        module: module.name.clone(),
        source: Box::new(e),
    };
    // Fetch every image first: each failed verification deletes its entry, so one rebuild
    // replaces all of them.
    let images: Vec<Option<&[u8]>> = inputs
        .mine
        .iter()
        .map(|(job, d)| match job.phase {
            Phase::Cicc(_) | Phase::Lto(_) => d.bytes(store, Ns::Ptx),
            Phase::Ptxas(_) => d.bytes(store, Ns::Cubin),
            Phase::Link(t) if t.kind == TargetKind::Ptx => d.bytes(store, Ns::Ptx),
            Phase::Link(_) => d.bytes(store, Ns::Cubin),
        })
        .collect();
    if images.iter().any(Option::is_none) {
        return Ok(None);
    }
    let mut writer = FatbinWriter::new();
    writer.compression(compression);
    let mut kernels = Vec::new();
    // The kernels of each arch's PTX: its PTX target and its cubin hold exactly these (ptxas
    // keeps every entry), so a kernel compiled out for one arch is missing from both.
    let mut by_arch: std::collections::BTreeMap<archbuild_arch::Arch, Vec<String>> =
        std::collections::BTreeMap::new();
    let mut params = Vec::new();
    let mut signatures = Vec::new();
    for ((job, d), image) in inputs.mine.iter().zip(images.into_iter().flatten()) {
        match job.phase {
            Phase::Cicc(arch) => {
                let mut entries = archbuild_fatbin::ptx::parse_ptx(image)
                    .map_err(pack_err)?
                    .entries;
                entries.sort();
                kernels.extend(entries.iter().cloned());
                let layouts =
                    archbuild_fatbin::ptx_params::entry_params(image).map_err(pack_err)?;
                let stub = d.host_side.as_ref().map_or(&[][..], |h| &h.stub[..]);
                let declared = crate::report::signature::from_stub(stub, &entries);
                signatures.push((arch, declared, layouts.clone()));
                // A relocatable module has one cicc job per file and arch: its kernels are
                // all of them.
                let of_arch = by_arch.entry(arch).or_default();
                of_arch.extend(entries);
                of_arch.sort();
                params.push((arch, layouts));
                for t in job.targets.iter().filter(|t| t.kind == TargetKind::Ptx) {
                    writer.add_ptx(image, t.arch).map_err(pack_err)?;
                }
            }
            Phase::Ptxas(arch) if !job.targets.is_empty() => {
                writer.add_cubin(image, arch).map_err(pack_err)?;
            }
            Phase::Lto(arch) if !job.targets.is_empty() => {
                writer.add_ltoir(image, arch).map_err(pack_err)?;
            }
            // A file's relocatable output, linked below.
            Phase::Ptxas(_) | Phase::Lto(_) => {}
            Phase::Link(t) if t.kind == TargetKind::Ptx => {
                // Whole-program PTX names every kernel the files define.
                let mut entries = archbuild_fatbin::ptx::parse_ptx(image)
                    .map_err(pack_err)?
                    .entries;
                entries.sort();
                kernels.extend(entries.iter().cloned());
                by_arch.entry(t.arch).or_insert(entries);
                writer.add_ptx(image, t.arch).map_err(pack_err)?;
            }
            Phase::Link(t) => {
                writer.add_cubin(image, t.arch).map_err(pack_err)?;
            }
        }
    }
    crate::output::params_check::check(&module.name, &params)?;
    let declared = crate::report::signature::check(&module.name, &signatures)?;
    kernels.sort();
    kernels.dedup();
    // LTO-IR names its kernels only once linked: an `lto_XY` image is listed with the kernels of
    // its arch's PTX (the same preprocessed source), and left out of the coverage rule where
    // its arch has none.
    let target_kernels: Vec<(String, Vec<String>)> = inputs
        .targets
        .iter()
        .filter_map(|t| match (t.kind, by_arch.get(&t.arch)) {
            (TargetKind::LtoIr, None) => None,
            (_, k) => Some((t.to_string(), k.cloned().unwrap_or_default())),
        })
        .collect();
    let bytes = writer.write().map_err(pack_err)?;
    // The report describes the bytes written: read back, they must hold exactly the request.
    let written = written_targets(&bytes).map_err(pack_err)?;
    let requested: Vec<String> = inputs.targets.iter().map(Target::to_string).collect();
    if written != requested {
        return Err(Error::OutputMismatch {
            module: module.name.clone(),
            written: written.join(" "),
            requested: requested.join(" "),
        });
    }
    let stamp = Stamp {
        len: 0,
        mtime_ns: 0,
        targets: written,
        kernels,
        target_kernels,
        declared,
    };
    Ok(Some((bytes, stamp)))
}

/// Stamps the file just written (best effort: without a stamp the next build packs again).
fn remember(inputs: &Inputs, store: Option<&Store>, stamp: &Stamp) {
    let (Some(store), Some(sk)) = (store, &inputs.stamp_key) else {
        return;
    };
    if stamp.mtime_ns == 0 {
        return;
    }
    if let Ok(json) = serde_json::to_vec(stamp) {
        // A fact about this machine's output file: never shared.
        let _ = store.put_local(Ns::Pack.dir(), sk, &json);
    }
}
