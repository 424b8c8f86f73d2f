//! What a file holds, as `inspect` reports it: every image with its target, sizes, compression
//! and kernels, the kernel-coverage gaps per container, and the variant groups recorded beside
//! a fat binary archbuild wrote. `inspect` prints it; `build`/`compile` use its coverage check
//! on what they wrote.

use std::path::Path;

use archbuild_fatbin::{detect, read_any_with, Detail, EntryKind, FileKind, ImageRecord};
use serde::Serialize;

use archbuild_arch::{coverage_gaps, group_gaps, CoverageGap, ImageKernels};

use crate::error::CliError;
use crate::report::variant_name;

#[derive(Debug, Serialize)]
pub(crate) struct InspectReport {
    pub reason: &'static str,
    pub file: String,
    /// `fatbin`, `cubin`, `ptx` or `host-elf`.
    pub file_kind: &'static str,
    pub images: Vec<ImageJson>,
    /// Kernels missing from some images of their container (the kernels of a recorded variant
    /// group only where an image has none of them): the rule the build applies.
    pub coverage_gaps: Vec<CoverageGap>,
    /// The gaps as warning lines, grouped per container by the images they hit.
    #[serde(skip)]
    pub coverage_lines: Vec<String>,
    /// Kernel variant groups (recorded beside fat binaries archbuild wrote): per group, the
    /// kernel each image offers.
    pub variants: Vec<VariantJson>,
}

#[derive(Debug, Serialize)]
pub(crate) struct VariantJson {
    pub group: String,
    pub kernels: Vec<String>,
    /// `(target, kernel)`; the kernel is `None` when the image has no variant of the group.
    pub choices: Vec<(String, Option<String>)>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ImageJson {
    pub index: usize,
    /// `ELF`, `PTX` or `LTO-IR`.
    pub kind: &'static str,
    /// `sm_86` for ELF (and LTO-IR), `compute_86` for PTX.
    pub target: String,
    pub arch: String,
    pub variant: &'static str,
    pub ptx_isa: Option<String>,
    pub size: usize,
    pub stored_size: usize,
    pub compression: String,
    pub kernels: Vec<String>,
    pub location: String,
    /// The entry's identifier (the source nvcc compiled, with `-lineinfo`), if any.
    pub identifier: Option<String>,
    /// Which container (translation unit) of the file the image is in.
    #[serde(skip)]
    pub group: String,
}

/// Reads `bytes` into a report, decoding images only as far as `detail` asks.
pub(crate) fn inspect_with(
    path: &Path,
    bytes: &[u8],
    detail: Detail,
) -> Result<InspectReport, CliError> {
    let file_kind = match detect(bytes) {
        FileKind::Fatbin => "fatbin",
        FileKind::Cubin => "cubin",
        FileKind::Ptx => "ptx",
        FileKind::HostElf => "host-elf",
        _ => "unknown",
    };
    let records = read_any_with(bytes, detail).map_err(|source| CliError::Format {
        path: path.to_path_buf(),
        source,
    })?;
    if records.is_empty() {
        return Err(CliError::NoImages {
            path: path.to_path_buf(),
        });
    }
    let images: Vec<ImageJson> = records
        .iter()
        .enumerate()
        .map(|(i, r)| image_json(i, r))
        .collect();
    let recorded = variant_groups(path);
    let groups = recorded_groups(path);
    let mut coverage_gaps = Vec::new();
    let mut coverage_lines = Vec::new();
    // A container's images are consecutive: one pass, not a search per container (the CUDA
    // libraries hold some 16,000 containers).
    let mut start = 0;
    while start < images.len() {
        let group = &images[start].group;
        let end = start
            + images[start..]
                .iter()
                .take_while(|i| &i.group == group)
                .count();
        let members: Vec<&ImageRecord> = records[start..end].iter().collect();
        start = end;
        let gaps = gaps_of(&members, &groups);
        coverage_lines.extend(group_gaps(&gaps).iter().map(ToString::to_string));
        coverage_gaps.extend(gaps);
    }
    let variants = recorded
        .into_iter()
        .map(|g| VariantJson {
            choices: images
                .iter()
                .filter(|i| i.kind != "LTO-IR")
                .map(|i| {
                    let k = g.kernels.iter().find(|k| i.kernels.contains(k)).cloned();
                    (i.target.clone(), k)
                })
                .collect(),
            group: g.name,
            kernels: g.kernels,
        })
        .collect();
    Ok(InspectReport {
        reason: "inspect",
        file: path.display().to_string(),
        file_kind,
        images,
        coverage_gaps,
        coverage_lines,
        variants,
    })
}

/// The coverage gaps of one container's images (LTO-IR, which lists no kernels, left out),
/// by the rule the build applies ([`archbuild_arch::coverage_gaps`]).
pub(crate) fn gaps_of(
    records: &[&ImageRecord],
    groups: &[(String, Vec<String>)],
) -> Vec<CoverageGap> {
    let images: Vec<ImageKernels> = records
        .iter()
        .filter(|r| r.kind != EntryKind::LtoIr)
        .map(|r| ImageKernels {
            target: target_of(r),
            kernels: r.kernels.clone(),
        })
        .collect();
    coverage_gaps(&images, groups)
}

fn target_of(r: &ImageRecord) -> archbuild_arch::Target {
    match r.kind {
        EntryKind::Ptx => archbuild_arch::Target::ptx(r.arch),
        EntryKind::Elf => archbuild_arch::Target::cubin(r.arch),
        EntryKind::LtoIr => archbuild_arch::Target::lto(r.arch),
    }
}

fn image_json(index: usize, r: &ImageRecord) -> ImageJson {
    let group = match r.location.rfind(" entry ") {
        Some(p) => r.location[..p].to_string(),
        None => r.location.clone(),
    };
    ImageJson {
        index,
        kind: r.kind.name(),
        target: target_of(r).to_string(),
        arch: r.arch.to_string(),
        variant: variant_name(r.arch.variant),
        ptx_isa: r.ptx_isa.map(|v| v.to_string()),
        size: r.size,
        stored_size: r.stored_size,
        compression: r.compression.to_string(),
        kernels: r.kernels.clone(),
        location: r.location.clone(),
        identifier: r.identifier.clone(),
        group,
    }
}

/// The variant groups recorded beside `path`, as the coverage rule takes them.
pub(crate) fn recorded_groups(path: &Path) -> Vec<(String, Vec<String>)> {
    variant_groups(path)
        .into_iter()
        .map(|g| (g.name, g.kernels))
        .collect()
}

/// The toolkit release recorded beside a fat binary archbuild wrote (`13.5`) for each of its
/// images (`made_by`, else the record's one `toolkit`), where it reads as one: what made its
/// cubins, for their driver floor.
pub(crate) fn recorded_toolkits(
    path: &Path,
) -> Option<impl Fn(archbuild_arch::Target) -> Option<archbuild_arch::CudaVersion>> {
    let record = archbuild::record::Record::read(&archbuild::record::record_path(path)).ok()?;
    Some(move |target: archbuild_arch::Target| version(record.toolkit_of(&target.to_string())))
}

/// `13.5` of `13.5.37`.
fn version(release: &str) -> Option<archbuild_arch::CudaVersion> {
    let release = release.split_whitespace().next()?;
    let mut parts = release.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().unwrap_or("0").parse().ok()?;
    Some(archbuild_arch::CudaVersion::new(major, minor))
}

/// The kernel variant groups recorded beside a fat binary archbuild wrote
/// (`<file>.archbuild.json`); none for other files.
pub(crate) fn variant_groups(path: &Path) -> Vec<archbuild_runtime::variants::VariantGroup> {
    archbuild::record::Record::read(&archbuild::record::record_path(path))
        .map(|r| {
            r.variants
                .iter()
                .map(|(g, ks)| archbuild_runtime::variants::VariantGroup::new(g, ks))
                .collect()
        })
        .unwrap_or_default()
}
