//! A package's shipped fat binaries, before any toolkit is looked for (`docs/publishing.md`).
//!
//! A kernel crate's author ships `<prebuilt>/<module>.fatbin` with their build records; a
//! dependent's build takes them when they match without finding, querying or installing a
//! toolkit. For that the build resolves against a *stand-in* toolkit: the one the records
//! describe (its release and the targets it lists, so a default `all-major` list means the
//! same), which runs nothing. Under docs.rs (`DOCS_RS`) with nothing shipped, the stand-in is
//! the pinned release by archbuild's arch tables.

use std::path::Path;

use archbuild_arch::{toolkit_plain_archs, CudaVersion, Target};

use crate::cache::record::Record;
use crate::config::manifest::PackageConfig;
use crate::error::Result;
use crate::prepare::spec::Spec;
use crate::prepare::PREBUILT_VAR;
use crate::toolkit::nvcc::Toolkit;
use crate::toolkit::provision::PINNED_RELEASE;

/// The variable docs.rs sets for the builds it documents.
pub(crate) const DOCS_RS_VAR: &str = "DOCS_RS";

/// What a build tries before looking for a toolkit.
pub(crate) struct StandIn {
    pub toolkit: Toolkit,
    /// docs.rs: anything shipped is taken, an empty fat binary stands in for the rest.
    pub docs: bool,
}

/// The stand-in for this build, when its package ships fat binaries (or docs.rs builds it);
/// `None` when the build looks for its toolkit as usual: a toolkit given by the caller, CI's
/// prebuilt files, a library (its host objects need a compile), nothing shipped.
pub(crate) fn stand_in(b: &Spec) -> Result<Option<StandIn>> {
    if b.toolkit.is_some() || b.library.is_some() || b.packaged == Some(false) {
        return Ok(None);
    }
    let env = crate::prepare::environment(b);
    let docs = env.var(DOCS_RS_VAR).is_some();
    if b.prebuilt.is_some() || env.var(PREBUILT_VAR).is_some() {
        return Ok(None);
    }
    let manifest = b
        .manifest_dir
        .clone()
        .or_else(|| env.path("CARGO_MANIFEST_DIR"))
        .map(|d| d.join("Cargo.toml"))
        .filter(|m| m.is_file());
    let pkg = match &manifest {
        Some(m) => PackageConfig::from_manifest(m)?,
        None => None,
    };
    if pkg.as_ref().is_some_and(|p| p.library.is_some()) {
        return Ok(None);
    }
    let shipped = pkg
        .as_ref()
        .and_then(PackageConfig::prebuilt_dir)
        .and_then(|dir| recorded_toolkit(&dir));
    Ok(match (shipped, docs) {
        (Some(toolkit), docs) => Some(StandIn { toolkit, docs }),
        (None, true) => Some(StandIn {
            toolkit: pinned()?,
            docs: true,
        }),
        (None, false) => None,
    })
}

/// The toolkit the first record in `dir` that has package settings describes.
fn recorded_toolkit(dir: &Path) -> Option<Toolkit> {
    let mut records: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".fatbin.archbuild.json"))
        .collect();
    records.sort();
    records.iter().find_map(|r| {
        let shipped = Record::read(r).ok()?.packaged?;
        Toolkit::stand_in(&shipped.toolkit_query).ok()
    })
}

/// The pinned release as archbuild's arch tables know it.
fn pinned() -> Result<Toolkit> {
    let mut parts = PINNED_RELEASE.split('.').filter_map(|p| p.parse().ok());
    let cuda = CudaVersion::new(parts.next().unwrap_or(13), parts.next().unwrap_or(0));
    let targets: Vec<String> = toolkit_plain_archs(cuda)
        .into_iter()
        .flat_map(|a| [Target::cubin(a).to_string(), Target::ptx(a).to_string()])
        .collect();
    let (major_minor, _) = PINNED_RELEASE
        .rsplit_once('.')
        .unwrap_or((PINNED_RELEASE, ""));
    Toolkit::stand_in(&format!(
        "Cuda compilation tools, release {major_minor}, V{PINNED_RELEASE}\n{}",
        targets.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_stand_in_knows_the_pinned_release_and_runs_nothing() {
        let tk = pinned().unwrap();
        assert_eq!(tk.release(), PINNED_RELEASE);
        assert!(tk.is_stand_in());
        assert!(tk.archs().iter().any(|a| a.cc.sm() == 90));
        assert!(!tk.nvcc().exists());
    }
}
